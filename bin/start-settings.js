// Three settings of the CLI's process, decided when it starts (docs/architecture.md#storage, "Where the resident
// memory still grows"); on Linux with Node >= 22.15 (`process.execve`) the launcher replaces itself (same pid, same
// stdio) by the same command with them added, before it loads anything else (~40 ms of start-up on Node 22: one
// more Node bootstrap). Older Node versions and other systems run as they are (docs/persistence-and-memory.md's
// memory paragraph gives the settings to use).
// - malloc's mmap threshold, on glibc: glibc raises it each time it frees a block it had mapped on its own (a
//   compilation zone, a large response), and from then on blocks that size come from malloc's main heap, which
//   returns memory to the system only from its top: the heap of a node under a sustained load grows by ~1 KB per
//   block for minutes. A fixed threshold (`GLIBC_TUNABLES=glibc.malloc.mmap_threshold=<bytes>`) turns that
//   adjustment off. NODE_CLI_MMAP_THRESHOLD (bytes) sets another threshold; 0 keeps glibc's adjusting one, as does
//   an mmap_threshold already in GLIBC_TUNABLES.
// - V8's young generation (`--max-semi-space-size=<MiB>`): Node 22's two semi-spaces of 16 MiB are full from the
//   first seconds of a load, 32 MiB of the RSS; at 4 MiB the bench's sustained `--db` load ran at a median RSS ~25-35
//   MiB lower with the same work per read (measured). `v8.setFlagsFromString` cannot change it once V8's heap is set
//   up. NODE_CLI_SEMI_SPACE_MB sets another size; 0 keeps V8's, as does a --max-semi-space-size already in Node's
//   options or NODE_OPTIONS.
// - V8's old-generation growth (`--heap-growing-percent=<n>`: after a full GC the heap may grow to (1 + n/100) times
//   the live heap before the next one). V8's own factor rises towards 4x under a high allocation rate, and the EVM
//   allocates ~0.5-0.8 MB per transaction or estimate; under the bench's 4-minute sustained load in memory, 50 gave a
//   median RSS of 181 against 205 MiB for one full GC every ~6.4 s (7.6 ms each), read and transfer latency the same
//   within the noise (measured). NODE_CLI_HEAP_GROWING_PERCENT sets another percentage; 0 keeps V8's dynamic
//   factor, as does a --heap-growing-percent already in Node's options. Node accepts the flag on its command line
//   only (NODE_OPTIONS refuses it), and changing V8 flags once a process runs is unsupported (Node's docs of
//   `v8.setFlagsFromString`), so the command line of the replaced process is where it goes.
'use strict'
const { readFileSync } = require('node:fs')

/** The threshold set when NODE_CLI_MMAP_THRESHOLD does not say otherwise (bytes): glibc's initial one, 128 KiB. */
const DEFAULT_MMAP_THRESHOLD = 131072
/** The semi-space size set when NODE_CLI_SEMI_SPACE_MB does not say otherwise (MiB). */
const DEFAULT_SEMI_SPACE_MB = 4
/** The heap growing percent set when NODE_CLI_HEAP_GROWING_PERCENT does not say otherwise (a factor of 1.5). */
const DEFAULT_HEAP_GROWING_PERCENT = 50

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
 * A positive integer setting from the environment.
 * @param {string | undefined} raw the variable's value; unset or empty gives `fallback`
 * @param {number} fallback
 * @returns {number | undefined} undefined for 0 or anything not a positive integer (the setting is left alone)
 */
function positiveSetting(raw, fallback) {
  const value = raw === undefined || raw === '' ? fallback : Number(raw)
  return Number.isSafeInteger(value) && value > 0 ? value : undefined
}

/**
 * Whether Node's options of this process or NODE_OPTIONS name an option matching `option`.
 * @param {Pick<ProcessFacts, 'env' | 'execArgv'>} p
 * @param {RegExp} option
 * @returns {boolean}
 */
function nodeOptionsName(p, option) {
  return [...p.execArgv, p.env.NODE_OPTIONS ?? ''].some((a) => option.test(a))
}

/**
 * The GLIBC_TUNABLES entry to add, or undefined: none when NODE_CLI_MMAP_THRESHOLD is 0 (or not a positive
 * integer), when GLIBC_TUNABLES names a threshold already (the user's own, or this is the replaced process), or off
 * glibc.
 * @param {ProcessFacts} p
 * @returns {string | undefined} `glibc.malloc.mmap_threshold=<bytes>`
 */
