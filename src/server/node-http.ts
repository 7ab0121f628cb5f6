/**
 * The portable transport: `node:http` for JSON-RPC over HTTP POST plus the `ws` package for
 * WebSocket upgrades, both on one port. Used when the uWebSockets.js binary does not load
 * (e.g. Node 24+) or when forced with `transport: 'node'`.
 *
 * Observable behaviour matches {@link ./uws.ts}: POST on any path, WebSocket upgrade on any path,
 * CORS preflight via OPTIONS, 405 for every other method, 413 above `maxBodyBytes`.
 *
 * This module also holds the constants and helpers both transports share.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Duplex } from 'node:stream'
import { WebSocketServer, type WebSocket, type RawData } from 'ws'
import type { Connection, HandlerResponse, RequestHandler, RunningServer, ServerOptions } from './types.js'

/** Default maximum HTTP body / WebSocket message size, in bytes (5 MB, like the reference node). */
export const DEFAULT_MAX_BODY_BYTES = 5 * 1024 * 1024

/** How long an idle HTTP keep-alive connection stays open on the node transport, in milliseconds. */
export const KEEP_ALIVE_TIMEOUT_MS = 60_000

/** WebSocket close code sent to clients when the server shuts down (1001 "going away"). */
export const WS_CLOSE_GOING_AWAY = 1001

/** WebSocket close reason sent to clients when the server shuts down. */
export const WS_CLOSE_REASON = 'server shutting down'

/** `Access-Control-Allow-Methods` value: the only methods served over plain HTTP. */
export const ALLOWED_METHODS = 'POST, OPTIONS'

/** `Access-Control-Allow-Headers` default when a preflight does not name any request headers. */
export const DEFAULT_ALLOWED_HEADERS = 'content-type'

/** `Access-Control-Max-Age` on preflight answers, in seconds. */
export const PREFLIGHT_MAX_AGE_SECONDS = '86400'

/** Body (text/plain) for any method other than POST, OPTIONS or a WebSocket upgrade (status 405). */
export const METHOD_NOT_ALLOWED_TEXT = 'Method Not Allowed: send JSON-RPC requests with POST or over a WebSocket.\n'

/** Body (text/plain) when the handler breaks its contract and rejects (status 500). */
export const INTERNAL_ERROR_TEXT = 'Internal Server Error\n'

/**
 * Body (text/plain) for an oversize request (status 413).
 * @param maxBodyBytes the limit in bytes
 * @returns the response text
 */
export function payloadTooLargeText(maxBodyBytes: number): string {
  return `Payload Too Large: the request body exceeds ${maxBodyBytes} bytes.\n`
}

/**
 * Validates and defaults {@link ServerOptions.maxBodyBytes}.
 * @param options server options
 * @returns the limit in bytes
 * @throws RangeError if `maxBodyBytes` is not a positive integer
 */
export function resolveMaxBodyBytes(options: ServerOptions): number {
  const max = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES
  if (!Number.isSafeInteger(max) || max <= 0) {
    throw new RangeError(`maxBodyBytes must be a positive integer, got ${max}`)
  }
  return max
}

/** An `Error` carrying a Node-style `code` (e.g. `EADDRINUSE`). */
export interface CodedError extends Error {
  /** Error code such as `EADDRINUSE`. */
  code: string
}

/**
 * The error both transports reject with when the port is taken.
 * @param port the requested TCP port
 * @param host the requested interface
 * @returns an Error with `code: 'EADDRINUSE'` and message `port <port> on <host> is already in use`
 */
export function addressInUseError(port: number, host: string, cause?: unknown): CodedError {
  const err = new Error(`port ${port} on ${host} is already in use`, cause === undefined ? undefined : { cause }) as CodedError
  err.code = 'EADDRINUSE'
  return err
}

/**
 * The {@link Connection} for one HTTP POST request (both transports): push and onClose are no-ops.
 */
export class HttpConnection implements Connection {
  /** Always `http`. */
  readonly transport = 'http' as const
  /**
   * @param id the server-unique connection id
   */
  constructor(readonly id: number) {}
  /** No-op: plain HTTP cannot push. */
  push(_message: string): void {}
  /** No-op: an HTTP request has no lifetime to observe. */
  onClose(_callback: () => void): void {}
}

/**
 * Close-callback bookkeeping shared by both WebSocket {@link Connection} implementations:
 * callbacks run exactly once, when the socket closes; registering after close runs the callback at once.
 */
export abstract class WsConnectionBase implements Connection {
  /** Always `ws`. */
  readonly transport = 'ws' as const
  /** True once the socket has closed; push() is then a no-op. */
  closed = false
  private closeCallbacks: (() => void)[] | undefined

  /**
   * @param id the server-unique connection id
   */
  constructor(readonly id: number) {}

  /** Sends a text frame unless closed. Never throws. */
  abstract push(message: string): void

  /**
   * Registers a callback run once on close. If the connection is already closed the callback runs
   * synchronously (so late registrations, e.g. after an awaited subscribe, never leak).
   * A throwing callback is reported via `process.emitWarning` and does not stop the others.
   */
  onClose(callback: () => void): void {
    if (this.closed) {
      runCloseCallback(callback)
      return
    }
    if (this.closeCallbacks === undefined) this.closeCallbacks = [callback]
    else this.closeCallbacks.push(callback)
  }

  /** Marks the connection closed and runs the close callbacks once. Idempotent. */
  markClosed(): void {
    if (this.closed) return
    this.closed = true
    const callbacks = this.closeCallbacks
    this.closeCallbacks = undefined
    if (callbacks !== undefined) for (const cb of callbacks) runCloseCallback(cb)
  }
}

function runCloseCallback(callback: () => void): void {
  try {
    callback()
  } catch (err) {
    process.emitWarning(`WebSocket onClose callback threw: ${String(err)}`)
  }
}

/**
 * Calls the handler, turning a synchronous throw into a rejection (the contract says it never
 * rejects, but the transport must survive a buggy handler).
 */
export function callHandler(handler: RequestHandler, body: string, connection: Connection): Promise<HandlerResponse | undefined> {
  try {
    return handler.handle(body, connection)
  } catch (err) {
    return Promise.reject(err)
  }
}

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
