/**
 * Flow control of WebSocket requests and answers, the same on both transports (./uws-websocket.ts, ./node-http.ts;
 * docs/architecture.md#fairness):
 * - each connection has at most {@link WS_MAX_IN_FLIGHT} requests being answered at once, and none more is started
 *   while {@link WS_HIGH_WATER_BYTES} of its answers wait to be sent: answers are queued behind what the client
 *   reads, not computed ahead of it. Its further messages wait (in arrival order) and the transport stops reading
 *   its socket meanwhile;
 * - a {@link UnsentLedger} per server keeps the total of the bytes held for all connections (answers and
 *   notifications written but not yet taken by the kernel, and requests waiting to start). Over its bound, no
 *   connection that has unsent bytes starts another request, and the connections that made no progress for
 *   {@link WS_STALL_SAMPLES} samples (~1 s: their client is not reading) are closed, those holding the most
 *   first, until the total is back under the bound, with close code {@link WS_CLOSE_UNSENT} and a log line. A stalled
 *   connection holding more than the per-connection bound (`maxWsBufferBytes`) is closed the same way. A client
 *   whose unsent bytes go down (it reads) is never closed for them.
 */
import type { Connection, RequestHandler, ServerOptions, UnsentLimitClose } from './types.js'
import { callHandler, resolveMaxUnsentBytes, resolveMaxWsBufferBytes } from './common.js'

/**
 * Requests of one WebSocket connection answered at once (a batch counts as one). Four keeps the chain's queue fed
 * from a pipelining client while one answer is being written, and bounds what a client that does not read gets
 * computed for it to four answers.
 */
export const WS_MAX_IN_FLIGHT = 4

/** Unsent bytes of one connection (its client has not taken them yet) above which it starts no further request. */
export const WS_HIGH_WATER_BYTES = 4 * 1024 * 1024

/** Default total of the bytes held for all WebSocket connections of a server (`maxUnsentBytes`), 256 MiB. */
export const DEFAULT_MAX_UNSENT_BYTES = 256 * 1024 * 1024

/** How often the unsent bytes of the connections that have some are sampled, in ms. */
export const WS_SAMPLE_MS = 200

/** Consecutive samples without progress (unsent bytes not going down) after which a connection counts as stalled. */
export const WS_STALL_SAMPLES = 5

/**
 * Close code of a connection closed for what it holds unsent (RFC 6455 §7.4.1, 1008 "policy violation": the
 * client broke the server's rule that answers are read).
 */
export const WS_CLOSE_UNSENT = 1008

/** Close reason sent with {@link WS_CLOSE_UNSENT} (at most 123 bytes). */
export const WS_CLOSE_UNSENT_REASON = 'too many unsent answers: the client stopped reading'

/** What a flow needs from its transport's socket. */
export interface WsFlowSocket {
  /** Bytes written but not yet taken by the kernel. */
  bufferedAmount(): number
  /** Stops reading the socket (a no-op where the transport cannot). */
  pauseReading(): void
  /** Reads the socket again. */
  resumeReading(): void
  /** Closes the connection with `code` and `reason`, freeing what it holds soon even if the client never reads. */
  closeForLimit(code: number, reason: string): void
}

const MiB = (n: number): string => `${(n / 1048576).toFixed(1)} MiB`

/** A handler's response as the text of a WebSocket message (a byte answer is UTF-8). */
function textOf(body: string | Uint8Array): string {
  return typeof body === 'string' ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8')
}

/**
 * The log line of a {@link UnsentLimitClose} (the default report: written with console.warn).
 * @returns e.g. `closed WebSocket connection 7 (1008): 12.0 MiB unsent, its client not reading; 300.0 MiB held in
 *   all, over the 256.0 MiB bound`
 */
export function unsentCloseLine(e: UnsentLimitClose): string {
  const why =
    e.bound === 'total'
      ? `${MiB(e.totalBytes)} held in all, over the ${MiB(e.limitBytes)} bound`
      : `over the ${MiB(e.limitBytes)} bound per connection`
  const what = `${MiB(e.heldBytes)} unsent, its client not reading`
  return `closed WebSocket connection ${e.connectionId} (${WS_CLOSE_UNSENT}): ${what}; ${why}`
}

