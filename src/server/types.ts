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
  /** Response text (a JSON-RPC response object or array), or its UTF-8 bytes (sent as they are). */
  body: string | Uint8Array
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
   * Per-WebSocket bound in bytes: a connection whose client stopped reading (no progress for ~1 s) and that holds
   * more than this unsent is closed with 1008 (default {@link WS_MAX_BACKPRESSURE_BYTES} of ./common.ts, 64 MB). A
   * client that reads is never closed for it (./ws-flow.ts).
   */
  maxWsBufferBytes?: number
  /**
   * Server-wide bound in bytes on what the WebSocket connections hold (unsent answers and notifications, requests
   * waiting to start): over it, the connections whose client stopped reading are closed with 1008, those holding the
   * most first (default {@link DEFAULT_MAX_UNSENT_BYTES} of ./ws-flow.ts, 256 MiB).
   */
  maxUnsentBytes?: number
  /** Called for each connection closed for the bounds above; default: a line on stderr (./ws-flow.ts). */
  onUnsentLimitClose?: (event: UnsentLimitClose) => void
  /**
   * The node transport's socket timeouts, in milliseconds (each a positive integer; `headersMs` <= `requestMs`);
   * those left out keep their defaults (./common.ts). Tests shorten them; uWS's are fixed in its binary (HTTP
   * sockets idle for 10 s, WebSocket close after 4 s) and ignore these.
   */
  timeouts?: Partial<ServerTimeouts>
  /**
   * Answers GET and HEAD requests that are not WebSocket upgrades, after the same Origin/Host check as POST (the
   * explorer: src/explorer-server/explorer-routes.ts). Without it they get 405, as every method but POST and OPTIONS.
   */
  get?: GetHandler
}

/** A GET or HEAD request (not a WebSocket upgrade) as the transport hands it to a {@link GetHandler}. */
export interface GetRequest {
  /** `HEAD` answers the same headers without a body. */
  method: 'GET' | 'HEAD'
  /** The path, without the query string (e.g. `/tx/0xab…`). */
  path: string
  /** The `Host` header (`''` when absent); already allowed by the Origin/Host policy. */
  host: string
  /** The `Accept-Encoding` header (`''` when absent). */
  acceptEncoding: string
}

/** The answer to a {@link GetRequest}. */
export interface GetResponse {
  /** HTTP status code. */
  status: number
  /**
   * Response headers (lower-case names), besides `content-length` and the CORS grant, which the transport writes.
   */
  headers: Readonly<Record<string, string>>
  /** The body (bytes as stored, e.g. gzip-compressed when `content-encoding` says so); ignored for HEAD. */
  body: Uint8Array | string
}

/** Answers GET/HEAD requests ({@link ServerOptions.get}). */
export interface GetHandler {
  /**
   * @param request method, path, Host and Accept-Encoding
   * @returns the answer; a rejection is answered 500 by the transport
   */
  handle(request: GetRequest): GetResponse | Promise<GetResponse>
}

/** The node transport's socket timeouts (./node-http.ts), all in milliseconds; defaults in ./common.ts. */
export interface ServerTimeouts {
  /** A request head must be complete within it, or the socket is answered 408 and closed (default 10 000). */
  headersMs: number
  /** Longest pause in a request body before a 408 and a closed socket (default 10 000). */
  bodyIdleMs: number
  /** A whole request (head and body) must arrive within it (default 30 000; at least `headersMs`). */
  requestMs: number
  /** How long an idle keep-alive connection stays open (default 60 000). */
  keepAliveMs: number
  /**
   * How long a WebSocket closed for what it holds unsent may take to read up to the close frame before its socket
   * is destroyed (default 4 000).
   */
  wsCloseGraceMs: number
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

/** A connection closed by the ledger, as reported to the server's log. */
export interface UnsentLimitClose {
  /** The connection's server-unique id. */
  connectionId: number
  /** Bytes held for it when closed (unsent answers and notifications, waiting requests). */
  heldBytes: number
  /** Bytes held for all connections before it was closed. */
  totalBytes: number
  /** `total`: the server's total was over `maxUnsentBytes`; `connection`: it alone held over `maxWsBufferBytes`. */
  bound: 'total' | 'connection'
  /** The bound in bytes. */
  limitBytes: number
}
