/**
 * The compact encodings a block is kept in (docs/architecture.md#storage): the block RLP exactly as the reference
 * node encodes it (Block.getEncoded) and the "derived" RLP: what the block RLP does not hold but is derived from it
 * and its chain by hashing, signature recovery and execution (its hash, hashForMergedMining, total difficulty, and
 * per transaction its sender, created contract, receipt and first log index). Both block backends (memory and
 * level) and state files hold these two byte strings per block; decoded records ({@link BlockRecord}) exist only
 * in the block store's bounded cache; ./stored-block.ts rebuilds them.
 *
 * Also: cheap reads straight from the block RLP without decoding it (the header's logs bloom, for log queries).
 */
import { RLP } from '@ethereumjs/rlp'
import { bigIntToBytes, bytesToBigInt, tempBytes, toKey } from '../util/bytes.js'
import { listItems, rlpItem, skipItems, wholeItem, type RlpItemBounds } from '../util/rlp-views.js'
import { blockEncoding, encodeReceipt } from '../rsk/block-encoding.js'
import { rlpElementSize, rlpPrefixSize, writeRlpElement, writeRlpPrefix } from '../rsk/rlp-encoding.js'
import type { BlockRecord, HeaderFields, TxRecord } from '../types/records.js'
import { StorageCorruptError } from '../errors/storage-errors.js'

/**
 * Runs a read of stored data, reporting any failure of it as corrupt storage.
 * @param what the data read, for the message (e.g. `block 12: the stored block`)
 * @returns what `read` returns
 * @throws StorageCorruptError `<what> does not decode: <the failure's message>` (the failure as its cause), or the
 *   StorageCorruptError `read` raised itself
 */
export function readStored<T>(what: string, read: () => T): T {
  try {
    return read()
  } catch (err) {
    if (err instanceof StorageCorruptError) throw err
    throw new StorageCorruptError(`${what} does not decode: ${(err as Error).message}`, { cause: err })
  }
}

/** A block's two encodings (see the module documentation). */
export interface EncodedBlock {
  /** The block RLP as the reference encodes it. */
  rlp: Uint8Array
  /** The derived RLP ({@link blockDerived}). */
  derived: Uint8Array
}

/** Block RLPs already computed when the block was assembled (its `size`), so a mined block is encoded once. */
export const encodedBlocks = new WeakMap<BlockRecord, Uint8Array>()

/**
 * A block record over a header with its hashes and transactions (no uncles: the chain has none), its RLP kept in
 * {@link encodedBlocks} so the block store and the storage never encode it again.
 * @param b.rlp the block RLP (its length is the record's `size`, bytes); @param b.totalDifficulty the
 *   difficulty sum up to this block; `cumulativeDifficulty` is the header's difficulty (no uncles)
 */
export function blockRecord(b: {
  header: HeaderFields
  hash: Uint8Array
  /** `hash` as a hex key (util/bytes toKey) when known; else made from `hash`. */
  hashKey?: string
  hashForMergedMining: Uint8Array
  rlp: Uint8Array
  totalDifficulty: bigint
  transactions: TxRecord[]
}): BlockRecord {
  const block: BlockRecord = {
    header: b.header,
    hash: b.hash,
    hashKey: b.hashKey ?? toKey(b.hash),
    hashForMergedMining: b.hashForMergedMining,
    size: b.rlp.length,
    totalDifficulty: b.totalDifficulty,
    cumulativeDifficulty: b.header.difficulty,
    transactions: b.transactions,
    uncles: [],
  }
  encodedBlocks.set(block, b.rlp)
  return block
}

/** The block RLP of a record (reference Block.getEncoded: full header, transactions, no uncles). */
export function blockRlp(block: BlockRecord): Uint8Array {
  return (
    encodedBlocks.get(block) ??
    blockEncoding(
      block.header,
      block.transactions.map((t) => t.tx.serialize()),
    )
  )
}

/**
 * The derived RLP of a block: what the block RLP does not hold (see the module documentation). Written straight
 * into one buffer of its exact size — the same bytes as `RLP.encode([hash, hashForMergedMining, totalDifficulty,
 * [[from, contract, receipt, firstLogIndex], …]])` without its intermediate arrays (13 → 4 µs for a block with a
 * transfer, measured): each receipt RLP (src/rsk/block-encoding.ts encodeReceipt, asked for a short-lived encoding:
 * util/bytes tempBytes) is copied in.
 */
