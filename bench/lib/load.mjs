// The HTTP load tests: autocannon (bench/package.json) over a set of JSON-RPC requests, every response
// checked against a validated answer, with the CPU use of the node and of the load generator.
import { performance } from 'node:perf_hooks'
import { benchRequire } from './paths.mjs'
import { cpuSeconds } from './proc.mjs'

/** The load generator (its programmatic API, in this process). */
export const autocannon = benchRequire('autocannon')
/** The load generator at >= this % of a core: the figure is a floor set by the client, not the node's ceiling. */
export const CLIENT_BOUND_PCT = 90

/** Whether the JSON-RPC response `text` has the `result` whose JSON is `resultJson`. */
export function sameResult(text, resultJson) {
  try {
    return JSON.stringify(JSON.parse(text).result) === resultJson
  } catch {
    return false
  }
}

/**
 * Sends the request body `b` once, validates the result with `check(result)` (throws/false = bad, and so does
 * a JSON-RPC error; `what` names it in the message), returns a load request { body, expect (the raw answer),
 * resultJson }.
 */
export async function preflight(rpc, b, check, what) {
  const text = await rpc.raw(b)
  const j = JSON.parse(text)
  if (j.error) throw new Error(`${what}: ${JSON.stringify(j.error)}`)
  let ok
  try {
    ok = check(j.result)
  } catch {
    ok = false
  }
  if (!ok) throw new Error(`${what}: unexpected result ${JSON.stringify(j.result).slice(0, 300)}`)
  return { body: b, expect: text, resultJson: JSON.stringify(j.result) }
}

/**
 * One autocannon run against `inst` (a started peer: url, pid) over `reqs` (each { body, expect, resultJson,
 * vary?(i) → body, accept?(text) }) cycled per connection, after `opts.warmup` s of warm-up, for `opts.duration`
 * s on `opts.connections` connections. Every response is checked: identical bytes to the validated preflight
 * answer, or the same `result`, or accept(text). Returns { rps (correct answers per second), clientCpuPct,
 * serverCpuPct (% of one core), ok, bad, errors, timeouts, sample (a wrong answer), latencyMs { p50, p99 } }.
 */
export async function load(inst, reqs, opts) {
  const url = inst.url
  let counter = 0
  const make = (c) =>
    reqs.map((r) => ({
      method: 'POST',
      path: '/',
      headers: { 'content-type': 'application/json' },
      body: r.body,
      // `vary(i)` gives every request a different body (nothing a node could memoize)
      ...(r.vary ? { setupRequest: (req) => ({ ...req, body: r.vary(counter++) }) } : {}),
      onResponse: (status, text) => {
        if (status === 200 && (text === r.expect || sameResult(text, r.resultJson) || r.accept?.(text))) c.ok++
        else {
          c.bad++
          c.sample ??= `HTTP ${status}: ${String(text).slice(0, 200)}`
        }
      },
    }))
  const base = { url, connections: opts.connections, pipelining: 1, timeout: 10 }
  if (opts.warmup > 0) await autocannon({ ...base, duration: opts.warmup, requests: make({ ok: 0, bad: 0 }) })
  const c = { ok: 0, bad: 0, sample: null }
  const server0 = cpuSeconds(inst.pid)
  const client0 = process.cpuUsage()
  const w0 = performance.now()
  const r = await autocannon({ ...base, duration: opts.duration, requests: make(c) })
  const wall = (performance.now() - w0) / 1000
  const client = process.cpuUsage(client0)
  const server1 = cpuSeconds(inst.pid)
  return {
    rps: c.ok / r.duration,
    // CPU use in % of one core over the run: the load generator (this process) and the node.
    clientCpuPct: Math.round(((client.user + client.system) / 1e6 / wall) * 100),
    serverCpuPct: server0 == null || server1 == null ? null : Math.round(((server1 - server0) / wall) * 100),
    ok: c.ok,
    bad: c.bad,
    errors: r.errors,
    timeouts: r.timeouts,
    sample: c.sample,
    latencyMs: { p50: r.latency.p50, p99: r.latency.p99 },
  }
}
