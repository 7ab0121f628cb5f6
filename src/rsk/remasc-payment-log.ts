/**
 * The pieces of the Remasc payment logs and balances that src/rsk/remasc.ts builds every block (RemascFeesPayer: a log
 * [MINING_FEE_TOPIC, payee] with data RLP[blockHash, value] per payment; RemascStorageProvider: balances as minimal
 * big-endian bytes), made without intermediate arrays or hex strings, and the payee topics shared from block to block.
 */
import { bytesEqual, padLeft } from '../util/bytes.js'

/** The largest chunk of bytes a JS number holds exactly (6 bytes = 48 bits). */
const CHUNK_BYTES = 6
const CHUNK_BITS = 48n
const CHUNK_MASK = (1n << CHUNK_BITS) - 1n

/** A storage cell's minimal big-endian bytes as an integer (empty → 0), 6 bytes at a time (no hex string). */
export function bytesToBig(b: Uint8Array): bigint {
  let v = 0n
  let i = 0
  // the leading chunk takes the odd bytes, so every later one is a whole 6 bytes
  let take = b.length % CHUNK_BYTES || CHUNK_BYTES
  while (i < b.length) {
    let chunk = 0
    for (const end = i + take; i < end; i++) chunk = chunk * 256 + b[i]!
    v = (v << CHUNK_BITS) | BigInt(chunk)
    take = CHUNK_BYTES
  }
  return v
}

/** Bytes of `value`'s minimal big-endian form (0 → 0; RLP.encodeCoin / BigIntegers.asUnsignedByteArray). */
function byteLength(value: bigint): number {
  let n = 0
  while (value > CHUNK_MASK) {
    value >>= CHUNK_BITS
    n += CHUNK_BYTES
  }
  for (let m = Number(value); m > 0; m = Math.floor(m / 256)) n++
  return n
}

/** Writes `value` big-endian into `out[pos, pos + length)`. */
function writeBig(out: Uint8Array, pos: number, length: number, value: bigint): void {
  for (let i = pos + length - 1; i >= pos;) {
    let chunk = Number(value & CHUNK_MASK)
    value >>= CHUNK_BITS
    for (let k = 0; k < CHUNK_BYTES && i >= pos; k++, i--) {
      out[i] = chunk % 256
      chunk = Math.floor(chunk / 256)
    }
  }
}

/**
 * Minimal big-endian bytes of a non-negative integer; 0 → empty (src/rsk/rlp-encoding.ts `unsignedBytes`, without
 * its hex string for values over 6 bytes: Remasc's balances in wei usually are).
 * @throws Error for a negative value
 */
export function bigToBytes(value: bigint): Uint8Array {
  if (value < 0n) throw new Error('bigToBytes: negative value')
  const out = new Uint8Array(byteLength(value))
  writeBig(out, 0, out.length, value)
  return out
}

/**
 * RemascFeesPayer log data: RLP[ RLP(blockHash), RLP.encodeCoin(value) ], written into one array (the same bytes as
 * rlpList([rlpBytes(blockHash), rlpBytes(unsignedBytes(value))])).
 * @param blockHash the 32-byte hash of the block whose fees are paid
 * @param value the payment in wei (non-negative)
 */
export function paymentData(blockHash: Uint8Array, value: bigint): Uint8Array {
  if (blockHash.length !== 32 || value < 0n) throw new Error('paymentData: a 32-byte hash and a non-negative value')
  const length = byteLength(value)
  // RLP.encodeElement: empty → 0x80; a single byte below 0x80 is itself; else 0x80 + length ‖ bytes (length ≤ 55)
  const single = length === 1 && value < 0x80n
  const valueSize = single || length === 0 ? 1 : 1 + length
  if (length > 55) throw new Error('paymentData: value too large')
  const payload = 33 + valueSize
  const prefix = payload < 56 ? 1 : 2
  const out = new Uint8Array(prefix + payload)
  let pos = 0
  if (prefix === 1) out[pos++] = 0xc0 + payload
  else {
    out[pos++] = 0xf8
    out[pos++] = payload
  }
  out[pos++] = 0xa0
  out.set(blockHash, pos)
  pos += 32
  if (length === 0) out[pos] = 0x80
  else if (single) out[pos] = Number(value)
  else {
    out[pos++] = 0x80 + length
    writeBig(out, pos, length, value)
  }
  return out
}

/** Payee topics (the payee's address left-padded to 32 bytes) of recent payees, most recent last. */
const payeeTopics: Array<{ address: Uint8Array; topic: Uint8Array }> = []
/** How many payee topics are kept: RSK Labs, the federators (15 on network 30) and a few coinbases. */
const PAYEE_TOPICS_KEPT = 32

/**
 * The payment log topic of a payee: padLeft(address, 32). The same array for the same payee from block to block
 * (the payees — RSK Labs, the federation, the miners — repeat every block): one array less per payment kept with
 * every receipt, and the receipts' blooms can be looked up by topic identity (src/execution/block-application.ts).
 * Log topics are read-only values; the few kept depend on the address bytes alone (a copy of them is kept).
 */
export function payeeTopic(address: Uint8Array): Uint8Array {
  for (let i = payeeTopics.length - 1; i >= 0; i--) {
    const e = payeeTopics[i]!
    if (bytesEqual(e.address, address)) return e.topic
  }
  const topic = padLeft(address, 32)
  if (payeeTopics.length === PAYEE_TOPICS_KEPT) payeeTopics.shift()
  payeeTopics.push({ address: Uint8Array.from(address), topic })
  return topic
}
