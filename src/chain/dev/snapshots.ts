/**
 * The evm_snapshot registry: what each snapshot recorded, by id (1, 2, …), reusable after a revert as the
 * reference's SnapshotManager. Bookkeeping only: src/chain/dev/rewind.ts pins and unpins the recorded
 * state roots and does the restoring.
 */
import type { PoolTx } from '../../txpool/pool.js'
import type { ClockControls } from './dev-state.js'

/** What evm_snapshot records. */
export interface ChainSnapshot extends ClockControls {
  /** The head's number at the snapshot. */
  blockNumber: bigint
  /** The live state root at the snapshot (pinned while the snapshot exists). */
  stateRoot: Uint8Array
  /** The pool's transactions at the snapshot. */
  pool: PoolTx[]
}

/** Snapshots by id. */
export class SnapshotRegistry {
  private readonly snapshots = new Map<number, ChainSnapshot>()
  private nextId = 1

  /** Records a snapshot. @returns its id: 1, 2, … */
  take(snapshot: ChainSnapshot): number {
    const id = this.nextId++
    this.snapshots.set(id, snapshot)
    return id
  }

  /** The snapshot with this id, or undefined. */
  get(id: number): ChainSnapshot | undefined {
    return this.snapshots.get(id)
  }

  /**
   * Keeps `id` and the snapshots before it, forgets the later ones; the next id is `id + 1`.
   * @returns the forgotten snapshots (their state roots to unpin)
   */
  keepUpTo(id: number): ChainSnapshot[] {
    const dropped: ChainSnapshot[] = []
    for (const [later, s] of [...this.snapshots]) {
      if (later <= id) continue
      dropped.push(s)
      this.snapshots.delete(later)
    }
    this.nextId = id + 1
    return dropped
  }

  /** Forgets every snapshot; ids start at 1 again. @returns the forgotten snapshots */
  clear(): ChainSnapshot[] {
    const dropped = [...this.snapshots.values()]
    this.snapshots.clear()
    this.nextId = 1
    return dropped
  }
}
