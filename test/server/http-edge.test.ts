/**
 * HTTP edge cases and slow or non-reading clients on both transports with real sockets: HTTP/1.0, malformed request heads, a body that never arrives, slowloris heads, and a WebSocket client
 * that stops reading.
 *
 * The node transport runs with short timeouts ({@link NODE_TIMEOUTS}, ServerOptions.timeouts) so that its slow
 * clients are closed in about a second, not after the 10 s defaults; uWS's timeouts are fixed in its binary (HTTP
 * sockets idle for 10 s are closed), so its slow-client tests wait for them.
 */
import { Socket } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { startServer } from '../../src/server/index.js'
import { HEADERS_TIMEOUT_MS } from '../../src/server/common.js'
import type {
  Connection,
  HandlerResponse,
  RequestHandler,
  RunningServer,
  ServerTimeouts,
} from '../../src/server/types.js'
import { rawExchange, replyBody } from '../helpers/raw-http.js'

type Transport = 'uws' | 'node'

const BODY = '{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}'

/** The node transport's timeouts here, in ms: short, so slow clients are closed within seconds. */
const NODE_TIMEOUTS: Partial<ServerTimeouts> = { headersMs: 1_000, bodyIdleMs: 1_000, wsCloseGraceMs: 500 }

/**
 * How often a slowloris socket sends a byte, in ms: well inside the headers timeout (so only a timeout on the
 * whole head closes it, not one on idleness), on uWS within its 10 s idle timeout.
 */
const TRICKLE_MS: Record<Transport, number> = { uws: 2_000, node: 200 }

/** Echoes the body; `flood:<n>` pushes n messages of 1 MB on the connection first and remembers it. */
class FloodHandler implements RequestHandler {
  closed = false
  pushed = 0
  async handle(body: string, connection: Connection): Promise<HandlerResponse | undefined> {
    if (body.startsWith('flood:')) {
      connection.onClose(() => (this.closed = true))
      const chunk = 'x'.repeat(1024 * 1024)
      const n = Number(body.slice(6))
      for (let i = 0; i < n && !this.closed; i++) {
        connection.push(chunk)
        this.pushed++
        // a steady flow of notifications (50 MB/s): the transport notices within ~1 s that the client stopped
        // reading (src/server/ws-flow.ts) and closes it
        await new Promise((r) => setTimeout(r, 20))
      }
      return { status: 200, body: 'flooded' }
    }
    return { status: 200, body }
  }
}

/** Opens a socket that sends `head` and then one byte every `everyMs` (never completing the head). */
function slowloris(
  port: number,
  head: string,
  everyMs: number,
): Promise<{ closed: boolean; text: string }> & { socket: Socket } {
  const socket = new Socket()
  let text = ''
  const done = new Promise<{ closed: boolean; text: string }>((resolve) => {
    const timer = setInterval(() => {
      if (!socket.destroyed && socket.writable) socket.write('a')
    }, everyMs)
    const finish = (): void => {
      clearInterval(timer)
      resolve({ closed: true, text })
    }
    socket.on('data', (d) => (text += d.toString('latin1')))
    socket.on('close', finish)
    socket.on('error', () => {})
    socket.connect(port, '127.0.0.1', () => socket.write(head))
  })
  return Object.assign(done, { socket })
}

