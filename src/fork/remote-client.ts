/**
 * JSON-RPC over HTTP to a fork's remote node (the reference node or a hosted service of it): calls made in the
 * same turn of the event loop go out as one batch of at most 50 (the reference's limit,
 * docs/reference-rules.md#rule-limits), with a bound on HTTP requests in flight, an optional requests-per-second
 * cap, a timeout per HTTP request, retries with exponential backoff on timeouts, HTTP 429/5xx and connection
 * errors, and a short cool-down after the remote was found gone, during which calls fail at once instead of
 * waiting for retries again. What the remote serves and how it is asked: docs/reference-rules.md#rule-fork-remote.
 *
 * HTTP is node:http / node:https with keep-alive connections (./http-post.ts).
 */
import { HttpPoster, PostError } from './http-post.js'
import { RateLimiter, Semaphore } from './pacing.js'
import { RemoteCallError, remoteOrigin, RemoteProtocolError, RemoteUnavailableError } from './remote-errors.js'

/** The reference node answers at most this many calls in one batch request. */
export const MAX_BATCH_SIZE = 50

/** How to reach and pace a remote node. Times are in milliseconds. */
export interface RemoteClientOptions {
  /** HTTP(S) URL of the JSON-RPC endpoint (a hosted service's URL may carry its API key in the path). */
  url: string
  /** Extra HTTP headers sent with every request (an API key header, for example). */
  headers?: Readonly<Record<string, string>>
  /** Time allowed for one HTTP request, answer included (default 30 000). */
  timeoutMs?: number
  /** Retries after a failed attempt (timeout, HTTP 429/5xx, connection error); default 5. */
  retries?: number
  /** Delay before the first retry, doubled for each further one (default 250). */
  backoffMs?: number
  /** Longest delay between retries, also the cap on a `Retry-After` the remote asks for (default 10 000). */
  maxBackoffMs?: number
  /** HTTP requests in flight at once (default 8). */
  concurrency?: number
  /** Calls per second, a batch of n counting n (default: no cap). */
  requestsPerSecond?: number
  /** Calls per batch request, 1…50 (default 50). */
  maxBatchSize?: number
  /** After a call failed as unavailable, further calls fail at once for this long (default 2 000; 0 = never). */
  cooldownMs?: number
}

/** Counters of a client's traffic. */
export interface RemoteClientStats {
  /** JSON-RPC calls made (a batch of n counts n). */
  calls: number
  /** HTTP requests sent, retries included. */
  httpRequests: number
  /** Attempts repeated after a retryable failure. */
  retries: number
}

interface Pending {
  method: string
  params: readonly unknown[]
  resolve: (value: unknown) => void
  reject: (error: Error) => void
}

type Attempt =
  | { kind: 'answer'; body: unknown; ids: number[] }
  | { kind: 'retry'; reason: string; retryAfterMs?: number }
  | { kind: 'fail'; error: Error }

/**
 * A JSON-RPC client for one remote. Not tied to any method: {@link RemoteNode} (src/fork/remote-node.ts) holds
 * the typed calls.
 */
export class RemoteClient {
  /** The remote's origin (no path: a hosted service's API key stays out of messages). */
  origin: string
  readonly stats: RemoteClientStats = { calls: 0, httpRequests: 0, retries: 0 }
  private url: string
  private readonly headers: Record<string, string>
  private readonly timeoutMs: number
  private readonly retries: number
  private readonly backoffMs: number
  private readonly maxBackoffMs: number
  private readonly cooldownMs: number
  private readonly slots: Semaphore
  private readonly limiter: RateLimiter | undefined
  private batchLimit: number
  private queue: Pending[] = []
  private scheduled = false
  private closed = false
  private downUntil = 0
  private downReason = ''
  private nextId = 1
  private readonly stop = new AbortController()
  private poster: HttpPoster
  private readonly concurrency: number

  /** @throws Error on an URL that is not http(s) or an option out of range */
  constructor(opts: RemoteClientOptions) {
    const u = new URL(opts.url)
    if (u.protocol !== 'http:' && u.protocol !== 'https:')
      throw new Error(`fork URL must be http(s), got ${u.protocol}`)
    this.url = opts.url
    this.origin = remoteOrigin(opts.url)
    this.headers = { 'content-type': 'application/json', accept: 'application/json', ...opts.headers }
    this.timeoutMs = positive('timeoutMs', opts.timeoutMs ?? 30_000)
    this.retries = nonNegativeInt('retries', opts.retries ?? 5)
    this.backoffMs = nonNegative('backoffMs', opts.backoffMs ?? 250)
    this.maxBackoffMs = nonNegative('maxBackoffMs', opts.maxBackoffMs ?? 10_000)
    this.cooldownMs = nonNegative('cooldownMs', opts.cooldownMs ?? 2_000)
    this.concurrency = opts.concurrency ?? 8
    this.slots = new Semaphore(this.concurrency)
    this.poster = new HttpPoster(opts.url, this.concurrency)
    this.limiter = opts.requestsPerSecond === undefined ? undefined : new RateLimiter(opts.requestsPerSecond)
    const batch = opts.maxBatchSize ?? MAX_BATCH_SIZE
    if (!Number.isInteger(batch) || batch < 1 || batch > MAX_BATCH_SIZE)
      throw new Error(`maxBatchSize must be 1…${MAX_BATCH_SIZE}, got ${batch}`)
    this.batchLimit = batch
  }

