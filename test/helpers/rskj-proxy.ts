/**
 * Test helper: an HTTP JSON-RPC proxy in front of a node-cli that behaves like the reference node (rskj) where a
 * fork's remote client must cope with it (docs/reference-rules.md#rule-fork-remote):
 * - the chain-specific module is named `rsk_` (calls are forwarded as node-cli's `ext_`; `ext_` names answer
 *   -32601), and the storage-bytes method can be switched off as the reference ships it;
 * - block parameters given as EIP-1898 objects are refused: -32603 "Internal server error" when a value is a JSON
 *   boolean (the reference's parameter reader fails on it), -32602 otherwise (stricter than the reference, so a
 *   client that sends any object is caught);
 * - `eth_getProof` answers -32601 (the reference has none);
 * - a batch of more than 50 calls is refused as a whole with -32600 and no `id`;
 * - `eth_getStorageAt` of a cell longer than 32 bytes fails (-32603), as the reference's does;
 * and that can present the upstream as another network (chain id), add latency, fail requests on demand (HTTP 500/503/429, no answer, connection reset) and counts
 * the calls it receives per method.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'

/** A fault the proxy applies to the next HTTP requests. */
export type ProxyFault = 'http500' | 'http503' | 'http429' | 'http401' | 'timeout' | 'reset'

/** How the proxy behaves. */
export interface RskjProxyOptions {
  /** URL of the node-cli behind the proxy. */
  upstream: string
  /** Delay before each request is forwarded (ms, default 0). */
  latencyMs?: number
  /** Serve the storage-bytes method (`rsk_getStorageBytesAt`); the reference has it off by default. Default true. */
  storageBytes?: boolean
  /** Calls allowed per batch (default 50, the reference's limit). */
  maxBatch?: number
  /** Presents the upstream as this network: `eth_chainId` and `net_version` answer it (default: the upstream's). */
  chainId?: number
}

/** A running proxy. */
export interface RskjProxy {
  /** The proxy's URL. */
  readonly url: string
  /** Calls received per method (refused and failed ones included). */
  readonly counts: Map<string, number>
  /** HTTP requests received. */
  readonly httpRequests: () => number
  /** Sizes of the batch requests received (a single call is not a batch). */
  readonly batchSizes: number[]
  /** The most HTTP requests that were open at the same time. */
  maxInFlight(): number
  /** The headers of the last HTTP request (names in lower case). */
  lastHeaders(): Record<string, string | string[] | undefined>
  /** Calls received in all. */
  total(): number
  /** Applies `fault` to the next `n` HTTP requests; `n` = 0 clears the faults not applied yet. */
  failNext(n: number, fault: ProxyFault): void
  /** Sets the delay before forwarding (ms). */
  setLatency(ms: number): void
  /** Clears the counters. */
  resetCounts(): void
  /** Stops listening and drops every connection (the remote is gone). */
  close(): Promise<void>
}

/** Position of the block parameter of the methods that take one (rskj BlockRefParam / BlockIdentifierParam). */
const BLOCK_PARAM: Record<string, number> = {
  eth_getBalance: 1,
  eth_getTransactionCount: 1,
  eth_getCode: 1,
  eth_getStorageAt: 2,
  eth_call: 1,
  eth_estimateGas: 1,
  eth_getBlockByNumber: 0,
  eth_getBlockTransactionCountByNumber: 0,
  eth_getTransactionByBlockNumberAndIndex: 0,
  rsk_getStorageBytesAt: 2,
  rsk_getRawBlockHeaderByNumber: 0,
}

interface Call {
  jsonrpc?: string
  id?: unknown
  method?: unknown
  params?: unknown
}

function errorFor(call: Call, code: number, message: string): unknown {
  return { jsonrpc: '2.0', id: call.id ?? null, error: { code, message } }
}

/** The reference's answer to a call it refuses before it reaches the node, or undefined to forward it. */
function refuse(call: Call, storageBytes: boolean): unknown {
  const method = typeof call.method === 'string' ? call.method : ''
  if (method === 'eth_getProof') return errorFor(call, -32601, 'method not found')
  if (method.startsWith('ext_')) return errorFor(call, -32601, `the method ${method} does not exist/is not available`)
  if (method === 'rsk_getStorageBytesAt' && !storageBytes) {
    return errorFor(call, -32601, `the method ${method} does not exist/is not available`)
  }
  const at = BLOCK_PARAM[method]
  const params = Array.isArray(call.params) ? (call.params as unknown[]) : []
  const ref = at === undefined ? undefined : params[at]
  if (ref !== null && typeof ref === 'object') {
    if (Object.values(ref).some((v) => typeof v === 'boolean')) return errorFor(call, -32603, 'Internal server error')
    return errorFor(call, -32602, 'Invalid block input')
  }
  return undefined
}

