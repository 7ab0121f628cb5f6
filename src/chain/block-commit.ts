/**
 * Committing a mined block (src/chain/chain.ts runs it inside its queue): in a fork, fetch the accounts it touches
 * first; build and seal it on the head (src/chain/block-builder.ts); with `--db`, write it in one batch (block,
 * receipts, state nodes, head) before anyone sees it — a failed write rolls the state back; then append it and,
 * with a transaction block keeper, prune the receipts that fall out of it.
 */
import type { AppliedTx, BlockContext, Executor } from '../execution/executor.js'
import type { BlockRecord } from '../types/records.js'
import type { BlockBuilder, BlockTx, OnExecuted } from './block-builder.js'
import { encodeBlock, type EncodedBlock } from './block-codec.js'
import type { BlockStore } from './block-store.js'
import type { MergedMiningSource } from './consensus.js'
import type { TrieNodeStore } from '../rsk/unitrie.js'
import type { ChainStorage } from './storage.js'

/**
 * With `--db` (nodes read back on demand), the state's tries drop their nodes in memory every this many blocks
 * (src/state/unitrie-state-db.ts `unloadStored`), so the state held in memory is what the last blocks touched,
 * not the whole state: memory stays flat as the state grows (docs/architecture.md#storage).
 */
export const UNLOAD_STATE_EVERY_BLOCKS = 1_000

/** The chain's parts a block commit uses. */
export interface CommitParts {
  executor: Executor
  blocks: BlockStore
  builder: BlockBuilder
  database: ChainStorage | undefined
  /** Blocks whose receipts are kept (ChainOptions.transactionBlockKeeper); undefined keeps all. */
  transactionBlockKeeper: number | undefined
  /** Fork mode: fetches these accounts of the remote together; undefined when not a fork. */
  prefetch: ((accounts: readonly (Uint8Array | undefined)[]) => Promise<void> | undefined) | undefined
  /** Appends the block to the chain (emits `block`). */
  append: (block: BlockRecord, enc: EncodedBlock) => void
}

/**
 * Mines one block with the given transactions (they must be valid in order) — or an empty block — on the head.
 * @param mm merged-mining fields source (merged-mining work); undefined mines with the built-in merged mining
 * @param onExecuted called once the transactions have executed, before sealing (the answer-before-seal path)
 * @throws the write's error with `--db` (the state is rolled back to the parent's); the builder's errors
 */
export async function commitBlock(
  p: CommitParts,
  ctx: BlockContext,
  txs: BlockTx[],
  mm?: MergedMiningSource,
  onExecuted?: OnExecuted,
): Promise<{ block: BlockRecord; applied: AppliedTx[] }> {
  const { executor, builder, database } = p
  const parentState = executor.stateRoot
  if (p.prefetch) await p.prefetch([ctx.coinbase, ...txs.flatMap((t) => [t.from, t.tx.to?.bytes])])
  const result = await builder.build(ctx, txs, true, mm, onExecuted)
  const enc = encodeBlock(result.block)
  if (database) {
    // one batch per block (block, receipts, state nodes, head) before anyone sees the block
    try {
      await database.writeBlock(
        result.block,
        executor.stateManager.getTrie(),
        enc,
        builder.changedPreStateRoot(result.block),
      )
    } catch (err) {
      await executor.resetTo(parentState)
      throw err
    }
  }
  p.append(result.block, enc)
  const nodeStore = database?.nodeStore
  if (nodeStore !== undefined && result.block.header.number % BigInt(UNLOAD_STATE_EVERY_BLOCKS) === 0n)
    await unloadState(executor, nodeStore)
  const keeper = p.transactionBlockKeeper
  if (keeper !== undefined) await p.blocks.pruneReceiptsUpTo(result.block.header.number - BigInt(keeper))
  return result
}

/**
 * Drops the state's nodes held in memory (every registered root the database holds becomes a lazy trie) and
 * re-reads the live state over its lazy trie (the few cached historical states keep theirs until evicted).
 * Skipped while the live state has open checkpoints: it is only a memory bound, the next turn catches up.
 */
async function unloadState(executor: Executor, nodeStore: TrieNodeStore): Promise<void> {
  if (executor.stateManager.checkpointDepth > 0) return
  executor.stateManager.db.unloadStored(nodeStore)
  await executor.resetTo(executor.stateRoot)
}
