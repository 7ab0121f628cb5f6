import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import WebSocket from 'ws'
import { loadUws, startServer } from '../../src/server/index.js'
import type { Connection, HandlerResponse, RequestHandler, RunningServer } from '../../src/server/types.js'
import { waitUntil } from '../helpers/wait.js'

type Transport = 'uws' | 'node'

/** What the echo handler answers: the text it got and the connection it came on. */
interface Echo {
  text: string
  transport: 'http' | 'ws'
  id: number
}

/**
 * A test handler driven by the request text:
 * - `bad` -> status 400; `none` -> undefined; `throw` -> rejects;
 * - `keep:<name>` -> remembers the connection under <name> (and counts its onClose calls);
 * - `slow` -> answers after 200 ms;
 * - anything else -> 200 with {@link Echo}.
 */
class TestHandler implements RequestHandler {
  readonly kept = new Map<string, Connection>()
  readonly closeCount = new Map<string, number>()
  readonly closed = new Map<string, Promise<void>>()
  /** 'slow' requests that reached the handler, and those it finished (each after 200 ms). */
  readonly slow = { started: 0, done: 0 }

  async handle(body: string, connection: Connection): Promise<HandlerResponse | undefined> {
    if (body === 'bad') return { status: 400, body: '{"error":"bad"}' }
    if (body === 'none') return undefined
    if (body === 'throw') throw new Error('boom')
    if (body === 'slow') {
      this.slow.started++
      await new Promise((r) => setTimeout(r, 200))
      this.slow.done++
    }
    if (body.startsWith('keep:')) {
      const name = body.slice(5)
      this.kept.set(name, connection)
      this.closeCount.set(name, 0)
      this.closed.set(
        name,
        new Promise<void>((resolve) =>
          connection.onClose(() => {
            this.closeCount.set(name, (this.closeCount.get(name) ?? 0) + 1)
            resolve()
          }),
        ),
      )
    }
    const echo: Echo = { text: body, transport: connection.transport, id: connection.id }
    return { status: 200, body: JSON.stringify(echo) }
  }
}

/** A ws client with a message queue. */
class Client {
  readonly messages: string[] = []
  private waiters: ((m: string) => void)[] = []
  readonly closed: Promise<{ code: number; reason: string }>
  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data: WebSocket.RawData) => {
      const text = (data as Buffer).toString('utf8')
      const waiter = this.waiters.shift()
      if (waiter) waiter(text)
      else this.messages.push(text)
    })
    this.closed = new Promise((resolve) =>
      ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
    )
    ws.on('error', () => {})
  }

  static open(url: string): Promise<Client> {
    const ws = new WebSocket(url)
    const client = new Client(ws)
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(client))
      ws.once('error', reject)
    })
  }

  next(timeoutMs = 2000): Promise<string> {
    const queued = this.messages.shift()
    if (queued !== undefined) return Promise.resolve(queued)
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no message within timeout')), timeoutMs)
      this.waiters.push((m) => {
        clearTimeout(timer)
        resolve(m)
      })
    })
  }

  async request(text: string | Buffer): Promise<string> {
    this.ws.send(text)
    return this.next()
  }
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

describe('loadUws', () => {
  it('loads a uWS binary on this Node version (20) and caches it', async () => {
    const first = await loadUws()
    expect(first).toBeDefined()
    expect(typeof first?.App).toBe('function')
    expect(await loadUws()).toBe(first)
  })

  it('startServer defaults to uWS here and honours transport: node', async () => {
    const handler = new TestHandler()
    const a = await startServer(handler, { host: '127.0.0.1', port: 0 })
    const b = await startServer(handler, { host: '127.0.0.1', port: 0, transport: 'node' })
    try {
      expect(a.transport).toBe('uws')
      expect(b.transport).toBe('node')
    } finally {
      await a.close()
      await b.close()
    }
  })
})

/** The Node ABIs uws-pack 20.0.8, the second uWebSockets.js distribution (src/server/index.ts loadUws), has binaries for. */
const UWS_PACK_ABIS = ['108', '115', '120', '127']