/** Starts a proxy on 127.0.0.1 (random port) in front of `opts.upstream`. */
export async function startRskjProxy(opts: RskjProxyOptions): Promise<RskjProxy> {
  const counts = new Map<string, number>()
  const batchSizes: number[] = []
  const faults: ProxyFault[] = []
  const sockets = new Set<Socket>()
  let latency = opts.latencyMs ?? 0
  let http = 0
  let inFlight = 0
  let maxInFlight = 0
  let lastHeaders: Record<string, string | string[] | undefined> = {}
  const maxBatch = opts.maxBatch ?? 50
  const storageBytes = opts.storageBytes ?? true

  /**
   * The upstream's answer to `call`, with the chain id rewritten when the proxy presents another network; a storage
   * word longer than 32 bytes (a native contract's long cell) fails as on the reference (DataWord.valueOf refuses).
   */
  const presented = (call: Call, answer: unknown): unknown => {
    const result = answer !== null && typeof answer === 'object' ? (answer as { result?: unknown }).result : undefined
    if (call.method === 'eth_getStorageAt' && typeof result === 'string' && result.length > 66) {
      return errorFor(call, -32603, 'Internal server error')
    }
    const id = opts.chainId
    if (id === undefined || answer === null || typeof answer !== 'object' || !('result' in answer)) return answer
    if (call.method === 'eth_chainId') return { ...answer, result: '0x' + id.toString(16) }
    if (call.method === 'net_version') return { ...answer, result: String(id) }
    return answer
  }

  const forward = async (calls: Call[]): Promise<unknown[]> => {
    const renamed = calls.map((c) =>
      typeof c.method === 'string' && c.method.startsWith('rsk_') ? { ...c, method: 'ext_' + c.method.slice(4) } : c,
    )
    const res = await fetch(opts.upstream, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(renamed),
    })
    return (await res.json()) as unknown[]
  }

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    http++
    lastHeaders = { ...req.headers }
    const chunks: Buffer[] = []
    for await (const c of req) chunks.push(c as Buffer)
    let body: unknown
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'))
    } catch {
      res
        .writeHead(400, { 'content-type': 'application/json' })
        .end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'JSON parse error' } }))
      return
    }
    const batch = Array.isArray(body)
    const calls = (batch ? body : [body]) as Call[]
    if (batch) batchSizes.push(calls.length)
    for (const c of calls) {
      const m = typeof c?.method === 'string' ? c.method : '(none)'
      counts.set(m, (counts.get(m) ?? 0) + 1)
    }
    const fault = faults.shift()
    if (fault === 'reset') {
      req.socket.destroy()
      return
    }
    if (fault === 'timeout') return // never answered; the socket is dropped at close()
    if (fault === 'http500' || fault === 'http503') {
      res.writeHead(fault === 'http500' ? 500 : 503, { 'content-type': 'text/plain' }).end('server error')
      return
    }
    if (fault === 'http401') {
      res.writeHead(401, { 'content-type': 'text/html' }).end('<html>unauthorized</html>')
      return
    }
    if (fault === 'http429') {
      res.writeHead(429, { 'content-type': 'text/plain', 'retry-after': '0' }).end('too many requests')
      return
    }
    if (batch && calls.length > maxBatch) {
      const refusal = {
        error: {
          code: -32600,
          message: `Cannot dispatch batch requests. ${maxBatch} is the max number of supported batch requests`,
        },
      }
      res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify(refusal))
      return
    }
    if (latency > 0) await new Promise((r) => setTimeout(r, latency))
    const answers: unknown[] = new Array(calls.length)
    const pass: Call[] = []
    const passAt: number[] = []
    calls.forEach((c, i) => {
      const refused = refuse(c, storageBytes)
      if (refused !== undefined) answers[i] = refused
      else {
        pass.push(c)
        passAt.push(i)
      }
    })
    if (pass.length > 0) {
      let got: unknown[]
      try {
        got = await forward(pass)
      } catch {
        res.writeHead(502, { 'content-type': 'text/plain' }).end('upstream unavailable')
        return
      }
      passAt.forEach((at, k) => (answers[at] = presented(pass[k]!, got[k])))
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(batch ? answers : answers[0]))
  }

  const server: Server = createServer((req, res) => {
    inFlight++
    maxInFlight = Math.max(maxInFlight, inFlight)
    res.on('close', () => inFlight--)
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500).end()
    })
  })
  server.on('connection', (s) => {
    sockets.add(s)
    s.on('close', () => sockets.delete(s))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port

  return {
    url: `http://127.0.0.1:${port}`,
    counts,
    batchSizes,
    httpRequests: () => http,
    maxInFlight: () => maxInFlight,
    lastHeaders: () => lastHeaders,
    total: () => [...counts.values()].reduce((a, b) => a + b, 0),
    failNext: (n, fault) => {
      if (n === 0) faults.length = 0
      for (let i = 0; i < n; i++) faults.push(fault)
    },
    setLatency: (ms) => (latency = ms),
    resetCounts: () => {
      counts.clear()
      batchSizes.length = 0
      http = 0
      maxInFlight = 0
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        for (const s of sockets) s.destroy()
      }),
  }
}
