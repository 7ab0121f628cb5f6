/**
 * Where the encoded blocks live (docs/architecture.md#storage): one interface, two archives.
 * - {@link MemoryBlockArchive} (no `--db`): the encodings, zero runs packed ({@link packZeros}), back to back
 *   in large byte chunks; the block hashes in one flat byte array; the hash and transaction indexes as maps from
 *   a 31-bit hash prefix to block numbers — about 1 KB per block with a transfer, no object graph per block.
 * - {@link LevelBlockArchive} (`--db`): reads the records the chain's database holds (src/chain/storage.ts); the
 *   chain's per-block batch wrote them, so appending is bookkeeping only and memory stays flat.
 * Decoded blocks are cached by the block store (src/chain/block-store.ts), not here.
 */
import { RLP } from '@ethereumjs/rlp'
import { keccak256 } from '../crypto/keccak.js'
import { prunedBlockExtra, type EncodedBlock } from './block-codec.js'
import type { ChainStorage } from './storage.js'

/** Where a transaction is: its block's number and its index in the block. */
export interface TxPosition {
  number: bigint
  index: number
}

/** A store of encoded canonical blocks 0 … top with hash and transaction indexes. */
export interface BlockArchive {
  /**
   * Records block `number` (one above the current top).
   * @param hash its 32-byte hash; @param txHashes its transaction hashes in block order
   */
  append(number: bigint, enc: EncodedBlock, hash: Uint8Array, txHashes: readonly Uint8Array[]): void
  /** The encodings of block `number` (bytes the caller owns), or undefined. */
  encoded(number: bigint): Promise<EncodedBlock | undefined>
  /** The 32-byte hash of block `number` (the caller owns it), or undefined when it is not held. */
  hashOf(number: bigint): Promise<Uint8Array | undefined>
  /** Numbers of blocks whose hash may be `hash` (the caller checks), lowest first. */
  numbersOfHash(hash: Uint8Array): Promise<bigint[]>
  /** Positions where a transaction with hash `hash` may be (the caller checks). */
  txPositions(hash: Uint8Array): Promise<TxPosition[]>
  /** Forgets the blocks above `number` (the level archive's records are deleted by the chain's rewind batch). */
  truncateAbove(number: bigint): void
  /**
   * Drops the receipts of block `number` and its transactions from the transaction index
   * (`--transaction-block-keeper`); the block itself (header, transactions, senders) stays.
   * @param txHashes its transaction hashes
   */
  pruneReceipts(number: bigint, txHashes: readonly Uint8Array[]): Promise<void>
  /** The encodings of blocks `from` … `to` in order (bytes the caller owns). */
  encodedRange(from: bigint, to: bigint): AsyncIterable<{ number: bigint } & EncodedBlock>
}

/** The 31-bit prefix of a hash used as a map key (a small integer: no string per entry). */
function prefixKey(h: Uint8Array): number {
  return ((h[0]! << 23) | (h[1]! << 15) | (h[2]! << 7) | (h[3]! >>> 1)) >>> 0
}

/** Adds `value` under `key` in a multimap whose single values are stored unwrapped. */
function multiAdd(map: Map<number, number | number[]>, key: number, value: number): void {
  const cur = map.get(key)
  if (cur === undefined) map.set(key, value)
  else if (typeof cur === 'number') map.set(key, [cur, value])
  else cur.push(value)
}

function multiDelete(map: Map<number, number | number[]>, key: number, value: number): void {
  const cur = map.get(key)
  if (cur === undefined) return
  if (typeof cur === 'number') {
    if (cur === value) map.delete(key)
    return
  }
  const rest = cur.filter((v) => v !== value)
  if (rest.length === 0) map.delete(key)
  else map.set(key, rest.length === 1 ? rest[0]! : rest)
}

function multiGet(map: Map<number, number | number[]>, key: number): readonly number[] {
  const cur = map.get(key)
  return cur === undefined ? [] : typeof cur === 'number' ? [cur] : cur
}

/** A transaction position packed in one number: block number × 2^20 + index (a block holds far fewer than 2^20 txs). */
const TX_INDEX_SPAN = 2 ** 20

/** Size of a byte chunk of the memory archive. */
const CHUNK_BYTES = 1 << 20

/** Transaction hashes of a block RLP (keccak256 of each transaction's RLP). */
function txHashesOf(rlp: Uint8Array): Uint8Array[] {
  const [, txs] = RLP.decode(rlp) as unknown as [unknown, Uint8Array[]]
  return txs.map((t) => keccak256(RLP.encode(t)))
}

/**
 * Zero-run packing: a zero byte followed by a count (1-255) stands for that many zeros; other bytes are
 * themselves. Blooms, padded topics and leading-zero fields make a third to a half of a block's encodings zeros.
 * @returns the number of bytes written to `out` at `at` (at most `src.length` + 1 per 255 zeros)
 */
