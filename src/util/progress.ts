/**
 * Progress of long work (a fork's start-up, a state file read or written, a `--db` directory opened or upgraded):
 * the domain reports it through an optional {@link ProgressListener} and knows nothing of how it is shown; the CLI
 * (src/cli/progress.ts) draws it as a spinner line on a terminal, or as plain lines elsewhere.
 */

/** One report of a long operation's progress. */
export interface Progress {
  /**
   * The step under way, a short lower-case phrase for a person, e.g. `reading`, `building the state trie`,
   * `asking the remote for its head`. Reports of one step share it; a new phrase starts a new step.
   */
  phase: string
  /** Work done in this step so far, in {@link unit}s; absent when the step has no measure (a request). */
  done?: number
  /** Work of the whole step in {@link unit}s, when known in advance. */
  total?: number
  /** What {@link done} and {@link total} count: `bytes`, `entries`, `blocks`… */
  unit?: string
  /** Other counts so far, by name, e.g. `{ accounts: 1200, cells: 12000 }`. */
  counts?: Readonly<Record<string, number>>
}

/** Receives {@link Progress} reports; called synchronously from the work itself, so it must be quick. */
export type ProgressListener = (progress: Progress) => void

/** Milliseconds between two reports of the same step at most once (see {@link throttleProgress}). */
export const PROGRESS_INTERVAL_MS = 100

/**
 * A listener that passes on the first report of each step at once and further reports of that step at most once
 * every `intervalMs` (the others are dropped). Loops call it every few thousand items, so the work costs a clock
 * read per few thousand items, not a report per item.
 * @param listener where the kept reports go
 * @param intervalMs least time between two reports of one step, in ms (default {@link PROGRESS_INTERVAL_MS})
 * @param now the clock in ms (tests inject one). Date.now rather than `performance.now`: the first read of the
 *   `performance` global loads node:perf_hooks (~1.6 ms, src/rpc/dispatcher.ts nowMs), which a `--db` start would
 *   pay for a throttle that needs only whole milliseconds
 */
export function throttleProgress(
  listener: ProgressListener,
  intervalMs = PROGRESS_INTERVAL_MS,
  now: () => number = Date.now,
): ProgressListener {
  let phase: string | undefined
  let last = 0
  return (p) => {
    const t = now()
    if (p.phase === phase && t - last < intervalMs) return
    phase = p.phase
    last = t
    listener(p)
  }
}