export function blockDerived(block: BlockRecord): Uint8Array {
  const noBytes = new Uint8Array(0)
  const head = [block.hash, block.hashForMergedMining, bigIntToBytes(block.totalDifficulty)]
  const entries = block.transactions.map((t) => [
    t.from,
    t.receipt.contractAddress ?? noBytes,
    encodeReceipt(t.receipt, tempBytes),
    bigIntToBytes(BigInt(t.receipt.logs[0]?.logIndex ?? 0)),
  ])
  const entrySizes = entries.map((items) => listPayloadSize(items))
  let txsPayload = 0
  for (const size of entrySizes) txsPayload += rlpPrefixSize(size) + size
  const payload = listPayloadSize(head) + rlpPrefixSize(txsPayload) + txsPayload
  const out = new Uint8Array(rlpPrefixSize(payload) + payload)
  let at = writeRlpPrefix(out, 0, payload, 0xc0)
  for (const b of head) at = writeRlpElement(out, at, b)
  at = writeRlpPrefix(out, at, txsPayload, 0xc0)
  entries.forEach((items, i) => {
    at = writeRlpPrefix(out, at, entrySizes[i]!, 0xc0)
    for (const b of items) at = writeRlpElement(out, at, b)
  })
  return out
}

/** Bytes of the RLP payload of a list of byte strings. */
function listPayloadSize(items: readonly Uint8Array[]): number {
  let n = 0
  for (const b of items) n += rlpElementSize(b)
  return n
}

/**
 * The derived RLP of a block whose receipts are dropped (`--transaction-block-keeper`): senders and created
 * contracts stay (blocks still list their transactions in full), each receipt is empty.
 * @throws Error when `derived` does not have blockDerived's shape ({@link readDerived})
 */
export function prunedBlockDerived(derived: Uint8Array): Uint8Array {
  const { hash, hashForMergedMining, totalDifficulty, txs } = readDerived(derived)
  const empty = new Uint8Array(0)
  return RLP.encode([
    hash,
    hashForMergedMining,
    totalDifficulty,
    txs.map((t) => [t.from, t.contractAddress, empty, empty]),
  ])
}

/** One transaction's entry of a derived RLP ({@link blockDerived}), read in place: byte fields are views into it. */
export interface DerivedTxEntry {
  /** The 20-byte sender. */
  from: Uint8Array
  /** The created contract (20 bytes), empty for none. */
  contractAddress: Uint8Array
  /** The receipt RLP, empty when `--transaction-block-keeper` dropped it. */
  receipt: Uint8Array
  /** The block-wide index of the receipt's first log. */
  firstLogIndex: number
}

/** A derived RLP ({@link blockDerived}) read in place: byte fields are views into it. */
export interface DerivedRecord {
  /** The block hash (32 bytes in a sound record). */
  hash: Uint8Array
  /** The hash merged-mining proofs commit to (32 bytes). */
  hashForMergedMining: Uint8Array
  /** Total difficulty, big-endian bytes. */
  totalDifficulty: Uint8Array
  txs: DerivedTxEntry[]
}

/**
 * A derived RLP read in place (views into `derived`, which is only read): the one reader of {@link blockDerived}'s
 * layout, for the stored blocks (./stored-block.ts) and their log views (./block-log-view.ts).
 * @throws Error when it does not have that shape: one list of three byte strings and a list of entries, each a
 *   list of four byte strings, every item inside its list
 */
export function readDerived(derived: Uint8Array): DerivedRecord {
  const fields = listItems(derived, wholeItem(derived))
  if (fields.length !== 4 || fields.slice(0, 3).some((f) => f.list) || !fields[3]!.list)
    throw new Error("the derived record does not have blockDerived's shape")
  const bytes = (b: RlpItemBounds): Uint8Array => derived.subarray(b.data, b.end)
  const txs = listItems(derived, fields[3]!).map((entry): DerivedTxEntry => {
    const items = entry.list ? listItems(derived, entry) : []
    if (items.length !== 4 || items.some((i) => i.list)) throw new Error("a transaction's derived entry is malformed")
    const [from, contract, receipt, logIndex] = items.map(bytes) as [Uint8Array, Uint8Array, Uint8Array, Uint8Array]
    return { from, contractAddress: contract, receipt, firstLogIndex: Number(bytesToBigInt(logIndex)) }
  })
  const [hash, hashForMergedMining, totalDifficulty] = fields.slice(0, 3).map(bytes) as [
    Uint8Array,
    Uint8Array,
    Uint8Array,
  ]
  return { hash, hashForMergedMining, totalDifficulty, txs }
}

/** Both encodings of a record. */
export function encodeBlock(block: BlockRecord): EncodedBlock {
  return { rlp: blockRlp(block), derived: blockDerived(block) }
}

/**
 * Index of the logs bloom among the header's fields (parentHash, unclesHash, coinbase, stateRoot, txRoot, receiptRoot,
 * bloom).
 */
const BLOOM_FIELD = 6

/**
 * The header's 256-byte logs bloom read in place from a block RLP, without decoding the block (a view into
 * `rlp`; do not keep it).
 * @throws StorageCorruptError when the RLP does not have the block shape
 */
export function blockLogsBloom(rlp: Uint8Array): Uint8Array {
  const block = rlpItem(rlp, 0)
  const header = rlpItem(rlp, block.data)
  const pos = skipItems(rlp, header.data, BLOOM_FIELD)
  const bloom = rlpItem(rlp, pos)
  if (bloom.end - bloom.data !== 256 || bloom.end > header.end)
    throw new StorageCorruptError('a stored block has no logs bloom')
  return rlp.subarray(bloom.data, bloom.end)
}