export function packZeros(src: Uint8Array, out: Uint8Array, at: number): number {
  let o = at
  for (let i = 0; i < src.length;) {
    const b = src[i]!
    if (b !== 0) {
      out[o++] = b
      i++
      continue
    }
    let run = 1
    while (run < 255 && i + run < src.length && src[i + run] === 0) run++
    out[o++] = 0
    out[o++] = run
    i += run
  }
  return o - at
}

/**
 * Reverses {@link packZeros}.
 * @param length the unpacked length
 */
export function unpackZeros(packed: Uint8Array, length: number): Uint8Array {
  const out = new Uint8Array(length)
  let o = 0
  for (let i = 0; i < packed.length;) {
    const b = packed[i++]!
    if (b !== 0) out[o++] = b
    else o += packed[i++]!
  }
  return out
}

/** Fields per block in {@link MemoryBlockArchive}'s slot table. */
const SLOT = 6

/** The in-memory archive (see the module documentation). */
export class MemoryBlockArchive implements BlockArchive {
  private readonly chunks: Uint8Array[] = []
  /** Write position in the last chunk. */
  private used = 0
  /** Per block: chunk index, offset, packed RLP length, packed extra length, RLP length, extra length. */
  private slots = new Uint32Array(SLOT * 1024)
  private hashes = new Uint8Array(32 * 1024)
  private count = 0
  private readonly byHash = new Map<number, number | number[]>()
  private readonly byTx = new Map<number, number | number[]>()

  /** Number of blocks held. */
  get length(): number {
    return this.count
  }

  append(number: bigint, enc: EncodedBlock, hash: Uint8Array, txHashes: readonly Uint8Array[]): void {
    const n = Number(number)
    if (n !== this.count) throw new Error(`block ${number} does not follow block ${this.count - 1}`)
    // packed size is at most the size plus one byte per 255 zeros
    const bound = enc.rlp.length + enc.extra.length + Math.ceil((enc.rlp.length + enc.extra.length) / 255) + 2
    let chunk = this.chunks[this.chunks.length - 1]
    if (chunk === undefined || this.used + bound > chunk.length) {
      chunk = new Uint8Array(Math.max(CHUNK_BYTES, bound))
      this.chunks.push(chunk)
      this.used = 0
    }
    const rlpPacked = packZeros(enc.rlp, chunk, this.used)
    const extraPacked = packZeros(enc.extra, chunk, this.used + rlpPacked)
    if ((n + 1) * SLOT > this.slots.length) this.slots = grow(this.slots)
    if ((n + 1) * 32 > this.hashes.length) this.hashes = grow(this.hashes)
    this.slots.set(
      [this.chunks.length - 1, this.used, rlpPacked, extraPacked, enc.rlp.length, enc.extra.length],
      n * SLOT,
    )
    this.hashes.set(hash, n * 32)
    this.used += rlpPacked + extraPacked
    this.count++
    multiAdd(this.byHash, prefixKey(hash), n)
    txHashes.forEach((h, i) => multiAdd(this.byTx, prefixKey(h), n * TX_INDEX_SPAN + i))
  }

  encoded(number: bigint): Promise<EncodedBlock | undefined> {
    return Promise.resolve(this.encodedNow(number))
  }

  /** {@link encoded}, synchronously. */
  encodedNow(number: bigint): EncodedBlock | undefined {
    const n = Number(number)
    if (!(n >= 0 && n < this.count)) return undefined
    const s = this.slots
    const chunk = this.chunks[s[n * SLOT]!]!
    const off = s[n * SLOT + 1]!
    const rlpEnd = off + s[n * SLOT + 2]!
    return {
      rlp: unpackZeros(chunk.subarray(off, rlpEnd), s[n * SLOT + 4]!),
      extra: unpackZeros(chunk.subarray(rlpEnd, rlpEnd + s[n * SLOT + 3]!), s[n * SLOT + 5]!),
    }
  }

  numbersOfHash(hash: Uint8Array): Promise<bigint[]> {
    const out: bigint[] = []
    for (const n of multiGet(this.byHash, prefixKey(hash))) {
      if (Buffer.compare(this.hashes.subarray(n * 32, n * 32 + 32), hash) === 0) out.push(BigInt(n))
    }
    return Promise.resolve(out)
  }

  txPositions(hash: Uint8Array): Promise<TxPosition[]> {
    return Promise.resolve(
      multiGet(this.byTx, prefixKey(hash)).map((p) => ({
        number: BigInt(Math.floor(p / TX_INDEX_SPAN)),
        index: p % TX_INDEX_SPAN,
      })),
    )
  }

  hashOf(number: bigint): Promise<Uint8Array | undefined> {
    const n = Number(number)
    return Promise.resolve(n >= 0 && n < this.count ? this.hashes.slice(n * 32, n * 32 + 32) : undefined)
  }

