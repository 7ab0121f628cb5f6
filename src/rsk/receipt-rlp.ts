/**
 * Transaction receipt RLP, logs bloom and the per-block tx / receipt Unitrie roots, as the
 * reference node (rskj) computes them.
 *
 * Reference sources (rskj master, paths under rskj-core/src/main/java/):
 * - org/ethereum/core/TransactionReceipt.java  getEncoded, setGasUsed/setCumulativeGas (long),
 *   setTxStatus, setStatus
 * - org/ethereum/vm/LogInfo.java               log RLP and bloom
 * - org/ethereum/core/Bloom.java + ByteUtil.setBit   2048-bit bloom
 * - co/rsk/core/bc/BlockHashesHelper.java      tx/receipt tries keyed by RLP.encodeInt(index)
 * - org/ethereum/util/RLP.java                 encodeInt / encodeElement
 *
 * Receipt = RLP[ postTxState, cumulativeGas, bloom(256 B), logs, gasUsed, status ] where
 * - postTxState: 0x01 on success, empty (0x80) on failure (setTxStatus);
 * - status: 0x01 on success, empty (0x80) on failure;
 * - cumulativeGas / gasUsed: BouncyCastle `asUnsignedByteArray(BigInteger.valueOf(gas))` — minimal
 *   big-endian, and zero → EMPTY (0x80), not 0x00 (checked against the real regtest block-1
 *   receiptsRoot 0x66cfdb73…b0f6 of a lone Remasc receipt);
 * - each log = RLP[ address(20), RLP[topic(32)…], data ].
 * Note: on RSKIP144 networks cumulativeGas is accumulated per parallel sublist, not per block;
 * callers pass whatever value the executor computed.
 */
import { RLP } from '@ethereumjs/rlp'
import { keccak256 } from '../crypto/keccak.js'
import { bytesToBigInt, heapBytes, type Allocator } from '../util/bytes.js'
import {
  rlpBytes,
  rlpElementSize,
  rlpList,
  rlpPrefixSize,
  unsignedBytes,
  writeRlpElement,
  writeRlpPrefix,
} from './rlp-encoding.js'
import { Unitrie } from '../unitrie/unitrie.js'
import { smallIndexedRoot } from './small-indexed-root.js'

/** A log entry: 20-byte address, 32-byte topics, arbitrary data. */
export interface RskLog {
  address: Uint8Array
  topics: Uint8Array[]
  data: Uint8Array
}

/** A receipt in the reference's consensus form. Gas values in gas units. */
export interface RskReceipt {
  /** true = success: postTxState and status are 0x01; false: both empty. */
  status: boolean
  cumulativeGasUsed: bigint
  gasUsed: bigint
  /** 256 bytes; defaults to the OR of the logs' blooms when omitted. */
  logsBloom?: Uint8Array
  logs: RskLog[]
}

/**
 * LogInfo.getEncoded: RLP[ address, RLP[topics…], data ].
 * @param alloc where the encodings are allocated (util/bytes tempBytes when the result is only hashed)
 */
export function encodeLog(log: RskLog, alloc: Allocator = heapBytes): Uint8Array {
  return rlpList(
    [
      rlpBytes(log.address, alloc),
      rlpList(
        log.topics.map((t) => rlpBytes(t, alloc)),
        alloc,
      ),
      rlpBytes(log.data, alloc),
    ],
    alloc,
  )
}

/** OR one keccak256(item)'s 3 bloom bits into `bloom` (Bloom.create: 11-bit indexes from byte pairs 0/1, 2/3, 4/5). */
function bloomAdd(bloom: Uint8Array, item: Uint8Array): void {
  const h = keccak256(item)
  for (let i = 0; i < 6; i += 2) {
    const bit = ((h[i]! & 7) << 8) | h[i + 1]!
    bloom[255 - (bit >> 3)]! |= 1 << (bit & 7)
  }
}

/** 256-byte bloom of a set of logs (address and every topic of each log) (LogInfo.getBloom, ORed). */
export function logsBloom(logs: readonly RskLog[]): Uint8Array {
  const bloom = new Uint8Array(256)
  for (const l of logs) {
    bloomAdd(bloom, l.address)
    for (const t of l.topics) bloomAdd(bloom, t)
  }
  return bloom
}

