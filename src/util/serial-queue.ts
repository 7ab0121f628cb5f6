/**
 * A FIFO queue that runs async tasks one at a time: the chain's single writer (docs/architecture.md#single-writer).
 * Mining, snapshots, cheat methods and every VM/state access go through one instance, so no read ever
 * sees a half-built block and no two tasks interleave on the state manager.
 */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve()
  private pending = 0

  /**
   * Runs `task` after every task queued before it has settled.
   * @returns the task's result; rejects with the task's error (the queue keeps going)
   */
  run<T>(task: () => Promise<T> | T): Promise<T> {
    this.pending++
    const result = this.tail.then(task)
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
