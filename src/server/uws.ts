/**
 * The fast transport: one uWebSockets.js App serving JSON-RPC over HTTP POST and WebSocket on one port.
 *
 * Importing this module loads the uWS native binary (uws-pack 20.0.8 ships binaries for Node ABI
 * 108/115/120/127 only, i.e. Node 18-22) and throws where it is missing; import it through
 * {@link ./index.ts} (`startServer`), which falls back to node:http + ws.
 *
 * Behaviour (same as {@link ./node-http.ts}): Origin/Host checks first (403, ./origin-policy.ts), POST on any
 * path, WebSocket upgrade on any path, OPTIONS answers the CORS preflight (204), any other method gets 405, bodies
 * above `maxBodyBytes` get 413, WebSocket clients that stop reading are closed above `maxWsBufferBytes`.
 *
 * uWS rules honoured here: `HttpRequest` is only valid synchronously inside the route callback; every
 * response that is not answered synchronously has `onAborted` attached and is never touched after it
 * fired; writes after async work are wrapped in `cork`; `onData` chunks (and WS message buffers) are
 * neutered when the callback returns, so they are decoded or copied before that.
 */
import { createServer as createNetServer } from 'node:net'
import { createRequire } from 'node:module'
import type * as uws from 'uWebSockets.js'
import type { HandlerResponse, RequestHandler, RunningServer, ServerOptions } from './types.js'
import { OriginPolicy, type AccessDecision } from './origin-policy.js'
import {
  resolveMaxWsBufferBytes,
  ALLOWED_METHODS,
  DEFAULT_ALLOWED_HEADERS,
  HttpConnection,
  INTERNAL_ERROR_TEXT,
  METHOD_NOT_ALLOWED_TEXT,
  PREFLIGHT_MAX_AGE_SECONDS,
  WS_CLOSE_GOING_AWAY,
  WS_CLOSE_REASON,
  WsConnectionBase,
  addressInUseError,
  callHandler,
  payloadTooLargeText,
  resolveMaxBodyBytes,
  type CodedError,
} from './common.js'

// The send-buffer limit lived here; re-exported for existing importers.
export { WS_MAX_BACKPRESSURE_BYTES } from './common.js'

/** The uWebSockets.js module (as {@link ./index.ts} `loadUws` resolves it). */
export type UwsModule = typeof uws

/** Runtime constants the uws-pack typings declare only as types. */
interface UwsConstants {
  DISABLED: number
  LIBUS_LISTEN_EXCLUSIVE_PORT: number
}

// Header names/values pre-encoded: uWS reads byte views without the UTF-16 -> UTF-8 conversion strings need.
const enc = (s: string): Buffer => Buffer.from(s, 'latin1')
const H_CONTENT_TYPE = enc('Content-Type')
const V_JSON = enc('application/json')
const V_TEXT = enc('text/plain; charset=utf-8')
const H_ALLOW_ORIGIN = enc('Access-Control-Allow-Origin')
const V_STAR = enc('*')
const H_ALLOW_METHODS = enc('Access-Control-Allow-Methods')
const V_METHODS = enc(ALLOWED_METHODS)
const H_ALLOW_HEADERS = enc('Access-Control-Allow-Headers')
const V_DEFAULT_HEADERS = enc(DEFAULT_ALLOWED_HEADERS)
const H_MAX_AGE = enc('Access-Control-Max-Age')
const V_MAX_AGE = enc(PREFLIGHT_MAX_AGE_SECONDS)
const H_ALLOW = enc('Allow')
const H_VARY = enc('Vary')
const V_ORIGIN = enc('Origin')
const B_METHOD_NOT_ALLOWED = Buffer.from(METHOD_NOT_ALLOWED_TEXT, 'utf8')
const B_INTERNAL_ERROR = Buffer.from(INTERNAL_ERROR_TEXT, 'utf8')

// The reason phrases this transport writes, so that start-up does not load node:http (~2.5 ms) for its
// STATUS_CODES table; any other status looks node:http up on first use.
const REASONS: Record<number, string> = {
  200: 'OK',
  204: 'No Content',
  400: 'Bad Request',
  403: 'Forbidden',
  405: 'Method Not Allowed',
  413: 'Payload Too Large',
  500: 'Internal Server Error',
}

const statusLines = new Map<number, Buffer>()
/** `"200 OK"`-style status line for `writeStatus`, cached per code. */
function statusLine(status: number): Buffer {
  let line = statusLines.get(status)
  if (line === undefined) {
    const reason =
      REASONS[status] ??
      (createRequire(import.meta.url)('node:http') as typeof import('node:http')).STATUS_CODES[status]
    line = enc(`${status} ${reason ?? 'Unknown'}`)
    statusLines.set(status, line)
  }
  return line
}