describe('the second distribution when the first does not load (e.g. glibc < 2.38)', () => {
  it.skipIf(!UWS_PACK_ABIS.includes(process.versions.modules))('loads uws-pack and serves with uWS', async () => {
    vi.resetModules()
    vi.doMock('uWebSockets.js', () => {
      throw new Error('no binary for this C library')
    })
    try {
      const fresh = await import('../../src/server/index.js')
      const uws = await fresh.loadUws()
      expect(typeof uws?.App).toBe('function')
      const s = await fresh.startServer(new TestHandler(), { host: '127.0.0.1', port: 0, transport: 'uws' })
      try {
        expect(s.transport).toBe('uws')
        const res = await fetch(`http://127.0.0.1:${s.port}/`, { method: 'POST', body: 'second' })
        expect(((await res.json()) as Echo).text).toBe('second')
      } finally {
        await s.close()
      }
    } finally {
      vi.doUnmock('uWebSockets.js')
      vi.resetModules()
    }
  })
})

describe('fallback when no uWS binary loads (e.g. Node 24+ on glibc < 2.38)', () => {
  it('serves with node:http + ws by default and rejects a forced uws, naming both reasons', async () => {
    vi.resetModules()
    vi.doMock('uWebSockets.js', () => {
      throw new Error('no binary for this C library')
    })
    vi.doMock('uws-pack', () => {
      throw new Error('no binary for this ABI')
    })
    try {
      const fresh = await import('../../src/server/index.js')
      expect(await fresh.loadUws()).toBeUndefined()
      const s = await fresh.startServer(new TestHandler(), { host: '127.0.0.1', port: 0 })
      try {
        expect(s.transport).toBe('node')
        const res = await fetch(`http://127.0.0.1:${s.port}/`, { method: 'POST', body: 'fallback' })
        expect(((await res.json()) as Echo).text).toBe('fallback')
      } finally {
        await s.close()
      }
      const forced = fresh.startServer(new TestHandler(), { host: '127.0.0.1', port: 0, transport: 'uws' })
      // one reason per distribution (vitest words a throwing mock factory its own way; the real reasons are checked
      // on Node 24 by test/e2e/node-versions.test.ts)
      await expect(forced).rejects.toThrow(/^uWebSockets\.js cannot load on Node [\d.]+ \(\w+\/\w+, ABI \d+\): .+; .+$/)
      const cause = await forced.catch((err: Error) => err.cause)
      expect(cause).toBeInstanceOf(AggregateError)
      expect((cause as AggregateError).errors).toHaveLength(2)
    } finally {
      vi.doUnmock('uWebSockets.js')
      vi.doUnmock('uws-pack')
      vi.resetModules()
    }
  })
})

