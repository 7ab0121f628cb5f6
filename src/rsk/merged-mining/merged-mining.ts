/**
 * The merged-mining fields of an RSK header and the proof-of-work rule for them, as the reference node checks them
 * (rskj master, J/co/rsk/validators/ProofOfWorkRule.java), with the target of a difficulty
 * (J/co/rsk/util/DifficultyUtils.java).
 *
 * The parts: Bitcoin serialization and parsing in src/rsk/merged-mining/bitcoin-codec.ts, SHA-256 in
 * src/rsk/merged-mining/bitcoin-sha256.ts, the compressed coinbase in src/rsk/merged-mining/merged-mining-coinbase.ts,
 * the RSKIP92 merkle proof in src/rsk/merged-mining/bitcoin-merkle-proof.ts, the regtest miner client in
 * src/rsk/merged-mining/merged-mining-miner.ts.
 *
 * Byte orders: bitcoinj keeps hashes in "display" order (`getBytes()`, the reverse of the double
 * SHA-256 output); the serialized header and transactions carry the internal (unreversed) order.
 */
import { concat } from '../../util/bytes.js'
import { btcHeaderHash, parseBtcHeader } from './bitcoin-codec.js'
import { merkleRootFromProof } from './bitcoin-merkle-proof.js'
import { reversed } from './bitcoin-sha256.js'
import { compressedCoinbaseTxid, MIDSTATE_SIZE_TRIMMED } from './merged-mining-coinbase.js'
import { lastIndexOf } from '../../util/bytes.js'
import { RSK_TAG } from './merged-mining-hash.js'

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