/**
 * OR several 256-byte blooms (block logsBloom = OR of the receipts' blooms; BlockExecutor.calculateLogsBloom).
 * Blooms are read-only values: when at most one input has a bit set, that input (or the shared
 * {@link ZERO_BLOOM}) is returned instead of a new array, so a typical block (one transaction with logs, the
 * Remasc transaction without) keeps one bloom instead of three (memory per mined block;
 * docs/architecture.md#performance-rules).
 */
export function orBlooms(blooms: readonly Uint8Array[]): Uint8Array {
  let only: Uint8Array | undefined
  let count = 0
  for (const b of blooms) {
    if (isZeroBloom(b)) continue
    only = b
    if (++count > 1) break
  }
  if (count === 0) return ZERO_BLOOM
  if (count === 1) return only!
  const out = new Uint8Array(256)
  for (const b of blooms) for (let i = 0; i < 256; i++) out[i]! |= b[i]!
  return out
}

/** The empty bloom (256 zero bytes), shared: never mutate it. */
export const ZERO_BLOOM: Uint8Array = new Uint8Array(256)

/** Whether a bloom has no bit set. */
export function isZeroBloom(b: Uint8Array): boolean {
  for (let i = 0; i < b.length; i++) if (b[i] !== 0) return false
  return true
}

/** Payload size of a log's RLP list [address, [topics…], data], and of its topics list (one call, no array). */
function logPayloadSize(l: RskLog): number {
  let topics = 0
  for (const t of l.topics) topics += rlpElementSize(t)
  return rlpElementSize(l.address) + rlpPrefixSize(topics) + topics + rlpElementSize(l.data)
}

/**
 * TransactionReceipt.getEncoded (see module doc for the field rules): the same bytes as the RLP of
 * [postTxState, cumulativeGas, bloom, [log…], gasUsed, status] item by item, written in one pass into one array
 * (sizes first; a receipt with k logs used to take ~6 + 6k intermediate arrays).
 * @param alloc where the encoding is allocated (util/bytes tempBytes when the result is only hashed)
 */
export function encodeReceipt(r: RskReceipt, alloc: Allocator = heapBytes): Uint8Array {
  const cumulative = unsignedBytes(r.cumulativeGasUsed)
  const gasUsed = unsignedBytes(r.gasUsed)
  const bloom = r.logsBloom ?? logsBloom(r.logs)
  let logs = 0
  for (const l of r.logs) {
    const n = logPayloadSize(l)
    logs += rlpPrefixSize(n) + n
  }
  // postTxState and status: 0x01 (one byte, itself) on success, 0x80 (empty) on failure
  const payload =
    2 + rlpElementSize(cumulative) + rlpElementSize(bloom) + rlpPrefixSize(logs) + logs + rlpElementSize(gasUsed)
  const out = alloc(rlpPrefixSize(payload) + payload)
  const ok = r.status ? 0x01 : 0x80
  let pos = writeRlpPrefix(out, 0, payload, 0xc0)
  out[pos++] = ok
  pos = writeRlpElement(out, pos, cumulative)
  pos = writeRlpElement(out, pos, bloom)
  pos = writeRlpPrefix(out, pos, logs, 0xc0)
  for (const l of r.logs) {
    pos = writeRlpPrefix(out, pos, logPayloadSize(l), 0xc0)
    pos = writeRlpElement(out, pos, l.address)
    let topics = 0
    for (const t of l.topics) topics += rlpElementSize(t)
    pos = writeRlpPrefix(out, pos, topics, 0xc0)
    for (const t of l.topics) pos = writeRlpElement(out, pos, t)
    pos = writeRlpElement(out, pos, l.data)
  }
  pos = writeRlpElement(out, pos, gasUsed)
  out[pos++] = ok
  if (pos !== out.length) throw new Error('encodeReceipt: internal size mismatch')
  return out
}

