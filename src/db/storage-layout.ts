/**
 * The key layout of the chain's database (./storage.ts, docs/architecture.md#storage) and its records' encodings.
 *
 * Layout (keys are bytes; numbers are 8-byte big-endian):
 *   'm'              JSON {format, network, chainId, genesisHash}   what the directory holds
 *   'h'              head block number
 *   'k'              the highest block whose receipts --transaction-block-keeper dropped
 *   'l'              the live state root (the head's, or the one after in-place changes such as anvil_setBalance)
 *   'b' ‖ number     the block RLP exactly as the reference node encodes it (Block.getEncoded): a byte-faithful archive
 *   'x' ‖ number     the derived record (../blocks/block-codec.ts): RLP[hash, hashForMergedMining, totalDifficulty,
 *                        [[from, contractAddress, receipt RLP, first logIndex] per tx]]
 *   'H' ‖ hash       number of the canonical block with that hash (8 bytes)
 *   'T' ‖ tx hash    where a mined transaction is: block number (8 bytes) ‖ index in the block (4 bytes)
 *   'p' ‖ number     the state root the block ran on, when not its parent's (changed in place in between: replays)
 *   'a' ‖ number     the addresses its transactions touched, for the address index (../blocks/address-index-record.ts;
 *                        blocks written before it existed have none: the index starts after them)
 *   'n' ‖ hash       Unitrie node message, or long value, under its keccak256 (rskj TrieStoreImpl's content addressing)
 */
import type { AbstractLevel } from 'abstract-level'
import { nodeKey, type PutOp } from './trie-node-stores.js'

/**
 * The database the chain is stored in: any abstract-level database with byte keys and values — `level` with
 * `--db`, or `memory-level` (`ChainStorage.memory`, ./storage.ts). (`abstract-level` is the base package of both.)
 */
export type ChainDatabase = AbstractLevel<string | Buffer | Uint8Array, Uint8Array, Uint8Array>

/** Version of the layout above; a directory with another version is refused. */
export const STORAGE_FORMAT = 2

/** What a chain directory holds (the 'm' record). */
export interface StoredMeta {
  format: number
  network: number
  chainId: number
  /** Genesis block hash, lowercase hex without 0x. */
  genesisHash: string
}

// The single-byte keys and the key prefixes of the layout above.
export const META = Uint8Array.of(0x6d) // 'm'
export const HEAD = Uint8Array.of(0x68) // 'h'
export const LIVE = Uint8Array.of(0x6c) // 'l'
export const PRUNED = Uint8Array.of(0x6b) // 'k'
export const BLOCK = 0x62 // 'b'
export const DERIVED = 0x78 // 'x' (the derived record; its prefix since format 1)
export const BY_HASH = 0x48 // 'H'
export const TX = 0x54 // 'T'
export const PRE_STATE = 0x70 // 'p'
export const ADDRESSES = 0x61 // 'a'

/** The key `prefix` ‖ `n` (8 bytes, big-endian). */
export function numberKey(prefix: number, n: bigint): Uint8Array {
  const k = new Uint8Array(9)
  k[0] = prefix
  new DataView(k.buffer).setBigUint64(1, n, false)
  return k
}

/** `n` as 8 bytes, big-endian (the head and prune-mark records, the 'H' values). */
export function u64(n: bigint): Uint8Array {
  const b = new Uint8Array(8)
  new DataView(b.buffer).setBigUint64(0, n, false)
  return b
}

/** The 8-byte big-endian number at the start of `b`. */
export function readU64(b: Uint8Array): bigint {
  return new DataView(b.buffer, b.byteOffset, b.byteLength).getBigUint64(0, false)
}

/** The key `prefix` ‖ `hash`. */
export function hashKey(prefix: number, hash: Uint8Array): Uint8Array {
  const k = new Uint8Array(1 + hash.length)
  k[0] = prefix
  k.set(hash, 1)
  return k
}

/** The 'T' value: block number ‖ index. */
function txLocationValue(number: bigint, index: number): Uint8Array {
  const v = new Uint8Array(12)
  const view = new DataView(v.buffer)
  view.setBigUint64(0, number, false)
  view.setUint32(8, index, false)
  return v
}

/**
 * The index records of a block: its hash → number and each transaction hash → (number, index).
 * @param hash the block hash
 * @param txHashes the block's transaction hashes in block order
 */
export function blockIndexOps(number: bigint, hash: Uint8Array, txHashes: readonly Uint8Array[]): PutOp[] {
  const ops: PutOp[] = [{ type: 'put', key: hashKey(BY_HASH, hash), value: u64(number) }]
  txHashes.forEach((h, i) => ops.push({ type: 'put', key: hashKey(TX, h), value: txLocationValue(number, i) }))
  return ops
}

export type { PutOp } from './trie-node-stores.js'
/** A delete in a batch (beside {@link PutOp}). */
export type DelOp = { type: 'del'; key: Uint8Array }

/** The record keys (for tests and tools). */
export const storageKeys = {
  block: (n: bigint): Uint8Array => numberKey(BLOCK, n),
  derived: (n: bigint): Uint8Array => numberKey(DERIVED, n),
  addresses: (n: bigint): Uint8Array => numberKey(ADDRESSES, n),
  node: nodeKey,
  byHash: (hash: Uint8Array): Uint8Array => hashKey(BY_HASH, hash),
  tx: (hash: Uint8Array): Uint8Array => hashKey(TX, hash),
  head: HEAD,
  live: LIVE,
  meta: META,
}
