/**
 * The canonical block list and its indexes (docs/architecture.md#storage): blocks by number and by hash, mined
 * transactions by hash. Blocks are held encoded by a {@link BlockBackend} (memory, or the `--db` database);
 * decoded records live only in a bounded cache of recent and recently read blocks, plus the genesis and the
 * head, which are always at hand (synchronously). Pure bookkeeping: no events, no state, no queue — the chain
 * (src/chain/chain.ts) calls the writing methods from inside its single writer.
 */
import type { Common } from '@ethereumjs/common'
import { bytesEqual } from '../util/bytes.js'
import type { BlockBackend } from './block-backend.js'
import { MemoryBlockBackend } from './memory-block-backend.js'
import { decodeLogView } from './block-log-view.js'
import { CachedTxIndex } from './cached-tx-index.js'
import { DecodedBlockCache } from './decoded-block-cache.js'
import type { HeaderDecodeRules } from '../rsk/header-decode.js'
import { blockLogsBloom, encodeBlock, type EncodedBlock } from './block-codec.js'
import { compactRecord, decodeStoredBlock } from './stored-block.js'
import type { BlockRecord, LogBlock, TxRecord } from '../types/records.js'

/**
 * Most blocks a log scan ({@link BlockStore.blocksWithBloom}, {@link BlockStore.blocksAt}) hands over at once.
 * Blocks at hand (decoded, or just read) go out in arrays rather than one async generator step each: a step is
 * promises and microtasks through two generators, which a prototype measured at 16% of a warm 1000-block
 * eth_getLogs' CPU time; the bound keeps what a batch holds small. Blocks read from the backend one by one still
 * go out one per step (the read is awaited anyway).
 */
export const LOG_BATCH = 256

/** Where a transaction sits. */
export interface TxLocation {
  block: BlockRecord
  tx: TxRecord
}

/**
 * The canonical chain: blocks `base` … head, appended one at a time, truncated only by a rewind. `base` is 0, or
 * the fork block of a fork (docs/architecture.md#forking): its first block, which this store calls the genesis;
 * the backend holds block `base + i` at its position `i`.
 */
export class BlockStore {
  /** The head's number + 1. */
  private count = 0
  private genesisBlock: BlockRecord | undefined
  private headBlock: BlockRecord | undefined
  /** The decoded blocks besides the genesis and the head (./decoded-block-cache.ts: the recent ones, some older). */
  private readonly cache = new DecodedBlockCache((n, block) =>
    this.cachedTxs?.remove(
      n,
      block.transactions.map((t) => t.hash),
    ),
  )
  /**
   * Where the cached blocks' transactions are, when the backend is not in memory (src/blocks/cached-tx-index.ts):
   * a lookup by hash then reads the database only for a block not in the cache. (The memory backend's own index
   * is as fast.)
   */
  private readonly cachedTxs: CachedTxIndex | undefined
  /** Receipts of blocks 1 … this were dropped (`--transaction-block-keeper`). */
  private prunedUpTo: bigint

  /**
   * @param backend where the encodings are kept (default: in memory)
   * @param common the chain's Common (decoding transactions)
   * @param base number of the first block (0; a fork's fork block)
   * @param headerRules a fork's header fields by block number (the remote network's,
   *   docs/reference-rules.md#rule-network-activations) for decoding stored blocks; default node-cli's own
   */
  constructor(
    private readonly common: Common,
    private readonly backend: BlockBackend = new MemoryBlockBackend(),
    readonly base = 0n,
    private readonly headerRules?: (number: bigint) => HeaderDecodeRules,
  ) {
    this.prunedUpTo = base
    this.cachedTxs = backend.indexesTxsInMemory ? undefined : new CachedTxIndex()
  }

  /**
   * The highest block whose receipts `--transaction-block-keeper` dropped (the first block — genesis or fork block
   * — when none were).
   */
  get receiptsPrunedUpTo(): bigint {
    return this.prunedUpTo
  }

  /** Number of blocks, genesis included (the head's number + 1 − base). */
  get length(): number {
    return this.count - Number(this.base)
  }

  /** The genesis block. @throws TypeError before the genesis is added */
  get genesis(): BlockRecord {
    return this.genesisBlock!
  }

  /** The canonical head block (the genesis must have been added). */
  get head(): BlockRecord {
    return this.headBlock!
  }

  /**
   * Canonical block by number, or undefined.
   * @throws StorageCorruptError when its stored encodings do not decode
   */
  async byNumber(n: bigint): Promise<BlockRecord | undefined> {
    if (n < this.base || n >= BigInt(this.count)) return undefined
    if (n === this.base) return this.genesisBlock
    const cached = this.decoded(n)
    if (cached !== undefined) return cached
    const enc = await this.backend.encoded(n - this.base)
    // a rewind may have happened while reading
    if (enc === undefined || n >= BigInt(this.count)) return undefined
    const block = decodeStoredBlock(enc.rlp, enc.derived, this.common, false, this.headerRules)
    this.cacheBlock(n, block)
    return block
  }

