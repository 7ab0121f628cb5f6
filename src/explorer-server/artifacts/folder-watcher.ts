/**
 * Watching an artifacts folder for changes (a recompile): a recursive fs.watch (inotify per directory on Linux from
 * Node 20), its events debounced into one call after the folder stayed quiet for a while. A folder that does not
 * exist (not compiled yet, or removed by `hardhat clean` / `forge clean`) is looked for again every
 * `missingPollMs` until it appears, then watched. Timers are unref'd: a watcher never keeps the process alive.
 */
import { watch, type FSWatcher } from 'node:fs'
import { stat } from 'node:fs/promises'

/** How often a folder that cannot be watched is read again, in ms. */
const FALLBACK_POLL_MS = 2000

/** Options of watchFolder. */
export interface WatchOptions {
  /** quiet time after the last event before `onChange` runs, in ms (default 200) */
  debounceMs?: number
  /** how often a missing folder is looked for, in ms (default 500) */
  missingPollMs?: number
}

/** A running watch: close() stops it (no call to `onChange` starts after it returns). */
export interface FolderWatch {
  close(): void
}

/**
 * Calls `onChange` once after each burst of changes under `dir` (files written, added, removed; the folder removed
 * or created). `onChange` returns a promise: events during it schedule one more call after it settles, never two
 * at once. Errors from `onChange` are the caller's to handle (a rejected promise is ignored here).
 * @param dir the absolute folder
 * @param onChange called after a burst of changes
 */
export function watchFolder(dir: string, onChange: () => Promise<void>, opts: WatchOptions = {}): FolderWatch {
  const debounceMs = opts.debounceMs ?? 200
  const missingPollMs = opts.missingPollMs ?? 500
  let closed = false
  let watcher: FSWatcher | undefined
  let debounce: NodeJS.Timeout | undefined
  let poll: NodeJS.Timeout | undefined
  let running = false
  let again = false

  const schedule = (): void => {
    if (closed) return
    if (debounce) clearTimeout(debounce)
    debounce = setTimeout(() => void run(), debounceMs)
    debounce.unref()
  }

  const stopWatcher = (): void => {
    watcher?.close()
    watcher = undefined
  }

  const later = (ms: number, fn: () => void): void => {
    if (poll || closed) return
    poll = setTimeout(() => {
      poll = undefined
      fn()
    }, ms)
    poll.unref()
  }

  /** Polls until the folder exists, then reads it (which watches it). */
  const awaitFolder = (): void =>
    later(missingPollMs, () => void isDirectory(dir).then((yes) => (yes ? schedule() : awaitFolder())))

  /**
   * Watches the folder anew: a folder removed and made again between two reads may even get the same inode number
   * back, so the old watch (on the removed folder) is never trusted after a change.
   * @returns false when the folder cannot be watched (e.g. the inotify watch limit)
   */
  const startWatcher = (): boolean => {
    stopWatcher()
    try {
      watcher = watch(dir, { recursive: true, persistent: false }, () => schedule())
      watcher.on('error', () => {
        // the folder went away (or a subfolder could not be watched): read again, which watches anew
        stopWatcher()
        schedule()
      })
      return true
    } catch {
      watcher = undefined
      return false
    }
  }

  /** One read: watch first (a change during the read then schedules the next), then call onChange. */
  const run = async (): Promise<void> => {
    if (closed) return
    if (running) {
      again = true
      return
    }
    running = true
    try {
      if (!(await isDirectory(dir))) {
        stopWatcher()
        awaitFolder()
      } else if (!closed && !startWatcher()) later(FALLBACK_POLL_MS, schedule)
      if (!closed) await onChange()
    } catch {
      // the caller reports its own failures
    } finally {
      running = false
    }
    if (!closed && again) {
      again = false
      schedule()
    }
  }

  // the first run watches the folder, and reads it once more: files written since the caller's first read count
  schedule()
  return {
    close(): void {
      closed = true
      if (debounce) clearTimeout(debounce)
      if (poll) clearTimeout(poll)
      stopWatcher()
    },
  }
}

/** Whether a path is a directory now (false when it does not exist). */
async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory()
  } catch {
    return false
  }
}