/** The user data uWS stores per WebSocket. */
interface WsUserData {
  connection: UwsConnection
}

/** A uWS WebSocket as a {@link Connection}. */
class UwsConnection extends WsConnectionBase {
  /** Set in `open`, cleared in `close`: a uWS WebSocket must never be touched after its close event. */
  socket: uws.WebSocket<WsUserData> | undefined
  private pending = ''
  private readonly corkedSend = (): void => {
    this.socket!.send(this.pending, false, false)
  }

  /** Sends a text frame unless closed. Never throws. */
  push(message: string): void {
    if (this.closed || this.socket === undefined) return
    this.pending = message
    try {
      this.socket.cork(this.corkedSend)
    } catch {
      // closed underneath us: nothing to deliver to
    } finally {
      this.pending = ''
    }
  }

  /** Closes with 1001 "going away" (used on server shutdown). */
  end(): void {
    const socket = this.socket
    if (this.closed || socket === undefined) return
    try {
      socket.end(WS_CLOSE_GOING_AWAY, WS_CLOSE_REASON)
    } catch {
      // already closed
    }
  }
}

/**
 * Why uWS could not listen: uSockets only reports failure, so probe the same address with node:net
 * to recover the errno (EACCES, EADDRNOTAVAIL, ENOTFOUND...). Anything else, including a probe that
 * succeeds (a race), is reported as EADDRINUSE.
 */
async function listenFailure(host: string, port: number): Promise<Error> {
  const code = await new Promise<string | undefined>((resolve) => {
    const probe = createNetServer()
    probe.once('error', (err: NodeJS.ErrnoException) => resolve(err.code))
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve(undefined)))
  })
  if (code === undefined || code === 'EADDRINUSE') return addressInUseError(port, host)
  const err = new Error(`cannot listen on port ${port} on ${host} (${code})`) as CodedError
  err.code = code
  return err
}

/**
 * Starts the uWebSockets.js transport.
 * @param uws the loaded uWebSockets.js module ({@link ./index.ts} `loadUws`): taken as an argument rather than
 *   imported, so that no static import of the ESM-only uws-pack sits in the CLI bundle (see scripts/bundle.mjs)
 * @param handler receives every POST body and WebSocket text/binary message (as UTF-8 text)
 * @param options host, port (0 = any free port), maxBodyBytes (bytes, default 5 MB; also the WS max message size)
 * @returns the running server once it listens
 * @throws (rejects) an Error with `code: 'EADDRINUSE'` and message `port <n> on <host> is already in use`
 *   when the port is taken; an Error with the errno `code` for other listen failures (e.g. EACCES);
 *   RangeError for an invalid `maxBodyBytes`
 */