  /** Canonical block by 32-byte hash, or undefined. */
  async byBlockHash(hash: Uint8Array): Promise<BlockRecord | undefined> {
    if (bytesEqual(this.headBlock!.hash, hash)) return this.headBlock
    for (const n of await this.backend.numbersOfHash(hash)) {
      const block = await this.byNumber(n + this.base)
      if (block !== undefined && bytesEqual(block.hash, hash)) return block
    }
    return undefined
  }

  /** A mined transaction by 32-byte hash, or undefined. */
  async transaction(hash: Uint8Array): Promise<TxLocation | undefined> {
    if (this.cachedTxs !== undefined) {
      for (const p of this.cachedTxs.candidates(hash)) {
        const block = this.decoded(BigInt(p.number))
        const tx = block?.transactions[p.index]
        if (block !== undefined && tx !== undefined && bytesEqual(tx.hash, hash)) return { block, tx }
      }
    }
    for (const p of await this.backend.txPositions(hash)) {
      const block = await this.byNumber(p.number + this.base)
      const tx = block?.transactions[p.index]
      if (block !== undefined && tx !== undefined && bytesEqual(tx.hash, hash)) return { block, tx }
    }
    return undefined
  }

  /** The 32-byte hash of canonical block `n`, or undefined (BLOCKHASH, Remasc). */
  async hashOf(n: bigint): Promise<Uint8Array | undefined> {
    if (n < this.base || n >= BigInt(this.count)) return undefined
    if (n === this.base) return this.genesisBlock!.hash
    return this.cache.get(Number(n))?.hash ?? (await this.backend.hashOf(n - this.base))
  }

  /**
   * Adds a block on top of the head and indexes it and its transactions (the caller checked it follows).
   * @param enc its encodings when already computed (the database write made them)
   */
  add(block: BlockRecord, enc?: EncodedBlock): void {
    const n = block.header.number
    const encoded = enc ?? encodeBlock(block)
    if (n === this.base) {
      this.genesisBlock = block
    } else {
      // the head is served as built; the cache keeps the compact record over the encodings (~6 KB against ~11 KB
      // for a built block with a transfer, docs/architecture.md#storage), made with what the built record knows
      // (./stored-block.ts compactRecord: no keccak of its transactions, no receipt decoded)
      this.cacheBlock(n, compactRecord(block, encoded, this.common, this.headerRules))
    }
    this.backend.append(
      n - this.base,
      encoded,
      block.hash,
      block.transactions.map((t) => t.hash),
    )
    this.headBlock = block
    this.count = Number(n) + 1
  }

  /**
   * Adds a block on top of the head from its encodings alone (a loaded state file; the caller checked it and
   * follows with {@link add} for the last block, which becomes the head).
   * @param hash the block hash; @param txHashes its transaction hashes in block order
   */
  addEncoded(enc: EncodedBlock, hash: Uint8Array, txHashes: readonly Uint8Array[]): void {
    this.backend.append(BigInt(this.count) - this.base, enc, hash, txHashes)
    this.count++
  }

  /**
   * Continues a stored chain (`--db`): the backend already holds blocks 0 … `head`.
   * @param genesis the genesis record; @param head the decoded head (may be the genesis)
   */
  adoptStored(genesis: BlockRecord, head: BlockRecord, prunedUpTo = 0n): void {
    this.prunedUpTo = prunedUpTo
    this.genesisBlock = genesis
    this.headBlock = head
    this.count = Number(head.header.number) + 1
    this.cache.endWindowAt(this.count - 1)
  }

  /**
   * Drops the receipts of blocks up to `number` not dropped yet, oldest first (`--transaction-block-keeper`):
   * their transactions are no longer found by hash and their logs no longer listed; the blocks stay.
   */
  async pruneReceiptsUpTo(number: bigint): Promise<void> {
    for (let n = this.prunedUpTo + 1n; n <= number && n < BigInt(this.count - 1); n++) {
      const block = await this.byNumber(n)
      if (block === undefined) break
      await this.backend.pruneReceipts(
        n - this.base,
        block.transactions.map((t) => t.hash),
      )
      this.cache.delete(Number(n))
      this.prunedUpTo = n
    }
  }

  /** The decoded blocks above `number`, lowest first (before a rewind, for the removed-logs notifications). */
  async recordsAbove(number: bigint): Promise<BlockRecord[]> {
    const removed: BlockRecord[] = []
    for (let n = number + 1n; n < BigInt(this.count); n++) {
      const b = await this.byNumber(n)
      if (b !== undefined) removed.push(b)
    }
    return removed
  }

  /** Removes the blocks above `number` from the list, the indexes and the cache. */
  async truncateAbove(number: bigint): Promise<void> {
    if (number >= BigInt(this.count - 1)) return
    this.cache.truncateAbove(Number(number))
    this.backend.truncateAbove(number - this.base)
    this.count = Number(number) + 1
    if (this.prunedUpTo > number) this.prunedUpTo = number
    this.headBlock =
      number === this.base ? this.genesisBlock : (this.cache.get(Number(number)) ?? (await this.decodeAt(number)))
  }

