/**
 * The JSON-RPC 2.0 envelope: parsing, batches, notifications, dispatch through the method table, and
 * error responses (docs/reference-rules.md#rule-encoding,
 * docs/reference-rules.md#rule-error-codes, docs/reference-rules.md#rule-error-http-status,
 * docs/reference-rules.md#rule-error-envelope-limits, docs/reference-rules.md#rule-limits; the domain's errors are
 * mapped by src/rpc/error-mapping.ts, docs/architecture.md#errors). Implements the transport's RequestHandler.
 */
import { toRpcError } from './error-mapping.js'
import { ErrorCode, RpcError } from './rpc-error.js'
import type { Connection, HandlerResponse, RequestHandler } from '../server/types.js'
import { RawJson } from './format.js'
import { UNAVAILABLE_METHODS, type CallContext, type MethodSpec, type ModuleName } from './method-table.js'

/**
 * A monotonic clock in milliseconds, for request durations. process.hrtime rather than `performance.now`: the
 * first read of the `performance` global loads node:perf_hooks (11 internal modules, ~1.6 ms of the CLI's first
 * answer, measured).
 */
const nowMs = (): number => Number(process.hrtime.bigint()) / 1e6

/** Options for {@link Dispatcher}. */
export interface DispatcherOptions {
  /** Maximum requests in one batch (reference max_batch_requests_size = 50). */
  maxBatchSize?: number
  /** Modules that are switched off (their methods answer -32601). */
  disabledModules?: ReadonlySet<ModuleName>
  /** Called for each handled request (method name, duration in ms, error if any) — the CLI's request log. */
  onRequest?: (method: string, ms: number, error?: RpcError) => void
  /** Called for unexpected failures (neither an RpcError nor a domain error: a bug), for logging. */
  onInternalError?: (method: string, err: unknown) => void
  /**
   * Awaited (when it returns a promise; it must not reject) before any request of a message runs: the chain's
   * finishing of an already-answered block (Chain.finishingBlock), so that no request observes the chain before it.
   */
  before?: () => Promise<void> | undefined
  /**
   * Turns what a method raises into its JSON-RPC error, or undefined for an unexpected failure (answered
   * -32603 and logged). Default: {@link toRpcError} with the reference's answers; src/node.ts passes the
   * compatibility profile (src/rpc/compat.ts).
   */
  mapError?: (err: unknown) => RpcError | undefined
  /**
   * Whether error answers are sent with HTTP status 200 too (the compatibility profiles, src/rpc/compat.ts
   * `errorsAnswerHttp200`). Default false: the reference's 400 for -32700/-32600/-32602.
   */
  errorsAnswerHttp200?: boolean
}

/**
 * HTTP statuses the reference answers with: 400 for parse/invalid request/invalid params, else 200
 * (docs/reference-rules.md#rule-error-http-status).
 */
function referenceStatus(code: number | undefined): number {
  return code === ErrorCode.ParseError || code === ErrorCode.InvalidRequest || code === ErrorCode.InvalidParams
    ? 400
    : 200
}

type Id = string | number | null

function errorBody(id: Id, code: number, message: string, data?: unknown): string {
  const error = data === undefined ? { code, message } : { code, message, data }
  return JSON.stringify({ jsonrpc: '2.0', id, error })
}

/** A response and the error code it carries (undefined on success). */
/** A response body as text (a batch joins its answers as text). */
function bodyText(body: string | Uint8Array): string {
  return typeof body === 'string' ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8')
}

interface Answer {
  /** The response text, or its UTF-8 bytes (a result given as bytes, src/rpc/format.ts RawJson.body). */
  body: string | Uint8Array
  code?: number
}

/**
 * Routes requests to the method table. Never rejects: every failure becomes a JSON-RPC error.
 */
export class Dispatcher implements RequestHandler {
  private readonly table = new Map<string, MethodSpec>()
  private readonly maxBatch: number
  private readonly disabled: ReadonlySet<ModuleName>
  private readonly mapError: (err: unknown) => RpcError | undefined
  /** The HTTP status of an answer carrying `code` (undefined: a result). */
  private readonly statusFor: (code: number | undefined) => number

  /**
   * @param methods the method table (names and aliases must be unique)
   * @throws Error on a duplicate method name
   */
  constructor(
    methods: readonly MethodSpec[],
    private readonly opts: DispatcherOptions = {},
  ) {
    for (const m of methods) {
      for (const name of [m.name, ...m.aliases]) {
        if (this.table.has(name)) throw new Error(`duplicate RPC method ${name}`)
        this.table.set(name, m)
      }
    }
    this.maxBatch = opts.maxBatchSize ?? 50
    this.disabled = opts.disabledModules ?? new Set()
    this.mapError = opts.mapError ?? ((err) => toRpcError(err))
    this.statusFor = opts.errorsAnswerHttp200 === true ? () => 200 : referenceStatus
  }

  /** Every enabled method name (canonical and aliases), sorted. */
  methodNames(): string[] {
    return [...this.table.entries()]
      .filter(([, m]) => !this.disabled.has(m.module))
      .map(([n]) => n)
      .sort()
  }

