/**
 * The hash a merged miner commits to (hashForMergedMining), the "RSKBLOCK:" tag that carries it in the Bitcoin
 * coinbase, and RSKIP110 fork detection data, byte-compatible with the reference node (rskj).
 *
 * Reference sources (rskj master, paths under rskj-core/src/main/java/):
 * - org/ethereum/core/BlockHeader.java         getHashForMergedMining, getMiningForkDetectionData
 * - co/rsk/mine/ForkDetectionDataCalculator.java  RSKIP110 fork detection data
 */
import { createHash } from 'node:crypto'
import { keccak256 } from '../../crypto/keccak.js'
import { lastIndexOf } from '../../util/bytes.js'
import { encodeHeader, hasMiningFields, type RskHeader } from '../header.js'

/** "RSKBLOCK:" — the tag the BTC coinbase carries before the hash for merged mining (RskMiningConstants.RSK_TAG). */
export const RSK_TAG: Uint8Array = Uint8Array.from(Buffer.from('RSKBLOCK:', 'ascii'))

/**
 * Blocks from this height on carry RSKIP110 fork detection data
 * (MiningConfig.REQUIRED_NUMBER_OF_BLOCKS_FOR_FORK_DETECTION_CALCULATION).
 */
export const FORK_DETECTION_MIN_HEIGHT = 449n

/**
 * Base hash for merged mining (BlockHeader.getBaseHashForMergedMining):
 * keccak256(getEncoded(mm=false, proof=false, compressed=true)); for a UMM block (ummRoot of 20 B)
 * keccak256(base[0..20] ‖ ummRoot).
 */
export function baseHashForMergedMining(h: RskHeader): Uint8Array {
  const base = keccak256(encodeHeader(h, { mm: false, proof: false, compressed: true, temp: true }))
  if (h.ummRoot && h.ummRoot.length > 0) {
    if (h.ummRoot.length !== 20) throw new Error(`UMM Root length must be either 0 or 20. Found: ${h.ummRoot.length}`)
    const lr = new Uint8Array(40)
    lr.set(base.subarray(0, 20), 0)
    lr.set(h.ummRoot, 20)
    return keccak256(lr)
  }
  return base
}

/**
 * The 12 bytes of RSKIP110 fork detection data committed in the BTC coinbase right after
 * "RSKBLOCK:" ‖ base[0..20] (BlockHeader.getMiningForkDetectionData), or undefined when the
 * header has no coinbase transaction. Throws when the tag is missing or the data is short.
 */
export function miningForkDetectionDataFromCoinbase(h: RskHeader): Uint8Array | undefined {
  const cb = h.bitcoinMergedMiningCoinbaseTransaction
  if (!cb || !hasMiningFields(h)) return undefined
  const base = baseHashForMergedMining(h)
  const needle = new Uint8Array(RSK_TAG.length + 20)
  needle.set(RSK_TAG, 0)
  needle.set(base.subarray(0, 20), RSK_TAG.length)
  const pos = lastIndexOf(cb, needle)
  if (pos < 0) throw new Error('Mining fork detection data could not be found')
  const from = pos + needle.length
  if (cb.length < from + 12) throw new Error('Invalid fork detection data length')
  return cb.slice(from, from + 12)
}

/**
 * hashForMergedMining (BlockHeader.getHashForMergedMining), 32 B.
 *
 * Base value per {@link baseHashForMergedMining}. When RSKIP110 applies (on regtest: number ≥ 449,
 * as BlockFactory decides for stored blocks) the last 12 bytes are replaced by the fork detection
 * data: taken from the BTC coinbase when the header has MM fields, otherwise `forkDetectionData`
 * (the value ForkDetectionDataCalculator produced for a block being mined).
 *
 * @param opts.includeForkDetectionData override the "number ≥ 449" rule (e.g. for networks where
 *        RSKIP110 is not active yet)
 * @param opts.forkDetectionData 12 bytes, used only for headers without MM fields
 */
export function hashForMergedMining(
  h: RskHeader,
  opts: { includeForkDetectionData?: boolean; forkDetectionData?: Uint8Array } = {},
): Uint8Array {
  const out = baseHashForMergedMining(h).slice()
  const include = opts.includeForkDetectionData ?? h.number >= FORK_DETECTION_MIN_HEIGHT
  if (!include) return out
  const fdd = hasMiningFields(h) ? miningForkDetectionDataFromCoinbase(h) : opts.forkDetectionData
  if (!fdd || fdd.length === 0) return out
  if (fdd.length !== 12) throw new Error('fork detection data must be 12 bytes')
  out.set(fdd, 20)
  return out
}

/** BTC block hash in bitcoinj `getHash().getBytes()` order (double SHA-256, byte-reversed). */
export function btcBlockHash(btcHeader: Uint8Array): Uint8Array {
  const d1 = createHash('sha256').update(btcHeader).digest()
  const d2 = createHash('sha256').update(d1).digest()
  return Uint8Array.from(d2).reverse()
}

/** Minimal header view needed by {@link calculateForkDetectionData}. */
export interface ForkDetectionInput {
  number: bigint
  uncleCount: number
  bitcoinMergedMiningHeader: Uint8Array | null
}

/**
 * RSKIP110 fork detection data for the block to be mined on top of `mainchain[0]`
 * (ForkDetectionDataCalculator.calculateWithBlockHeaders).
 *
 * @param mainchain the best block and its ancestors, NEWEST FIRST; at least 449 entries
 *        (fewer → empty array, as the reference)
 * @returns 12 bytes: 7 B commit-to-parents vector (last byte of the BTC block hash of the headers
 *          at offsets (best mod 64) + 64·i), 1 B uncle count over the 32 newest (capped 255),
 *          4 B big-endian height of the block being mined; or an empty array
 */
export function calculateForkDetectionData(mainchain: readonly ForkDetectionInput[]): Uint8Array {
  if (mainchain.length < 7 * 64 + 1) return new Uint8Array(0)
  const out = new Uint8Array(12)
  const best = mainchain[0]!.number
  const start = (best / 64n) * 64n
  for (let i = 0; i < 7; i++) {
    const idx = Number(best - start) + i * 64
    const btc = mainchain[idx]!.bitcoinMergedMiningHeader
    if (!btc) throw new Error('fork detection: missing bitcoin header')
    const hash = btcBlockHash(btc)
    out[i] = hash[hash.length - 1]!
  }
  let uncles = 0
  for (let i = 0; i < 32; i++) uncles += mainchain[i]!.uncleCount
  out[7] = Math.min(uncles, 255)
  new DataView(out.buffer).setInt32(8, Number(BigInt.asIntN(32, best + 1n)), false)
  return out
}