export async function startUwsServer(
  uws: UwsModule,
  handler: RequestHandler,
  options: ServerOptions,
): Promise<RunningServer> {
  const uwsConstants = uws as unknown as UwsConstants
  const maxBodyBytes = resolveMaxBodyBytes(options)
  const maxWsBuffer = resolveMaxWsBufferBytes(options)
  const tooLargeBody = Buffer.from(payloadTooLargeText(maxBodyBytes), 'utf8')
  const { host, port } = options
  const policy = new OriginPolicy({
    bindHost: host,
    allowOrigins: options.allowOrigins,
    allowHosts: options.allowHosts,
  })
  const openSockets = new Set<UwsConnection>()
  let nextId = 1

  const app = uws.App()

  /**
   * The Origin/Host verdict of a request; a refused one is answered 403 (and its socket closed) here.
   * Call inside the route callback (req is only valid there).
   * @returns the verdict, or undefined when refused and answered
   */
  function admit(res: uws.HttpResponse, req: uws.HttpRequest): AccessDecision | undefined {
    const access = policy.check(req.getHeader('host'), req.getHeader('origin'))
    if (access.allowed) return access
    res.writeStatus(statusLine(403)).writeHeader(H_CONTENT_TYPE, V_TEXT).end(access.reason, true)
    return undefined
  }

  /** Writes the CORS origin grant of a verdict, if any. */
  function writeCors(res: uws.HttpResponse, access: AccessDecision): uws.HttpResponse {
    if (!access.allowed || access.allowOrigin === undefined) return res
    if (access.allowOrigin === '*') return res.writeHeader(H_ALLOW_ORIGIN, V_STAR)
    return res.writeHeader(H_ALLOW_ORIGIN, access.allowOrigin).writeHeader(H_VARY, V_ORIGIN)
  }

  /** 413 and drop the connection (the rest of the body is never read). Call corked. */
  function writeTooLarge(res: uws.HttpResponse, access: AccessDecision): void {
    writeCors(res.writeStatus(statusLine(413)).writeHeader(H_CONTENT_TYPE, V_TEXT), access).end(tooLargeBody, true)
  }

  /** Writes the handler's answer. Call corked. */
  function writeResponse(res: uws.HttpResponse, response: HandlerResponse | undefined, access: AccessDecision): void {
    res.writeStatus(statusLine(response === undefined ? 200 : response.status)).writeHeader(H_CONTENT_TYPE, V_JSON)
    if (access.allowed && access.allowOrigin !== undefined) {
      writeCors(res, access).writeHeader(H_ALLOW_METHODS, V_METHODS).writeHeader(H_ALLOW_HEADERS, V_DEFAULT_HEADERS)
    }
    res.end(response === undefined ? '' : response.body)
  }

  app.post('/*', (res, req) => {
    // req is stack-allocated: read what we need now
    const access = admit(res, req)
    if (access === undefined) return
    const lengthHeader = req.getHeader('content-length')
    const declared = lengthHeader === '' ? -1 : Number(lengthHeader)
    if (declared > maxBodyBytes) {
      writeTooLarge(res, access) // still inside the route callback: already corked
      return
    }

    let aborted = false
    let finished = false
    let body: Buffer | undefined // preallocated from Content-Length (multi-chunk bodies)
    let chunks: Buffer[] | undefined // copies, when the length is not declared (chunked encoding)
    let size = 0
    res.onAborted(() => {
      aborted = true
    })

    const dispatch = (text: string): void => {
      finished = true
      callHandler(handler, text, new HttpConnection(nextId++)).then(
        (response) => {
          if (!aborted) res.cork(() => writeResponse(res, response, access))
        },
        (err: unknown) => {
          process.emitWarning(`JSON-RPC handler rejected: ${String(err)}`)
          if (aborted) return
          res.cork(() => {
            writeCors(res.writeStatus(statusLine(500)).writeHeader(H_CONTENT_TYPE, V_TEXT), access).end(
              B_INTERNAL_ERROR,
            )
          })
        },
      )
    }

    res.onData((chunk, isLast) => {
      if (finished || aborted) return
      const length = chunk.byteLength
      if (isLast && size === 0) {
        // Fast path, the usual case for small requests: the whole body in one chunk. Decode straight
        // out of uWS memory (valid until this callback returns) - one copy, into the JS string.
        if (length > maxBodyBytes) {
          finished = true
          res.cork(() => writeTooLarge(res, access))
          return
        }
        dispatch(length === 0 ? '' : Buffer.from(chunk).toString('utf8'))
        return
      }
      const start = size
      size += length
      if (size > maxBodyBytes) {
        finished = true
        body = chunks = undefined
        res.cork(() => writeTooLarge(res, access))
        return
      }
      // uWS reuses (neuters) the chunk after this callback: copy it
      if (declared >= 0 && size <= declared) {
        body ??= Buffer.allocUnsafe(declared)
        body.set(new Uint8Array(chunk), start)
      } else {
        if (chunks === undefined) {
          // switch from the preallocated buffer (only if the peer sent more than declared)
          chunks = body === undefined ? [] : [body.subarray(0, start)]
          body = undefined
        }
        const copy = Buffer.allocUnsafe(length)
        copy.set(new Uint8Array(chunk))
        chunks.push(copy)
      }
      if (isLast) {
        const text =
          chunks !== undefined
            ? Buffer.concat(chunks, size).toString('utf8')
            : body !== undefined
              ? body.toString('utf8', 0, size)
              : ''
        body = chunks = undefined
        dispatch(text)
      }
    })
  })

  app.options('/*', (res, req) => {
    const access = admit(res, req)
    if (access === undefined) return
    const requested = req.getHeader('access-control-request-headers')
    writeCors(res.writeStatus(statusLine(204)), access)
      .writeHeader(H_ALLOW_METHODS, V_METHODS)
      .writeHeader(H_ALLOW_HEADERS, requested === '' ? V_DEFAULT_HEADERS : requested)
      .writeHeader(H_MAX_AGE, V_MAX_AGE)
      .endWithoutBody()
  })

  app.ws<WsUserData>('/*', {
    compression: uwsConstants.DISABLED,
    maxPayloadLength: maxBodyBytes,
    idleTimeout: 0, // clients keep sockets open for subscriptions; never time them out
    maxLifetime: 0,
    maxBackpressure: maxWsBuffer,
    closeOnBackpressureLimit: true,
    sendPingsAutomatically: false,
    upgrade: (res, req, context) => {
      if (admit(res, req) === undefined) return
      // Like the ws package: accept the first offered subprotocol, if any.
      const protocols = req.getHeader('sec-websocket-protocol')
      const comma = protocols.indexOf(',')
      res.upgrade<WsUserData>(
        { connection: new UwsConnection(nextId++) },
        req.getHeader('sec-websocket-key'),
        comma === -1 ? protocols : protocols.slice(0, comma).trim(),
        req.getHeader('sec-websocket-extensions'),
        context,
      )
    },
    open: (ws) => {
      const connection = ws.getUserData().connection
      connection.socket = ws
      openSockets.add(connection)
    },
    message: (ws, message, _isBinary) => {
      const connection = ws.getUserData().connection
      // The buffer is neutered when this callback returns: decode now. Binary frames are read as UTF-8 too.
      const text = Buffer.from(message).toString('utf8')
      callHandler(handler, text, connection).then(
        (response) => {
          if (response !== undefined) connection.push(response.body)
        },
        (err: unknown) => process.emitWarning(`JSON-RPC handler rejected: ${String(err)}`),
      )
    },
    close: (ws) => {
      const connection = ws.getUserData().connection
      connection.socket = undefined
      openSockets.delete(connection)
      connection.markClosed()
    },
  })

  // GET without upgrade (the ws route yields it), HEAD, PUT, DELETE...
  app.any('/*', (res, req) => {
    const access = admit(res, req)
    if (access === undefined) return
    writeCors(res.writeStatus(statusLine(405)).writeHeader(H_CONTENT_TYPE, V_TEXT), access).writeHeader(
      H_ALLOW,
      V_METHODS,
    )
    // uWS would send a body on HEAD; endWithoutBody(n > 0) never completes the response (uWS aborts the
    // process), so HEAD gets no Content-Length at all
    if (req.getMethod() === 'head') res.endWithoutBody()
    else res.end(B_METHOD_NOT_ALLOWED)
  })

  // Exclusive: without it uSockets sets SO_REUSEPORT and a second server would share the port silently.
  const listen = (p: number) =>
    new Promise<uws.us_listen_socket | false>((resolve) => {
      // the native listen also takes (host, port, options, cb); the typings lack that overload
      ;(app as unknown as ListenWithOptions).listen(host, p, uwsConstants.LIBUS_LISTEN_EXCLUSIVE_PORT, resolve)
    })
  // Port 0: uSockets binds a port-0 listener without SO_REUSEADDR, and on Linux the connections it accepted then
  // keep the port in TIME_WAIT (~60 s) against a new bind, so a node started with port 0, closed and started again
  // on the port it got failed with "already in use". So the kernel's pick is taken from a throw-away port-0
  // listener (it accepts nothing) and the real one listens on that concrete port, which uSockets binds with
  // SO_REUSEADDR. Another process may take the port in between: a few tries. (node:net is not used for the probe:
  // its listen loads cluster and child_process, ~2 ms of start-up.)
  let listenSocket: uws.us_listen_socket | false = false
  for (let attempt = 0; attempt < (port === 0 ? 5 : 1) && listenSocket === false; attempt++) {
    let concrete = port
    if (port === 0) {
      const probe = await listen(0)
      if (probe === false) break
      concrete = uws.us_socket_local_port(probe as unknown as uws.us_socket)
      uws.us_listen_socket_close(probe)
    }
    listenSocket = await listen(concrete)
  }
  if (listenSocket === false) {
    closeApp(app)
    throw await listenFailure(host, port)
  }
  const boundPort = uws.us_socket_local_port(listenSocket as unknown as uws.us_socket)

  let closing: Promise<void> | undefined
  return {
    port: boundPort,
    transport: 'uws',
    close(): Promise<void> {
      closing ??= new Promise<void>((resolve) => {
        uws.us_listen_socket_close(listenSocket)
        // end() runs the close handler synchronously, which mutates the set: iterate a copy
        for (const connection of Array.from(openSockets)) connection.end()
        // force-closes keep-alive HTTP sockets (pending requests see onAborted)
        closeApp(app)
        // resolve after an I/O turn, so that clients in this process see the connections end before they send again
        setTimeout(() => setImmediate(resolve), 1)
      })
      return closing
    },
  }
}

/** The `listen(host, port, options, cb)` overload of the native App. */
interface ListenWithOptions {
  listen(host: string, port: number, options: number, cb: (listenSocket: uws.us_listen_socket | false) => void): unknown
}

function closeApp(app: uws.TemplatedApp): void {
  if (typeof app.close === 'function') app.close()
}