  /** {@inheritDoc RequestHandler.handle} */
  async handle(text: string, connection: Connection): Promise<HandlerResponse | undefined> {
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch {
      return {
        status: this.statusFor(ErrorCode.ParseError),
        body: errorBody(null, ErrorCode.ParseError, 'JSON parse error'),
      }
    }
    const ctx: CallContext = { connection }
    const wait = this.opts.before?.()
    if (wait !== undefined) await wait
    if (Array.isArray(parsed)) {
      if (parsed.length === 0)
        return {
          status: this.statusFor(ErrorCode.InvalidRequest),
          body: errorBody(null, ErrorCode.InvalidRequest, 'invalid request'),
        }
      if (parsed.length > this.maxBatch) {
        return {
          status: this.statusFor(ErrorCode.InvalidRequest),
          body: JSON.stringify({
            error: {
              code: ErrorCode.InvalidRequest,
              message: `Cannot dispatch batch requests. ${this.maxBatch} is the max number of supported batch requests`,
            },
          }),
        }
      }
      const answers = await Promise.all(parsed.map((req) => this.single(req, ctx)))
      const bodies = answers.filter((a): a is Answer => a !== undefined).map((a) => bodyText(a.body))
      if (bodies.length === 0) return undefined
      return { status: 200, body: '[' + bodies.join(',') + ']' }
    }
    const answer = await this.single(parsed, ctx)
    if (answer === undefined) return undefined
    return { status: this.statusFor(answer.code), body: answer.body }
  }

  /**
   * Calls a method directly with already-parsed params (the in-process EIP-1193 provider).
   * @throws RpcError as the method would answer; an unexpected failure (a bug) as it was raised
   */
  async call(methodName: string, params: unknown[], connection: Connection): Promise<unknown> {
    const wait = this.opts.before?.()
    if (wait !== undefined) await wait
    const spec = this.lookup(methodName)
    let result: unknown
    try {
      result = await spec.handler({ connection }, this.decode(spec, params))
    } catch (err) {
      throw this.mapError(err) ?? err
    }
    return result instanceof RawJson ? JSON.parse(result.json) : result
  }

  private lookup(name: string): MethodSpec {
    const spec = this.table.get(name)
    if (spec === undefined || this.disabled.has(spec.module)) {
      const why = UNAVAILABLE_METHODS.get(name)
      if (why) throw new RpcError(ErrorCode.MethodNotFound, `the method ${name} is not available: ${why}`)
      if (spec) throw new RpcError(ErrorCode.MethodNotFound, `the method ${name} does not exist/is not available`)
      throw new RpcError(ErrorCode.MethodNotFound, 'method not found')
    }
    return spec
  }

  private decode(spec: MethodSpec, params: unknown[]): unknown[] {
    if (params.length > spec.params.length) {
      throw new RpcError(
        ErrorCode.InvalidParams,
        `method parameters invalid: ${spec.name} takes at most ${spec.params.length} argument(s), got ${params.length}`,
      )
    }
    const args = new Array<unknown>(spec.params.length)
    for (let i = 0; i < spec.params.length; i++) {
      const p = spec.params[i]!
      const v = params[i]
      if (v === undefined && !p.optional) {
        throw new RpcError(ErrorCode.InvalidParams, `missing value for required argument ${i} (${p.name})`)
      }
      args[i] = p.decode(v, i)
    }
    return args
  }

  private async single(req: unknown, ctx: CallContext): Promise<Answer | undefined> {
    if (req === null || typeof req !== 'object' || Array.isArray(req)) {
      return { body: errorBody(null, ErrorCode.InvalidRequest, 'invalid request'), code: ErrorCode.InvalidRequest }
    }
    const r = req as Record<string, unknown>
    const hasId = 'id' in r
    const id = r.id
    const validId = id === null || typeof id === 'string' || typeof id === 'number'
    if (
      typeof r.method !== 'string' ||
      (r.jsonrpc !== undefined && r.jsonrpc !== '2.0') ||
      (hasId && !validId) ||
      (r.params !== undefined && r.params !== null && !Array.isArray(r.params))
    ) {
      return {
        body: errorBody(validId ? (id as Id) : null, ErrorCode.InvalidRequest, 'invalid request'),
        code: ErrorCode.InvalidRequest,
      }
    }
    const methodName = r.method
    const params = (r.params as unknown[] | undefined) ?? []
    const start = this.opts.onRequest ? nowMs() : 0
    let body: string | Uint8Array
    let code: number | undefined
    try {
      const spec = this.lookup(methodName)
      const result = await spec.handler(ctx, this.decode(spec, params))
      const prefix = '{"jsonrpc":"2.0","id":' + JSON.stringify(id ?? null) + ',"result":'
      body = result instanceof RawJson ? result.body(prefix, '}') : prefix + JSON.stringify(result ?? null) + '}'
      this.opts.onRequest?.(methodName, nowMs() - start)
    } catch (err) {
      let e = this.mapError(err)
      if (e === undefined) {
        this.opts.onInternalError?.(methodName, err)
        e = new RpcError(ErrorCode.Internal, err instanceof Error ? err.message : 'Internal server error')
      }
      code = e.code
      body = errorBody((id as Id) ?? null, e.code, e.message, e.data)
      this.opts.onRequest?.(methodName, nowMs() - start, e)
    }
    if (!hasId) return undefined
    return { body, code }
  }
}
