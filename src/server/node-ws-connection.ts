/**
 * A `ws` WebSocket as a {@link Connection} of the node transport (./node-http.ts), and as the {@link WsFlowSocket} of
 * its flow control (./ws-flow.ts).
 *
 * Messages are written in fragments of at most {@link WS_WRITE_CHUNK_BYTES}, one write outstanding at a time: Node
 * reports a write done only once all of it reached the kernel, and hands writes queued behind a running one to the
 * kernel as one batch reported done as a whole, so with whole messages written at once a client reading a few MiB
 * of answers showed no progress for seconds and looked stalled. The rest waits here, counted as unsent.
 */
import type { WebSocket } from 'ws'
import { WsConnectionBase } from './common.js'
import type { WsFlow, WsFlowSocket } from './ws-flow.js'

/** Largest fragment written at once, in bytes: the granularity at which a client's reading shows as progress. */
export const WS_WRITE_CHUNK_BYTES = 256 * 1024

/** See the module doc. */
export class NodeWsConnection extends WsConnectionBase implements WsFlowSocket {
  /** The connection's requests and unsent bytes (set right after construction). */
  flow: WsFlow | undefined
  /** Messages not fully handed to `ws` yet; the first from `offset` on. */
  private outbox: Buffer[] = []
  private offset = 0
  private outboxBytes = 0
  private writing = false
  private readonly wrote = (): void => {
    this.writing = false
    this.flush()
    this.flow?.drained()
  }

  /**
   * @param id the server-unique connection id
   * @param socket the upgraded `ws` socket
   * @param closeGraceMs how long, in ms, {@link closeForLimit} lets the client read up to the close frame
   *   (./common.ts WS_CLOSE_GRACE_MS by default)
   */
  constructor(
    id: number,
    private readonly socket: WebSocket,
    private readonly closeGraceMs: number,
  ) {
    super(id)
  }

  /** Sends a text frame unless closed. Never throws. */
  push(message: string): void {
    if (this.closed || this.socket.readyState !== 1 /* OPEN */) return
    this.flow?.observe()
    const data = Buffer.from(message, 'utf8')
    this.outbox.push(data)
    this.outboxBytes += data.length
    this.flush()
    this.flow?.observe()
  }

  /** Hands the next fragment to `ws` when none is being written. */
  private flush(): void {
    if (this.writing || this.outbox.length === 0) return
    if (this.closed || this.socket.readyState !== 1 /* OPEN */) {
      this.outbox = []
      this.outboxBytes = 0
      return
    }
    const message = this.outbox[0]!
    const end = Math.min(message.length, this.offset + WS_WRITE_CHUNK_BYTES)
    const fin = end === message.length
    const part = this.offset === 0 && fin ? message : message.subarray(this.offset, end)
    this.outboxBytes -= part.length
    if (fin) {
      this.outbox.shift()
      this.offset = 0
    } else this.offset = end
    this.writing = true
    try {
      this.socket.send(part, { binary: false, fin }, this.wrote)
    } catch {
      // the socket died under us: nothing more to deliver to
      this.writing = false
      this.outbox = []
      this.outboxBytes = 0
    }
  }

  /** {@inheritDoc WsFlowSocket.bufferedAmount} */
  bufferedAmount(): number {
    return this.outboxBytes + this.socket.bufferedAmount
  }

  /** {@inheritDoc WsFlowSocket.pauseReading} */
  pauseReading(): void {
    this.socket.pause()
  }

  /** {@inheritDoc WsFlowSocket.resumeReading} */
  resumeReading(): void {
    this.socket.resume()
  }

  /**
   * {@inheritDoc WsFlowSocket.closeForLimit}: what was not handed to `ws` yet is dropped, the close frame goes out
   * after the rest; the socket is destroyed after `closeGraceMs` if the client has not read up to it.
   */
  closeForLimit(code: number, reason: string): void {
    const socket = this.socket
    this.outbox = []
    this.outboxBytes = 0
    try {
      socket.close(code, reason)
    } catch {
      socket.terminate()
      return
    }
    const timer = setTimeout(() => socket.terminate(), this.closeGraceMs)
    timer.unref()
    socket.once('close', () => clearTimeout(timer))
  }
}
