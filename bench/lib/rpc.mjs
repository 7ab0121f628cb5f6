// A minimal keep-alive JSON-RPC client over node:http (one socket, so sequential
// calls measure the node, not connection setup), with a timeout on every call.
import http from 'node:http'

export class RpcError extends Error {
  constructor(method, error) {
    super(
      `${method}: ${error?.message ?? JSON.stringify(error)}${error?.data ? ` (data ${JSON.stringify(error.data)})` : ''}`,
    )
    this.rpcError = error
  }
}

export class Rpc {
  constructor(url, { timeoutMs = 30000 } = {}) {
    this.url = new URL(url)
    this.timeoutMs = timeoutMs
    this.agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
    this.nextId = 1
  }

  /** POSTs `body` (a string) and resolves with the raw response text. */
  raw(body, { timeoutMs = this.timeoutMs, agent = this.agent } = {}) {
    return new Promise((resolve, reject) => {
      const req = http.request(
        {
          host: this.url.hostname,
          port: this.url.port,
          path: this.url.pathname,
          method: 'POST',
          agent,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          const chunks = []
          res.on('data', (c) => chunks.push(c))
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8')
            if (res.statusCode !== 200) reject(new Error(`HTTP ${res.statusCode}: ${text.slice(0, 300)}`))
            else resolve(text)
          })
          res.on('error', reject)
        },
      )
      req.setTimeout(timeoutMs, () => req.destroy(new Error(`timeout after ${timeoutMs} ms`)))
      req.on('error', reject)
      req.end(body)
    })
  }

  /** Calls `method` and returns its result (throws RpcError on a JSON-RPC error). */
  async call(method, params = [], opts) {
    const text = await this.raw(JSON.stringify({ jsonrpc: '2.0', id: this.nextId++, method, params }), opts)
    let j
    try {
      j = JSON.parse(text)
    } catch {
      throw new Error(`${method}: not JSON: ${text.slice(0, 200)}`)
    }
    if (j.error) throw new RpcError(method, j.error)
    return j.result
  }

  close() {
    this.agent.destroy()
  }
}

/** A fixed request body (id 1), as the load generator sends it. */
export const body = (method, params = []) => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params })

export const hex = (n) => '0x' + BigInt(n).toString(16)