describe.each<Transport>(['uws', 'node'])('%s transport', (transport) => {
  const handler = new TestHandler()
  let server: RunningServer
  let base: string
  let wsBase: string

  beforeAll(async () => {
    server = await startServer(handler, { host: '127.0.0.1', port: 0, transport })
    base = `http://127.0.0.1:${server.port}`
    wsBase = `ws://127.0.0.1:${server.port}`
  })
  afterAll(async () => {
    await server.close()
  })

  const post = (path: string, body: NonNullable<RequestInit['body']>, init: RequestInit = {}): Promise<Response> =>
    fetch(base + path, { method: 'POST', body, headers: { 'content-type': 'application/json' }, ...init })

  it('reports its transport and a real port', () => {
    expect(server.transport).toBe(transport)
    expect(server.port).toBeGreaterThan(0)
  })

  describe('HTTP', () => {
    it('POST / hands the body to the handler and returns its answer as JSON', async () => {
      const res = await post('/', '{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}')
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toBe('application/json')
      const echo = (await res.json()) as Echo
      expect(echo.text).toBe('{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}')
      expect(echo.transport).toBe('http')
      expect(echo.id).toBeGreaterThanOrEqual(1)
    })

    it('POST on any path (an API key path) works the same', async () => {
      for (const path of ['/some-api-key', '/v1/abc/def', '/?x=1']) {
        const res = await post(path, `hello ${path}`)
        expect(res.status).toBe(200)
        expect(((await res.json()) as Echo).text).toBe(`hello ${path}`)
      }
    })

    it('gives every request a new increasing connection id', async () => {
      const a = ((await (await post('/', 'a')).json()) as Echo).id
      const b = ((await (await post('/', 'b')).json()) as Echo).id
      expect(b).toBeGreaterThan(a)
    })

    it('propagates the handler status', async () => {
      const res = await post('/', 'bad')
      expect(res.status).toBe(400)
      expect(res.headers.get('content-type')).toBe('application/json')
      expect(await res.text()).toBe('{"error":"bad"}')
    })

    it('answers 200 with an empty body when the handler returns undefined', async () => {
      const res = await post('/', 'none')
      expect(res.status).toBe(200)
      expect(res.headers.get('content-length')).toBe('0')
      expect(await res.text()).toBe('')
    })

    it('answers 500 when the handler breaks its contract and rejects', async () => {
      const res = await post('/', 'throw', { headers: { origin: 'http://localhost:3000' } })
      expect(res.status).toBe(500)
      expect(res.headers.get('access-control-allow-origin')).toBe('http://localhost:3000')
      // the server keeps serving
      expect((await post('/', 'after')).status).toBe(200)
    })

    it('handles an empty body', async () => {
      const res = await post('/', '')
      expect(res.status).toBe(200)
      expect(((await res.json()) as Echo).text).toBe('')
    })

    it('sends CORS headers on POST from an allowed origin (echoed, never *)', async () => {
      const res = await post('/', 'x', {
        headers: { 'content-type': 'application/json', origin: 'http://localhost:5173' },
      })
      expect(res.headers.get('access-control-allow-origin')).toBe('http://localhost:5173')
      expect(res.headers.get('vary')?.toLowerCase()).toContain('origin')
      expect(res.headers.get('access-control-allow-methods')).toContain('POST')
      expect(res.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('content-type')
    })

    it('answers the CORS preflight (OPTIONS) on any path', async () => {
      for (const path of ['/', '/key']) {
        const res = await fetch(base + path, {
          method: 'OPTIONS',
          headers: {
            origin: 'http://127.0.0.1:8080',
            'access-control-request-method': 'POST',
            'access-control-request-headers': 'content-type',
          },
        })
        expect(res.status).toBe(204)
        expect(res.headers.get('access-control-allow-origin')).toBe('http://127.0.0.1:8080')
        expect(res.headers.get('access-control-allow-methods')).toMatch(/POST.*OPTIONS/)
        expect(res.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('content-type')
        expect(await res.text()).toBe('')
      }
    })

    it('preflight allows the headers the browser asks for (default content-type)', async () => {
      const asked = await fetch(base, {
        method: 'OPTIONS',
        headers: { 'access-control-request-headers': 'content-type,x-custom' },
      })
      expect(asked.headers.get('access-control-allow-headers')).toBe('content-type,x-custom')
      const plain = await fetch(base, { method: 'OPTIONS' })
      expect(plain.headers.get('access-control-allow-headers')).toBe('content-type')
    })

    it('rejects GET (no upgrade) and other methods with 405 and a plain-text body', async () => {
      for (const [method, path] of [
        ['GET', '/'],
        ['GET', '/key'],
        ['PUT', '/'],
        ['DELETE', '/x'],
      ] as const) {
        const res = await fetch(base + path, { method, body: method === 'PUT' ? 'x' : undefined })
        expect(res.status).toBe(405)
        expect(res.headers.get('allow')).toBe('POST, OPTIONS')
        expect(res.headers.get('content-type')).toMatch(/^text\/plain/)
        const text = await res.text()
        expect(text).toMatch(/Method Not Allowed/)
        expect(text).not.toContain('jsonrpc')
      }
      const head = await fetch(base, { method: 'HEAD' })
      expect(head.status).toBe(405)
      expect(await head.text()).toBe('')
      // the keep-alive connection is still usable afterwards
      expect((await post('/', 'still ok')).status).toBe(200)
    })

    it('reads multi-chunk bodies (Content-Length and chunked) with multi-byte UTF-8 intact', async () => {
      const text = '["' + 'é€😀x'.repeat(60_000) + '"]' // ~600 KB, many TCP reads
      const res = await post('/', text)
      expect(res.status).toBe(200)
      expect(((await res.json()) as Echo).text).toBe(text)

      const bytes = Buffer.from(text)
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          for (let i = 0; i < bytes.length; i += 7_777) controller.enqueue(bytes.subarray(i, i + 7_777))
          controller.close()
        },
      })
      const chunked = await post('/', stream, { duplex: 'half' } as RequestInit)
      expect(chunked.status).toBe(200)
      expect(((await chunked.json()) as Echo).text).toBe(text)
    })

    it('serves many concurrent requests, each answered with its own body', async () => {
      const n = 500
      const answers = await Promise.all(
        Array.from({ length: n }, async (_, i) => {
          const res = await post(i % 2 ? '/' : '/key', `req-${i}`)
          expect(res.status).toBe(200)
          return (await res.json()) as Echo
        }),
      )
      answers.forEach((a, i) => expect(a.text).toBe(`req-${i}`))
      expect(new Set(answers.map((a) => a.id)).size).toBe(n)
    })

    it('HTTP connections ignore push and onClose', async () => {
      await post('/', 'keep:http')
      const conn = handler.kept.get('http')!
      expect(conn.transport).toBe('http')
      expect(() => conn.push('x')).not.toThrow()
    })
  })

  describe('body limit', () => {
    let small: RunningServer
    beforeAll(async () => {
      small = await startServer(new TestHandler(), { host: '127.0.0.1', port: 0, transport, maxBodyBytes: 1024 })
    })
    afterAll(async () => {
      await small.close()
    })

    it('accepts a body of exactly maxBodyBytes', async () => {
      const body = 'a'.repeat(1024)
      const res = await fetch(`http://127.0.0.1:${small.port}/`, { method: 'POST', body })
      expect(res.status).toBe(200)
      expect(((await res.json()) as Echo).text).toBe(body)
    })

    it('answers 413 above maxBodyBytes (declared Content-Length)', async () => {
      const res = await fetch(`http://127.0.0.1:${small.port}/`, {
        method: 'POST',
        body: 'a'.repeat(1025),
        headers: { origin: 'http://[::1]:3000' },
      })
      expect(res.status).toBe(413)
      expect(res.headers.get('access-control-allow-origin')).toBe('http://[::1]:3000')
      expect(await res.text()).toMatch(/Payload Too Large/)
    })

    it('answers 413 above maxBodyBytes (chunked, no Content-Length)', async () => {
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(Buffer.alloc(600, 97))
          controller.enqueue(Buffer.alloc(600, 97))
          controller.close()
        },
      })
      const res = await fetch(`http://127.0.0.1:${small.port}/`, {
        method: 'POST',
        body: stream,
        duplex: 'half',
      } as RequestInit)
      expect(res.status).toBe(413)
      await res.text()
    })

    it('keeps serving after a 413', async () => {
      const res = await fetch(`http://127.0.0.1:${small.port}/`, { method: 'POST', body: 'ok' })
      expect(res.status).toBe(200)
    })

    it('closes a WebSocket whose message exceeds maxBodyBytes', async () => {
      const client = await Client.open(`ws://127.0.0.1:${small.port}/`)
      expect(JSON.parse(await client.request('a'.repeat(1024))).text).toHaveLength(1024)
      client.ws.send('a'.repeat(1025))
      const { code } = await client.closed
      expect([1006, 1009]).toContain(code)
    })
  })

  describe('WebSocket', () => {
    it('answers requests on / and on any path, with one connection id per socket', async () => {
      for (const path of ['/', '/abc']) {
        const client = await Client.open(wsBase + path)
        const first = JSON.parse(await client.request('{"id":1}')) as Echo
        const second = JSON.parse(await client.request('{"id":2}')) as Echo
        expect(first).toMatchObject({ text: '{"id":1}', transport: 'ws' })
        expect(second.text).toBe('{"id":2}')
        expect(second.id).toBe(first.id)
        client.ws.close()
        await client.closed
      }
    })

    it('treats binary messages as UTF-8 text', async () => {
      const client = await Client.open(wsBase)
      const echo = JSON.parse(await client.request(Buffer.from('{"bin":"é"}'))) as Echo
      expect(echo.text).toBe('{"bin":"é"}')
      client.ws.close()
    })

    it('sends nothing when the handler returns undefined, and keeps order-independent answers', async () => {
      const client = await Client.open(wsBase)
      client.ws.send('none')
      client.ws.send('slow')
      client.ws.send('fast')
      expect(JSON.parse(await client.next()).text).toBe('fast')
      expect(JSON.parse(await client.next()).text).toBe('slow')
      // 'none' was handled first, 200 ms before 'slow' was answered on the same connection: an answer to it would
      // have arrived before that one
      expect(client.messages).toEqual([])
      client.ws.close()
    })

    it('answers many pipelined messages', async () => {
      const client = await Client.open(wsBase)
      const n = 1000
      for (let i = 0; i < n; i++) client.ws.send(`m${i}`)
      const got = new Set<string>()
      for (let i = 0; i < n; i++) got.add((JSON.parse(await client.next()) as Echo).text)
      expect(got.size).toBe(n)
      client.ws.close()
    })

    it('delivers push() to the client, and push after close is a no-op', async () => {
      const client = await Client.open(wsBase + '/key')
      await client.request('keep:push')
      const conn = handler.kept.get('push')!
      expect(conn.transport).toBe('ws')
      conn.push('{"method":"eth_subscription"}')
      conn.push('second')
      expect(await client.next()).toBe('{"method":"eth_subscription"}')
      expect(await client.next()).toBe('second')

      client.ws.close()
      await handler.closed.get('push')
      expect(() => conn.push('after close')).not.toThrow()
    })

    it('runs onClose callbacks exactly once when the client closes', async () => {
      const client = await Client.open(wsBase)
      await client.request('keep:close')
      const conn = handler.kept.get('close')!
      let second = 0
      conn.onClose(() => second++)
      expect(handler.closeCount.get('close')).toBe(0)
      client.ws.close()
      await handler.closed.get('close')
      // a negative check (no second call): a repeated close would come from the same teardown, a turn or two later
      await sleep(20)
      expect(handler.closeCount.get('close')).toBe(1)
      expect(second).toBe(1)
      // registering after close runs the callback at once
      let late = 0
      conn.onClose(() => late++)
      expect(late).toBe(1)
    })

    it('runs onClose when the client drops the TCP connection', async () => {
      const client = await Client.open(wsBase)
      await client.request('keep:terminate')
      client.ws.terminate()
      await handler.closed.get('terminate')
      expect(handler.closeCount.get('terminate')).toBe(1)
    })

    it('does not answer a request whose socket closed while it was handled', async () => {
      const client = await Client.open(wsBase)
      const done = handler.slow.done
      client.ws.send('slow')
      client.ws.close()
      await client.closed
      // the handler answers after 200 ms: must not throw or crash the server
      await waitUntil(() => handler.slow.done > done, "the handler's answer", 5_000, 5)
      expect((await post('/', 'alive')).status).toBe(200)
    })
  })

  describe('shutdown and errors', () => {
    it('close() closes open WebSockets, fires onClose and stops listening', async () => {
      const h = new TestHandler()
      const s = await startServer(h, { host: '127.0.0.1', port: 0, transport })
      const client = await Client.open(`ws://127.0.0.1:${s.port}/`)
      await client.request('keep:shutdown')
      // an idle keep-alive HTTP connection too
      expect((await fetch(`http://127.0.0.1:${s.port}/`, { method: 'POST', body: 'x' })).status).toBe(200)
      await s.close()
      const { code } = await client.closed
      expect(code).toBe(1001)
      await h.closed.get('shutdown')
      expect(h.closeCount.get('shutdown')).toBe(1)
      expect(() => h.kept.get('shutdown')!.push('x')).not.toThrow()
      await expect(fetch(`http://127.0.0.1:${s.port}/`, { method: 'POST', body: 'x' })).rejects.toThrow()
      // close() is idempotent
      await s.close()
    })

    it('close() with a request in flight does not crash', async () => {
      const h = new TestHandler()
      const s = await startServer(h, { host: '127.0.0.1', port: 0, transport })
      const pending = fetch(`http://127.0.0.1:${s.port}/`, { method: 'POST', body: 'slow' }).then(
        (r) => r.status,
        () => 'failed',
      )
      await waitUntil(() => h.slow.started === 1, 'the request to reach the handler', 5_000, 5)
      await s.close()
      await waitUntil(() => h.slow.done === 1, "the handler's answer", 5_000, 5)
      expect([200, 'failed']).toContain(await pending)
    })

    it.each<Transport>(['uws', 'node'])(
      'rejects with EADDRINUSE when the port is taken (second server: %s)',
      async (other) => {
        const first = await startServer(new TestHandler(), { host: '127.0.0.1', port: 0, transport })
        try {
          const err = await startServer(new TestHandler(), {
            host: '127.0.0.1',
            port: first.port,
            transport: other,
          }).then(
            (s) => {
              void s.close()
              return undefined
            },
            (e: unknown) => e as Error & { code?: string },
          )
          expect(err).toBeInstanceOf(Error)
          expect(err?.code).toBe('EADDRINUSE')
          expect(err?.message).toBe(`port ${first.port} on 127.0.0.1 is already in use`)
          // the first server is unaffected
          expect((await fetch(`http://127.0.0.1:${first.port}/`, { method: 'POST', body: 'x' })).status).toBe(200)
        } finally {
          await first.close()
        }
      },
    )

    it('rejects an invalid maxBodyBytes', async () => {
      await expect(
        startServer(new TestHandler(), { host: '127.0.0.1', port: 0, transport, maxBodyBytes: 0 }),
      ).rejects.toThrow(RangeError)
    })
  })
})
