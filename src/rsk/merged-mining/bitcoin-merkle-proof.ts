/**
 * The RSKIP92 merkle proof of merged mining (rskj master, J/co/rsk/mine/Rskip92MerkleProofBuilder.java,
 * Rskip92MerkleProofValidator.java): the coinbase's sibling hashes, bottom-up, each in bitcoinj `getBytes()`
 * (display) order, and the merkle root a proof gives.
 */
import { concat } from '../../util/bytes.js'
import { reversed, sha256d } from './bitcoin-sha256.js'

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
