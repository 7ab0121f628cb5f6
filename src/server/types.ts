/**
 * The contract between the transport (src/server) and the JSON-RPC layer (src/rpc).
 *
 * The transport knows no chain and no JSON-RPC: it hands raw request text to a {@link RequestHandler}
 * and writes back what the handler returns. WebSocket connections additionally get a
 * {@link Connection.push} so the RPC layer can deliver subscription notifications.
 */

/** One client connection as the RPC layer sees it. */
export interface Connection {
  /** Unique per server instance, increasing from 1. */
  readonly id: number
  /** `http` for a single POST request, `ws` for a WebSocket connection (lives until closed). */
  readonly transport: 'http' | 'ws'
  /**
   * Sends an unsolicited text message (a JSON-RPC notification) to the client.
   * Only meaningful for `ws`; for `http` it is a no-op. Never throws, also after close.
   */
  push(message: string): void
  /** Registers a callback run once when the connection closes (`ws`); for `http`, never called. */
  onClose(callback: () => void): void
}

/** What the handler answers to one request text. */
export interface HandlerResponse {
  /**
   * HTTP status code for HTTP transports (the reference node uses 400 for -32700/-32600/-32602, else 200). Ignored on
   * WS.
   */
  status: number
  /** Response text (a JSON-RPC response object or array). */
  body: string
}

/** The JSON-RPC layer as the transport sees it. */
export interface RequestHandler {
  /**
   * Handles one request text (an HTTP POST body or a WS text message).
   * Returns the response to write, or `undefined` when nothing is to be written
   * (a notification or a batch of notifications only). Must never reject.
   */
  handle(body: string, connection: Connection): Promise<HandlerResponse | undefined>
}

/** Options for {@link startServer}. */
export interface ServerOptions {
  /** Interface to bind, e.g. `127.0.0.1`. */
  host: string
  /** TCP port; 0 picks a free port. */
  port: number
  /** Maximum accepted HTTP body / WS message size in bytes (reference: 5 MB). */
  maxBodyBytes?: number
  /** Force a transport (tests run both); default: uWebSockets.js when its binary loads, else node:http + ws. */
  transport?: 'uws' | 'node'
  /**
   * Web origins allowed besides the default ones (loopback pages and browser-extension wallets), or `'*'` for
   * any; other origins get 403 (see ./origin-policy.ts). Default: none.
   */
  allowOrigins?: readonly string[] | '*'
  /**
   * `Host` names allowed besides loopback names and the bound address, or `'*'` for any (./origin-policy.ts). Default:
   * none.
   */
  allowHosts?: readonly string[] | '*'
  /**
   * Per-WebSocket send-buffer limit in bytes: a client that stops reading and falls further behind is
   * disconnected (default {@link WS_MAX_BACKPRESSURE_BYTES} of ./common.ts, 64 MB).
   */
  maxWsBufferBytes?: number
}

/** A listening server. */
export interface RunningServer {
  /** The port actually bound (useful with port 0). */
  readonly port: number
  /** Which implementation is serving. */
  readonly transport: 'uws' | 'node'
  /** Stops listening and closes every open connection. Resolves when done. */
  close(): Promise<void>
}
