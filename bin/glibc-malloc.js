// On glibc Linux the CLI runs with malloc's mmap threshold fixed at glibc's default (docs/architecture.md#storage,
// "Where the resident memory still grows"). glibc raises that threshold each time it frees a block it had mapped on
// its own (a compilation zone, a large response), and from then on blocks that size come from malloc's main heap,
// which returns memory to the system only from its top: the heap of a node under a sustained load grows by
// ~1 KB per block for minutes. A fixed threshold (`GLIBC_TUNABLES=glibc.malloc.mmap_threshold=<bytes>`) turns that
// adjustment off, but glibc reads it only when a process starts. On Node >= 22.15 (`process.execve`) the launcher
// therefore replaces itself (same pid, same stdio) by the same command with the setting added to its environment,
// before it loads anything else (~40 ms of start-up on Node 22: one more Node bootstrap); older Node versions run as
// they are (README.md's memory paragraph gives the setting to use). NODE_CLI_MMAP_THRESHOLD (bytes) sets another
// threshold; 0 keeps glibc's adjusting one (no replacement), as does an mmap_threshold already in GLIBC_TUNABLES.
'use strict'
const { readFileSync } = require('node:fs')

/** The threshold set when NODE_CLI_MMAP_THRESHOLD does not say otherwise (bytes): glibc's initial one, 128 KiB. */
const DEFAULT_MMAP_THRESHOLD = 131072

/**
 * Whether this process runs on glibc: its maps name glibc's `libc.so.6` (musl's is `ld-musl-*.so.1`, and ignores
 * GLIBC_TUNABLES).
 * @returns {boolean}
 */
function runsOnGlibc() {
  try {
    return /\/libc\.so\.6$/m.test(readFileSync('/proc/self/maps', 'latin1'))
  } catch {
    return false
  }
}

/**
 * @typedef {object} ProcessFacts
 * @property {string} platform `process.platform`
 * @property {unknown} execve `process.execve` (a function on Node >= 22.15 / 23.11)
 * @property {Record<string, string | undefined>} env the environment
 * @property {string[]} execArgv Node's own options (`process.execArgv`)
 * @property {string[]} argv `process.argv` (node, the script, the CLI's arguments)
 * @property {string} execPath the node binary
 * @property {() => boolean} glibc whether the process runs on glibc (asked last: it reads /proc)
 */

/**
 * The command this process should become, or undefined to run as it is: on glibc Linux with `process.execve`,
 * unless NODE_CLI_MMAP_THRESHOLD is 0 (or not a positive integer), the environment names an mmap threshold already
 * (the user's own, or this is the replaced process), an IPC channel to a parent is open (`child_process.fork`: its
 * descriptor would not survive) or a debugger is asked for (`--inspect*` in Node's options or NODE_OPTIONS: it would
 * attach to the process being replaced).
 * @param {ProcessFacts} p
 * @returns {{ file: string, args: string[], env: Record<string, string | undefined> } | undefined} the arguments of
 *   `process.execve`: the same node, options, script and arguments; the environment with
 *   `glibc.malloc.mmap_threshold=<NODE_CLI_MMAP_THRESHOLD or 131072>` appended to GLIBC_TUNABLES (':'-separated, the
 *   user's tunables kept)
 */
function mallocReexec(p) {
  if (p.platform !== 'linux' || typeof p.execve !== 'function') return undefined
  const raw = p.env.NODE_CLI_MMAP_THRESHOLD
  const threshold = raw === undefined || raw === '' ? DEFAULT_MMAP_THRESHOLD : Number(raw)
  if (!Number.isSafeInteger(threshold) || threshold <= 0) return undefined
  const tunables = p.env.GLIBC_TUNABLES ?? ''
  if (/(^|:)glibc\.malloc\.mmap_threshold=/.test(tunables)) return undefined
  if (p.env.NODE_CHANNEL_FD !== undefined) return undefined
  if ([...p.execArgv, p.env.NODE_OPTIONS ?? ''].some((a) => /--inspect/.test(a))) return undefined
  if (!p.glibc()) return undefined
  const tunable = `glibc.malloc.mmap_threshold=${threshold}`
  return {
    file: p.execPath,
    args: [p.execPath, ...p.execArgv, ...p.argv.slice(1)],
    env: { ...p.env, GLIBC_TUNABLES: tunables === '' ? tunable : `${tunables}:${tunable}` },
  }
}

/**
 * Replaces this process as {@link mallocReexec} says (never returns then); otherwise, or if `execve` fails,
 * returns and the CLI runs in this process.
 */
function runWithFixedMmapThreshold() {
  const plan = mallocReexec({
    platform: process.platform,
    execve: process.execve,
    env: process.env,
    execArgv: process.execArgv,
    argv: process.argv,
    execPath: process.execPath,
    glibc: runsOnGlibc,
  })
  if (plan === undefined) return
  try {
    process.execve(plan.file, plan.args, plan.env)
  } catch {
    // e.g. the binary moved since start: run here, with glibc's adjusting threshold
  }
}

module.exports = { DEFAULT_MMAP_THRESHOLD, mallocReexec, runWithFixedMmapThreshold }