describe.each<Transport>(['uws', 'node'])('%s transport: HTTP edge cases', (transport) => {
  let server: RunningServer
  let handler: FloodHandler
  beforeAll(async () => {
    handler = new FloodHandler()
    server = await startServer(handler, {
      host: '127.0.0.1',
      port: 0,
      transport,
      maxWsBufferBytes: 1024 * 1024,
      timeouts: NODE_TIMEOUTS,
    })
  })
  afterAll(async () => {
    await server?.close()
  })

  it(
    transport === 'node'
      ? 'answers HTTP/1.0 requests (with and without Host)'
      : 'answers HTTP/1.0 with 505 and closes (uWS limitation)',
    async () => {
      for (const host of ['', 'Host: 127.0.0.1\r\n']) {
        const reply = await rawExchange(
          server.port,
          `POST / HTTP/1.0\r\n${host}Content-Type: application/json\r\nContent-Length: ${BODY.length}\r\n\r\n${BODY}`,
        )
        expect(reply.closed).toBe(true)
        if (transport === 'node') {
          expect(reply.status).toBe(200)
          expect(replyBody(reply)).toBe(BODY)
        } else {
          expect(reply.status).toBe(505)
        }
      }
    },
  )

  it.concurrent(
    'closes the socket on malformed request heads (node: 400 at once; uWS: after its idle timeout)',
    async () => {
      const heads = {
        'no HTTP version': 'GET /\r\n\r\n',
        'a header line without a colon': `POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nbadheader\r\nContent-Length: ${BODY.length}\r\n\r\n${BODY}`,
        'a garbage request line': 'HELLO\r\n\r\n',
      }
      const replies = await Promise.all(Object.values(heads).map((head) => rawExchange(server.port, head, 20_000)))
      Object.keys(heads).forEach((what, i) => {
        const reply = replies[i]!
        expect(reply.closed, what).toBe(true)
        if (transport === 'node') expect(reply.status, what).toBe(400)
        // uWS closes without an answer or answers 400; the uWebSockets.js distribution's v20.56 (where glibc >= 2.38,
        // src/server/index.ts loadUws) answers a request line without an HTTP version 505 HTTP Version Not Supported
        else expect([0, 400, 505], what).toContain(reply.status)
        expect(reply.text, what).not.toContain(BODY)
      })
    },
    30_000,
  )

  it.concurrent(
    'closes a socket whose chunked body never arrives (chunk size ffffffffffffffff)',
    async () => {
      const reply = await rawExchange(
        server.port,
        'POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffff\r\nabc',
        20_000,
      )
      expect(reply.closed).toBe(true)
      expect([400, 408, 413]).toContain(reply.status)
    },
    30_000,
  )

  // node transport only: uWS's idle timeout is fixed in its binary (10 s)
  if (transport === 'node')
    it.concurrent(
      'answers 408 and closes a socket whose body stops arriving, after the body idle timeout',
      async () => {
        const started = Date.now()
        const reply = await rawExchange(
          server.port,
          `POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: ${BODY.length}\r\n\r\n${BODY.slice(0, 10)}`,
          20_000,
        )
        const elapsed = Date.now() - started
        expect(reply.closed).toBe(true)
        expect(reply.status).toBe(408)
        expect(elapsed).toBeGreaterThanOrEqual(NODE_TIMEOUTS.bodyIdleMs! - 50)
        expect(elapsed).toBeLessThan(HEADERS_TIMEOUT_MS)
      },
      30_000,
    )

  it.concurrent(
    'closes slowloris sockets whose head never completes',
    async () => {
      const started = Date.now()
      const sockets = Array.from({ length: 20 }, () =>
        slowloris(server.port, 'POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ', TRICKLE_MS[transport]),
      )
      const outcome = await Promise.race([
        Promise.all(sockets),
        new Promise<'open'>((r) => setTimeout(() => r('open'), 25_000)),
      ])
      const elapsed = Date.now() - started
      for (const s of sockets) s.socket.destroy()
      expect(outcome).not.toBe('open')
      if (transport === 'node' && outcome !== 'open') {
        // closed by the (injected) headers timeout, not before it and not after the 10 s default; answered 408
        expect(elapsed).toBeGreaterThanOrEqual(NODE_TIMEOUTS.headersMs! - 50)
        expect(elapsed).toBeLessThan(HEADERS_TIMEOUT_MS)
        for (const s of outcome) expect(s.text).toMatch(/^HTTP\/1\.1 408 /)
      }
      // and the server still serves
      expect((await fetch(`http://127.0.0.1:${server.port}/`, { method: 'POST', body: BODY })).status).toBe(200)
    },
    35_000,
  )

  it('closes a WebSocket client that stops reading instead of buffering without bound', async () => {
    const ws = new WebSocket(`ws://127.0.0.1:${server.port}/`)
    await new Promise((resolve, reject) => {
      ws.once('open', resolve)
      ws.once('error', reject)
    })
    ws.on('error', () => {})
    const closed = new Promise<void>((resolve) => ws.once('close', () => resolve()))
    ws.send('flood:256') // 256 MB if nothing stopped it
    // stop reading: the server's send buffer fills up
    ;(ws as unknown as { _socket: Socket })._socket.pause()
    const before = process.memoryUsage()
    const end = Date.now() + 20_000
    while (!handler.closed && Date.now() < end) await new Promise((r) => setTimeout(r, 20))
    const after = process.memoryUsage()
    expect(handler.closed).toBe(true)
    expect(handler.pushed).toBeLessThan(256)
    // the server kept what ~1 s of pushes and the kernel buffers hold, not the pushed 256 MB
    expect(after.rss - before.rss).toBeLessThan(128 * 1024 * 1024)
    ;(ws as unknown as { _socket: Socket })._socket.resume()
    await closed
  }, 30_000)
})
