/**
 * Merge-mining a block the way the reference's regtest miner client does (rskj master,
 * J/co/rsk/mine/MinerUtils.java, MinerClientImpl.java): the coinbase committing to hashForMergedMining, a
 * one-transaction Bitcoin block, and the nonce search against the target of the RSK difficulty.
 */
import { concat } from '../../util/bytes.js'
import { serializeBtcHeader, serializeCoinbase } from './bitcoin-codec.js'
import { HeaderHasher, sha256d } from './bitcoin-sha256.js'
import { targetBytes, type MergedMiningFields } from './merged-mining.js'
import { compressCoinbase } from './merged-mining-coinbase.js'
import { RSK_TAG } from './merged-mining-hash.js'

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

/**
 * Block version the reference miner client writes (bitcoinj's protocol version number, 70001 in the
 * Bitcoin header of a real regtest block 1: 71 11 01 00).
 */
export const MINER_BTC_BLOCK_VERSION = 70001
/** Compact bits of bitcoinj regtest's max target as that real header carries them (ff ff 7f 21). */
export const REGTEST_MAX_TARGET_BITS = 0x217fffff

/**
 * The bytes every mined block shares, built on first use: the coinbase for a zero hash (every coinbase
 * {@link mergedMiningCoinbase} builds for a 32-byte hash differs from it only in the 32 bytes at `hashAt`), its
 * compressed form (the same, at `compressedHashAt`: the tag sits after the first 64 bytes, which are the same for
 * every hash, so the midstate is the same), and the Bitcoin header with a zero merkle root, time and nonce.
 * `coinbase` and `header` are scratch space (rewritten by each call, never handed out).
 */
let shared:
  | { coinbase: Uint8Array; hashAt: number; compressed: Uint8Array; compressedHashAt: number; header: Uint8Array }
  | undefined

function sharedBytes(): NonNullable<typeof shared> {
  if (shared !== undefined) return shared
  const coinbase = mergedMiningCoinbase(new Uint8Array(32))
  const compressed = compressCoinbase(coinbase)
  const header = serializeBtcHeader({
    version: MINER_BTC_BLOCK_VERSION,
    prevBlockHash: new Uint8Array(32),
    merkleRoot: new Uint8Array(32),
    time: 0,
    bits: REGTEST_MAX_TARGET_BITS,
    nonce: 0,
  })
  // the hash is followed by the 4-byte lock time in both
  shared = { coinbase, hashAt: coinbase.length - 36, compressed, compressedHashAt: compressed.length - 36, header }
  return shared
}

/** The nonce search's hasher (scratch: a search runs to completion before another starts). */
const headerHasher = new HeaderHasher()

/** The target of the last difficulty mined at (blocks of a dev chain mostly share one difficulty). */
let lastTarget: { difficulty: bigint; target: Uint8Array } | undefined

/**
 * Merge-mines an RSK block the way the reference regtest miner client does (MinerClientImpl.mineBlock):
 * a one-transaction Bitcoin block (null previous hash, the coinbase committing to `hashForMergedMining`,
 * regtest max-target bits) whose nonce is searched from 0 until its hash meets the target of
 * `difficulty`. Deterministic: the Bitcoin time is `time` (the RSK block's timestamp) instead of the
 * wall clock. For a 32-byte hash the coinbase, its compressed form and the header are written into the bytes all
 * blocks share ({@link sharedBytes}) instead of being serialized again (the same bytes); the header and the
 * compressed coinbase handed out are views of one 201-byte array of their own.
 */
export function mineMergedMiningFields(
  hashForMergedMining: Uint8Array,
  difficulty: bigint,
  time: bigint,
): MergedMiningFields {
  if (hashForMergedMining.length !== 32) return mineFromScratch(hashForMergedMining, difficulty, time)
  const s = sharedBytes()
  s.coinbase.set(hashForMergedMining, s.hashAt)
  const header = s.header
  header.set(sha256d(s.coinbase), 36)
  const dv = new DataView(header.buffer, header.byteOffset, header.byteLength)
  dv.setUint32(68, Number(BigInt.asUintN(32, time)), true)
  if (lastTarget?.difficulty !== difficulty) lastTarget = { difficulty, target: targetBytes(difficulty) }
  searchNonce(header, lastTarget.target)
  // the header and the compressed coinbase share one allocation (they are kept, and dropped, together)
  const fields = new Uint8Array(80 + s.compressed.length)
  fields.set(header)
  fields.set(s.compressed, 80)
  fields.set(hashForMergedMining, 80 + s.compressedHashAt)
  return {
    bitcoinMergedMiningHeader: fields.subarray(0, 80),
    bitcoinMergedMiningMerkleProof: new Uint8Array(0),
    bitcoinMergedMiningCoinbaseTransaction: fields.subarray(80),
  }
}

/** {@link mineMergedMiningFields} serializing everything (a hash of another length than 32 bytes). */
function mineFromScratch(hashForMergedMining: Uint8Array, difficulty: bigint, time: bigint): MergedMiningFields {
  const coinbase = mergedMiningCoinbase(hashForMergedMining)
  const header = serializeBtcHeader({
    version: MINER_BTC_BLOCK_VERSION,
    prevBlockHash: new Uint8Array(32),
    merkleRoot: sha256d(coinbase),
    time: Number(BigInt.asUintN(32, time)),
    bits: REGTEST_MAX_TARGET_BITS,
    nonce: 0,
  })
  searchNonce(header, targetBytes(difficulty))
  return {
    bitcoinMergedMiningHeader: header,
    bitcoinMergedMiningMerkleProof: new Uint8Array(0),
    bitcoinMergedMiningCoinbaseTransaction: compressCoinbase(coinbase),
  }
}

/**
 * Sets the header's nonce (bytes 76-80) to the first from 0 whose hash meets the target (32 big-endian bytes; the
 * display-order hash is the reversed double SHA-256), hashing from the state after the header's first 64 bytes.
 */
function searchNonce(header: Uint8Array, target: Uint8Array): void {
  const dv = new DataView(header.buffer, header.byteOffset, header.byteLength)
  const hasher = headerHasher.start(header)
  for (let nonce = 0; ; nonce++) {
    dv.setUint32(76, nonce >>> 0, true)
    if (internalHashMeets(hasher.hash(header), target)) return
    if (nonce === 0xffffffff) throw new Error('no nonce meets the target')
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
