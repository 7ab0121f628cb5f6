// Child-process plumbing for the benchmark: free ports, spawning a node with a
// bounded output tail, stopping it (SIGTERM, then SIGKILL), reading its RSS, and
// making sure no child outlives the benchmark (exit, signals, crashes).
import { spawn } from 'node:child_process'
import { readFileSync, rmSync } from 'node:fs'
import net from 'node:net'

const children = new Set()
const tempDirs = new Set()

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

/** Registers a directory to delete when the benchmark exits. */
export function removeOnExit(dir) {
  tempDirs.add(dir)
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
 * isAlive(), stop() }.
 * @param {string} cmd
 * @param {string[]} args
 * @param {{ cwd?: string, env?: NodeJS.ProcessEnv, tailBytes?: number }} [opts]
 */
export function spawnChild(cmd, args, { cwd, env, tailBytes = 8192 } = {}) {
  const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] })
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

/** A kB field of /proc/<pid>/status in MiB, or null. */
function statusMiB(pid, field) {
  try {
    const m = new RegExp(`${field}:\\s+(\\d+)\\s+kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return m ? Number(m[1]) / 1024 : null
  } catch {
    return null
  }
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

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}
