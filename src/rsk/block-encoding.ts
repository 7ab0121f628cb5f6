/**
 * Assembling a block the way the reference node builds it (docs/reference-rules.md#rule-unitrie-tx-receipt-tries,
 * docs/reference-rules.md#rule-header-fields, docs/reference-rules.md#rule-block-hash,
 * docs/reference-rules.md#rule-block-rlp-size, docs/reference-rules.md#rule-hash-for-merged-mining): Unitrie
 * transaction and receipt roots keyed by RLP(index), the RSK header encoding and hash (V0 genesis, V2 from block 1 as
 * regtest), the block RLP whose length is `size`, and hashForMergedMining.
 */
import { encodeBlock, headerHash as rskHeaderHash, type RskHeader } from './header.js'
import { hashForMergedMining as rskHashForMergedMining } from './merged-mining/merged-mining-hash.js'
import { javaBigIntegerBytes } from './rlp-encoding.js'
import { EMPTY_LIST_HASH, EMPTY_TRIE_HASH } from '../crypto/keccak.js'
import { encodeReceipt as encodeRskReceipt, receiptsRoot, transactionsRoot } from './receipt-rlp.js'
import type { HeaderFields, ReceiptRecord } from '../types/records.js'
import { heapBytes, type Allocator } from '../util/bytes.js'

/** The root of an empty trie (Unitrie and MPT agree): keccak256(0x80). */
export const EMPTY_TRIE_ROOT = EMPTY_TRIE_HASH
/** keccak256(RLP([])): the uncles hash of a block without uncles. */
export const EMPTY_UNCLES_HASH = EMPTY_LIST_HASH

/**
 * Unitrie root of the signed transactions in block order (reference BlockHashesHelper).
 * @param signedTxs serialized transactions
 */
export function transactionsTrieRoot(signedTxs: readonly Uint8Array[]): Uint8Array {
  return signedTxs.length === 0 ? EMPTY_TRIE_ROOT : transactionsRoot(signedTxs)
}

/**
 * Receipt encodings made for the receipts roots of the last two blocks assembled, by receipt record: the block's
 * derived record (src/blocks/block-codec.ts blockDerived) encodes the same receipts again right after assembly, and
 * takes them from here instead. Two generations (the block being stored, and a `pending` preview assembled in between)
 * of a bounded size: memory does not grow with the chain. Correct as long as a receipt record is not mutated after
 * its block is assembled (receipts are read-only values; log indexes, set before, are not part of the encoding).
 */
let encodedNow = new Map<ReceiptRecord, Uint8Array>()
let encodedBefore = new Map<ReceiptRecord, Uint8Array>()

/** Unitrie root of the receipts (reference RLP) in block order; their encodings are kept for {@link encodeReceipt}. */
export function receiptsTrieRoot(receipts: readonly ReceiptRecord[]): Uint8Array {
  if (receipts.length === 0) return EMPTY_TRIE_ROOT
  const older = encodedBefore
  encodedBefore = encodedNow
  encodedNow = older
  encodedNow.clear()
  const encoded = receipts.map((r) => {
    const rlp = encodeReceipt(r)
    encodedNow.set(r, rlp)
    return rlp
  })
  return receiptsRoot(encoded)
}

/**
 * A receipt in the reference RLP (J/org/ethereum/core/TransactionReceipt.java `getEncoded`). The receipts of the
 * last two blocks assembled come from their roots' encodings ({@link receiptsTrieRoot}); others are encoded (a few
 * µs, for the rare readers: ext_getRawTransactionReceiptByHash, a stored block read back). Not cached with every
 * receipt: that cost ~0.5 KB per mined transaction. The result is shared: read it, never write into it.
 * @param alloc where a new encoding is allocated (util/bytes tempBytes when it is only hashed)
 */
export function encodeReceipt(r: ReceiptRecord, alloc: Allocator = heapBytes): Uint8Array {
  const known = encodedNow.get(r) ?? encodedBefore.get(r)
  if (known !== undefined) return known
  return encodeRskReceipt(
    {
      status: r.status === 1,
      cumulativeGasUsed: r.cumulativeGasUsed,
      gasUsed: r.gasUsed,
      logsBloom: r.logsBloom,
      logs: r.logs,
    },
    alloc,
  )
}

function orNull(b: Uint8Array): Uint8Array | null {
  return b.length === 0 ? null : b
}

/** The empty ummRoot and baseEvent of the reference headers: one shared array (zero bytes, never written). */
const NO_BYTES = new Uint8Array(0)

/**
 * The reference header of our header fields: block 0 is a V0 genesis header (difficulty and gasLimit as the
 * genesis file has them); later blocks are V2 with an empty ummRoot, empty edges and baseEvent, gasLimit and
 * difficulty as Java BigInteger bytes (J/co/rsk/mine/BlockToMineBuilder.java). A header with a `format` (a fork's
 * blocks) carries the optional fields it says (docs/reference-rules.md#rule-network-activations).
 */
export function toRskHeader(h: HeaderFields): RskHeader {
  const f = h.format
  if (f !== undefined) {
    return rskHeaderOf(
      h,
      f.umm ? NO_BYTES : null,
      f.version,
      f.edges ? (h.edges ?? []) : null,
      f.version === 2 ? NO_BYTES : null,
      f.rskip92,
    )
  }
  // genesis: V0, without ummRoot, edges and baseEvent; later blocks: V2 with all three empty
  if (h.number === 0n) return rskHeaderOf(h, null, 0, null, null, true)
  return rskHeaderOf(h, NO_BYTES, 2, h.edges ?? [], NO_BYTES, true)
}

