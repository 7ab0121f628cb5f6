/**
 * Injectable interval timers: the miner's interval mining uses them, and tests (or a library user) pass their
 * own through the node's `timers` option to drive interval mining without waiting.
 */

/** Timer functions (injectable so tests drive interval mining without waiting). */
export interface Timers {
  setInterval(callback: () => void, ms: number): unknown
  clearInterval(handle: unknown): void
}

/** The real timers; the interval handle is unref'd so it never keeps the process alive. */
export const realTimers: Timers = {
  setInterval: (cb, ms) => {
    const h = setInterval(cb, ms)
    h.unref()
    return h
  },
  clearInterval: (h) => clearInterval(h as NodeJS.Timeout),
}