/** The server-wide total of what the WebSocket connections hold, and its enforcement. */
export class UnsentLedger {
  private total = 0
  private over = false
  private readonly flows = new Set<WsFlow>()
  private timer: NodeJS.Timeout | undefined
  private stopped = false

  /**
   * @param maxTotal bound on the bytes held for all connections
   * @param maxPerConnection bound on the bytes held for one stalled connection
   * @param report called for each connection closed (default: a line on stderr, {@link unsentCloseLine})
   */
  constructor(
    readonly maxTotal: number,
    readonly maxPerConnection: number,
    private readonly report: (e: UnsentLimitClose) => void = (e) => console.warn(unsentCloseLine(e)),
  ) {}

  /** Bytes held for all connections. */
  get totalBytes(): number {
    return this.total
  }

  /** True while the total is over the bound. */
  get isOver(): boolean {
    return this.over
  }

  /** Starts counting a connection's bytes. */
  add(flow: WsFlow): void {
    this.flows.add(flow)
  }

  /** Stops counting a connection (closed); its bytes leave the total. */
  remove(flow: WsFlow, held: number): void {
    if (this.flows.delete(flow)) this.changed(-held)
  }

  /** A connection's held bytes changed by `delta`. */
  changed(delta: number): void {
    this.total += delta
    if (this.total > 0 && this.timer === undefined && !this.stopped) {
      this.timer = setInterval(() => this.sample(), WS_SAMPLE_MS)
      this.timer.unref()
    }
    const over = this.total > this.maxTotal
    if (over === this.over) return
    this.over = over
    // back under the bound: the connections held back by it start their waiting requests
    if (!over) for (const f of Array.from(this.flows)) f.pump()
  }

  /** Samples every connection holding bytes, then closes stalled ones as the bounds require. */
  private sample(): void {
    const stalled: WsFlow[] = []
    for (const f of this.flows) {
      if (f.held === 0) continue
      f.observe(true)
      if (f.stalled) stalled.push(f)
    }
    stalled.sort((a, b) => b.held - a.held)
    for (const f of stalled) {
      const held = f.held
      const total = this.total
      const overTotal = total > this.maxTotal
      if (!overTotal && held <= this.maxPerConnection) continue
      f.closeForLimit()
      try {
        this.report({
          connectionId: f.connectionId,
          heldBytes: held,
          totalBytes: total,
          bound: overTotal ? 'total' : 'connection',
          limitBytes: overTotal ? this.maxTotal : this.maxPerConnection,
        })
      } catch (err) {
        process.emitWarning(`onUnsentLimitClose threw: ${String(err)}`)
      }
    }
    if (this.total <= 0 && this.timer !== undefined) {
      clearInterval(this.timer)
      this.timer = undefined
    }
  }

  /** Stops sampling (server shutdown). */
  stop(): void {
    this.stopped = true
    if (this.timer !== undefined) clearInterval(this.timer)
    this.timer = undefined
  }
}

/** One WebSocket connection's requests, answers and unsent bytes. */
export class WsFlow {
  private inFlight = 0
  /** Messages not started yet, from `head` on (a ring would do too; compacted as it drains). */
  private waiting: string[] = []
  private head = 0
  private waitingBytes = 0
  /** Unsent bytes at the last observation. */
  private unsent = 0
  private quietSamples = 0
  private readingPaused = false
  private pumping = false
  private gone = false

  /**
   * @param connection the connection requests are handled on (its push() writes the answers)
   * @param socket the transport's socket
   * @param handler the JSON-RPC handler
   * @param ledger the server's ledger
   */
  constructor(
    private readonly connection: Connection,
    private readonly socket: WsFlowSocket,
    private readonly handler: RequestHandler,
    private readonly ledger: UnsentLedger,
  ) {
    ledger.add(this)
  }

  /** The connection's id. */
  get connectionId(): number {
    return this.connection.id
  }

  /**
   * Bytes held for the connection: unsent answers and notifications (bytes), and requests waiting to start
   * (counted by their length in UTF-16 code units: bytes for the ASCII of JSON-RPC, an approximation otherwise).
   */
  get held(): number {
    return this.unsent + this.waitingBytes
  }

