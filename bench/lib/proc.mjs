// Child-process plumbing for the benchmark: free ports, spawning a node with a
// bounded output tail, stopping it (SIGTERM, then SIGKILL), reading its RSS and CPU
// time, and making sure no child outlives the benchmark (exit, signals, crashes).
import { spawn } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import net from 'node:net'
import { cpus, tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'

const children = new Set()
const tempDirs = new Set()

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

/** Registers a directory to delete when the benchmark exits. */
export function removeOnExit(dir) {
  tempDirs.add(dir)
}

/** A new empty directory under the OS temp dir (name `<prefix>XXXXXX`), deleted when the benchmark exits. */
export function tempDir(prefix) {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  removeOnExit(dir)
  return dir
}

/** Total size in bytes of the files under `dir` (recursively; 0 when it does not exist). */
export function dirBytes(dir) {
  let total = 0
  let names
  try {
    names = readdirSync(dir, { withFileTypes: true })
  } catch {
    return 0
  }
  for (const d of names) {
    const p = join(dir, d.name)
    if (d.isDirectory()) total += dirBytes(p)
    else {
      try {
        total += statSync(p).size
      } catch {}
    }
  }
  return total
}

function cleanupSync() {
  for (const c of children) {
    try {
      c.kill('SIGKILL')
    } catch {}
  }
  children.clear()
  for (const d of tempDirs) {
    try {
      rmSync(d, { recursive: true, force: true })
    } catch {}
  }
  tempDirs.clear()
}

let installed = false
/** Kills every spawned child on exit, SIGINT/SIGTERM/SIGHUP and uncaught errors. */
export function installCleanup() {
  if (installed) return
  installed = true
  process.on('exit', cleanupSync)
  for (const [sig, code] of /** @type {Array<[NodeJS.Signals, number]>} */ ([
    ['SIGINT', 130],
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ])) {
    process.on(sig, () => {
      console.error(`\nbench: ${sig}, stopping the nodes`)
      cleanupSync()
      process.exit(code)
    })
  }
  const crash = (err) => {
    console.error('bench: fatal:', err?.stack ?? err)
    cleanupSync()
    process.exit(1)
  }
  process.on('uncaughtException', crash)
  process.on('unhandledRejection', crash)
}

/** A free TCP port on 127.0.0.1 (the OS picks it; released before use). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer()
    srv.unref()
    srv.on('error', reject)
    srv.listen(0, '127.0.0.1', () => {
      const { port } = /** @type {import('node:net').AddressInfo} */ (srv.address())
      srv.close(() => resolve(port))
    })
  })
}

/**
 * Spawns `cmd args` with piped, drained output (the last `tailBytes` kept for
 * error messages). Returns { child, pid, tail(), exited (promise of {code, signal}),
 * isAlive(), stop() }. With `ipc` (a Node script) the child also gets an IPC channel
 * (child.send / child.on('message')).
 * @param {string} cmd
 * @param {string[]} args
 * @param {{ cwd?: string, env?: NodeJS.ProcessEnv, tailBytes?: number, ipc?: boolean }} [opts]
 */
export function spawnChild(cmd, args, { cwd, env, tailBytes = 8192, ipc = false } = {}) {
  /** @type {import('node:child_process').StdioOptions} */
  const stdio = ipc ? ['ignore', 'pipe', 'pipe', 'ipc'] : ['ignore', 'pipe', 'pipe']
  const child = spawn(cmd, args, { cwd, env, stdio })
  children.add(child)
  let out = ''
  const keep = (chunk) => {
    out += chunk.toString()
    if (out.length > tailBytes * 2) out = out.slice(-tailBytes)
  }
  child.stdout.on('data', keep)
  child.stderr.on('data', keep)
  let alive = true
  const exited = new Promise((resolve) => {
    child.on('exit', (code, signal) => {
      alive = false
      children.delete(child)
      resolve({ code, signal })
    })
    child.on('error', (err) => {
      alive = false
      children.delete(child)
      keep(`spawn error: ${err.message}\n`)
      resolve({ code: null, signal: null, error: err })
    })
  })
  return {
    child,
    pid: child.pid,
    exited,
    isAlive: () => alive,
    tail: () => out.slice(-tailBytes).trim(),
    /** SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone. */
    async stop(graceMs = 3000) {
      if (!alive) return
      try {
        child.kill('SIGTERM')
      } catch {}
      const t = setTimeout(() => {
        try {
          child.kill('SIGKILL')
        } catch {}
      }, graceMs)
      await exited
      clearTimeout(t)
    },
  }
}

