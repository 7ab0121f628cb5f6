/**
 * The portable transport: `node:http` for JSON-RPC over HTTP POST plus the `ws` package for
 * WebSocket upgrades, both on one port. Used when the uWebSockets.js binary does not load
 * (e.g. Node 24+) or when forced with `transport: 'node'`.
 *
 * Observable behaviour matches {@link ./uws.ts}: POST on any path, WebSocket upgrade on any path,
 * CORS preflight via OPTIONS, 405 for every other method, 413 above `maxBodyBytes`.
 *
 * The constants and helpers both transports share are in ./common.ts (re-exported here).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Duplex } from 'node:stream'
import { WebSocketServer, type WebSocket, type RawData } from 'ws'
import type { Connection, HandlerResponse, RequestHandler, RunningServer, ServerOptions } from './types.js'
import {
  KEEP_ALIVE_TIMEOUT_MS,
  WS_CLOSE_GOING_AWAY,
  WS_CLOSE_REASON,
  ALLOWED_METHODS,
  DEFAULT_ALLOWED_HEADERS,
  PREFLIGHT_MAX_AGE_SECONDS,
  METHOD_NOT_ALLOWED_TEXT,
  INTERNAL_ERROR_TEXT,
  payloadTooLargeText,
  resolveMaxBodyBytes,
  addressInUseError,
  HttpConnection,
  WsConnectionBase,
  callHandler,
} from './common.js'

// The shared helpers used to live here; re-exported for existing importers.
export {
  DEFAULT_MAX_BODY_BYTES,
  KEEP_ALIVE_TIMEOUT_MS,
  WS_CLOSE_GOING_AWAY,
  WS_CLOSE_REASON,
  ALLOWED_METHODS,
  DEFAULT_ALLOWED_HEADERS,
  PREFLIGHT_MAX_AGE_SECONDS,
  METHOD_NOT_ALLOWED_TEXT,
  INTERNAL_ERROR_TEXT,
  payloadTooLargeText,
  resolveMaxBodyBytes,
  addressInUseError,
  HttpConnection,
  WsConnectionBase,
  callHandler,
  type CodedError,
} from './common.js'

/** A `ws` socket as a {@link Connection}. */
class NodeWsConnection extends WsConnectionBase {
  constructor(
    id: number,
    private readonly socket: WebSocket,
  ) {
    super(id)
  }

  /** Sends a text frame unless closed. Never throws. */
  push(message: string): void {
    if (this.closed || this.socket.readyState !== 1 /* OPEN */) return
    try {
      this.socket.send(message)
    } catch {
      // the socket died between the check and the send: nothing to deliver to
    }
  }
}

const CORS_ORIGIN = ['access-control-allow-origin', '*'] as const

/**
 * Starts the node:http + ws transport.
 * @param handler receives every POST body and WebSocket text/binary message (as UTF-8 text)
 * @param options host, port (0 = any free port), maxBodyBytes (bytes, default 5 MB)
 * @returns the running server once it listens
 * @throws (rejects) an Error with `code: 'EADDRINUSE'` and message `port <n> on <host> is already in use`
 *   when the port is taken; other listen errors (EACCES, EADDRNOTAVAIL, ENOTFOUND...) as Node raises them;
 *   RangeError for an invalid `maxBodyBytes`
 */
