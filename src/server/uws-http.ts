/**
 * The HTTP side of the uWebSockets.js transport ({@link ./uws.ts}, which states the uWS rules kept here): the
 * Origin/Host check of every request (the WebSocket upgrade's too, ./uws-websocket.ts), POST bodies read within
 * `maxBodyBytes` (413 above it) and handed to the handler, the CORS preflight (204), GET/HEAD to the `get` handler
 * when there is one (the explorer), and 405 for any other method.
 */
import { createRequire } from 'node:module'
import type * as uws from 'uWebSockets.js'
import type { GetHandler, GetResponse, HandlerResponse, RequestHandler } from './types.js'
import type { AccessDecision, OriginPolicy } from './origin-policy.js'
import {
  ALLOWED_METHODS,
  ALLOWED_METHODS_WITH_GET,
  DEFAULT_ALLOWED_HEADERS,
  HttpConnection,
  INTERNAL_ERROR_TEXT,
  METHOD_NOT_ALLOWED_TEXT,
  PREFLIGHT_MAX_AGE_SECONDS,
  callHandler,
  payloadTooLargeText,
} from './common.js'

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
  404: 'Not Found',
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

/** What the HTTP routes need from the server ({@link ./uws.ts} `startUwsServer`). */
export interface UwsHttpContext {
  /** Receives every POST body (as UTF-8 text). */
  handler: RequestHandler
  /** The Origin/Host policy of the server. */
  policy: OriginPolicy
  /** Largest request body (bytes); a larger one gets 413. */
  maxBodyBytes: number
  /** The next server-unique connection id (shared with the WebSocket connections). */
  nextId: () => number
  /** Answers GET/HEAD (without upgrade); absent: they get 405. */
  get?: GetHandler
}

/** The route callbacks of the HTTP side, and the Origin/Host check the WebSocket upgrade shares. */
export interface UwsHttpRoutes {
  /**
   * The Origin/Host verdict of a request; a refused one is answered 403 (and its socket closed) here.
   * Call inside the route callback (req is only valid there).
   * @returns the verdict, or undefined when refused and answered
   */
  admit(res: uws.HttpResponse, req: uws.HttpRequest): AccessDecision | undefined
  /** POST on any path: the body to the handler, its answer back. */
  post(res: uws.HttpResponse, req: uws.HttpRequest): void
  /** OPTIONS: the CORS preflight (204). */
  options(res: uws.HttpResponse, req: uws.HttpRequest): void
  /** GET without upgrade and HEAD: the `get` handler's answer, or 405 without one; PUT, DELETE...: 405. */
  other(res: uws.HttpResponse, req: uws.HttpRequest): void
}

/**
 * The HTTP route callbacks of one server.
 * @param ctx the handler, origin policy, body limit and connection ids
 */
export function uwsHttpRoutes(ctx: UwsHttpContext): UwsHttpRoutes {
  const { handler, policy, maxBodyBytes } = ctx
  const tooLargeBody = Buffer.from(payloadTooLargeText(maxBodyBytes), 'utf8')

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

  const post = (res: uws.HttpResponse, req: uws.HttpRequest): void => {
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
      callHandler(handler, text, new HttpConnection(ctx.nextId())).then(
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
  }

  const options = (res: uws.HttpResponse, req: uws.HttpRequest): void => {
    const access = admit(res, req)
    if (access === undefined) return
    const requested = req.getHeader('access-control-request-headers')
    writeCors(res.writeStatus(statusLine(204)), access)
      .writeHeader(H_ALLOW_METHODS, V_METHODS)
      .writeHeader(H_ALLOW_HEADERS, requested === '' ? V_DEFAULT_HEADERS : requested)
      .writeHeader(H_MAX_AGE, V_MAX_AGE)
      .endWithoutBody()
  }

  /** Writes a GET handler's answer (no body for HEAD, see `other`). Call corked. */
  function writeGet(res: uws.HttpResponse, r: GetResponse, access: AccessDecision, head: boolean): void {
    res.writeStatus(statusLine(r.status))
    for (const name in r.headers) res.writeHeader(name, r.headers[name]!)
    writeCors(res, access)
    if (head) res.endWithoutBody()
    else res.end(r.body)
  }

  /** GET/HEAD to the `get` handler; its answer written now (sync) or once it resolves (if not aborted). */
  function serveGet(res: uws.HttpResponse, req: uws.HttpRequest, get: GetHandler, access: AccessDecision): void {
    const head = req.getMethod() === 'head'
    let answer: GetResponse | Promise<GetResponse>
    try {
      answer = get.handle({
        method: head ? 'HEAD' : 'GET',
        path: req.getUrl(),
        host: req.getHeader('host'),
        acceptEncoding: req.getHeader('accept-encoding'),
      })
    } catch (err) {
      answer = Promise.reject(err as Error)
    }
    if (!(answer instanceof Promise)) {
      writeGet(res, answer, access, head) // inside the route callback: already corked
      return
    }
    let aborted = false
    res.onAborted(() => {
      aborted = true
    })
    answer.then(
      (r) => {
        if (!aborted) res.cork(() => writeGet(res, r, access, head))
      },
      (err: unknown) => {
        process.emitWarning(`GET handler rejected: ${String(err)}`)
        if (aborted) return
        res.cork(() => {
          writeCors(res.writeStatus(statusLine(500)).writeHeader(H_CONTENT_TYPE, V_TEXT), access)
          if (head) res.endWithoutBody()
          else res.end(B_INTERNAL_ERROR)
        })
      },
    )
  }

  const V_METHODS_405 = enc(ctx.get === undefined ? ALLOWED_METHODS : ALLOWED_METHODS_WITH_GET)

  const other = (res: uws.HttpResponse, req: uws.HttpRequest): void => {
    const access = admit(res, req)
    if (access === undefined) return
    const method = req.getMethod()
    if (ctx.get !== undefined && (method === 'get' || method === 'head')) {
      serveGet(res, req, ctx.get, access)
      return
    }
    writeCors(res.writeStatus(statusLine(405)).writeHeader(H_CONTENT_TYPE, V_TEXT), access).writeHeader(
      H_ALLOW,
      V_METHODS_405,
    )
    // uWS would send a body on HEAD; endWithoutBody(n > 0) never completes the response (uWS aborts the
    // process), so HEAD gets no Content-Length at all
    if (method === 'head') res.endWithoutBody()
    else res.end(B_METHOD_NOT_ALLOWED)
  }

  return { admit, post, options, other }
}