/**
 * The reference header of `h` with the version-dependent fields given (in {@link RskHeader}'s order: ummRoot,
 * version, edges, baseEvent, useRskip92Encoding). One object literal, not a spread of a fields object
 * plus the rest: on Node 20's V8 such spread literals were promoted to the old generation (measured with a
 * sampling heap profile keeping what major GCs collect: ~19 KB per mined block, 15% of all promoted bytes
 * under the sustained load; docs/dependency-patches.md explains the same effect in @ethereumjs/evm).
 */
function rskHeaderOf(
  h: HeaderFields,
  ummRoot: RskHeader['ummRoot'],
  version: RskHeader['version'],
  edges: RskHeader['edges'],
  baseEvent: RskHeader['baseEvent'],
  useRskip92Encoding: boolean,
): RskHeader {
  return {
    parentHash: h.parentHash,
    unclesHash: h.unclesHash,
    coinbase: h.coinbase,
    stateRoot: h.stateRoot,
    txTrieRoot: h.transactionsRoot,
    receiptTrieRoot: h.receiptsRoot,
    logsBloom: h.logsBloom,
    difficulty: h.rawDifficulty ?? h.difficulty,
    number: h.number,
    gasLimit: h.rawGasLimit ?? gasLimitBytes(h.gasLimit),
    gasUsed: h.gasUsed,
    timestamp: h.timestamp,
    extraData: h.extraData,
    paidFees: h.paidFees,
    minimumGasPrice: h.minimumGasPrice,
    uncleCount: h.uncleCount,
    bitcoinMergedMiningHeader: orNull(h.bitcoinMergedMiningHeader),
    bitcoinMergedMiningMerkleProof: orNull(h.bitcoinMergedMiningMerkleProof),
    bitcoinMergedMiningCoinbaseTransaction: orNull(h.bitcoinMergedMiningCoinbaseTransaction),
    ummRoot,
    version,
    edges,
    baseEvent,
    useRskip92Encoding,
  }
}

/** The gas limit {@link gasLimitBytes} converted last, with its bytes. */
let lastGasLimit: { value: bigint; bytes: Uint8Array } | undefined

/**
 * A gas limit as Java BigInteger bytes (the form mined headers carry it in), the last one kept: blocks share their
 * gas limit, and each block converts its header two or three times. Shared: read it, never write into it.
 */
function gasLimitBytes(value: bigint): Uint8Array {
  if (lastGasLimit?.value !== value) lastGasLimit = { value, bytes: javaBigIntegerBytes(value) }
  return lastGasLimit.bytes
}

/** The block hash: keccak256 of the compressed hash encoding (reference BlockHeader.getHash). */
export function headerHash(h: HeaderFields): Uint8Array {
  return rskHeaderHash(toRskHeader(h))
}

/**
 * hashForMergedMining: what a merged miner commits to in the Bitcoin coinbase. Fork-detection data
 * (RSKIP110, from block 449) is taken from the block's own coinbase when it has merged-mining fields;
 * blocks without them carry the base value.
 */
export function hashForMergedMining(h: HeaderFields): Uint8Array {
  return mergedMiningHashOf(toRskHeader(h))
}

/** {@link hashForMergedMining} of a header already in the reference form. */
function mergedMiningHashOf(rsk: RskHeader): Uint8Array {
  return rskHashForMergedMining(
    rsk,
    rsk.bitcoinMergedMiningCoinbaseTransaction ? {} : { includeForkDetectionData: false },
  )
}

/**
 * The block RLP (reference Block.getEncoded): [full header, transactions, uncles (none)]; its length is the
 * JSON `size`.
 * @param signedTxs serialized transactions in block order
 */
export function blockEncoding(h: HeaderFields, signedTxs: readonly Uint8Array[]): Uint8Array {
  return encodeBlock(toRskHeader(h), signedTxs, [])
}

/**
 * What assembling a block derives from its header: {@link headerHash}, {@link blockEncoding} and
 * {@link hashForMergedMining}.
 */
export interface AssembledHeader {
  /** The block hash (32 bytes). */
  hash: Uint8Array
  /** The block RLP; its length is the JSON `size` (bytes). */
  rlp: Uint8Array
  /** hashForMergedMining (32 bytes): `hfmm` when given. */
  hashForMergedMining: Uint8Array
}

/**
 * The hash, block RLP and hashForMergedMining of a block being assembled, from one conversion of `h` to the
 * reference header instead of one per value (the same bytes as the three functions above; no errors raised).
 * @param h the header being assembled (its `format`, when set, picks the reference header version)
 * @param signedTxs serialized transactions in block order
 * @param hfmm a hashForMergedMining already known (src/chain/mining/consensus.ts `mergeMine` returns it for the header
 * it
 *   filled): used as it is, not computed
 */
export function assembleHeader(h: HeaderFields, signedTxs: readonly Uint8Array[], hfmm?: Uint8Array): AssembledHeader {
  const rsk = toRskHeader(h)
  return {
    hash: rskHeaderHash(rsk),
    rlp: encodeBlock(rsk, signedTxs, []),
    hashForMergedMining: hfmm ?? mergedMiningHashOf(rsk),
  }
}
