/**
 * The portable transport: `node:http` for JSON-RPC over HTTP POST plus the `ws` package for
 * WebSocket upgrades, both on one port. Used when no uWebSockets.js binary loads (e.g. Node 24+ where glibc < 2.38,
 * ./index.ts `loadUws`) or when forced with `transport: 'node'`.
 *
 * Observable behaviour matches {@link ./uws.ts}: Origin/Host checks first (403, ./origin-policy.ts), POST on any
 * path, WebSocket upgrade on any path, CORS preflight via OPTIONS, GET/HEAD to `options.get` when given (the
 * explorer), 405 for every other method, 413 above `maxBodyBytes`, 400 and a closed socket for a malformed request
 * head, slow request heads closed after `timeouts.headersMs` (./common.ts HEADERS_TIMEOUT_MS by default), WebSocket
 * requests and answers under the flow control of ./ws-flow.ts.
 *
 * The constants and helpers both transports share are in ./common.ts (re-exported here).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Duplex } from 'node:stream'
import { WebSocketServer, type RawData } from 'ws'
import type { GetHandler, GetResponse, HandlerResponse, RequestHandler, RunningServer, ServerOptions } from './types.js'
import { OriginPolicy, type AccessDecision } from './origin-policy.js'
import { ledgerFor, WsFlow } from './ws-flow.js'
import { NodeWsConnection } from './node-ws-connection.js'
import {
  BAD_REQUEST_TEXT,
  WS_CLOSE_GOING_AWAY,
  WS_CLOSE_REASON,
  ALLOWED_METHODS,
  ALLOWED_METHODS_WITH_GET,
  DEFAULT_ALLOWED_HEADERS,
  PREFLIGHT_MAX_AGE_SECONDS,
  METHOD_NOT_ALLOWED_TEXT,
  INTERNAL_ERROR_TEXT,
  payloadTooLargeText,
  resolveMaxBodyBytes,
  resolveTimeouts,
  addressInUseError,
  HttpConnection,
  callHandler,
} from './common.js'
import { isChunked, watchChunkSizes } from './chunked-limit.js'

/** The CORS response headers (flat list) for a verdict: the granted origin and `Vary: Origin`, or nothing. */
function corsHeaders(d: AccessDecision): string[] {
  if (!d.allowed || d.allowOrigin === undefined) return []
  return d.allowOrigin === '*'
    ? ['access-control-allow-origin', '*']
    : ['access-control-allow-origin', d.allowOrigin, 'vary', 'origin']
}

/** A raw 408 answer for a socket whose request did not arrive in time. */
const RAW_REQUEST_TIMEOUT = 'HTTP/1.1 408 Request Timeout\r\ncontent-length: 0\r\nconnection: close\r\n\r\n'

/** A raw 400 answer for a socket whose request head did not parse. */
const RAW_BAD_REQUEST =
  'HTTP/1.1 400 Bad Request\r\ncontent-type: text/plain; charset=utf-8\r\n' +
  `content-length: ${Buffer.byteLength(BAD_REQUEST_TEXT)}\r\nconnection: close\r\n\r\n${BAD_REQUEST_TEXT}`

/**
 * Starts the node:http + ws transport.
 * @param handler receives every POST body and WebSocket text/binary message (as UTF-8 text)
 * @param options host, port (0 = any free port), maxBodyBytes (bytes, default 5 MB), timeouts (ms, defaults in
 *   ./common.ts)
 * @returns the running server once it listens
 * @throws (rejects) an Error with `code: 'EADDRINUSE'` and message `port <n> on <host> is already in use`
 *   when the port is taken; other listen errors (EACCES, EADDRNOTAVAIL, ENOTFOUND...) as Node raises them;
 *   RangeError for an invalid `maxBodyBytes` or `timeouts`
 */