  /**
   * The logs of blocks `from` … `to` (clamped to the head) whose header bloom passes `mayMatch`, in order, in
   * batches (see {@link LOG_BATCH}). A block in the decoded cache (the recent ones, which log polls mostly ask for)
   * is given as it is, its bloom read from the record, without touching the backend; each run of other blocks is
   * read with one range read of the backend (one iterator with `--db`), their blooms read from the encoded headers,
   * so blocks ruled out are never decoded, and any other block given as a log view of its encodings
   * (src/blocks/block-log-view.ts), in which receipts whose bloom `receiptMayMatch` rules out are not decoded
   * (their logs read as empty). The scan does not change the cache's recency order.
   */
  async *blocksWithBloom(
    from: bigint,
    to: bigint,
    mayMatch: (bloom: Uint8Array) => boolean,
    receiptMayMatch?: (bloom: Uint8Array) => boolean,
  ): AsyncGenerator<LogBlock[]> {
    const last = to < BigInt(this.count - 1) ? to : BigInt(this.count - 1)
    const base = this.base
    let batch: LogBlock[] = []
    if (from <= base) {
      if (last >= base && mayMatch(this.genesisBlock!.header.logsBloom)) batch.push(this.genesisBlock!)
      from = base + 1n
    }
    for (let n = from; n <= last;) {
      const known = this.decoded(n, true)
      if (known !== undefined) {
        if (mayMatch(known.header.logsBloom)) batch.push(known)
        if (batch.length >= LOG_BATCH) {
          yield batch
          batch = []
        }
        n++
        continue
      }
      let end = n
      while (end < last && this.decoded(end + 1n, true) === undefined) end++
      // (each block of a range read is its own await: what was gathered goes first)
      if (batch.length > 0) {
        yield batch
        batch = []
      }
      for await (const { number, rlp, derived } of this.backend.encodedRange(n - base, end - base)) {
        if (!mayMatch(blockLogsBloom(rlp))) continue
        yield [this.decoded(number + base, true) ?? decodeLogView(number + base, rlp, derived, receiptMayMatch)]
      }
      n = end + 1n
    }
    if (batch.length > 0) yield batch
  }

  /**
   * The blocks numbered `numbers` (ascending; numbers above the head are skipped) for a log query, in batches (see
   * {@link LOG_BATCH}), each as {@link blocksWithBloom} gives it: a decoded block as it is, any other as a log view
   * of its encodings whose receipts `receiptMayMatch` rules out are not decoded. The cache's recency order is not
   * changed.
   */
  async *blocksAt(
    numbers: readonly number[],
    receiptMayMatch?: (bloom: Uint8Array) => boolean,
  ): AsyncGenerator<LogBlock[]> {
    const head = this.count - 1
    const base = Number(this.base)
    let batch: LogBlock[] = []
    for (let i = 0; i < numbers.length; i++) {
      const number = numbers[i]!
      if (number > head || number < base) continue
      const n = BigInt(number)
      let block: LogBlock | undefined = n === this.base ? this.genesisBlock! : this.decoded(n, true)
      if (block === undefined) {
        // the backend read is awaited (the head may move meanwhile): what was gathered goes first
        if (batch.length > 0) {
          yield batch
          batch = []
        }
        const enc = await this.backend.encoded(n - this.base)
        if (enc === undefined) continue
        block = decodeLogView(n, enc.rlp, enc.derived, receiptMayMatch)
      }
      batch.push(block)
      if (batch.length >= LOG_BATCH) {
        yield batch
        batch = []
      }
    }
    if (batch.length > 0) yield batch
  }

  /** The encodings of blocks 1 … head (copies; for state dumps). */
  async encodedAfterGenesis(): Promise<EncodedBlock[]> {
    const out: EncodedBlock[] = []
    for (let n = 1n; n < BigInt(this.count) - this.base; n++) {
      const enc = await this.backend.encoded(n)
      if (enc === undefined) throw new Error(`block ${n} is missing from the backend`)
      out.push(enc)
    }
    return out
  }

  private async decodeAt(n: bigint): Promise<BlockRecord> {
    const enc = await this.backend.encoded(n - this.base)
    if (enc === undefined) throw new Error(`block ${n} is missing from the backend`)
    const block = decodeStoredBlock(enc.rlp, enc.derived, this.common, false, this.headerRules)
    this.cacheBlock(n, block)
    return block
  }

  /**
   * Block `n` (above the genesis) if it is decoded: the head as built — its transaction objects exist already —
   * rather than the compact copy the cache holds of it ({@link add}), else the cache's record, or undefined.
   * @param peek leave the cache's recency order as it is (log scans)
   */
  private decoded(n: bigint, peek = false): BlockRecord | undefined {
    const head = this.headBlock!
    if (n === head.header.number) return head
    return peek ? this.cache.peek(Number(n)) : this.cache.get(Number(n))
  }

  /** Puts block `n` into the decoded cache and indexes its transactions unless their receipts were dropped. */
  private cacheBlock(n: bigint, block: BlockRecord): void {
    this.cache.set(Number(n), block)
    if (this.cachedTxs !== undefined && n > this.prunedUpTo)
      this.cachedTxs.add(
        Number(n),
        block.transactions.map((t) => t.hash),
      )
  }
}
