/**
 * The blocks of merged-mining work (mnr_getWork / mnr_submitBitcoinBlock*; the server side is
 * src/chain/merged-mining/merged-mining-work.ts): building the block a merged miner works on — the next block from the
 * pool, executed without committing, with its hashForMergedMining (RSKIP110 fork detection data from block 449) — and
 * mining a work's block with the miner's merged-mining fields. Both run inside the chain's queue
 * (src/chain/chain.ts), which passes its parts in.
 */
import type { BlockContext, Executor } from '../../execution/executor.js'
import type { MergedMiningFields } from '../../rsk/merged-mining/merged-mining.js'
import type { TxPool } from '../../txpool/pool.js'
import { toKey } from '../../util/bytes.js'
import type { BlockBuilder, BlockTx } from './block-builder.js'
import type { BlockStore } from '../../blocks/block-store.js'
// consensus: fork detection data and the work hash (src/chain/mining/consensus.ts)
import { forkDetectionDataFor, workHashForMergedMining, type MergedMiningSource, type MiningWork } from './consensus.js'
import type { TxSubmission } from './tx-submission.js'
import { StaleWorkError } from '../../errors/stale-work-error.js'
import type { BlockRecord } from '../../types/records.js'

/** The chain's parts a work block needs. */
export interface WorkParts {
  executor: Executor
  blocks: BlockStore
  builder: BlockBuilder
  submission: TxSubmission
  /** Mines one block of `txs` on the head with merged-mining fields from `mm` (builds, writes, appends). */
  mineWith: (ctx: BlockContext, txs: BlockTx[], mm: MergedMiningSource) => Promise<{ block: BlockRecord }>
}

/**
 * Builds the block a merged miner works on in context `ctx`: the pool's transactions as mining picks them,
 * executed without committing (a transaction no sublist had room for is left out of the work; one whose
 * execution passed the deadline is left out and dropped from the pool, docs/reference-rules.md#rule-send-deadline).
 */
export async function buildWorkBlock(ctx: BlockContext, p: WorkParts): Promise<MiningWork> {
  const { block, applied, picked } = await p.builder.preview(ctx, await p.submission.pickForBlock(ctx), (t, err) =>
    p.submission.drop(t, err.message),
  )
  const included = picked.filter((_, i) => !applied[i]?.skipped)
  return {
    block,
    hashForMergedMining: workHashForMergedMining(
      block.header,
      await forkDetectionDataFor(p.builder.forkDetection, ctx.number, (n) => p.blocks.byNumber(n)),
    ),
    parentHash: p.blocks.head.hash,
    ctx,
    txs: included.map((t) => ({ tx: t.tx, from: t.from })),
    poolHashes: included.map((t) => t.hash),
    stateRoot: p.executor.stateRoot,
  }
}

/**
 * Mines a work's block with a merged miner's fields (already validated against its hashForMergedMining) and
 * removes its transactions from the pool.
 * @throws StaleWorkError when the best block or its state changed since the work was built, or the block
 *   re-executed differently (the state is then the parent's again)
 */
export async function mineWorkBlock(
  work: MiningWork,
  mm: MergedMiningFields,
  p: WorkParts,
  pool: TxPool,
): Promise<BlockRecord> {
  if (toKey(p.blocks.head.hash) !== toKey(work.parentHash) || toKey(p.executor.stateRoot) !== toKey(work.stateRoot)) {
    throw new StaleWorkError('the best block changed since the work was built')
  }
  let result
  try {
    result = await p.mineWith(work.ctx, work.txs, (h) => {
      if (toKey(h) !== toKey(work.hashForMergedMining)) throw new StaleWorkError('the block re-executed differently')
      return mm
    })
  } catch (err) {
    // the state was committed before assembly failed: go back to the parent's
    if (err instanceof StaleWorkError) await p.executor.resetTo(work.stateRoot)
    throw err
  }
  for (const h of work.poolHashes) pool.remove(h)
  return result.block
}
