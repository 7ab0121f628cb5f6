/**
 * Bitcoin merged mining as the reference node does it (rskj master):
 * - the Bitcoin structures a merged miner submits: coinbase transaction, 80-byte header, block
 *   (bitcoinj serialization; J/co/rsk/mine/MinerUtils.java builds the regtest miner client's ones);
 * - the compressed coinbase kept in an RSK header: the SHA-256 midstate of the 64-byte blocks before
 *   the "RSKBLOCK:" tag (8 B byte count + 32 B state, BouncyCastle getEncodedState()[8..48]) followed
 *   by the unhashed tail (J/co/rsk/mine/MinerServerImpl.java `compressCoinbase`);
 * - the RSKIP92 merkle proof: the coinbase's sibling hashes, bottom-up, each in bitcoinj `getBytes()`
 *   order (J/co/rsk/mine/Rskip92MerkleProofBuilder.java, Rskip92MerkleProofValidator.java);
 * - the proof-of-work rule for those fields (J/co/rsk/validators/ProofOfWorkRule.java) and the target
 *   of a difficulty (J/co/rsk/util/DifficultyUtils.java).
 *
 * Byte orders: bitcoinj keeps hashes in "display" order (`getBytes()`, the reverse of the double
 * SHA-256 output); the serialized header and transactions carry the internal (unreversed) order.
 */
import crypto, { createHash } from 'node:crypto'
import { RSK_TAG } from './merged-mining-hash.js'
import { concat } from '../util/bytes.js'

// ---------------------------------------------------------------------------------------------
// SHA-256 with an exposed midstate
// ---------------------------------------------------------------------------------------------

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

