// @ts-check
/**
 * The --fork section's remote: an HTTP JSON-RPC proxy on 127.0.0.1 in front of the upstream node that delays
 * every HTTP request by a fixed latency (a remote node is not on localhost) and counts what the forking node asks
 * of it: HTTP requests, JSON-RPC calls (a batch counts each entry) and calls per method. Bodies are forwarded as
 * they come (single calls and batches alike) and answered with the upstream's status and body.
 */
import http from 'node:http'
import { performance } from 'node:perf_hooks'

/**
 * @typedef {object} ForkProxy
 * @property {string} url the proxy's URL
 * @property {() => ProxyCounts} counts what was received since the last reset (a copy)
 * @property {() => void} reset clears the counters
 * @property {() => Promise<void>} close stops listening and drops every connection
 */

/**
 * @typedef {object} ProxyCounts
 * @property {number} http HTTP requests
 * @property {number} calls JSON-RPC calls (batch entries counted one by one)
 * @property {number} batches HTTP requests whose body was a batch
 * @property {Record<string, number>} methods calls per method
 * @property {number} upstreamMs time the upstream took to answer, summed over the requests (ms; the added latency
 *   not included): how much of a step's time the upstream node itself accounts for
 */

/**
 * Starts the proxy on a free port.
 * @param {{ upstream: string, latencyMs?: number }} o the upstream node's URL; the delay before each HTTP request
 *   is forwarded (ms, default 0)
 * @returns {Promise<ForkProxy>}
 */
export async function startForkProxy({ upstream, latencyMs = 0 }) {
  const up = new URL(upstream)
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 })
  /** @type {ProxyCounts} */
  let counts = { http: 0, calls: 0, batches: 0, methods: {}, upstreamMs: 0 }
  /** @type {Set<import('node:net').Socket>} */
  const sockets = new Set()

  const count = (body) => {
    counts.http++
    let parsed
    try {
      parsed = JSON.parse(body.toString('utf8'))
    } catch {
      return
    }
    const calls = Array.isArray(parsed) ? parsed : [parsed]
    if (Array.isArray(parsed)) counts.batches++
    for (const c of calls) {
      const m = typeof c?.method === 'string' ? c.method : '(none)'
      counts.calls++
      counts.methods[m] = (counts.methods[m] ?? 0) + 1
    }
  }

  /** Forwards `body` to the upstream and resolves with its status and body. */
  const forward = (body) =>
    new Promise((resolve, reject) => {
      const req = http.request(
        {
          host: up.hostname,
          port: up.port,
          path: up.pathname,
          method: 'POST',
          agent,
          headers: { 'content-type': 'application/json', 'content-length': body.length },
        },
        (res) => {
          /** @type {Buffer[]} */
          const chunks = []
          res.on('data', (c) => chunks.push(c))
          res.on('end', () => resolve({ status: res.statusCode ?? 502, body: Buffer.concat(chunks) }))
          res.on('error', reject)
        },
      )
      req.on('error', reject)
      req.end(body)
    })

  const server = http.createServer(async (req, res) => {
    /** @type {Buffer[]} */
    const chunks = []
    for await (const c of req) chunks.push(c)
    const body = Buffer.concat(chunks)
    count(body)
    if (latencyMs > 0) await new Promise((r) => setTimeout(r, latencyMs))
    try {
      const t = performance.now()
      const got = /** @type {{ status: number, body: Buffer }} */ (await forward(body))
      counts.upstreamMs += performance.now() - t
      res.writeHead(got.status, { 'content-type': 'application/json', 'content-length': got.body.length })
      res.end(got.body)
    } catch (err) {
      res.writeHead(502, { 'content-type': 'text/plain' }).end(`fork proxy: upstream failed: ${err.message}`)
    }
  })
  server.keepAliveTimeout = 60_000
  server.on('connection', (s) => {
    sockets.add(s)
    s.on('close', () => sockets.delete(s))
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)))
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address())
  return {
    url: `http://127.0.0.1:${port}`,
    counts: () => ({ ...counts, methods: { ...counts.methods } }),
    reset: () => {
      counts = { http: 0, calls: 0, batches: 0, methods: {}, upstreamMs: 0 }
    },
    close: async () => {
      for (const s of sockets) s.destroy()
      agent.destroy()
      await new Promise((resolve) => server.close(() => resolve(undefined)))
    },
  }
}

/**
 * What was counted between two snapshots of {@link ForkProxy.counts} (`after` − `before`, methods with no calls
 * left out).
 * @param {ProxyCounts} before
 * @param {ProxyCounts} after
 * @returns {ProxyCounts}
 */
export function countsBetween(before, after) {
  /** @type {Record<string, number>} */
  const methods = {}
  for (const [m, n] of Object.entries(after.methods)) {
    const d = n - (before.methods[m] ?? 0)
    if (d) methods[m] = d
  }
  return {
    http: after.http - before.http,
    calls: after.calls - before.calls,
    batches: after.batches - before.batches,
    methods,
    upstreamMs: +(after.upstreamMs - before.upstreamMs).toFixed(1),
  }
}
