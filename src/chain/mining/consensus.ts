/**
 * Turning an executed block into the reference node's block (docs/reference-rules.md#rule-remasc-transaction,
 * docs/reference-rules.md#rule-parallel-sublists, docs/reference-rules.md#rule-merged-mining-fields,
 * docs/reference-rules.md#rule-hash-for-merged-mining):
 * - the transaction list in RSKIP144 block order with the Remasc transaction last (listed, as the
 *   reference lists it: rpc.skipRemasc=false);
 * - merged mining as the reference regtest miner client does it for every block it mines: the
 *   hashForMergedMining of the assembled header (RSKIP110 fork detection data from block 449 on,
 *   ForkDetectionDataCalculator), a one-transaction Bitcoin block committing to it
 *   (src/rsk/merged-mining/merged-mining-miner.ts), its header, compressed coinbase and (empty) RSKIP92 merkle proof in
 *   the header, so the block hash includes the Bitcoin header.
 */
import type { Common } from '@ethereumjs/common'
import type { AppliedBlock, PendingExecution } from '../../execution/executor.js'
import {
  FORK_DETECTION_MIN_HEIGHT,
  hashForMergedMining as rskHashForMergedMining,
} from '../../rsk/merged-mining/merged-mining-hash.js'
import { rlpBytes, rlpList } from '../../rsk/rlp-encoding.js'
import type { MergedMiningFields } from '../../rsk/merged-mining/merged-mining.js'
import { mineMergedMiningFields } from '../../rsk/merged-mining/merged-mining-miner.js'
import { toRskHeader } from '../../rsk/block-encoding.js'
import { remascTxRecord } from '../../blocks/remasc-tx-record.js'
import type { ForkDetectionWindow } from './fork-detection-window.js'
import type { BlockRecord, HeaderFields, TxRecord } from '../../types/records.js'

/**
 * The block's transaction records in block order (parallel sublists, sequential sublist, Remasc last).
 * Transactions left out (no sublist had room) are not listed.
 */
export function blockTransactions(
  number: bigint,
  txs: readonly PendingExecution[],
  applied: AppliedBlock,
  common: Common,
): TxRecord[] {
  const records: TxRecord[] = applied.order.map((src, i) => ({
    tx: txs[src]!.tx,
    hash: txs[src]!.tx.hash(),
    from: txs[src]!.from,
    index: i,
    receipt: applied.txs[src]!.receipt,
  }))
  records.push(remascTxRecord(number, records.length, applied.remasc.receipt, common))
  return records
}

/**
 * RSKIP110 fork detection data of a block to be mined at `number` (ForkDetectionDataCalculator over the
 * parent and its 448 ancestors; see calculateForkDetectionData in src/rsk/merged-mining/merged-mining-hash.ts): 12
 * bytes, empty below block 449. Read from the chain's running window of the ancestors' facts
 * (./fork-detection-window.ts: one block read per mined block, checked against the chain by hash, so reverts and
 * resets need no notice).
 * @param window the chain's window (BlockBuilder.forkDetection)
 * @param block canonical block lookup
 * @param parentHash the hash of block `number` − 1 when known (the header's parentHash): saves a read
 */
export async function forkDetectionDataFor(
  window: ForkDetectionWindow,
  number: bigint,
  block: (n: bigint) => Promise<BlockRecord | undefined>,
  parentHash?: Uint8Array,
): Promise<Uint8Array> {
  if (number < FORK_DETECTION_MIN_HEIGHT) return new Uint8Array(0)
  return window.data(number, block, parentHash)
}

/** hashForMergedMining of a header without merged-mining fields, with its fork detection data. */
export function workHashForMergedMining(header: HeaderFields, forkDetectionData: Uint8Array): Uint8Array {
  return rskHashForMergedMining(toRskHeader(header), {
    includeForkDetectionData: forkDetectionData.length > 0,
    forkDetectionData,
  })
}

/**
 * Supplies the merged-mining fields of a block from its hashForMergedMining (the regtest miner client by
 * default; mnr_submitBitcoinBlock* supply a miner's solution).
 */
export type MergedMiningSource = (hashForMergedMining: Uint8Array, header: HeaderFields) => MergedMiningFields

/** The reference regtest miner client (MinerClientImpl): a Bitcoin block meeting the target. */
export const regtestMinerClient: MergedMiningSource = (h, header) =>
  mineMergedMiningFields(h, header.difficulty, header.timestamp)

/**
 * Fills the merged-mining fields of a mined block's header (in place).
 * @param window the chain's fork detection window (BlockBuilder.forkDetection)
 * @param block canonical block lookup
 * @returns the header's hashForMergedMining (32 bytes)
 */
export async function mergeMine(
  header: HeaderFields,
  window: ForkDetectionWindow,
  block: (n: bigint) => Promise<BlockRecord | undefined>,
  source: MergedMiningSource = regtestMinerClient,
): Promise<Uint8Array> {
  const fdd = await forkDetectionDataFor(window, header.number, block, header.parentHash)
  const hfmm = workHashForMergedMining(header, fdd)
  const mm = source(hfmm, header)
  header.bitcoinMergedMiningHeader = mm.bitcoinMergedMiningHeader
  header.bitcoinMergedMiningMerkleProof = mm.bitcoinMergedMiningMerkleProof
  header.bitcoinMergedMiningCoinbaseTransaction = mm.bitcoinMergedMiningCoinbaseTransaction
  return hfmm
}

/**
 * extraData of mined blocks (MinerServerImpl.buildExtraData): RLP[ RLP(0x01), RLP(identity) ], e.g.
 * RLP[0x01, "node-cli-0.1.0"] as the reference's RLP[0x01, "SNAPSHOT-40179fb97"].
 */
export function minerExtraData(identity: string): Uint8Array {
  return rlpList([rlpBytes(Uint8Array.of(1)), rlpBytes(new TextEncoder().encode(identity))])
}

/** A block prepared for a merged miner (mnr_getWork): executed but not committed. */
export interface MiningWork {
  /** The preview block (no merged-mining fields). */
  block: BlockRecord
  /** What the miner's coinbase must commit to. */
  hashForMergedMining: Uint8Array
  /** The parent (the best block when the work was built). */
  parentHash: Uint8Array
  /** @internal block context and transactions to re-execute on submission */
  ctx: import('../../execution/executor.js').BlockContext
  /** @internal */
  txs: PendingExecution[]
  /** @internal pool hashes of `txs` */
  poolHashes: Uint8Array[]
  /** @internal the state the block executes on */
  stateRoot: Uint8Array
}
