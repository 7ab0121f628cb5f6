/**
 * The compact encodings a block is kept in (docs/architecture.md#storage): the block RLP exactly as the reference
 * node encodes it (Block.getEncoded) and an "extra" RLP with what the block RLP does not hold (its hash,
 * hashForMergedMining, total difficulty, and per transaction its sender, created contract, receipt and first log
 * index). Both block archives (memory and level) and state files hold these two byte strings per block; decoded
 * records ({@link BlockRecord}) exist only in the block store's bounded cache.
 *
 * Also: cheap reads straight from the block RLP without decoding it (the header's logs bloom, for log queries).
 */
import { RLP } from '@ethereumjs/rlp'
import type { Common } from '@ethereumjs/common'
import { createLegacyTxFromRLP, type LegacyTx } from '@ethereumjs/tx'
import type { RskHeader } from '../rsk/header.js'
import { decodeBlock, type HeaderDecodeRules } from '../rsk/header-decode.js'
import { keccak256 } from '../crypto/keccak.js'
import { decodeReceipt } from '../rsk/receipt-rlp.js'
import { remascTransactionRlp } from '../rsk/remasc.js'
import { bigIntToBytes, bytesEqual, bytesToBigInt, toKey } from '../util/bytes.js'
import { remascTxRecord } from './consensus.js'
import { hasPlaceholderSignature, reportSender } from '../accounts/impersonation.js'
import { blockEncoding, encodeReceipt, headerHash } from './seal.js'
import type { BlockRecord, HeaderFields, ReceiptRecord, TxRecord } from '../types/records.js'

/** The stored data is inconsistent (a block does not decode, does not link to its parent, a state is missing). */
export class StorageCorruptError extends Error {}

/** A block's two encodings (see the module documentation). */
export interface EncodedBlock {
  /** The block RLP as the reference encodes it. */
  rlp: Uint8Array
  /** The extra RLP ({@link blockExtra}). */
  extra: Uint8Array
}

/** Block RLPs already computed when the block was sealed (its `size`), so a mined block is encoded once. */
export const encodedBlocks = new WeakMap<BlockRecord, Uint8Array>()

/** The block RLP of a record (reference Block.getEncoded: full header, transactions, no uncles). */
export function blockRlp(block: BlockRecord): Uint8Array {
  return (
    encodedBlocks.get(block) ??
    blockEncoding(
      block.header,
      block.transactions.map((t) => t.tx.serialize()),
    )
  )
}

/** The extra RLP of a block: what the block RLP does not hold (see the module documentation). */
export function blockExtra(block: BlockRecord): Uint8Array {
  return RLP.encode([
    block.hash,
    block.hashForMergedMining,
    bigIntToBytes(block.totalDifficulty),
    block.transactions.map((t) => [
      t.from,
      t.receipt.contractAddress ?? new Uint8Array(0),
      encodeReceipt(t.receipt),
      bigIntToBytes(BigInt(t.receipt.logs[0]?.logIndex ?? 0)),
    ]),
  ])
}

/**
 * The extra RLP of a block whose receipts are dropped (`--transaction-block-keeper`): senders and created
 * contracts stay (blocks still list their transactions in full), each receipt is empty.
 */
export function prunedBlockExtra(extra: Uint8Array): Uint8Array {
  const [hash, hfmm, td, txs] = RLP.decode(extra) as unknown as [Uint8Array, Uint8Array, Uint8Array, Uint8Array[][]]
  const empty = new Uint8Array(0)
  return RLP.encode([hash, hfmm, td, txs.map(([from, contract]) => [from!, contract!, empty, empty])])
}

/** The receipt of a transaction whose block's receipts were dropped. */
function prunedReceipt(): ReceiptRecord {
  return { status: 0, cumulativeGasUsed: 0n, gasUsed: 0n, logs: [], logsBloom: new Uint8Array(256), pruned: true }
}

/** Both encodings of a record. */
export function encodeBlock(block: BlockRecord): EncodedBlock {
  return { rlp: blockRlp(block), extra: blockExtra(block) }
}