export async function startNodeServer(handler: RequestHandler, options: ServerOptions): Promise<RunningServer> {
  const maxBodyBytes = resolveMaxBodyBytes(options)
  const tooLargeText = payloadTooLargeText(maxBodyBytes)
  const { host, port } = options
  let nextId = 1

  const server = createServer({ noDelay: true })
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS
  server.headersTimeout = KEEP_ALIVE_TIMEOUT_MS + 5_000

  const wss = new WebSocketServer({ noServer: true, maxPayload: maxBodyBytes, perMessageDeflate: false, clientTracking: true })

  function writeText(res: ServerResponse, status: number, text: string, extra?: string[]): void {
    const headers = ['content-type', 'text/plain; charset=utf-8', CORS_ORIGIN[0], CORS_ORIGIN[1], 'content-length', String(Buffer.byteLength(text))]
    if (extra !== undefined) headers.push(...extra)
    res.writeHead(status, headers)
    res.end(text)
  }

  function writeTooLarge(res: ServerResponse): void {
    if (res.headersSent) return
    writeText(res, 413, tooLargeText, ['connection', 'close'])
  }

  function respond(res: ServerResponse, response: HandlerResponse | undefined): void {
    if (res.destroyed || res.headersSent) return
    const body = response === undefined ? '' : response.body
    res.writeHead(response === undefined ? 200 : response.status, [
      'content-type',
      'application/json',
      'access-control-allow-origin',
      '*',
      'access-control-allow-methods',
      ALLOWED_METHODS,
      'access-control-allow-headers',
      DEFAULT_ALLOWED_HEADERS,
      'content-length',
      String(Buffer.byteLength(body)),
    ])
    res.end(body)
  }

  function fail(res: ServerResponse, err: unknown): void {
    process.emitWarning(`JSON-RPC handler rejected: ${String(err)}`)
    if (res.destroyed || res.headersSent) return
    writeText(res, 500, INTERNAL_ERROR_TEXT)
  }

  function handlePost(req: IncomingMessage, res: ServerResponse): void {
    const declared = req.headers['content-length']
    if (declared !== undefined && Number(declared) > maxBodyBytes) {
      writeTooLarge(res)
      return
    }
    let first: Buffer | undefined
    let chunks: Buffer[] | undefined
    let size = 0
    let tooLarge = false
    req.on('data', (chunk: Buffer) => {
      if (tooLarge) return
      size += chunk.length
      if (size > maxBodyBytes) {
        tooLarge = true
        first = chunks = undefined
        writeTooLarge(res)
        return
      }
      if (first === undefined) first = chunk
      else if (chunks === undefined) chunks = [first, chunk]
      else chunks.push(chunk)
    })
    req.on('end', () => {
      if (tooLarge) return
      const text = chunks !== undefined ? Buffer.concat(chunks, size).toString('utf8') : first !== undefined ? first.toString('utf8') : ''
      callHandler(handler, text, new HttpConnection(nextId++)).then(
        (response) => respond(res, response),
        (err: unknown) => fail(res, err),
      )
    })
  }

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const method = req.method
    if (method === 'POST') {
      handlePost(req, res)
    } else if (method === 'OPTIONS') {
      const requested = req.headers['access-control-request-headers']
      res.writeHead(204, [
        'access-control-allow-origin',
        '*',
        'access-control-allow-methods',
        ALLOWED_METHODS,
        'access-control-allow-headers',
        requested !== undefined && requested !== '' ? requested : DEFAULT_ALLOWED_HEADERS,
        'access-control-max-age',
        PREFLIGHT_MAX_AGE_SECONDS,
      ])
      res.end()
    } else {
      // GET without upgrade, PUT, DELETE, HEAD... (node omits the body itself for HEAD)
      writeText(res, 405, METHOD_NOT_ALLOWED_TEXT, ['allow', ALLOWED_METHODS])
    }
  })

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    wss.handleUpgrade(req, socket, head, (ws) => {
      const connection = new NodeWsConnection(nextId++, ws)
      ws.on('message', (data: RawData, _isBinary: boolean) => {
        // binaryType is 'nodebuffer': data is one Buffer (fragments already joined)
        const text = Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.concat(data as Buffer[]).toString('utf8')
        callHandler(handler, text, connection).then(
          (response) => {
            if (response !== undefined) connection.push(response.body)
          },
          (err: unknown) => process.emitWarning(`JSON-RPC handler rejected: ${String(err)}`),
        )
      })
      ws.on('close', () => connection.markClosed())
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
        // Resolves once every socket (HTTP keep-alive and upgraded WebSocket ones) is gone.
        server.close(() => resolve())
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