  /** True when it has unsent bytes and they did not go down for {@link WS_STALL_SAMPLES} samples. */
  get stalled(): boolean {
    return !this.gone && this.unsent > 0 && this.quietSamples >= WS_STALL_SAMPLES
  }

  /** A request message arrived: it starts now or waits its turn. */
  receive(text: string): void {
    if (this.gone) return
    this.waiting.push(text)
    this.waitingBytes += text.length
    this.ledger.changed(text.length)
    this.pump()
  }

  /**
   * Starts waiting requests as far as the bounds allow; pauses or resumes reading the socket to match. Not
   * re-entered (the ledger may call it back while it runs): the running call sees the new state on its next turn.
   */
  pump(): void {
    if (this.pumping) return
    this.pumping = true
    try {
      this.pumpOnce()
    } finally {
      this.pumping = false
    }
  }

  private pumpOnce(): void {
    while (
      !this.gone &&
      this.head < this.waiting.length &&
      this.inFlight < WS_MAX_IN_FLIGHT &&
      this.unsent <= WS_HIGH_WATER_BYTES &&
      !(this.unsent > 0 && this.ledger.isOver)
    ) {
      const text = this.waiting[this.head]!
      this.waiting[this.head++] = ''
      this.waitingBytes -= text.length
      this.ledger.changed(-text.length)
      this.start(text)
    }
    if (this.head === this.waiting.length) {
      this.waiting = []
      this.head = 0
    } else if (this.head > 1024 && this.head * 2 > this.waiting.length) {
      this.waiting = this.waiting.slice(this.head)
      this.head = 0
    }
    const blocked = !this.gone && this.head < this.waiting.length
    if (blocked === this.readingPaused) return
    this.readingPaused = blocked
    if (blocked) this.socket.pauseReading()
    else this.socket.resumeReading()
  }

  private start(text: string): void {
    this.inFlight++
    callHandler(this.handler, text, this.connection).then(
      (response) => {
        this.inFlight--
        if (response !== undefined) this.connection.push(textOf(response.body))
        this.pump()
      },
      (err: unknown) => {
        this.inFlight--
        process.emitWarning(`JSON-RPC handler rejected: ${String(err)}`)
        this.pump()
      },
    )
  }

  /**
   * Reads the socket's unsent bytes into the ledger. Called by the transport around each send and when the socket
   * drains (`sample` false), and by the ledger's sampling (`sample` true: no progress since the last observation
   * counts one quiet sample). Unsent bytes going down, or none, is progress.
   */
  observe(sample = false): void {
    if (this.gone) return
    const now = this.socket.bufferedAmount()
    if (now < this.unsent || now === 0) this.quietSamples = 0
    else if (sample) this.quietSamples++
    const delta = now - this.unsent
    this.unsent = now
    if (delta !== 0) this.ledger.changed(delta)
  }

  /** The socket drained (some of) its unsent bytes: observe them and start waiting requests. */
  drained(): void {
    this.observe()
    this.pump()
  }

  /** Closes the connection for what it holds ({@link WS_CLOSE_UNSENT}); its bytes leave the ledger at once. */
  closeForLimit(): void {
    if (this.gone) return
    this.closed()
    this.socket.closeForLimit(WS_CLOSE_UNSENT, WS_CLOSE_UNSENT_REASON)
  }

  /** The connection closed: nothing more starts, its bytes leave the ledger. Idempotent. */
  closed(): void {
    if (this.gone) return
    const held = this.held
    this.gone = true
    this.waiting = []
    this.head = 0
    this.waitingBytes = 0
    this.unsent = 0
    this.ledger.remove(this, held)
  }
}

/**
 * The ledger of one server from its options.
 * @throws RangeError when `maxUnsentBytes` or `maxWsBufferBytes` is not a positive integer
 */
export function ledgerFor(options: ServerOptions): UnsentLedger {
  return new UnsentLedger(
    resolveMaxUnsentBytes(options, DEFAULT_MAX_UNSENT_BYTES),
    resolveMaxWsBufferBytes(options),
    options.onUnsentLimitClose,
  )
}
