/**
 * SHA-256 as Bitcoin merged mining needs it: one-shot, double (Bitcoin's hash), and resumable from a midstate (the
 * state after whole 64-byte blocks, which the compressed coinbase of an RSK header carries; see
 * src/rsk/merged-mining/merged-mining-coinbase.ts).
 */
import crypto, { createHash } from 'node:crypto'

const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
  0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
  0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
  0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
  0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
  0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
  0xc67178f2,
])
const SHA256_IV = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]

function rotr(x: number, n: number): number {
  return (x >>> n) | (x << (32 - n))
}

/** The message schedule of {@link compress} (scratch: compress runs to completion before any other call). */
const W = new Uint32Array(64)

/** One SHA-256 compression of the 64-byte block at `data[off..off+64]` into `h` (8 words). */
function compress(h: Uint32Array, data: Uint8Array, off: number): void {
  const w = W
  for (let i = 0; i < 16; i++) {
    const j = off + i * 4
    w[i] = (data[j]! << 24) | (data[j + 1]! << 16) | (data[j + 2]! << 8) | data[j + 3]!
  }
  for (let i = 16; i < 64; i++) {
    const x = w[i - 15]!
    const y = w[i - 2]!
    const s0 = rotr(x, 7) ^ rotr(x, 18) ^ (x >>> 3)
    const s1 = rotr(y, 17) ^ rotr(y, 19) ^ (y >>> 10)
    w[i] = (w[i - 16]! + s0 + w[i - 7]! + s1) | 0
  }
  let a = h[0]!
  let b = h[1]!
  let c = h[2]!
  let d = h[3]!
  let e = h[4]!
  let f = h[5]!
  let g = h[6]!
  let hh = h[7]!
  for (let i = 0; i < 64; i++) {
    const t1 = (hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[i]! + w[i]!) | 0
    const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) | 0
    hh = g
    g = f
    f = e
    e = (d + t1) | 0
    d = c
    c = b
    b = a
    a = (t1 + t2) | 0
  }
  h[0] = (h[0]! + a) | 0
  h[1] = (h[1]! + b) | 0
  h[2] = (h[2]! + c) | 0
  h[3] = (h[3]! + d) | 0
  h[4] = (h[4]! + e) | 0
  h[5] = (h[5]! + f) | 0
  h[6] = (h[6]! + g) | 0
  h[7] = (h[7]! + hh) | 0
}

/** Writes the 8 chaining words `h` as the 32-byte big-endian digest at the start of `out`. */
function writeDigest(h: Uint32Array, out: Uint8Array): void {
  for (let i = 0; i < 8; i++) {
    const v = h[i]!
    out[i * 4] = v >>> 24
    out[i * 4 + 1] = v >>> 16
    out[i * 4 + 2] = v >>> 8
    out[i * 4 + 3] = v
  }
}

/**
 * Double SHA-256 of 80-byte Bitcoin headers that share their first 64 bytes (a nonce search: only time, bits and
 * nonce, in the last 16 bytes, differ): the state after the first 64 bytes is computed once, so each hash costs
 * two compressions and allocates nothing. The same bytes as {@link sha256d} of the header.
 */
export class HeaderHasher {
  private readonly mid = new Uint32Array(8)
  private readonly h = new Uint32Array(8)
  private readonly block = new Uint8Array(64)
  /** The last hash (internal order); overwritten by the next {@link hash}. */
  readonly out = new Uint8Array(32)

  /** Starts over for headers sharing `header`'s first 64 bytes. @returns this */
  start(header: Uint8Array): this {
    this.mid.set(SHA256_IV)
    compress(this.mid, header, 0)
    return this
  }

  /** sha256d(header) for a header with the first 64 bytes given to {@link start}; @returns {@link out} */
  hash(header: Uint8Array): Uint8Array {
    const { block, h, out } = this
    // second block of the first hash: bytes 64..80, the padding bit, the length (640 bits)
    block.set(header.subarray(64, 80))
    block.fill(0, 16)
    block[16] = 0x80
    block[62] = 0x02
    block[63] = 0x80
    h.set(this.mid)
    compress(h, block, 0)
    // the second hash: the 32-byte digest, the padding bit, the length (256 bits)
    writeDigest(h, block)
    block.fill(0, 32)
    block[32] = 0x80
    block[62] = 0x01
    h.set(SHA256_IV)
    compress(h, block, 0)
    writeDigest(h, out)
    return out
  }
}

/** A SHA-256 state after whole 64-byte blocks: the byte count and the 8 chaining words. */
export interface Midstate {
  byteCount: number
  h: Uint32Array
}

/** Hashes `data[0..len]` (len a multiple of 64) without finalizing. */
export function midstateOf(data: Uint8Array, len: number): Midstate {
  const h = Uint32Array.from(SHA256_IV)
  for (let off = 0; off < len; off += 64) compress(h, data, off)
  return { byteCount: len, h }
}

/** Finishes a SHA-256 from a midstate with the remaining bytes (standard padding over the total length). */
export function finishSha256(state: Midstate, tail: Uint8Array): Uint8Array {
  const total = state.byteCount + tail.length
  const padLen = (tail.length + 9 + 63) & ~63
  const buf = new Uint8Array(padLen)
  buf.set(tail)
  buf[tail.length] = 0x80
  const bits = BigInt(total) * 8n
  new DataView(buf.buffer).setBigUint64(padLen - 8, bits, false)
  const h = Uint32Array.from(state.h)
  for (let off = 0; off < padLen; off += 64) compress(h, buf, off)
  const out = new Uint8Array(32)
  writeDigest(h, out)
  return out
}

/**
 * One-shot crypto.hash where available (Node ≥ 20.12), else createHash. Looked up on first use, not at import:
 * the CLI bundle loads node:crypto only when it is used (scripts/bundle.mjs LAZY_BUILTINS).
 */
let oneShot: ((alg: string, data: Uint8Array, enc: 'buffer') => Buffer) | null | undefined

/** SHA-256 of `data` (32 bytes). */
export function sha256(data: Uint8Array): Uint8Array {
  oneShot ??= (crypto as unknown as { hash?: (alg: string, data: Uint8Array, enc: 'buffer') => Buffer }).hash ?? null
  return oneShot ? oneShot('sha256', data, 'buffer') : createHash('sha256').update(data).digest()
}

/** Double SHA-256 (Bitcoin's hash), internal byte order. */
export function sha256d(data: Uint8Array): Uint8Array {
  return sha256(sha256(data))
}

/** A reversed copy: Bitcoin hashes between internal and display (bitcoinj `getBytes()`) byte order. */
export function reversed(b: Uint8Array): Uint8Array {
  return Uint8Array.from(b).reverse()
}