function mmapTunable(p) {
  const threshold = positiveSetting(p.env.NODE_CLI_MMAP_THRESHOLD, DEFAULT_MMAP_THRESHOLD)
  if (threshold === undefined) return undefined
  if (/(^|:)glibc\.malloc\.mmap_threshold=/.test(p.env.GLIBC_TUNABLES ?? '')) return undefined
  if (!p.glibc()) return undefined
  return `glibc.malloc.mmap_threshold=${threshold}`
}

/**
 * The V8 option to add, or undefined: none when NODE_CLI_SEMI_SPACE_MB is 0 (or not a positive integer) or Node's
 * options or NODE_OPTIONS hold a semi-space size already (the user's own, or this is the replaced process).
 * @param {ProcessFacts} p
 * @returns {string | undefined} `--max-semi-space-size=<MiB>`
 */
function semiSpaceOption(p) {
  const mb = positiveSetting(p.env.NODE_CLI_SEMI_SPACE_MB, DEFAULT_SEMI_SPACE_MB)
  if (mb === undefined) return undefined
  if (nodeOptionsName(p, /--max[-_]semi[-_]space[-_]size/)) return undefined
  return `--max-semi-space-size=${mb}`
}

/**
 * The V8 option bounding the old generation's growth, or undefined: none when NODE_CLI_HEAP_GROWING_PERCENT is 0 (or
 * not a positive integer) or Node's options name a growing percent already (the user's own, or this is the
 * replaced process; NODE_OPTIONS cannot hold it, Node refuses it there). Also used by the bench (bench/lib/memory.mjs)
 * for the node it runs through the library API.
 * @param {Pick<ProcessFacts, 'env' | 'execArgv'>} p
 * @returns {string | undefined} `--heap-growing-percent=<n>`
 */
function heapGrowingOption(p) {
  const percent = positiveSetting(p.env.NODE_CLI_HEAP_GROWING_PERCENT, DEFAULT_HEAP_GROWING_PERCENT)
  if (percent === undefined) return undefined
  if (nodeOptionsName(p, /--heap[-_]growing[-_]percent/)) return undefined
  return `--heap-growing-percent=${percent}`
}

/**
 * The command this process should become, or undefined to run as it is: on Linux with `process.execve`, when any
 * setting is to be added (see {@link mmapTunable}, {@link semiSpaceOption}, {@link heapGrowingOption}), unless an
 * IPC channel to a parent is open (`child_process.fork`: its descriptor would not survive) or a debugger is asked
 * for (`--inspect*` in Node's options or NODE_OPTIONS: it would attach to the process being replaced).
 * @param {ProcessFacts} p
 * @returns {{ file: string, args: string[], env: Record<string, string | undefined> } | undefined} the arguments of
 *   `process.execve`: the same node, options (the semi-space size and the growing percent after them), script and
 *   arguments; the environment, with the tunable appended to GLIBC_TUNABLES (':'-separated, the user's tunables
 *   kept)
 */
function startReexec(p) {
  if (p.platform !== 'linux' || typeof p.execve !== 'function') return undefined
  if (p.env.NODE_CHANNEL_FD !== undefined) return undefined
  if (nodeOptionsName(p, /--inspect/)) return undefined
  const options = [semiSpaceOption(p), heapGrowingOption(p)].filter((o) => o !== undefined)
  const tunable = mmapTunable(p)
  if (options.length === 0 && tunable === undefined) return undefined
  const tunables = p.env.GLIBC_TUNABLES ?? ''
  return {
    file: p.execPath,
    args: [p.execPath, ...p.execArgv, ...options, ...p.argv.slice(1)],
    env:
      tunable === undefined
        ? { ...p.env }
        : { ...p.env, GLIBC_TUNABLES: tunables === '' ? tunable : `${tunables}:${tunable}` },
  }
}

/**
 * Replaces this process as {@link startReexec} says (never returns then); otherwise, or if `execve` fails,
 * returns and the CLI runs in this process.
 */
function runWithStartSettings() {
  const plan = startReexec({
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
    // e.g. the binary moved since start: run here, with glibc's adjusting threshold and V8's own heap sizing
  }
}

module.exports = {
  DEFAULT_MMAP_THRESHOLD,
  DEFAULT_SEMI_SPACE_MB,
  DEFAULT_HEAP_GROWING_PERCENT,
  heapGrowingOption,
  startReexec,
  runWithStartSettings,
}
