/**
 * The WebSocket side of the uWebSockets.js transport ({@link ./uws.ts}, which states the uWS rules kept here): the
 * upgrade (after the Origin/Host check of ./uws-http.ts), each text or binary message to the handler and its answer
 * back, and the connections' send buffer bound (`maxWsBufferBytes`: a client that stops reading is closed).
 */
import type * as uws from 'uWebSockets.js'
import type { AccessDecision } from './origin-policy.js'
import type { RequestHandler } from './types.js'
import { WS_CLOSE_GOING_AWAY, WS_CLOSE_REASON, WsConnectionBase, callHandler } from './common.js'

/** The user data uWS stores per WebSocket. */
export interface WsUserData {
  connection: UwsConnection
}

/** A uWS WebSocket as a {@link Connection}. */
export class UwsConnection extends WsConnectionBase {
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

/** What the WebSocket route needs from the server ({@link ./uws.ts} `startUwsServer`). */
export interface UwsWebSocketContext {
  /** Receives every WebSocket text/binary message (as UTF-8 text). */
  handler: RequestHandler
  /** Largest message (bytes). */
  maxBodyBytes: number
  /** Send buffer (bytes) above which a client that stops reading is closed. */
  maxWsBuffer: number
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
  const { handler, maxBodyBytes, maxWsBuffer, admit, openSockets } = ctx
  return {
    compression: ctx.compressionDisabled,
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
  }
}
