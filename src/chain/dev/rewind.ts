/**
 * Going back on the chain (src/chain/chain.ts runs these inside its queue): evm_snapshot records the head, state,
 * pool and clock controls (src/chain/dev/snapshots.ts keeps them); evm_revert and evm_reset/anvil_reset remove the
 * blocks above a point — from the database first, then the block store — reset the state and announce the removed
 * blocks (`removedBlocks`) so log filters and subscriptions send their logs again with removed=true.
 */
import type { Executor } from '../../execution/executor.js'
import type { TxPool } from '../../txpool/pool.js'
import type { BlockRecord } from '../../types/records.js'
import type { BlockBuilder } from '../mining/block-builder.js'
import type { BlockStore } from '../../blocks/block-store.js'
import type { DevState } from './dev-state.js'
import { SnapshotRegistry } from './snapshots.js'
import type { ChainStorage } from '../../db/chain-storage.js'
import type { AddressHistory } from '../address-history.js'
import type { LogIndex } from '../../blocks/log-index.js'

/** The chain's parts a rewind changes. */
export interface RewindParts {
  executor: Executor
  blocks: BlockStore
  /** The address index, cut back with the blocks. */
  history: AddressHistory
  /** The log index, cut back with the blocks. */
  logs: LogIndex
  builder: BlockBuilder
  dev: DevState
  /** The pool (read each time: the submission path owns it). */
  pool: () => TxPool
  database: ChainStorage | undefined
  /** Fork mode: the local root of the fork block's state (what {@link Rewinds.reset} goes back to). */
  forkRoot: Uint8Array | undefined
  /** Emits `removedBlocks` (BlockRecord[], highest first). */
  emitRemoved: (removed: BlockRecord[]) => void
}

/** Snapshots, reverts and resets of one chain; every method runs inside the chain's queue. */
export class Rewinds {
  /** evm_snapshot records. */
  private readonly snapshots = new SnapshotRegistry()
  /** Who wants the records of blocks a rewind removes (log filters and subscriptions send their logs again). */
  private readonly removedBlocksWanted: (() => boolean)[] = []

  constructor(private readonly p: RewindParts) {}

  /** See Chain.wantRemovedBlocks: registers a listener's interest in the removed blocks' records. */
  wantRemovedBlocks(predicate: () => boolean): void {
    this.removedBlocksWanted.push(predicate)
  }

  /** Records the head, state, pool and clock controls (evm_snapshot). @returns the id: 1, 2, … */
  snapshot(): number {
    const { executor, blocks, dev } = this.p
    executor.stateManager.db.pin(executor.stateRoot)
    return this.snapshots.take({
      blockNumber: blocks.head.header.number,
      stateRoot: executor.stateRoot,
      pool: [...this.p.pool().all()],
      ...dev.clockControls(),
    })
  }

  /**
   * Restores snapshot `id` (evm_revert); the id stays usable, later snapshots are dropped (reference
   * SnapshotManager). @returns false for an unknown id
   */
  async revertTo(id: number): Promise<boolean> {
    const snap = this.snapshots.get(id)
    if (!snap) return false
    for (const s of this.snapshots.keepUpTo(id)) this.p.executor.stateManager.db.unpin(s.stateRoot)
    await this.rewind(snap.blockNumber, snap.stateRoot)
    const pool = this.p.pool()
    pool.clear()
    for (const p of snap.pool) pool.add(p.tx, p.hash, p.from, p.added)
    this.p.dev.restoreClock(snap)
    return true
  }

  /** Back to genesis, or to the fork block in a fork: blocks, pool, snapshots and clock controls are cleared. */
  async reset(): Promise<void> {
    const first = this.p.blocks.genesis
    await this.rewind(first.header.number, this.p.forkRoot ?? first.header.stateRoot)
    this.p.pool().clear()
    for (const snap of this.snapshots.clear()) this.p.executor.stateManager.db.unpin(snap.stateRoot)
    this.p.dev.clearNextBlockControls()
  }

  /** Removes blocks above `number` and sets the state to `stateRoot`. */
  private async rewind(number: bigint, stateRoot: Uint8Array): Promise<void> {
    const { blocks, database, executor } = this.p
    const wanted = this.removedBlocksWanted.some((p) => p())
    // decoded once: for the removed-logs notifications and for the index records the database deletes
    const removed = wanted || database ? await blocks.recordsAbove(number) : []
    const headNumber = blocks.head.header.number
    // the stored chain first (one batch): a failure leaves both as they were
    if (database) await database.rewind(number, headNumber, stateRoot, indexRecords(removed))
    const changed = number < headNumber
    await blocks.truncateAbove(number)
    this.p.history.truncateAbove(number)
    this.p.logs.truncateAbove(Number(number))
    await executor.resetTo(stateRoot)
    this.p.builder.invalidatePending()
    if (changed) this.p.emitRemoved(wanted ? removed.reverse() : [])
  }
}

/** The index records of blocks (their hash and their transactions' hashes), for a database rewind. */
function indexRecords(blocks: readonly BlockRecord[]): { hash: Uint8Array; txHashes: Uint8Array[] }[] {
  return blocks.map((b) => ({ hash: b.hash, txHashes: b.transactions.map((t) => t.hash) }))
}
