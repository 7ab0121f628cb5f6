/**
 * The constants and helpers both transports share ({@link ./uws.ts} and {@link ./node-http.ts}).
 *
 * Kept apart from node-http.ts so that the uWebSockets.js transport (the default) does not load `ws` and, with
 * it, node:http, node:https, node:tls and node:zlib: ~5 ms of the CLI's ~150 ms start-up (measured on Node 20).
 */
import type { Connection, HandlerResponse, RequestHandler, ServerOptions, ServerTimeouts } from './types.js'

/** Default maximum HTTP body / WebSocket message size, in bytes (5 MB, like the reference node). */
export const DEFAULT_MAX_BODY_BYTES = 5 * 1024 * 1024

/**
 * Per-connection WebSocket bound, in bytes (both transports, `maxWsBufferBytes`): a connection whose client stopped
 * reading (its unsent bytes did not go down for ~1 s) and that holds more than this is closed with 1008
 * (./ws-flow.ts). A client that reads is never closed for it, however much it is owed.
 */
export const WS_MAX_BACKPRESSURE_BYTES = 64 * 1024 * 1024

/**
 * Validates and defaults {@link ServerOptions.maxWsBufferBytes}.
 * @throws RangeError if it is not a positive integer
 */
export function resolveMaxWsBufferBytes(options: ServerOptions): number {
  return positiveInteger('maxWsBufferBytes', options.maxWsBufferBytes ?? WS_MAX_BACKPRESSURE_BYTES)
}

/**
 * Validates {@link ServerOptions.maxUnsentBytes}.
 * @param fallback the default (./ws-flow.ts DEFAULT_MAX_UNSENT_BYTES)
 * @throws RangeError if it is not a positive integer
 */
export function resolveMaxUnsentBytes(options: ServerOptions, fallback: number): number {
  return positiveInteger('maxUnsentBytes', options.maxUnsentBytes ?? fallback)
}

function positiveInteger(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value <= 0)
    throw new RangeError(`${name} must be a positive integer, got ${value}`)
  return value
}

/**
 * How long a client may take to send a complete request head on the node transport, in milliseconds: slow
 * ("slowloris") sockets are closed after it. uWS closes a socket that sends nothing for 10 s; this matches it.
 */
export const HEADERS_TIMEOUT_MS = 10_000

/**
 * Longest pause in a request body on the node transport, in milliseconds, before the socket is closed (uWS closes
 * a socket idle for 10 s the same way).
 */
export const BODY_IDLE_TIMEOUT_MS = 10_000

/** How long a client may take to send a whole request (head and body) on the node transport, in milliseconds. */
export const REQUEST_TIMEOUT_MS = 30_000

/** Body (text/plain) of a 400 answer to a malformed request head. */
export const BAD_REQUEST_TEXT = 'Bad Request\n'

/** How long an idle HTTP keep-alive connection stays open on the node transport, in milliseconds. */
export const KEEP_ALIVE_TIMEOUT_MS = 60_000

/** WebSocket close code sent to clients when the server shuts down (1001 "going away"). */
export const WS_CLOSE_GOING_AWAY = 1001

/**
 * How long a WebSocket connection closed for what it holds unsent (./ws-flow.ts) may take to read up to the close
 * frame before its socket is destroyed, in ms (uWS destroys it after its 4 s close timeout the same way).
 */
export const WS_CLOSE_GRACE_MS = 4_000

/**
 * Validates {@link ServerOptions.timeouts} and fills in the defaults above.
 * @returns every node transport timeout, in ms
 * @throws RangeError if one is not a positive integer, or `headersMs` exceeds `requestMs` (node:http refuses that)
 */
export function resolveTimeouts(options: ServerOptions): ServerTimeouts {
  const t = options.timeouts ?? {}
  const timeouts: ServerTimeouts = {
    headersMs: positiveInteger('timeouts.headersMs', t.headersMs ?? HEADERS_TIMEOUT_MS),
    bodyIdleMs: positiveInteger('timeouts.bodyIdleMs', t.bodyIdleMs ?? BODY_IDLE_TIMEOUT_MS),
    requestMs: positiveInteger('timeouts.requestMs', t.requestMs ?? REQUEST_TIMEOUT_MS),
    keepAliveMs: positiveInteger('timeouts.keepAliveMs', t.keepAliveMs ?? KEEP_ALIVE_TIMEOUT_MS),
    wsCloseGraceMs: positiveInteger('timeouts.wsCloseGraceMs', t.wsCloseGraceMs ?? WS_CLOSE_GRACE_MS),
  }
  if (timeouts.headersMs > timeouts.requestMs)
    throw new RangeError(
      `timeouts.headersMs (${timeouts.headersMs}) must not exceed timeouts.requestMs (${timeouts.requestMs})`,
    )
  return timeouts
}

/** WebSocket close reason sent to clients when the server shuts down. */
export const WS_CLOSE_REASON = 'server shutting down'

/** `Access-Control-Allow-Methods` value: the only methods served over plain HTTP. */
export const ALLOWED_METHODS = 'POST, OPTIONS'

/** `Allow` value of a 405 when GET/HEAD are served too (ServerOptions.get: the explorer). */
export const ALLOWED_METHODS_WITH_GET = 'GET, HEAD, POST, OPTIONS'

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
  const err = new Error(
    `port ${port} on ${host} is already in use`,
    cause === undefined ? undefined : { cause },
  ) as CodedError
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
export function callHandler(
  handler: RequestHandler,
  body: string,
  connection: Connection,
): Promise<HandlerResponse | undefined> {
  try {
    return handler.handle(body, connection)
  } catch (err) {
    return Promise.reject(err)
  }
}