/**
 * Header fields of a decoded header (src/rsk/header-decode.ts): difficulty and gas limit as bigint, absent
 * minimumGasPrice as 0 wei, absent merged-mining fields and edges as empty.
 */
export function headerFields(h: RskHeader): HeaderFields {
  const empty = new Uint8Array(0)
  return {
    parentHash: h.parentHash,
    unclesHash: h.unclesHash,
    coinbase: h.coinbase,
    stateRoot: h.stateRoot,
    transactionsRoot: h.txTrieRoot,
    receiptsRoot: h.receiptTrieRoot,
    logsBloom: h.logsBloom,
    difficulty: typeof h.difficulty === 'bigint' ? h.difficulty : bytesToBigInt(h.difficulty),
    number: h.number,
    gasLimit: bytesToBigInt(h.gasLimit),
    gasUsed: h.gasUsed,
    timestamp: h.timestamp,
    extraData: h.extraData,
    paidFees: h.paidFees,
    minimumGasPrice: h.minimumGasPrice ?? 0n,
    uncleCount: h.uncleCount,
    bitcoinMergedMiningHeader: h.bitcoinMergedMiningHeader ?? empty,
    bitcoinMergedMiningMerkleProof: h.bitcoinMergedMiningMerkleProof ?? empty,
    bitcoinMergedMiningCoinbaseTransaction: h.bitcoinMergedMiningCoinbaseTransaction ?? empty,
    edges: h.edges ?? [],
  }
}

/**
 * A transaction record whose signed transaction object is built on first use: log queries, receipts and hash
 * lookups never need it, and building one (signature checks, a Common copy) is the costliest part of a decode.
 */
function lazyTxRecord(
  txRlp: Uint8Array,
  from: Uint8Array,
  index: number,
  receipt: ReceiptRecord,
  common: Common,
): TxRecord {
  let tx: LegacyTx | undefined
  return {
    get tx(): LegacyTx {
      if (tx === undefined) {
        // (a mined transaction was valid at its height: no init code limit of whatever rules the Common holds now)
        tx = createLegacyTxFromRLP(txRlp, { common, freeze: false, allowUnlimitedInitCodeSize: true })
        // an impersonated send (placeholder signature) reports its recorded sender, as when it was mined
        if (hasPlaceholderSignature(tx, from)) reportSender(tx, from)
        else Object.freeze(tx)
      }
      return tx
    },
    // (the hash of a legacy transaction is keccak256 of its RLP; the native keccak is faster than tx.hash())
    hash: keccak256(txRlp),
    from,
    index,
    receipt,
  }
}

/**
 * Rebuilds a mined block's record from its encodings. The record owns copies of the bytes it was decoded from
 * (the archives may reuse their buffers).
 * @param verify check that the header hashes to the stored hash (data from outside this process: a database
 *   being opened, a state file); blocks this node archived itself are read without it
 * @param headerRules the optional header fields by block number (a fork's, of the remote network,
 *   docs/reference-rules.md#rule-network-activations); default node-cli's own (regtest's)
 * @throws StorageCorruptError when they do not decode, or (`verify`) the header does not hash to the stored hash
 */
