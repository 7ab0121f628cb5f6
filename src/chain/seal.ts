/**
 * Sealing a block: transaction/receipt trie roots, the header hash, the block size and hashForMergedMining.
 */
import { RLP } from '@ethereumjs/rlp'
import { createMPT } from '@ethereumjs/mpt'
import { keccak256 } from '../execution/crypto.js'
import { bigIntToBytes } from '../util/bytes.js'
import type { HeaderFields } from './types.js'

/** keccak256(RLP("")): the root of an empty trie. */
export const EMPTY_TRIE_ROOT = keccak256(Uint8Array.of(0x80))
/** keccak256(RLP([])): the uncles hash of a block without uncles. */
export const EMPTY_UNCLES_HASH = keccak256(Uint8Array.of(0xc0))

/**
 * Root of a trie keyed by RLP(index) holding `values` in order (transactionsRoot / receiptsRoot).
 * @param values encoded items (signed tx RLP, receipt RLP)
 */
export async function indexedTrieRoot(values: Uint8Array[]): Promise<Uint8Array> {
  if (values.length === 0) return EMPTY_TRIE_ROOT
  const trie = await createMPT()
  for (let i = 0; i < values.length; i++) await trie.put(RLP.encode(i), values[i]!)
  return trie.root()
}

function headerList(h: HeaderFields, mm: boolean): Uint8Array[] {
  const fields: Uint8Array[] = [
    h.parentHash,
    h.unclesHash,
    h.coinbase,
    h.stateRoot,
    h.transactionsRoot,
    h.receiptsRoot,
    h.logsBloom,
    bigIntToBytes(h.difficulty),
    bigIntToBytes(h.number),
    bigIntToBytes(h.gasLimit),
    bigIntToBytes(h.gasUsed),
    bigIntToBytes(h.timestamp),
    h.extraData,
    bigIntToBytes(h.paidFees),
    bigIntToBytes(h.minimumGasPrice),
    bigIntToBytes(BigInt(h.uncleCount)),
  ]
  if (mm) fields.push(h.bitcoinMergedMiningHeader)
  return fields
}

/** keccak256 of the header encoding: the block hash. */
export function headerHash(h: HeaderFields): Uint8Array {
  return keccak256(RLP.encode(headerList(h, true)))
}

/** keccak256 of the header encoding without merged-mining fields: what a merged miner commits to. */
export function hashForMergedMining(h: HeaderFields): Uint8Array {
  return keccak256(RLP.encode(headerList(h, false)))
}

/**
 * Length in bytes of the block RLP [header, transactions, uncles] (the JSON `size`).
 * @param signedTxs serialized transactions in block order
 */
export function blockSize(h: HeaderFields, signedTxs: Uint8Array[]): number {
  return RLP.encode([
    [...headerList(h, true), h.bitcoinMergedMiningMerkleProof, h.bitcoinMergedMiningCoinbaseTransaction],
    signedTxs,
    [],
  ]).length
}

/**
 * A receipt in the reference RLP layout (J/org/ethereum/core/TransactionReceipt.java `getEncoded`):
 * [postTxState (0x01, or empty when failed), cumulativeGas, bloom, logs [[address, [topics], data]], gasUsed,
 * status (0x01, or empty when failed)]; zero gas encodes as 0x80.
 */
export function encodeReceipt(r: import('./types.js').ReceiptRecord): Uint8Array {
  const ok = r.status === 1 ? Uint8Array.of(1) : new Uint8Array(0)
  return RLP.encode([
    ok,
    bigIntToBytes(r.cumulativeGasUsed),
    r.logsBloom,
    r.logs.map((l) => [l.address, l.topics, l.data]),
    bigIntToBytes(r.gasUsed),
    ok,
  ])
}