export async function startNodeServer(handler: RequestHandler, options: ServerOptions): Promise<RunningServer> {
  const maxBodyBytes = resolveMaxBodyBytes(options)
  const timeouts = resolveTimeouts(options)
  const ledger = ledgerFor(options)
  const tooLargeText = payloadTooLargeText(maxBodyBytes)
  const { host, port } = options
  const policy = new OriginPolicy({
    bindHost: host,
    allowOrigins: options.allowOrigins,
    allowHosts: options.allowHosts,
  })
  let nextId = 1

  const server = createServer({
    noDelay: true,
    headersTimeout: timeouts.headersMs,
    requestTimeout: timeouts.requestMs,
    // how often the two timeouts above are checked (Node's default, 30 s, would let slow sockets live 40 s): every
    // second, or a quarter of a shorter headers timeout
    connectionsCheckingInterval: Math.min(1_000, Math.ceil(timeouts.headersMs / 4)),
  })
  server.keepAliveTimeout = timeouts.keepAliveMs
  // A request head that does not parse (no HTTP version, a header line without a colon, a bad chunk size...)
  // or a timed-out one: answer 400 / 408 when nothing was written yet, and close the socket.
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (!socket.writable || (socket as Duplex & { _httpMessage?: unknown })._httpMessage) {
      socket.destroy()
      return
    }
    socket.end(err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? RAW_REQUEST_TIMEOUT : RAW_BAD_REQUEST)
    // a peer that never reads its side must not keep the socket: drop it shortly after the answer
    setTimeout(() => socket.destroy(), 1_000).unref()
  })

  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: maxBodyBytes,
    perMessageDeflate: false,
    clientTracking: true,
  })

  function writeText(res: ServerResponse, status: number, text: string, cors: string[], extra?: string[]): void {
    const headers = [
      'content-type',
      'text/plain; charset=utf-8',
      ...cors,
      'content-length',
      String(Buffer.byteLength(text)),
    ]
    if (extra !== undefined) headers.push(...extra)
    res.writeHead(status, headers)
    res.end(text)
  }

  function writeTooLarge(res: ServerResponse, cors: string[]): void {
    if (res.headersSent) return
    writeText(res, 413, tooLargeText, cors, ['connection', 'close'])
  }

  function respond(res: ServerResponse, response: HandlerResponse | undefined, cors: string[]): void {
    if (res.destroyed || res.headersSent) return
    const body = response === undefined ? '' : response.body
    const headers = ['content-type', 'application/json', 'content-length', String(Buffer.byteLength(body))]
    if (cors.length > 0)
      headers.push(
        ...cors,
        'access-control-allow-methods',
        ALLOWED_METHODS,
        'access-control-allow-headers',
        DEFAULT_ALLOWED_HEADERS,
      )
    res.writeHead(response === undefined ? 200 : response.status, headers)
    res.end(body)
  }

  function fail(res: ServerResponse, err: unknown, cors: string[]): void {
    process.emitWarning(`JSON-RPC handler rejected: ${String(err)}`)
    if (res.destroyed || res.headersSent) return
    writeText(res, 500, INTERNAL_ERROR_TEXT, cors)
  }

  /** GET/HEAD to the `get` handler (node:http omits the body of a HEAD answer itself). */
  function serveGet(req: IncomingMessage, res: ServerResponse, get: GetHandler, cors: string[]): void {
    const url = req.url ?? '/'
    const query = url.indexOf('?')
    const write = (r: GetResponse): void => {
      if (res.destroyed || res.headersSent) return
      const headers: string[] = []
      for (const name in r.headers) headers.push(name, r.headers[name]!)
      const length = typeof r.body === 'string' ? Buffer.byteLength(r.body) : r.body.byteLength
      headers.push(...cors, 'content-length', String(length))
      res.writeHead(r.status, headers)
      res.end(r.body)
    }
    let answer: GetResponse | Promise<GetResponse>
    try {
      answer = get.handle({
        method: req.method === 'HEAD' ? 'HEAD' : 'GET',
        path: query < 0 ? url : url.slice(0, query),
        host: req.headers.host ?? '',
        acceptEncoding: req.headers['accept-encoding'] ?? '',
      })
    } catch (err) {
      answer = Promise.reject(err as Error)
    }
    if (answer instanceof Promise)
      answer.then(write, (err: unknown) => {
        process.emitWarning(`GET handler rejected: ${String(err)}`)
        if (!res.destroyed && !res.headersSent) writeText(res, 500, INTERNAL_ERROR_TEXT, cors)
      })
    else write(answer)
  }

  function handlePost(req: IncomingMessage, res: ServerResponse, cors: string[]): void {
    const declared = req.headers['content-length']
    if (declared !== undefined && Number(declared) > maxBodyBytes) {
      writeTooLarge(res, cors)
      return
    }
    let first: Buffer | undefined
    let chunks: Buffer[] | undefined
    let size = 0
    let tooLarge = false
    // chunk sizes announcing more than the limit: 413 as soon as the size line arrives (./chunked-limit.ts)
    if (declared === undefined && isChunked(req))
      watchChunkSizes(req, maxBodyBytes, () => {
        tooLarge = true
        first = chunks = undefined
        writeTooLarge(res, cors)
      })
    // a body that stops arriving (e.g. a chunk size of ffffffffffffffff and nothing after it) closes the socket
    // after timeouts.bodyIdleMs without data, as uWS's idle timeout does
    const idle = setTimeout(onIdle, timeouts.bodyIdleMs)
    function onIdle(): void {
      if (!res.headersSent)
        writeText(res, 408, 'Request Timeout: the request body stopped arriving.\n', cors, ['connection', 'close'])
      req.socket.destroySoon()
    }
    req.on('close', () => clearTimeout(idle))
    req.on('data', (chunk: Buffer) => {
      idle.refresh()
      if (tooLarge) return
      size += chunk.length
      if (size > maxBodyBytes) {
        tooLarge = true
        first = chunks = undefined
        writeTooLarge(res, cors)
        return
      }
      if (first === undefined) first = chunk
      else if (chunks === undefined) chunks = [first, chunk]
      else chunks.push(chunk)
    })
    req.on('end', () => {
      clearTimeout(idle)
      if (tooLarge) return
      const text =
        chunks !== undefined
          ? Buffer.concat(chunks, size).toString('utf8')
          : first !== undefined
            ? first.toString('utf8')
            : ''
      callHandler(handler, text, new HttpConnection(nextId++)).then(
        (response) => respond(res, response, cors),
        (err: unknown) => fail(res, err, cors),
      )
    })
  }

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (req.httpVersionMajor === 0) {
      // an HTTP/0.9-style head (`GET /` without a version): malformed for this server, as for uWS
      writeText(res, 400, BAD_REQUEST_TEXT, [], ['connection', 'close'])
      return
    }
    const access = policy.check(req.headers.host ?? '', req.headers.origin ?? '')
    if (!access.allowed) {
      writeText(res, 403, access.reason, [], ['connection', 'close'])
      return
    }
    const cors = corsHeaders(access)
    const method = req.method
    if (method === 'POST') {
      handlePost(req, res, cors)
    } else if (method === 'OPTIONS') {
      const requested = req.headers['access-control-request-headers']
      res.writeHead(204, [
        ...cors,
        'access-control-allow-methods',
        ALLOWED_METHODS,
        'access-control-allow-headers',
        requested !== undefined && requested !== '' ? requested : DEFAULT_ALLOWED_HEADERS,
        'access-control-max-age',
        PREFLIGHT_MAX_AGE_SECONDS,
      ])
      res.end()
    } else if (options.get !== undefined && (method === 'GET' || method === 'HEAD')) {
      serveGet(req, res, options.get, cors)
    } else {
      // GET without upgrade, PUT, DELETE, HEAD... (node omits the body itself for HEAD)
      writeText(res, 405, METHOD_NOT_ALLOWED_TEXT, cors, [
        'allow',
        options.get === undefined ? ALLOWED_METHODS : ALLOWED_METHODS_WITH_GET,
      ])
    }
  })

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const access = policy.check(req.headers.host ?? '', req.headers.origin ?? '')
    if (!access.allowed) {
      socket.end(
        'HTTP/1.1 403 Forbidden\r\ncontent-type: text/plain; charset=utf-8\r\n' +
          `content-length: ${Buffer.byteLength(access.reason)}\r\nconnection: close\r\n\r\n${access.reason}`,
      )
      return
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      const connection = new NodeWsConnection(nextId++, ws, timeouts.wsCloseGraceMs)
      const flow = (connection.flow = new WsFlow(connection, connection, handler, ledger))
      ws.on('message', (data: RawData, _isBinary: boolean) => {
        // binaryType is 'nodebuffer': data is one Buffer (fragments already joined)
        flow.receive(Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.concat(data as Buffer[]).toString('utf8'))
      })
      ws.on('close', () => {
        flow.closed()
        connection.markClosed()
      })
      ws.on('error', () => {
        // e.g. payload above maxPayload or invalid UTF-8: ws closes the socket itself ('close' follows)
      })
    })
  })

  await new Promise<void>((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException): void => {
      server.off('listening', onListening)
      reject(err.code === 'EADDRINUSE' ? addressInUseError(port, host, err) : err)
    }
    const onListening = (): void => {
      server.off('error', onError)
      resolve()
    }
    server.once('error', onError)
    server.once('listening', onListening)
    server.listen({ host, port })
  })

  const boundPort = (server.address() as AddressInfo).port
  let closing: Promise<void> | undefined

  return {
    port: boundPort,
    transport: 'node',
    close(): Promise<void> {
      closing ??= new Promise<void>((resolve) => {
        // Resolves once every socket (HTTP keep-alive and upgraded WebSocket ones) is gone, and the event loop has
        // polled once more (two setImmediate): an HTTP client in this process (fetch's keep-alive pool) has then seen
        // its sockets close before a node started again on the same port is asked anything (else it may reuse one)
        ledger.stop()
        server.close(() => setImmediate(() => setImmediate(resolve)))
        server.closeAllConnections()
        for (const ws of wss.clients) {
          ws.close(WS_CLOSE_GOING_AWAY, WS_CLOSE_REASON)
          // don't wait the ws default 30 s for the client's closing handshake
          const timer = setTimeout(() => ws.terminate(), 500)
          ws.once('close', () => clearTimeout(timer))
        }
        wss.close()
      })
      return closing
    },
  }
}
