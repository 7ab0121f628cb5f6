/**
 * Merge-mining a block the way the reference's regtest miner client does (rskj master,
 * J/co/rsk/mine/MinerUtils.java, MinerClientImpl.java): the coinbase committing to hashForMergedMining, a
 * one-transaction Bitcoin block, and the nonce search against the target of the RSK difficulty.
 */
import { concat } from '../../util/bytes.js'
import { serializeBtcHeader, serializeCoinbase } from './bitcoin-codec.js'
import { sha256d } from './bitcoin-sha256.js'
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
