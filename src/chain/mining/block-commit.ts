/**
 * Committing a mined block (src/chain/chain.ts runs it inside its queue): in a fork, fetch the accounts it touches
 * first; build and assemble it on the head (src/chain/mining/block-builder.ts); with `--db`, write it in one batch
 * (block, receipts, state nodes, head, the addresses its transactions touched) before anyone sees it — a failed write
 * rolls the state back; then append it (with its addresses, for the address index) and, with a transaction block
 * keeper, prune the receipts that fall out of it.
 */
import type { AppliedTx, BlockContext, Executor } from '../../execution/executor.js'
import type { BlockRecord } from '../../types/records.js'
import type { BlockBuilder, BlockTx, OnExecuted } from './block-builder.js'
import { encodeBlock, type EncodedBlock } from '../../blocks/block-codec.js'
import type { BlockStore } from '../../blocks/block-store.js'
import type { MergedMiningSource } from './consensus.js'
import type { TrieNodeStore } from '../../unitrie/unitrie.js'
import type { ChainStorage } from '../../db/chain-storage.js'
import type { IndexedTx } from '../../blocks/address-index.js'
import { encodeBlockAddresses } from '../../blocks/address-index-record.js'

/**
 * Every this many blocks the state's tries drop the nodes they hold as objects, so the state held in memory is what
 * the last blocks touched and memory stays near flat as the state grows (docs/architecture.md#storage): with `--db`
 * (nodes read back on demand) they become lazy tries over the database (src/state/unitrie-state-db.ts
 * `unloadStored`); in memory their nodes move into a packed arena (`pack`, src/state/packed-states.ts).
 *
 * 250: between two turns every kept state (`--state-history`) holds the nodes its block built as objects, so the
 * live JS heap swings with the period and V8's old generation, sized from it at each full GC, climbs towards the
 * largest swing; with 250 it stays flat (44-49 MB under the sustained load, where 1 000 climbed to 64 MB) at the
 * same throughput (docs/measurements/2026-11-sustained-memory.md).
 * Unit: blocks (the turn runs after a block whose number is a multiple of it).
 */
export const UNLOAD_STATE_EVERY_BLOCKS = 250

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
  /** Appends the block to the chain (emits `block`) with what its transactions touched (block order). */
  append: (block: BlockRecord, enc: EncodedBlock, addresses: readonly IndexedTx[]) => void
}

/**
 * Mines one block with the given transactions (they must be valid in order) — or an empty block — on the head.
 * @param mm merged-mining fields source (merged-mining work); undefined mines with the built-in merged mining
 * @param onExecuted called once the transactions have executed, before assembly (automine's early answer)
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
      await database.writeBlock(result.block, executor.stateManager.getTrie(), {
        enc,
        preStateRoot: builder.changedPreStateRoot(result.block),
        addresses: encodeBlockAddresses(result.addresses!),
      })
    } catch (err) {
      await executor.resetTo(parentState)
      throw err
    }
  }
  p.append(result.block, enc, result.addresses!)
  if (result.block.header.number % BigInt(UNLOAD_STATE_EVERY_BLOCKS) === 0n)
    await unloadState(executor, database?.nodeStore)
  else if (database === undefined && packBlockState(executor, result.block.header.number)) {
    // a rebuild of the packed arena completed: re-read the live state over it, as after an unload
    executor.dropHistoricalStates()
    await executor.resetTo(executor.stateRoot)
  }
  const keeper = p.transactionBlockKeeper
  if (keeper !== undefined) await p.blocks.pruneReceiptsUpTo(result.block.header.number - BigInt(keeper))
  return result
}

/**
 * In memory, after block `number` when it does not unload: its new state nodes go into the packed arena (when its
 * state is still kept at the next unload) and a rebuild of the arena advances a slice (src/state/packed-states.ts).
 * Skipped while the live state has open checkpoints (the next pack saves what was skipped).
 * @returns true when a rebuild completed: the caller re-reads the live state and drops the cached historical ones
 */
function packBlockState(executor: Executor, number: bigint): boolean {
  const sm = executor.stateManager
  if (sm.checkpointDepth > 0 || sm.db.store !== undefined) return false
  const blocksToPack = UNLOAD_STATE_EVERY_BLOCKS - Number(number % BigInt(UNLOAD_STATE_EVERY_BLOCKS))
  return sm.db.packBlock(sm.getTrie(), blocksToPack)
}

/**
 * Drops the state's node objects: with a node store that reads the database, every registered root it holds
 * becomes a lazy trie over it; without (in memory) every kept root is packed into the arena. Then the live state is
 * re-read over its lazy trie and the cached historical states are dropped (they would keep the old nodes).
 * Skipped while the live state has open checkpoints: it is only a memory bound, the next turn catches up.
 */
async function unloadState(executor: Executor, nodeStore: TrieNodeStore | undefined): Promise<void> {
  const sm = executor.stateManager
  if (sm.checkpointDepth > 0) return
  if (nodeStore !== undefined) sm.db.unloadStored(nodeStore)
  else if (sm.db.store === undefined) sm.db.pack(sm.getTrie())
  else return
  executor.dropHistoricalStates()
  await executor.resetTo(executor.stateRoot)
}