/** Resident set size of a process in MiB (VmRSS from /proc/<pid>/status), or null. */
export function rssMiB(pid) {
  return statusMiB(pid, 'VmRSS')
}

/** Peak resident set size of a process so far in MiB (VmHWM from /proc/<pid>/status), or null once it is gone. */
export function peakRssMiB(pid) {
  return statusMiB(pid, 'VmHWM')
}

/**
 * The two parts of a process's resident set in MiB (RssAnon: heap and other private memory; RssFile: mapped
 * files, e.g. LevelDB's memory-mapped tables, pages the kernel can drop and read again), or nulls.
 */
export function rssPartsMiB(pid) {
  return { anon: statusMiB(pid, 'RssAnon'), file: statusMiB(pid, 'RssFile') }
}

/** A kB field of /proc/<pid>/status in MiB, or null. */
function statusMiB(pid, field) {
  try {
    const m = new RegExp(`${field}:\\s+(\\d+)\\s+kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return m ? Number(m[1]) / 1024 : null
  } catch {
    return null
  }
}

/**
 * Resident memory of process `pid` (a number or 'self') by kind of mapping (/proc/<pid>/smaps), in bytes: `brk` (the main malloc heap), `arenas` (anonymous
 * mappings of 1 MiB or more whose size is a multiple of 1 MiB: malloc's thread arenas, large malloc blocks, V8's
 * reservations), `anon` (the other anonymous mappings: V8 pages), `file` (mapped files), with the mapping counts.
 */
export function residentByKind(pid) {
  const out = { brk: 0, arenas: 0, anon: 0, file: 0, arenaMaps: 0, anonMaps: 0 }
  let kind = 'anon'
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = /^[0-9a-f]+-[0-9a-f]+ /.exec(line)
    if (head) {
      const [range, , , , inode, ...rest] = line.split(/\s+/)
      const [a, b] = range.split('-').map((x) => parseInt(x, 16))
      const name = rest.join(' ')
      if (name === '[heap]') kind = 'brk'
      else if (inode !== '0' || name !== '')
        kind = 'file' // a file, or a named mapping ([stack], [vdso]…)
      else if (b - a >= 2 ** 20 && (b - a) % 2 ** 20 === 0) kind = 'arenas'
      else kind = 'anon'
      if (kind === 'arenas') out.arenaMaps++
      else if (kind === 'anon') out.anonMaps++
    } else if (line.startsWith('Rss:')) out[kind] += parseInt(line.slice(4)) * 1024
  }
  return out
}
/** Direct children of a process (Linux), to notice a peer that forks its real server. */
export function childPids(pid) {
  try {
    const tasks = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim()
    return tasks ? tasks.split(/\s+/).map(Number) : []
  } catch {
    return []
  }
}

/** utime + stime of a process in seconds (/proc/<pid>/stat, 100 ticks/s), or null. */
export function cpuSeconds(pid) {
  return statCpuSeconds(`/proc/${pid}/stat`)
}

/** utime + stime of a process's main thread alone in seconds (its thread id is the pid), or null. */
export function mainThreadCpuSeconds(pid) {
  return statCpuSeconds(`/proc/${pid}/task/${pid}/stat`)
}

/** utime + stime in seconds from a /proc stat file (a process's or a thread's), or null when it cannot be read. */
function statCpuSeconds(path) {
  try {
    const stat = readFileSync(path, 'utf8')
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(f[11]) + Number(f[12])) / 100
  } catch {
    return null
  }
}

/** Busy CPU seconds of the whole machine (/proc/stat, all cores), or null. */
function machineBusySeconds() {
  try {
    const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number)
    // user nice system idle iowait irq softirq steal …: everything but idle and iowait
    return (f[0] + f[1] + f[2] + f[5] + f[6] + f[7]) / 100
  } catch {
    return null
  }
}

/**
 * Starts measuring the CPU used by other processes (not this one, not the node `pid`) until the returned
 * function is called; it returns their share of the whole machine in % (or null without /proc).
 */
export function foreignCpu(pid) {
  const m0 = machineBusySeconds()
  const n0 = cpuSeconds(pid)
  const c0 = process.cpuUsage()
  const w0 = performance.now()
  return () => {
    const m1 = machineBusySeconds()
    const n1 = cpuSeconds(pid)
    if (m0 == null || m1 == null || n0 == null || n1 == null) return null
    const c = process.cpuUsage(c0)
    const wall = (performance.now() - w0) / 1000
    const foreign = m1 - m0 - (n1 - n0) - (c.user + c.system) / 1e6
    return Math.max(0, Math.round((foreign / wall / cpus().length) * 100))
  }
}
