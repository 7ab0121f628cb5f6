/**
 * One HTTP(S) POST of a JSON body to a fork's remote, over keep-alive connections (node:http / node:https), for
 * src/fork/remote-client.ts. Node's own `fetch` would do the same, but its first call in a process loads and
 * compiles undici and the web streams: some 80-100 ms of CPU at every fork's start (measured on Node 20), a
 * fork's largest start-up cost; node:http costs ~15 ms (docs/architecture.md#performance-rules).
 */
import type { Agent as HttpAgent, IncomingMessage, RequestOptions } from 'node:http'
import http from 'node:http'
import https from 'node:https'

/** What came back: the HTTP status, the `Retry-After` header (null when absent) and the body as UTF-8 text. */
export interface PostAnswer {
  status: number
  retryAfter: string | null
  text: string
}

/**
 * Why a request got no answer: `timeout` (no full answer within the time allowed), `aborted` (the caller's signal),
 * else the system error code (`ECONNREFUSED`, `ECONNRESET`, `ENOTFOUND`, …) or undefined.
 */
export class PostError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message)
    this.name = 'PostError'
  }
}

/** Keep-alive connections to one remote, at most `maxSockets` at once. */
export class HttpPoster {
  private agent: HttpAgent | undefined
  private readonly secure: boolean

  /**
   * @param url the remote's http(s) URL (credentials in it become a Basic `Authorization` header)
   * @param maxSockets connections open at once
   */
  constructor(
    url: string,
    private readonly maxSockets: number,
  ) {
    // node:http(s) is loaded by the first request, not before: a fork started from its disk cache asks nothing
    this.secure = new URL(url).protocol === 'https:'
  }

  /**
   * POSTs `body` to `url` (of the same scheme as the constructor's) and reads the whole answer.
   * @param headers request headers (content-length is added)
   * @param timeoutMs time allowed for the request, answer included
   * @param signal aborts the request (the client was closed)
   * @throws PostError when no full answer came (see {@link PostError} for the codes)
   */
  post(
    url: string,
    body: string,
    headers: Readonly<Record<string, string>>,
    timeoutMs: number,
    signal: AbortSignal,
  ): Promise<PostAnswer> {
    if (signal.aborted) return Promise.reject(new PostError('aborted', 'aborted'))
    return new Promise<PostAnswer>((resolve, reject) => {
      const payload = Buffer.from(body, 'utf8')
      const keepAlive = { keepAlive: true, maxSockets: this.maxSockets }
      this.agent ??= this.secure ? new https.Agent(keepAlive) : new http.Agent(keepAlive)
      const request = this.secure ? https.request : http.request
      const opts: RequestOptions = {
        method: 'POST',
        agent: this.agent,
        headers: { ...headers, 'content-length': String(payload.length) },
      }
      let settled = false
      let timedOut = false
      const done = (err: PostError | undefined, answer?: PostAnswer): void => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        signal.removeEventListener('abort', onAbort)
        if (err) reject(err)
        else resolve(answer!)
      }
      const fail = (e: unknown): void => {
        if (timedOut) return done(new PostError(`no answer within ${timeoutMs} ms`, 'timeout'))
        if (signal.aborted) return done(new PostError('aborted', 'aborted'))
        const err = e as NodeJS.ErrnoException
        done(new PostError(err.message, err.code))
      }
      const req = request(url, opts, (res: IncomingMessage) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('error', fail)
        res.on('close', () => {
          if (!res.complete) fail(Object.assign(new Error('connection reset'), { code: 'ECONNRESET' }))
        })
        res.on('end', () => {
          const retryAfter = res.headers['retry-after']
          done(undefined, {
            status: res.statusCode ?? 0,
            retryAfter: typeof retryAfter === 'string' ? retryAfter : null,
            text: Buffer.concat(chunks).toString('utf8'),
          })
        })
      })
      const onAbort = (): void => {
        req.destroy()
        fail(undefined)
      }
      const timer = setTimeout(() => {
        timedOut = true
        req.destroy()
        fail(undefined)
      }, timeoutMs)
      signal.addEventListener('abort', onAbort, { once: true })
      req.on('error', fail)
      req.end(payload)
    })
  }

  /** Closes the idle connections and those in use. */
  close(): void {
    this.agent?.destroy()
  }
}