  /**
   * Calls `method` on the remote; calls made in the same turn of the event loop share batch requests.
   * @returns the call's `result` as parsed JSON
   * @throws RemoteCallError when the remote answers with a JSON-RPC error (its code kept as `remoteCode`)
   * @throws RemoteUnavailableError when the remote cannot be reached after the retries, or failed moments ago
   * @throws RemoteProtocolError when the answer is not JSON-RPC (an HTTP 401 page, for example)
   */
  call<T = unknown>(method: string, params: readonly unknown[] = []): Promise<T> {
    if (this.closed) return Promise.reject(new RemoteUnavailableError(this.origin, 'the fork client is closed', 0))
    if (this.downUntil > Date.now()) return Promise.reject(new RemoteUnavailableError(this.origin, this.downReason, 0))
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ method, params, resolve: resolve as (v: unknown) => void, reject })
      this.schedule()
    })
  }

  /**
   * Sends later requests to `url` (anvil_setRpcUrl: another endpoint of the same remote chain); ends a cool-down.
   * @throws Error on an URL that is not http(s)
   */
  retarget(url: string): void {
    const u = new URL(url)
    if (u.protocol !== 'http:' && u.protocol !== 'https:')
      throw new Error(`fork URL must be http(s), got ${u.protocol}`)
    if (u.protocol !== new URL(this.url).protocol) {
      this.poster.close()
      this.poster = new HttpPoster(url, this.concurrency)
    }
    this.url = url
    this.origin = remoteOrigin(url)
    this.downUntil = 0
  }

  /** Fails every queued call and every later one, and aborts the requests in flight. */
  close(): void {
    if (this.closed) return
    this.closed = true
    this.stop.abort()
    this.poster.close()
    const queued = this.queue
    this.queue = []
    for (const p of queued) p.reject(new RemoteUnavailableError(this.origin, 'the fork client is closed', 0))
  }

  private schedule(): void {
    if (this.scheduled) return
    this.scheduled = true
    setImmediate(() => this.flush())
  }

  private flush(): void {
    this.scheduled = false
    const size = Math.min(this.batchLimit, this.limiter?.capacity ?? MAX_BATCH_SIZE)
    while (this.queue.length > 0) void this.send(this.queue.splice(0, size))
  }

  private async send(batch: Pending[]): Promise<void> {
    this.stats.calls += batch.length
    const release = await this.slots.acquire()
    try {
      for (let attempt = 1; ; attempt++) {
        if (this.closed)
          return this.failAll(batch, new RemoteUnavailableError(this.origin, 'the fork client is closed', 0))
        if (this.limiter !== undefined) await this.limiter.take(batch.length)
        const outcome = await this.attempt(batch)
        if (outcome.kind === 'answer') {
          this.downUntil = 0
          return this.settle(batch, outcome.ids, outcome.body)
        }
        if (outcome.kind === 'fail') return this.failAll(batch, outcome.error)
        if (attempt > this.retries) {
          if (this.cooldownMs > 0) {
            this.downUntil = Date.now() + this.cooldownMs
            this.downReason = outcome.reason
          }
          return this.failAll(batch, new RemoteUnavailableError(this.origin, outcome.reason, attempt))
        }
        this.stats.retries++
        const backoff = Math.min(this.maxBackoffMs, this.backoffMs * 2 ** (attempt - 1))
        const wait = Math.max(backoff, Math.min(outcome.retryAfterMs ?? 0, this.maxBackoffMs))
        if (!(await this.sleep(wait * (0.8 + 0.4 * Math.random())))) {
          return this.failAll(batch, new RemoteUnavailableError(this.origin, 'the fork client is closed', 0))
        }
      }
    } finally {
      release()
    }
  }

  /** One HTTP request for the batch (a single call goes out as a plain request object). */
  private async attempt(batch: Pending[]): Promise<Attempt> {
    const envelopes = batch.map((p) => ({ jsonrpc: '2.0', id: this.nextId++, method: p.method, params: p.params }))
    const ids = envelopes.map((e) => e.id)
    this.stats.httpRequests++
    let status: number
    let text: string
    let retryAfter: string | null
    try {
      const body = JSON.stringify(envelopes.length === 1 ? envelopes[0] : envelopes)
      ;({ status, text, retryAfter } = await this.poster.post(
        this.url,
        body,
        this.headers,
        this.timeoutMs,
        this.stop.signal,
      ))
    } catch (e) {
      if (this.closed)
        return { kind: 'fail', error: new RemoteUnavailableError(this.origin, 'the fork client is closed', 0) }
      return { kind: 'retry', reason: describePostError(e, this.timeoutMs) }
    }
    if (status === 429 || status >= 500) {
      return { kind: 'retry', reason: `HTTP ${status}`, retryAfterMs: parseRetryAfter(retryAfter) }
    }
    let body: unknown
    try {
      body = JSON.parse(text)
    } catch {
      return {
        kind: 'fail',
        error: new RemoteProtocolError(this.origin, `HTTP ${status} with a body that is not JSON`),
      }
    }
    return { kind: 'answer', body, ids }
  }

  /** Hands each call its response; a batch refused as a whole is split in halves and queued again. */
  private settle(batch: Pending[], ids: number[], body: unknown): void {
    if (batch.length === 1 && body !== null && typeof body === 'object' && !Array.isArray(body)) {
      return this.settleOne(batch[0]!, body as Record<string, unknown>)
    }
    if (!Array.isArray(body)) {
      if (batch.length > 1) {
        // the remote refused the batch (a lower batch limit than the reference's): smaller batches from now on
        this.batchLimit = Math.max(1, Math.floor(batch.length / 2))
        this.queue.unshift(...batch)
        this.stats.calls -= batch.length
        return this.schedule()
      }
      return this.failAll(batch, new RemoteProtocolError(this.origin, 'the answer is not a JSON-RPC response'))
    }
    const byId = new Map<unknown, Record<string, unknown>>()
    for (const r of body)
      if (r !== null && typeof r === 'object') byId.set((r as Record<string, unknown>).id, r as Record<string, unknown>)
    for (const [i, p] of batch.entries()) {
      const r = byId.get(ids[i])
      if (r === undefined) p.reject(new RemoteProtocolError(this.origin, `no response to ${p.method} in the batch`))
      else this.settleOne(p, r)
    }
  }

  private settleOne(p: Pending, r: Record<string, unknown>): void {
    const err = r.error
    if (err !== undefined && err !== null) {
      const e = err as { code?: unknown; message?: unknown }
      const code = typeof e.code === 'number' ? e.code : -32603
      p.reject(new RemoteCallError(p.method, code, typeof e.message === 'string' ? e.message : JSON.stringify(err)))
    } else if ('result' in r) p.resolve(r.result)
    else p.reject(new RemoteProtocolError(this.origin, `the response to ${p.method} has neither result nor error`))
  }

  private failAll(batch: Pending[], error: Error): void {
    for (const p of batch) p.reject(error)
  }

  /** Waits `ms`; false when the client was closed meanwhile. */
  private sleep(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      if (this.closed) return resolve(false)
      const onAbort = (): void => {
        clearTimeout(timer)
        resolve(false)
      }
      const timer = setTimeout(() => {
        this.stop.signal.removeEventListener('abort', onAbort)
        resolve(true)
      }, ms)
      this.stop.signal.addEventListener('abort', onAbort, { once: true })
    })
  }
}

