/**
 * The Bitcoin coinbase of merged mining as an RSK header keeps it (rskj master): compressed to the SHA-256 midstate
 * of the 64-byte blocks before the "RSKBLOCK:" tag (8 B byte count + 32 B state, BouncyCastle
 * getEncodedState()[8..48]) followed by the unhashed tail (J/co/rsk/mine/MinerServerImpl.java `compressCoinbase`),
 * its transaction id, and the RSK hash it commits to after the tag (J/co/rsk/rpc/modules/mnr/MnrModuleImpl.java).
 */
import { LRUCache } from 'lru-cache'
import { finishSha256, midstateOf, reversed, sha256, type Midstate } from './bitcoin-sha256.js'
import { RSK_TAG } from './merged-mining-hash.js'
import { lastIndexOf } from '../../util/bytes.js'

/** Size of the midstate part of a compressed coinbase (RskMiningConstants.MIDSTATE_SIZE_TRIMMED). */
export const MIDSTATE_SIZE_TRIMMED = 40

/**
 * The miner client's coinbases share their first 64 bytes: their midstate is computed once (the 16 first blocks
 * seen most recently).
 */
const midstateCache = new LRUCache<string, Midstate>({ max: 16 })
function cachedMidstate(data: Uint8Array, len: number): Midstate {
  if (len !== 64) return midstateOf(data, len)
  const key = Buffer.from(data.buffer, data.byteOffset, 64).toString('latin1')
  let st = midstateCache.get(key)
  if (st === undefined) {
    st = midstateOf(data, len)
    midstateCache.set(key, st)
  }
  return st
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