/**
 * Decode a receipt RLP (TransactionReceipt(byte[])). A receipt without the 6th (status) item —
 * pre-status encodings — is reported as failed per the reference (status stays empty).
 * @throws Error when `data` is not a receipt RLP
 */
export function decodeReceipt(data: Uint8Array): Required<RskReceipt> {
  return receiptFromItems(RLP.decode(data) as unknown)
}

/** Whether a decoded log item has LogInfo's shape: [address, [topics…], data], all byte strings. */
function isLogItem(x: unknown): boolean {
  return (
    Array.isArray(x) &&
    x.length === 3 &&
    x[0] instanceof Uint8Array &&
    x[2] instanceof Uint8Array &&
    Array.isArray(x[1]) &&
    (x[1] as unknown[]).every((t) => t instanceof Uint8Array)
  )
}

/**
 * Position of the logs list among a receipt RLP's items: [postTxState, cumulativeGas, bloom, logs, gasUsed,
 * status] (TransactionReceipt.getEncoded).
 */
export const RECEIPT_LOGS_ITEM = 3

/**
 * A receipt from its decoded RLP items (see {@link decodeReceipt}); its byte fields are the items themselves (views
 * when the items are, src/util/rlp-views.ts).
 * @throws Error when the items do not have the receipt shape
 */
export function receiptFromItems(decoded: unknown): Required<RskReceipt> {
  const items = decoded as Array<Uint8Array | Uint8Array[]>
  if (!Array.isArray(items) || items.length < 5) throw new Error('bad receipt RLP')
  const bytes = (x: unknown): Uint8Array => {
    if (!(x instanceof Uint8Array)) throw new Error('bad receipt RLP item')
    return x
  }
  const logsRaw = items[RECEIPT_LOGS_ITEM] as unknown as Array<[Uint8Array, Uint8Array[], Uint8Array]>
  if (!Array.isArray(logsRaw) || !logsRaw.every(isLogItem)) throw new Error('bad receipt RLP logs')
  const status = items.length > 5 ? bytes(items[5]) : new Uint8Array(0)
  return {
    status: status.length === 1 && status[0] === 1,
    cumulativeGasUsed: bytesToBigInt(bytes(items[1])),
    logsBloom: bytes(items[2]),
    logs: logsRaw.map(([address, topics, d]) => ({ address, topics, data: d })),
    gasUsed: bytesToBigInt(bytes(items[4])),
  }
}

/** RLP.encodeInt(i): the tx/receipt trie key of index i (0 → 0x80, 1 → 0x01, 200 → 0x81c8). */
export function indexKey(i: number): Uint8Array {
  if (!Number.isInteger(i) || i < 0 || i > 0xffffffff) throw new Error('bad index')
  return rlpBytes(unsignedBytes(i))
}

/** Unitrie of already-encoded items keyed by RLP.encodeInt(index) (BlockHashesHelper). */
export function indexedTrie(encodedItems: readonly Uint8Array[]): Unitrie {
  let t = Unitrie.empty()
  encodedItems.forEach((item, i) => {
    t = t.put(indexKey(i), item)
  })
  return t
}

/** receiptsRoot of a block: Unitrie root over the receipts' RLP (empty block → EMPTY_TRIE_HASH). */
export function receiptsRoot(receiptsRlp: readonly Uint8Array[]): Uint8Array {
  return smallIndexedRoot(receiptsRlp) ?? indexedTrie(receiptsRlp).hash()
}

/** transactionsRoot of a block: Unitrie root over the transactions' RLP (RSKIP126 form). */
export function transactionsRoot(txsRlp: readonly Uint8Array[]): Uint8Array {
  return smallIndexedRoot(txsRlp) ?? indexedTrie(txsRlp).hash()
}

/**
 * Node messages for rsk_getTransactionReceiptNodesByHash: the receipts trie path to index `i`,
 * leaf first, root last (BlockHashesHelper.calculateReceiptsTrieRootFor + Trie.getNodes).
 */
export function receiptNodes(receiptsRlp: readonly Uint8Array[], i: number): Uint8Array[] | undefined {
  return indexedTrie(receiptsRlp).getNodes(indexKey(i))
}