  pruneReceipts(number: bigint, txHashes: readonly Uint8Array[]): Promise<void> {
    const n = Number(number)
    const enc = this.encodedNow(number)
    if (enc === undefined) return Promise.resolve()
    txHashes.forEach((h, i) => multiDelete(this.byTx, prefixKey(h), n * TX_INDEX_SPAN + i))
    const extra = prunedBlockExtra(enc.extra)
    // in place: the pruned extra is never longer than the one it replaces
    const s = this.slots
    const chunk = this.chunks[s[n * SLOT]!]!
    const at = s[n * SLOT + 1]! + s[n * SLOT + 2]!
    const packed = packZeros(extra, chunk, at)
    s[n * SLOT + 3] = packed
    s[n * SLOT + 5] = extra.length
    this.compactChunkOf(n)
    return Promise.resolve()
  }

  /**
   * Once the last block of a chunk (not the one being written) is pruned, copies the chunk's blocks into a
   * buffer of their exact size, so the space pruning freed is given back.
   */
  private compactChunkOf(n: number): void {
    const s = this.slots
    const index = s[n * SLOT]!
    if (index === this.chunks.length - 1) return
    const next = n + 1
    if (next < this.count && s[next * SLOT] === index) return
    let first = n
    while (first > 0 && s[(first - 1) * SLOT] === index) first--
    let size = 0
    for (let b = first; b <= n; b++) size += s[b * SLOT + 2]! + s[b * SLOT + 3]!
    const old = this.chunks[index]!
    const compact = new Uint8Array(size)
    let at = 0
    for (let b = first; b <= n; b++) {
      const off = s[b * SLOT + 1]!
      const len = s[b * SLOT + 2]! + s[b * SLOT + 3]!
      compact.set(old.subarray(off, off + len), at)
      s[b * SLOT + 1] = at
      at += len
    }
    this.chunks[index] = compact
  }

  truncateAbove(number: bigint): void {
    const keep = Number(number) + 1
    if (keep >= this.count) return
    for (let n = this.count - 1; n >= keep; n--) {
      multiDelete(this.byHash, prefixKey(this.hashes.subarray(n * 32, n * 32 + 32)), n)
      txHashesOf(this.encodedNow(BigInt(n))!.rlp).forEach((h, i) =>
        multiDelete(this.byTx, prefixKey(h), n * TX_INDEX_SPAN + i),
      )
    }
    this.count = keep
    // reuse the space after the last kept block (readers get unpacked copies, never views)
    const s = this.slots
    const last = (keep - 1) * SLOT
    this.chunks.length = s[last]! + 1
    this.used = s[last + 1]! + s[last + 2]! + s[last + 3]!
  }

  async *encodedRange(from: bigint, to: bigint): AsyncGenerator<{ number: bigint } & EncodedBlock> {
    for (let n = from; n <= to && n < BigInt(this.count); n++) {
      const i = Number(n) * SLOT
      const s = this.slots
      const chunk = this.chunks[s[i]!]!
      const rlpEnd = s[i + 1]! + s[i + 2]!
      let extra: Uint8Array | undefined
      // log scans read every header's bloom but few extras: the extra is unpacked only when asked
      yield {
        number: n,
        rlp: unpackZeros(chunk.subarray(s[i + 1]!, rlpEnd), s[i + 4]!),
        get extra(): Uint8Array {
          extra ??= unpackZeros(chunk.subarray(rlpEnd, rlpEnd + s[i + 3]!), s[i + 5]!)
          return extra
        },
      }
    }
  }
}

function grow<T extends Uint8Array | Uint32Array>(a: T): T {
  const bigger = new (a.constructor as new (n: number) => T)(a.length * 2)
  bigger.set(a)
  return bigger
}

/** The `--db` archive: the chain database's block and index records (src/chain/storage.ts). */
export class LevelBlockArchive implements BlockArchive {
  constructor(private readonly storage: ChainStorage) {}

  append(): void {
    // written by the chain's batch (ChainStorage.writeBlock) before the block is appended
  }

  encoded(number: bigint): Promise<EncodedBlock | undefined> {
    return this.storage.encoded(number)
  }

  async hashOf(number: bigint): Promise<Uint8Array | undefined> {
    // the first field of the extra record: no block decode
    const enc = await this.storage.encoded(number)
    return enc && (RLP.decode(enc.extra) as unknown as Uint8Array[])[0]
  }

  async numbersOfHash(hash: Uint8Array): Promise<bigint[]> {
    const n = await this.storage.numberOfHash(hash)
    return n === undefined ? [] : [n]
  }

  async txPositions(hash: Uint8Array): Promise<TxPosition[]> {
    const p = await this.storage.txLocation(hash)
    return p === undefined ? [] : [p]
  }

  truncateAbove(): void {
    // deleted by the chain's rewind batch (ChainStorage.rewind)
  }

  async pruneReceipts(number: bigint, txHashes: readonly Uint8Array[]): Promise<void> {
    const enc = await this.storage.encoded(number)
    if (enc !== undefined) await this.storage.pruneReceipts(number, prunedBlockExtra(enc.extra), txHashes)
  }

  encodedRange(from: bigint, to: bigint): AsyncIterable<{ number: bigint } & EncodedBlock> {
    return this.storage.encodedRange(from, to)
  }
}