/** One SHA-256 compression of the 64-byte block at `data[off..off+64]` into `h` (8 words). */
function compress(h: Uint32Array, data: Uint8Array, off: number): void {
  const w = new Uint32Array(64)
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
  let [a, b, c, d, e, f, g, hh] = [h[0]!, h[1]!, h[2]!, h[3]!, h[4]!, h[5]!, h[6]!, h[7]!]
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

/** A SHA-256 state after whole 64-byte blocks: the byte count and the 8 chaining words. */
interface Midstate {
  byteCount: number
  h: Uint32Array
}

/** Hashes `data[0..len]` (len a multiple of 64) without finalizing. */
function midstateOf(data: Uint8Array, len: number): Midstate {
  const h = Uint32Array.from(SHA256_IV)
  for (let off = 0; off < len; off += 64) compress(h, data, off)
  return { byteCount: len, h }
}

/** The miner client's coinbases share their first 64 bytes: their midstate is computed once. */
const midstateCache = new Map<string, Midstate>()
function cachedMidstate(data: Uint8Array, len: number): Midstate {
  if (len !== 64) return midstateOf(data, len)
  const key = Buffer.from(data.buffer, data.byteOffset, 64).toString('latin1')
  let st = midstateCache.get(key)
  if (st === undefined) {
    st = midstateOf(data, len)
    if (midstateCache.size >= 16) midstateCache.clear()
    midstateCache.set(key, st)
  }
  return st
}

/** Finishes a SHA-256 from a midstate with the remaining bytes (standard padding over the total length). */
function finishSha256(state: Midstate, tail: Uint8Array): Uint8Array {
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
  const dv = new DataView(out.buffer)
  for (let i = 0; i < 8; i++) dv.setUint32(i * 4, h[i]!, false)
  return out
}

/**
 * One-shot crypto.hash where available (Node ≥ 20.12), else createHash. Looked up on first use, not at import:
 * the CLI bundle loads node:crypto only when it is used (scripts/bundle.mjs LAZY_BUILTINS).
 */
let oneShot: ((alg: string, data: Uint8Array, enc: 'buffer') => Buffer) | null | undefined

function sha256(data: Uint8Array): Uint8Array {
  oneShot ??= (crypto as unknown as { hash?: (alg: string, data: Uint8Array, enc: 'buffer') => Buffer }).hash ?? null
  return oneShot ? oneShot('sha256', data, 'buffer') : createHash('sha256').update(data).digest()
}

/** Double SHA-256 (Bitcoin's hash), internal byte order. */
export function sha256d(data: Uint8Array): Uint8Array {
  return sha256(sha256(data))
}

function reversed(b: Uint8Array): Uint8Array {
  return Uint8Array.from(b).reverse()
}

// ---------------------------------------------------------------------------------------------
// Compressed coinbase
// ---------------------------------------------------------------------------------------------

/** Size of the midstate part of a compressed coinbase (RskMiningConstants.MIDSTATE_SIZE_TRIMMED). */
export const MIDSTATE_SIZE_TRIMMED = 40

function lastIndexOf(hay: Uint8Array, needle: Uint8Array): number {
  outer: for (let i = hay.length - needle.length; i >= 0; i--) {
    for (let j = 0; j < needle.length; j++) if (hay[i + j] !== needle[j]) continue outer
    return i
  }
  return -1
}

function firstIndexOf(hay: Uint8Array, needle: Uint8Array): number {
  outer: for (let i = 0; i + needle.length <= hay.length; i++) {
    for (let j = 0; j < needle.length; j++) if (hay[i + j] !== needle[j]) continue outer
    return i
  }
  return -1
}

/**
 * MinerServerImpl.compressCoinbase: the SHA-256 midstate of the whole 64-byte blocks before the
 * (last, or first) "RSKBLOCK:" tag — 8-byte big-endian byte count ‖ 32-byte chaining state — followed
 * by the rest of the serialized coinbase.
 * @throws Error when the coinbase has no tag
 */
export function compressCoinbase(serialized: Uint8Array, lastOccurrence = true): Uint8Array {
  const pos = lastOccurrence ? lastIndexOf(serialized, RSK_TAG) : firstIndexOf(serialized, RSK_TAG)
  if (pos < 0) throw new Error('the coinbase has no RSKBLOCK: tag')
  const hashed = Math.floor(pos / 64) * 64
  const st = cachedMidstate(serialized, hashed)
  const out = new Uint8Array(MIDSTATE_SIZE_TRIMMED + serialized.length - hashed)
  const dv = new DataView(out.buffer)
  dv.setBigUint64(0, BigInt(st.byteCount), false)
  for (let i = 0; i < 8; i++) dv.setUint32(8 + i * 4, st.h[i]!, false)
  out.set(serialized.subarray(hashed), MIDSTATE_SIZE_TRIMMED)
  return out
}

/**
 * The transaction id of a compressed coinbase in display order (ProofOfWorkRule: SHA-256 resumed from
 * the midstate over the tail, then once more, reversed).
 */
export function compressedCoinbaseTxid(compressed: Uint8Array): Uint8Array {
  const dv = new DataView(compressed.buffer, compressed.byteOffset, compressed.byteLength)
  const byteCount = Number(dv.getBigUint64(0, false))
  const h = new Uint32Array(8)
  for (let i = 0; i < 8; i++) h[i] = dv.getUint32(8 + i * 4, false)
  const first = finishSha256({ byteCount, h }, compressed.subarray(MIDSTATE_SIZE_TRIMMED))
  return reversed(sha256(first))
}

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

/** The P2PK script of the fixed public key the regtest-style miner client pays its 50 BTC to (secp256k1 G). */
const MINER_SCRIPT_PUBKEY = concat(
  Uint8Array.of(0x21),
  Uint8Array.from(Buffer.from('0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798', 'hex')),
  Uint8Array.of(0xac),
)

/**
 * The coinbase the reference's regtest miner client builds for `hashForMergedMining`: a 50 BTC P2PK
 * output and a zero-value output whose script is prefix ‖ "RSKBLOCK:" ‖ hash (MinerUtils). The
 * reference uses a random key and a random 0-999 byte prefix; this one is deterministic (fixed key,
 * empty prefix).
 */
export function mergedMiningCoinbase(
  hashForMergedMining: Uint8Array,
  prefix: Uint8Array = new Uint8Array(0),
): Uint8Array {
  return serializeCoinbase([
    { value: 5_000_000_000n, script: MINER_SCRIPT_PUBKEY },
    { value: 0n, script: concat(prefix, RSK_TAG, hashForMergedMining) },
  ])
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

/**
 * Block version the reference miner client writes (bitcoinj's protocol version number, 70001 in the
 * Bitcoin header of a real regtest block 1: 71 11 01 00).
 */
export const MINER_BTC_BLOCK_VERSION = 70001
/** Compact bits of bitcoinj regtest's max target as that real header carries them (ff ff 7f 21). */
export const REGTEST_MAX_TARGET_BITS = 0x217fffff

/** 2^256. */
const MAX = 1n << 256n

/** DifficultyUtils.difficultyToTarget: 2^256 / max(difficulty, 3). */
export function difficultyToTarget(difficulty: bigint): bigint {
  return MAX / (difficulty < 3n ? 3n : difficulty)
}

/** The 32-byte big-endian target (MinerServerImpl.updateGetWork). */
export function targetBytes(difficulty: bigint): Uint8Array {
  const t = difficultyToTarget(difficulty)
  return Uint8Array.from(Buffer.from(t.toString(16).padStart(64, '0'), 'hex'))
}

function bytesToBig(b: Uint8Array): bigint {
  return b.length === 0 ? 0n : BigInt('0x' + Buffer.from(b).toString('hex'))
}

/** Whether a Bitcoin header's hash meets the target of an RSK difficulty. */
export function meetsTarget(header80: Uint8Array, difficulty: bigint): boolean {
  return bytesToBig(btcHeaderHash(header80)) <= difficultyToTarget(difficulty)
}

/** The merged-mining fields of an RSK header. */
export interface MergedMiningFields {
  /** 80-byte Bitcoin header. */
  bitcoinMergedMiningHeader: Uint8Array
  /** RSKIP92 proof: sibling hashes of the coinbase, bottom-up (empty for a one-transaction block). */
  bitcoinMergedMiningMerkleProof: Uint8Array
  /** The compressed coinbase. */
  bitcoinMergedMiningCoinbaseTransaction: Uint8Array
}

/**
 * Merge-mines an RSK block the way the reference regtest miner client does (MinerClientImpl.mineBlock):
 * a one-transaction Bitcoin block (null previous hash, the coinbase committing to `hashForMergedMining`,
 * regtest max-target bits) whose nonce is searched from 0 until its hash meets the target of
 * `difficulty`. Deterministic: the Bitcoin time is `time` (the RSK block's timestamp) instead of the
 * wall clock.
 */
export function mineMergedMiningFields(
  hashForMergedMining: Uint8Array,
  difficulty: bigint,
  time: bigint,
): MergedMiningFields {
  const coinbase = mergedMiningCoinbase(hashForMergedMining)
  const header = serializeBtcHeader({
    version: MINER_BTC_BLOCK_VERSION,
    prevBlockHash: new Uint8Array(32),
    merkleRoot: sha256d(coinbase),
    time: Number(BigInt.asUintN(32, time)),
    bits: REGTEST_MAX_TARGET_BITS,
    nonce: 0,
  })
  // the target as 32 big-endian bytes; the display-order hash is the reversed double SHA-256
  const target = targetBytes(difficulty)
  const dv = new DataView(header.buffer, header.byteOffset, header.byteLength)
  for (let nonce = 0; ; nonce++) {
    dv.setUint32(76, nonce >>> 0, true)
    if (internalHashMeets(sha256d(header), target)) break
    if (nonce === 0xffffffff) throw new Error('no nonce meets the target')
  }
  return {
    bitcoinMergedMiningHeader: header,
    bitcoinMergedMiningMerkleProof: new Uint8Array(0),
    bitcoinMergedMiningCoinbaseTransaction: compressCoinbase(coinbase),
  }
}

/** Whether reverse(h) ≤ target (both 32 bytes; h in internal order, target big-endian). */
function internalHashMeets(h: Uint8Array, target: Uint8Array): boolean {
  for (let i = 0; i < 32; i++) {
    const a = h[31 - i]!
    const t = target[i]!
    if (a !== t) return a < t
  }
  return true
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

/**
 * The RSK hash a coinbase commits to: the 32 bytes after its last "RSKBLOCK:" tag
 * (MnrModuleImpl.extractBlockHashForMergedMining).
 * @throws Error when there is no tag or fewer than 32 bytes follow it
 */
export function extractHashForMergedMining(coinbase: Uint8Array): Uint8Array {
  const pos = lastIndexOf(coinbase, RSK_TAG)
  if (pos < 0 || pos + RSK_TAG.length + 32 > coinbase.length)
    throw new Error('the coinbase does not commit to an RSK block')
  return coinbase.slice(pos + RSK_TAG.length, pos + RSK_TAG.length + 32)
}

// ---------------------------------------------------------------------------------------------
// Merkle proofs (RSKIP92)
// ---------------------------------------------------------------------------------------------

/**
 * MerkleTreeUtils.combineLeftRight on display-order hashes: the parent node, display order.
 * @throws Error when the two nodes form a valid 64-byte transaction (leaf-node weakness check)
 */
export function combineLeftRight(left: Uint8Array, right: Uint8Array): Uint8Array {
  checkNotA64ByteTransaction(left, right)
  return reversed(sha256d(concat(reversed(left), reversed(right))))
}

function checkNotA64ByteTransaction(left: Uint8Array, right: Uint8Array): void {
  const b = concat(left, right)
  const dv = new DataView(b.buffer)
  let o = 4
  if (b[o] !== 1) return
  o += 1 + 32
  const out0Index = dv.getUint32(o, true)
  o += 4
  if (out0Index > 1_000_000 && out0Index !== 0xffffffff) return
  const inLen = (b[o]! << 24) >> 24
  o += 1
  if (inLen < 0 || inLen > 4) return
  o += inLen + 4
  if (b[o] !== 1) return
  o += 1
  const value = dv.getBigInt64(o, true)
  o += 8
  if (value < 1n || value > 21_000_000n * 100_000_000n) return
  const outLen = (b[o]! << 24) >> 24
  if (outLen < 0 || outLen > 4) return
  if (inLen + outLen !== 4) return
  throw new Error('Supplied nodes form a valid btc transaction')
}

/**
 * Merkle tree of display-order transaction ids; returns the coinbase's (leaf 0's) sibling hashes
 * bottom-up in display order — the RSKIP92 proof (Rskip92MerkleProofBuilder.buildFromTxHashes).
 * Bitcoin duplicates the last node of an odd level.
 */
export function coinbaseMerkleBranch(txidsDisplay: readonly Uint8Array[]): Uint8Array[] {
  if (txidsDisplay.length === 0) throw new Error('a Bitcoin block has at least the coinbase')
  let level = txidsDisplay.map((h) => reversed(h))
  const branch: Uint8Array[] = []
  while (level.length > 1) {
    branch.push(reversed(level[1] ?? level[0]!))
    const next: Uint8Array[] = []
    for (let i = 0; i < level.length; i += 2) next.push(sha256d(concat(level[i]!, level[i + 1] ?? level[i]!)))
    level = next
  }
  return branch
}

/** The merkle root (display order) a proof gives for a coinbase (Rskip92MerkleProofValidator). */
export function merkleRootFromProof(coinbaseTxidDisplay: Uint8Array, proof: Uint8Array): Uint8Array {
  if (proof.length % 32 !== 0) throw new Error('Partial merkle tree does not have the expected format')
  let root = coinbaseTxidDisplay
  for (let i = 0; i < proof.length; i += 32) root = combineLeftRight(root, proof.subarray(i, i + 32))
  return root
}

/** Maximum RSKIP92 proof length (Constants.getMaxBitcoinMergedMiningMerkleProofLength, RSKIP180). */
export const MAX_MERKLE_PROOF_LENGTH = 960

/**
 * ProofOfWorkRule.isValid for the merged-mining fields of a header whose hashForMergedMining and
 * difficulty are given. @returns undefined when valid, else the reason
 */
export function validateMergedMining(
  mm: MergedMiningFields,
  hashForMergedMining: Uint8Array,
  difficulty: bigint,
): string | undefined {
  const { bitcoinMergedMiningHeader: header, bitcoinMergedMiningMerkleProof: proof } = mm
  const compressed = mm.bitcoinMergedMiningCoinbaseTransaction
  if (header.length !== 80) return 'the Bitcoin header must have 80 bytes'
  if (proof.length > MAX_MERKLE_PROOF_LENGTH)
    return `Partial merkle tree's size is greater than ${MAX_MERKLE_PROOF_LENGTH}`
  if (proof.length % 32 !== 0) return 'Partial merkle tree does not have the expected format'
  if (compressed.length < MIDSTATE_SIZE_TRIMMED) return 'Compressed coinbase transaction does not exist'
  if (!meetsTarget(header, difficulty)) return 'the Bitcoin block hash is higher than the target'
  const tail = compressed.subarray(MIDSTATE_SIZE_TRIMMED)
  const expected = concat(RSK_TAG, hashForMergedMining)
  const pos = lastIndexOf(tail, expected)
  if (pos < 0) return 'bitcoin coinbase transaction tail message does not contain expected RSKBLOCK:RskBlockHeaderHash'
  if (pos >= 64) return 'bitcoin coinbase transaction tag position is bigger than expected 64'
  if (pos !== lastIndexOf(tail, RSK_TAG)) return 'The valid RSK tag is not the last RSK tag'
  if (tail.length - pos - RSK_TAG.length - 32 > 128) return 'More than 128 bytes after RSK tag'
  const byteCount = Number(new DataView(compressed.buffer, compressed.byteOffset, 8).getBigUint64(0, false))
  if (tail.length + byteCount <= 64) return 'Coinbase transaction must always be greater than 64-bytes long'
  let root: Uint8Array
  try {
    root = merkleRootFromProof(compressedCoinbaseTxid(compressed), proof)
  } catch (err) {
    return (err as Error).message
  }
  const headerRoot = reversed(parseBtcHeader(header).merkleRoot)
  if (Buffer.compare(root, headerRoot) !== 0) return "bitcoin merkle branch doesn't match coinbase and state root"
  return undefined
}
