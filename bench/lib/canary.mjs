// The machine-speed canary of --sustain: a separate process that runs the same fixed piece of work every 2 s and
// reports the CPU time it took. On a shared machine the speed a core gives a process moves (other tenants, the
// host's caches and memory bandwidth) while the process's own CPU time looks the same, so a fall in requests per
// second at a steady node CPU can be the machine or more work per request; the canary's CPU time per run tells
// which (bench/README.md, "--sustain"). Run directly (`node canary.mjs`) it is the child; imported, it starts one.
import { fork } from 'node:child_process'
import { createHash } from 'node:crypto'
import { performance } from 'node:perf_hooks'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { median } from './stats.mjs'

/** Milliseconds between two runs of the fixed work in the child. */
const CANARY_EVERY_MS = 2000
/** Runs discarded at the start (the work's code is still being optimised). */
const CANARY_WARMUP_RUNS = 3

/**
 * The fixed work, the same on every call (~10-20 ms of CPU on a 2 GHz core): object allocation and Map lookups,
 * a JSON round trip, BigInt arithmetic and SHA-256 over 512 KB — the kinds of work a JSON-RPC node does. Each part
 * feeds the returned number (V8 does not drop loops, and native calls such as the hashing always run, so the
 * caller may ignore it).
 */
function fixedWork() {
  let acc = 0
  const m = new Map()
  for (let i = 0; i < 30_000; i++) {
    const o = { k: `k${i % 997}`, v: i, pair: [i, i + 1] }
    m.set(o.k, o)
    acc += m.get(`k${(i * 7) % 997}`)?.pair[1] ?? 0
  }
  const json = JSON.stringify([...m.values()])
  acc += JSON.parse(json).length
  let b = 1n
  const p = 2n ** 256n - 189n
  for (let i = 0; i < 3_000; i++) b = (b * 1_000_003n + BigInt(i)) % p
  const buf = Buffer.alloc(1 << 16, 7)
  for (let i = 0; i < 8; i++) acc += createHash('sha256').update(buf).update(String(i)).digest()[0]
  return acc + Number(b & 0xffn)
}

/** The child: runs the fixed work every CANARY_EVERY_MS and sends { endMs (epoch ms), cpuMs } of each run. */
function runChild() {
  process.on('disconnect', () => process.exit(0))
  let runs = 0
  const once = () => {
    const c0 = process.cpuUsage()
    fixedWork()
    const c = process.cpuUsage(c0)
    if (++runs > CANARY_WARMUP_RUNS && process.connected) {
      process.send({ endMs: performance.timeOrigin + performance.now(), cpuMs: (c.user + c.system) / 1000 })
    }
  }
  setInterval(once, CANARY_EVERY_MS)
}

/**
 * Starts the canary child. Returns { cpuMsBetween(fromMs, toMs) — the median CPU time (ms) of the runs that ended
 * between two times given as performance.now() of this process, or null; stop() }.
 */
export function startCanary() {
  /** @type {{ endMs: number, cpuMs: number }[]} */
  const runs = []
  const child = fork(fileURLToPath(import.meta.url), [], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] })
  child.on('message', (m) => runs.push(/** @type {{ endMs: number, cpuMs: number }} */ (m)))
  child.on('error', () => {})
  // neither the child nor its channel keeps the bench running; the child exits when the channel closes
  child.unref()
  child.channel?.unref()
  return {
    cpuMsBetween(from, to) {
      const a = performance.timeOrigin + from
      const b = performance.timeOrigin + to
      const xs = runs.filter((r) => r.endMs > a && r.endMs <= b).map((r) => r.cpuMs)
      return xs.length === 0 ? null : +median(xs).toFixed(2)
    },
    stop() {
      if (child.connected) child.disconnect()
      child.kill()
    },
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) runChild()
