/**
 * Yield points for long loops on the one JavaScript thread: a loop that would hold the thread for longer than a
 * time slice lets the event loop run once (one `setImmediate`), so requests that arrived meanwhile, timers and
 * signals are served (docs/architecture.md#performance-rules).
 */

/**
 * The node's time slice, in ms: the longest stretch an execution (src/execution/deadline.ts) or a long loop (mining
 * N blocks, a log query) keeps the thread before it lets other work run once.
 */
export const SLICE_MS = 20

/**
 * A yield point for a loop.
 * @param sliceMs the longest stretch, in ms, the loop keeps the thread between two yields ({@link SLICE_MS} for
 *   the node's loops)
 * @returns a function to await between two iterations: it yields the thread once `sliceMs` have passed since the
 *   previous yield (or since this call), and otherwise returns at once
 */
export function sliceYielder(sliceMs: number): () => Promise<void> {
  let last = Date.now()
  return async () => {
    if (Date.now() - last < sliceMs) return
    await new Promise<void>((resolve) => setImmediate(resolve))
    last = Date.now()
  }
}