/** Words for what a failed request saw: timeout, refused or reset connection, unknown host. */
function describePostError(e: unknown, timeoutMs: number): string {
  const code = e instanceof PostError ? e.code : (e as { code?: string }).code
  switch (code) {
    case 'timeout':
    case 'ETIMEDOUT':
      return `no answer within ${timeoutMs} ms`
    case 'ECONNREFUSED':
      return 'connection refused'
    case 'ECONNRESET':
    case 'EPIPE':
      return 'connection reset'
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host not found'
  }
  return (e as Error).message ?? String(e)
}

/** `Retry-After` as milliseconds (seconds or an HTTP date), undefined when absent or unreadable. */
function parseRetryAfter(v: string | null): number | undefined {
  if (v === null) return undefined
  const s = Number(v)
  if (Number.isFinite(s)) return Math.max(0, s * 1000)
  const t = Date.parse(v)
  return Number.isNaN(t) ? undefined : Math.max(0, t - Date.now())
}

function positive(name: string, v: number): number {
  if (!(v > 0) || !Number.isFinite(v)) throw new Error(`${name} must be a positive number, got ${v}`)
  return v
}

function nonNegative(name: string, v: number): number {
  if (!(v >= 0) || !Number.isFinite(v)) throw new Error(`${name} must be zero or more, got ${v}`)
  return v
}

function nonNegativeInt(name: string, v: number): number {
  if (!Number.isInteger(v) || v < 0) throw new Error(`${name} must be a whole number ≥ 0, got ${v}`)
  return v
}
