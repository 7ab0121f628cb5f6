/**
 * The WebSocket side of the uWebSockets.js transport ({@link ./uws.ts}, which states the uWS rules kept here): the
 * upgrade (after the Origin/Host check of ./uws-http.ts), each text or binary message to the handler and its answer
 * back under the flow control of ./ws-flow.ts (requests in flight per connection, unsent bytes per server).
 */
import type * as uws from 'uWebSockets.js'
import type { AccessDecision } from './origin-policy.js'
import type { RequestHandler } from './types.js'
import { WS_CLOSE_GOING_AWAY, WS_CLOSE_REASON, WsConnectionBase } from './common.js'
import { WsFlow, type UnsentLedger, type WsFlowSocket } from './ws-flow.js'

/**
 * uWS's `maxBackpressure` for this server: 2^31 − 1 bytes, i.e. never reached. uWS drops (does not send) a message
 * past it, which would lose answers of a client that reads; the bounds are ./ws-flow.ts's instead.
 */
const NEVER_DROP_BYTES = 2 ** 31 - 1

/** Pause and resume of reading a WebSocket: in uWebSockets.js builds that have them (not in uws-pack 20.0.8). */
interface PausableSocket {
  pause?: () => void
  resume?: () => void
}

/** The user data uWS stores per WebSocket. */
export interface WsUserData {
  connection: UwsConnection
}

/** A uWS WebSocket as a {@link Connection}, and as the {@link WsFlowSocket} of its flow (./ws-flow.ts). */
export class UwsConnection extends WsConnectionBase implements WsFlowSocket {
  /** Set in `open`, cleared in `close`: a uWS WebSocket must never be touched after its close event. */
  socket: uws.WebSocket<WsUserData> | undefined
  /** The connection's requests and unsent bytes (set in `open`). */
  flow: WsFlow | undefined
  private pending = ''
  private readonly corkedSend = (): void => {
    this.socket!.send(this.pending, false, false)
  }

  /** Sends a text frame unless closed. Never throws. */
  push(message: string): void {
    if (this.closed || this.socket === undefined) return
    this.pending = message
    try {
      this.flow?.observe()
      this.socket.cork(this.corkedSend)
      this.flow?.observe()
    } catch {
      // closed underneath us: nothing to deliver to
    } finally {
      this.pending = ''
    }
  }

  /** {@inheritDoc WsFlowSocket.bufferedAmount} */
  bufferedAmount(): number {
    return this.socket === undefined ? 0 : this.socket.getBufferedAmount()
  }

  /**
   * {@inheritDoc WsFlowSocket.pauseReading} Where the uWS build cannot pause a WebSocket, its further messages wait
   * in the flow instead (counted in the server's total, so a client that sends without reading is closed too).
   */
  pauseReading(): void {
    ;(this.socket as PausableSocket | undefined)?.pause?.()
  }

  /** {@inheritDoc WsFlowSocket.resumeReading} */
  resumeReading(): void {
    ;(this.socket as PausableSocket | undefined)?.resume?.()
  }

  /**
   * {@inheritDoc WsFlowSocket.closeForLimit}: uWS sends the close frame after what is buffered and destroys the
   * socket after its close timeout (4 s, checked every 4 s, with `idleTimeout` 0) if the client has not read up to it.
   */
  closeForLimit(code: number, reason: string): void {
    try {
      this.socket?.end(code, reason)
    } catch {
      // already closed
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

/** What the WebSocket route needs from the server ({@link ./uws.ts} `startUwsServer`). */
export interface UwsWebSocketContext {
  /** Receives every WebSocket text/binary message (as UTF-8 text). */
  handler: RequestHandler
  /** Largest message (bytes). */
  maxBodyBytes: number
  /** The server's ledger of unsent bytes (./ws-flow.ts). */
  ledger: UnsentLedger
  /** uWS's `DISABLED` compression constant. */
  compressionDisabled: uws.CompressOptions
  /** The Origin/Host check of the upgrade request (./uws-http.ts); undefined when refused and answered. */
  admit: (res: uws.HttpResponse, req: uws.HttpRequest) => AccessDecision | undefined
  /** The next server-unique connection id (shared with the HTTP connections). */
  nextId: () => number
  /** The open connections (added on open, removed on close), for the server's shutdown. */
  openSockets: Set<UwsConnection>
}

/**
 * The WebSocket route of one server.
 * @param ctx the handler, limits, upgrade check, connection ids and open-connection set
 */
export function uwsWebSocketBehavior(ctx: UwsWebSocketContext): uws.WebSocketBehavior<WsUserData> {
  const { handler, maxBodyBytes, ledger, admit, openSockets } = ctx
  return {
    compression: ctx.compressionDisabled,
    maxPayloadLength: maxBodyBytes,
    idleTimeout: 0, // clients keep sockets open for subscriptions; never time them out
    maxLifetime: 0,
    maxBackpressure: NEVER_DROP_BYTES,
    closeOnBackpressureLimit: false,
    sendPingsAutomatically: false,
    upgrade: (res, req, context) => {
      if (admit(res, req) === undefined) return
      // Like the ws package: accept the first offered subprotocol, if any.
      const protocols = req.getHeader('sec-websocket-protocol')
      const comma = protocols.indexOf(',')
      res.upgrade<WsUserData>(
        { connection: new UwsConnection(ctx.nextId()) },
        req.getHeader('sec-websocket-key'),
        comma === -1 ? protocols : protocols.slice(0, comma).trim(),
        req.getHeader('sec-websocket-extensions'),
        context,
      )
    },
    open: (ws) => {
      const connection = ws.getUserData().connection
      connection.socket = ws
      connection.flow = new WsFlow(connection, connection, handler, ledger)
      openSockets.add(connection)
    },
    message: (ws, message, _isBinary) => {
      // The buffer is neutered when this callback returns: decode now. Binary frames are read as UTF-8 too.
      ws.getUserData().connection.flow?.receive(Buffer.from(message).toString('utf8'))
    },
    drain: (ws) => {
      ws.getUserData().connection.flow?.drained()
    },
    close: (ws) => {
      const connection = ws.getUserData().connection
      connection.flow?.closed()
      connection.socket = undefined
      openSockets.delete(connection)
      connection.markClosed()
    },
  }
}
