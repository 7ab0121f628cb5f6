/**
 * Yield points for long work on the one JavaScript thread: work that would hold the thread for longer than a
 * time slice lets the event loop run once (one `setImmediate`), so requests that arrived meanwhile, timers and
 * signals are served (docs/architecture.md#performance-rules, docs/architecture.md#fairness).
 *
 * The thread has one slice, shared by everything that yields through {@link yieldThread}: the chain's queue between
 * two tasks (./serial-queue.ts), the EVM's checkpoint inside an execution (src/execution/deadline.ts) and the
 * mining loops. A slice begins when one of them last let the event loop run, so many short tasks in a row (queued
 * `eth_call`s, each shorter than a slice) still yield once their run together reaches {@link SLICE_MS}.
 */

/**
 * The node's time slice, in ms: the longest stretch an execution (src/execution/deadline.ts), the chain's queue
 * (./serial-queue.ts) or a long loop (mining N blocks, a log query) keeps the thread before it lets other work run
 * once.
 */
export const SLICE_MS = 20

/** When the thread's current slice began: the last return from {@link yieldThread} (ms since the epoch). */
let sliceStart = Date.now()

/**
 * Whether the thread's slice is spent.
 * @param now the time, in ms since the epoch (default: now)
 * @returns true once {@link SLICE_MS} have passed since work last yielded through {@link yieldThread}
 */
export function threadSliceSpent(now: number = Date.now()): boolean {
  return now - sliceStart >= SLICE_MS
}

/**
 * Lets the event loop run once (one `setImmediate`: sockets are read, timers fire) and starts a new slice.
 * @returns a promise resolved after that turn of the event loop
 */
export function yieldThread(): Promise<void> {
  return new Promise<void>((resolve) =>
    setImmediate(() => {
      sliceStart = Date.now()
      resolve()
    }),
  )
}
