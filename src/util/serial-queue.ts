import { threadSliceSpent, yieldThread } from './time-slices.js'

/**
 * A FIFO queue that runs async tasks one at a time: the chain's single writer (docs/architecture.md#single-writer).
 * Mining, snapshots, cheat methods and every VM/state access go through one instance, so no read ever
 * sees a half-built block and no two tasks interleave on the state manager.
 *
 * Between two tasks the queue lets the event loop run once when the thread's time slice is spent
 * (./time-slices.ts: 20 ms since work last yielded): a run of queued tasks each shorter than a
 * slice (a burst of `eth_call`s) would otherwise hold the thread until the queue is empty, with no socket read and no
 * answer written meanwhile (docs/architecture.md#fairness). The check is one clock read per task.
 */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve()
  private pending = 0

  /**
   * Runs `task` after every task queued before it has settled (and, when the thread's slice is spent by then,
   * after one turn of the event loop).
   * @returns the task's result; rejects with the task's error (the queue keeps going)
   */
  run<T>(task: () => Promise<T> | T): Promise<T> {
    this.pending++
    const result = this.tail.then(() => (threadSliceSpent() ? yieldThread().then(task) : task()))
    this.tail = result.then(
      () => this.pending--,
      () => this.pending--,
    )
    return result
  }

  /** Number of tasks queued or running. */
  get size(): number {
    return this.pending
  }
}
