/**
 * Bitcoin serialization (bitcoinj's, as the reference node uses it): the coinbase transaction and the 80-byte
 * header a merged miner builds, and parsing the transactions and blocks a merged miner submits.
 *
 * Byte orders: bitcoinj keeps hashes in "display" order (`getBytes()`, the reverse of the double
 * SHA-256 output); the serialized header and transactions carry the internal (unreversed) order.
 */
import { concat } from '../../util/bytes.js'
import { reversed, sha256d } from './bitcoin-sha256.js'

// ---------------------------------------------------------------------------------------------
// Bitcoin serialization
// ---------------------------------------------------------------------------------------------

/** Bitcoin CompactSize. */
function varInt(n: number): Uint8Array {
  if (n < 0xfd) return Uint8Array.of(n)
  if (n <= 0xffff) return Uint8Array.of(0xfd, n & 0xff, n >> 8)
  const b = new Uint8Array(5)
  b[0] = 0xfe
  new DataView(b.buffer).setUint32(1, n, true)
  return b
}

function u32le(n: number): Uint8Array {
  const b = new Uint8Array(4)
  new DataView(b.buffer).setUint32(0, n >>> 0, true)
  return b
}

function u64le(n: bigint): Uint8Array {
  const b = new Uint8Array(8)
  new DataView(b.buffer).setBigUint64(0, n, true)
  return b
}

/** A transaction output. */
export interface BtcOutput {
  /** Satoshis. */
  value: bigint
  script: Uint8Array
}

/**
 * A coinbase transaction as MinerUtils.getBitcoinCoinbaseTransaction builds it: version 1, one input
 * spending the null outpoint with an empty scriptSig and sequence 0xffffffff, the given outputs,
 * lock time 0 (legacy serialization).
 */
export function serializeCoinbase(outputs: readonly BtcOutput[]): Uint8Array {
  const parts: Uint8Array[] = [u32le(1), varInt(1), new Uint8Array(32), u32le(0xffffffff), varInt(0), u32le(0xffffffff)]
  parts.push(varInt(outputs.length))
  for (const o of outputs) parts.push(u64le(o.value), varInt(o.script.length), o.script)
  parts.push(u32le(0))
  return concat(...parts)
}

/** Fields of an 80-byte Bitcoin header (hashes in internal order). */
export interface BtcHeaderFields {
  version: number
  prevBlockHash: Uint8Array
  merkleRoot: Uint8Array
  time: number
  bits: number
  nonce: number
}

/** The 80-byte Bitcoin header. */
export function serializeBtcHeader(h: BtcHeaderFields): Uint8Array {
  return concat(u32le(h.version), h.prevBlockHash, h.merkleRoot, u32le(h.time), u32le(h.bits), u32le(h.nonce))
}

/** Parses an 80-byte Bitcoin header. */
export function parseBtcHeader(b: Uint8Array): BtcHeaderFields {
  if (b.length < 80) throw new Error('a Bitcoin header has 80 bytes')
  const dv = new DataView(b.buffer, b.byteOffset, 80)
  return {
    version: dv.getUint32(0, true),
    prevBlockHash: b.slice(4, 36),
    merkleRoot: b.slice(36, 68),
    time: dv.getUint32(68, true),
    bits: dv.getUint32(72, true),
    nonce: dv.getUint32(76, true),
  }
}

/** A Bitcoin block header's hash in display order (bitcoinj `getHash().getBytes()`). */
export function btcHeaderHash(header80: Uint8Array): Uint8Array {
  return reversed(sha256d(header80.subarray(0, 80)))
}

// ---------------------------------------------------------------------------------------------
// Parsing submitted Bitcoin data
// ---------------------------------------------------------------------------------------------

class Reader {
  off = 0
  constructor(readonly b: Uint8Array) {}
  take(n: number): Uint8Array {
    if (this.off + n > this.b.length) throw new Error('truncated Bitcoin data')
    const s = this.b.subarray(this.off, this.off + n)
    this.off += n
    return s
  }
  u8(): number {
    return this.take(1)[0]!
  }
  varInt(): number {
    const f = this.u8()
    if (f < 0xfd) return f
    const dv = (n: number) => new DataView(this.b.buffer, this.b.byteOffset + this.off - n, n)
    if (f === 0xfd) {
      this.take(2)
      return dv(2).getUint16(0, true)
    }
    if (f === 0xfe) {
      this.take(4)
      return dv(4).getUint32(0, true)
    }
    this.take(8)
    const v = dv(8).getBigUint64(0, true)
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error('varint too large')
    return Number(v)
  }
}

/**
 * Reads one transaction; returns its legacy (witness-free) serialization, which is what its id and
 * the compressed coinbase commit to.
 */
function readTransaction(r: Reader): Uint8Array {
  const start = r.off
  const version = r.take(4)
  let segwit = false
  if (r.b[r.off] === 0x00 && r.b[r.off + 1] === 0x01) {
    segwit = true
    r.take(2)
  }
  const bodyStart = r.off
  const nIn = r.varInt()
  for (let i = 0; i < nIn; i++) {
    r.take(36)
    r.take(r.varInt())
    r.take(4)
  }
  const nOut = r.varInt()
  for (let i = 0; i < nOut; i++) {
    r.take(8)
    r.take(r.varInt())
  }
  const bodyEnd = r.off
  if (segwit) {
    for (let i = 0; i < nIn; i++) {
      const items = r.varInt()
      for (let j = 0; j < items; j++) r.take(r.varInt())
    }
  }
  const lockTime = r.take(4)
  if (!segwit) return Uint8Array.from(r.b.subarray(start, r.off))
  return concat(version, r.b.subarray(bodyStart, bodyEnd), lockTime)
}

/** Parses a serialized Bitcoin transaction (legacy or segwit) into its legacy serialization. */
export function parseBtcTransaction(b: Uint8Array): Uint8Array {
  const r = new Reader(b)
  const tx = readTransaction(r)
  if (r.off !== b.length) throw new Error('trailing bytes after the Bitcoin transaction')
  return tx
}

/** A parsed Bitcoin block: header and transactions (legacy serializations). */
export interface BtcBlock {
  header: Uint8Array
  transactions: Uint8Array[]
}

/** Parses a serialized Bitcoin block (header only is accepted too: then it has no transactions). */
export function parseBtcBlock(b: Uint8Array): BtcBlock {
  if (b.length < 80) throw new Error('a Bitcoin block starts with an 80-byte header')
  const header = Uint8Array.from(b.subarray(0, 80))
  if (b.length === 80) return { header, transactions: [] }
  const r = new Reader(b)
  r.take(80)
  const n = r.varInt()
  const transactions: Uint8Array[] = []
  for (let i = 0; i < n; i++) transactions.push(readTransaction(r))
  return { header, transactions }
}
