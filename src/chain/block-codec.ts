/**
 * The compact encodings a block is kept in (docs/architecture.md#storage): the block RLP exactly as the reference
 * node encodes it (Block.getEncoded) and an "extra" RLP with what the block RLP does not hold (its hash,
 * hashForMergedMining, total difficulty, and per transaction its sender, created contract, receipt and first log
 * index). Both block archives (memory and level) and state files hold these two byte strings per block; decoded
 * records ({@link BlockRecord}) exist only in the block store's bounded cache; ./stored-block.ts rebuilds them.
 *
 * Also: cheap reads straight from the block RLP without decoding it (the header's logs bloom, for log queries).
 */
import { RLP } from '@ethereumjs/rlp'
import { bigIntToBytes } from '../util/bytes.js'
import { rlpItem, skipItems } from '../util/rlp-views.js'
import { blockEncoding, encodeReceipt } from './seal.js'
import type { BlockRecord } from '../types/records.js'

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

/** Both encodings of a record. */
export function encodeBlock(block: BlockRecord): EncodedBlock {
  return { rlp: blockRlp(block), extra: blockExtra(block) }
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