export function decodeStoredBlock(
  rlp: Uint8Array,
  extra: Uint8Array,
  common: Common,
  verify = false,
  headerRules?: (number: bigint) => HeaderDecodeRules,
): BlockRecord {
  let decodedBlock: ReturnType<typeof decodeBlock>
  let extraFields: [Uint8Array, Uint8Array, Uint8Array, Uint8Array[][]]
  try {
    decodedBlock = decodeBlock(rlp, headerRules)
    extraFields = RLP.decode(extra) as unknown as typeof extraFields
  } catch (err) {
    throw new StorageCorruptError(`a stored block does not decode: ${(err as Error).message}`, { cause: err })
  }
  const { header: rsk, txsRlp } = decodedBlock
  const header = headerFields(rsk)
  const [hash, hfmm, td, txExtras] = extraFields
  if (verify && !bytesEqual(headerHash(header), hash)) {
    throw new StorageCorruptError(`block ${header.number}: the stored header does not hash to 0x${toKey(hash)}`)
  }
  if (txExtras.length !== txsRlp.length)
    throw new StorageCorruptError(`block ${header.number}: receipts do not match the transactions`)
  const transactions: TxRecord[] = txsRlp.map((txRlp, index) => {
    const [from, contractAddress, receiptRlp, firstLogIndex] = txExtras[index]!
    if (receiptRlp!.length === 0) {
      const receipt = prunedReceipt()
      if (index === txsRlp.length - 1 && bytesEqual(txRlp, remascTransactionRlp(header.number)))
        return remascTxRecord(header.number, index, receipt, common)
      return lazyTxRecord(txRlp, from!, index, receipt, common)
    }
    const decoded = decodeReceipt(receiptRlp!)
    let logIndex = Number(bytesToBigInt(firstLogIndex!))
    const receipt: ReceiptRecord = {
      status: decoded.status ? 1 : 0,
      cumulativeGasUsed: decoded.cumulativeGasUsed,
      gasUsed: decoded.gasUsed,
      logs: decoded.logs.map((l) => ({ address: l.address, topics: l.topics, data: l.data, logIndex: logIndex++ })),
      logsBloom: decoded.logsBloom,
      contractAddress: contractAddress!.length === 0 ? undefined : contractAddress,
    }
    // the Remasc transaction (last in every mined block) is the reference's unsigned one
    if (index === txsRlp.length - 1 && bytesEqual(txRlp, remascTransactionRlp(header.number))) {
      return remascTxRecord(header.number, index, receipt, common)
    }
    return lazyTxRecord(txRlp, from!, index, receipt, common)
  })
  const block: BlockRecord = {
    header,
    hash,
    hashKey: toKey(hash),
    hashForMergedMining: hfmm,
    size: rlp.length,
    totalDifficulty: bytesToBigInt(td),
    cumulativeDifficulty: header.difficulty,
    transactions,
    uncles: [],
  }
  encodedBlocks.set(block, rlp)
  return block
}

/** Start of the payload and end of the RLP item at `pos` (a list's payload holds its items). */
export function rlpItem(b: Uint8Array, pos: number): { data: number; end: number } {
  const first = b[pos]!
  if (first < 0x80) return { data: pos, end: pos + 1 }
  if (first <= 0xb7) return { data: pos + 1, end: pos + 1 + first - 0x80 }
  if (first < 0xc0) return longItem(b, pos, first - 0xb7)
  if (first <= 0xf7) return { data: pos + 1, end: pos + 1 + first - 0xc0 }
  return longItem(b, pos, first - 0xf7)
}

/** The position after the `count` RLP items that start at `pos` (each item whole: a list with its payload). */
export function skipItems(b: Uint8Array, pos: number, count: number): number {
  for (let i = 0; i < count; i++) pos = rlpItem(b, pos).end
  return pos
}

function longItem(b: Uint8Array, pos: number, lengthBytes: number): { data: number; end: number } {
  let len = 0
  for (let i = 1; i <= lengthBytes; i++) len = len * 256 + b[pos + i]!
  return { data: pos + 1 + lengthBytes, end: pos + 1 + lengthBytes + len }
}

/**
 * Index of the logs bloom among the header's fields (parentHash, unclesHash, coinbase, stateRoot, txRoot, receiptRoot,
 * bloom).
 */
const BLOOM_FIELD = 6

/**
 * The header's 256-byte logs bloom read in place from a block RLP, without decoding the block (a view into
 * `rlp`; do not keep it).
 * @throws StorageCorruptError when the RLP does not have the block shape
 */
export function blockLogsBloom(rlp: Uint8Array): Uint8Array {
  const block = rlpItem(rlp, 0)
  const header = rlpItem(rlp, block.data)
  const pos = skipItems(rlp, header.data, BLOOM_FIELD)
  const bloom = rlpItem(rlp, pos)
  if (bloom.end - bloom.data !== 256 || bloom.end > header.end)
    throw new StorageCorruptError('a stored block has no logs bloom')
  return rlp.subarray(bloom.data, bloom.end)
}
