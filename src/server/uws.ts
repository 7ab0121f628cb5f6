/**
 * The fast transport: one uWebSockets.js App serving JSON-RPC over HTTP POST and WebSocket on one port.
 *
 * The uWS module comes in as an argument, loaded by {@link ./index.ts} (`loadUws`, which says which binaries load
 * where); import this module through `startServer` there, which falls back to node:http + ws when none loads.
 *
 * Behaviour (same as {@link ./node-http.ts}): Origin/Host checks first (403, ./origin-policy.ts), POST on any
 * path, WebSocket upgrade on any path, OPTIONS answers the CORS preflight (204), GET/HEAD go to `options.get` when
 * given (the explorer), any other method gets 405, bodies
 * above `maxBodyBytes` get 413, WebSocket requests and answers under the flow control of ./ws-flow.ts.
 *
 * uWS rules honoured by this transport (here, ./uws-http.ts and ./uws-websocket.ts): `HttpRequest` is only valid
 * synchronously inside the route callback; every response that is not answered synchronously has `onAborted`
 * attached and is never touched after it fired; writes after async work are wrapped in `cork`; `onData` chunks
 * (and WS message buffers) are neutered when the callback returns, so they are decoded or copied before that.
 */
import { createServer as createNetServer } from 'node:net'
import type * as uws from 'uWebSockets.js'
import type { RequestHandler, RunningServer, ServerOptions } from './types.js'
import { OriginPolicy } from './origin-policy.js'
import { addressInUseError, resolveMaxBodyBytes, type CodedError } from './common.js'
import { ledgerFor } from './ws-flow.js'
import { uwsHttpRoutes } from './uws-http.js'
import { uwsWebSocketBehavior, type UwsConnection, type WsUserData } from './uws-websocket.js'

// The send-buffer limit lived here; re-exported for existing importers.
export { WS_MAX_BACKPRESSURE_BYTES } from './common.js'

/** The uWebSockets.js module (as {@link ./index.ts} `loadUws` resolves it). */
export type UwsModule = typeof uws

/**
 * The listen option the native module exports at its top level (`uws.LIBUS_LISTEN_EXCLUSIVE_PORT`, 1), which the
 * typings declare only as the member of a `ListenOptions` enum that does not exist at run time.
 */
interface UwsListenConstants {
  LIBUS_LISTEN_EXCLUSIVE_PORT: number
}

/**
 * Why uWS could not listen: uSockets only reports failure, so probe the same address with node:net
 * to recover the errno (EACCES, EADDRNOTAVAIL, ENOTFOUND...). Anything else, including a probe that
 * succeeds (a race), is reported as EADDRINUSE.
 */
async function listenFailure(host: string, port: number): Promise<Error> {
  const code = await new Promise<string | undefined>((resolve) => {
    const probe = createNetServer()
    probe.once('error', (err: NodeJS.ErrnoException) => resolve(err.code))
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve(undefined)))
  })
  if (code === undefined || code === 'EADDRINUSE') return addressInUseError(port, host)
  const err = new Error(`cannot listen on port ${port} on ${host} (${code})`) as CodedError
  err.code = code
  return err
}

/**
 * Starts the uWebSockets.js transport.
 * @param uws the loaded uWebSockets.js module ({@link ./index.ts} `loadUws`): taken as an argument rather than
 *   imported, so that which distribution serves is decided in one place and the CLI bundle holds no static import
 *   of a native module (see scripts/bundle.mjs)
 * @param handler receives every POST body and WebSocket text/binary message (as UTF-8 text)
 * @param options host, port (0 = any free port), maxBodyBytes (bytes, default 5 MB; also the WS max message size)
 * @returns the running server once it listens
 * @throws (rejects) an Error with `code: 'EADDRINUSE'` and message `port <n> on <host> is already in use`
 *   when the port is taken; an Error with the errno `code` for other listen failures (e.g. EACCES);
 *   RangeError for an invalid `maxBodyBytes`
 */
export async function startUwsServer(
  uws: UwsModule,
  handler: RequestHandler,
  options: ServerOptions,
): Promise<RunningServer> {
  const uwsConstants = uws as unknown as UwsListenConstants
  const maxBodyBytes = resolveMaxBodyBytes(options)
  const ledger = ledgerFor(options)
  const { host, port } = options
  const policy = new OriginPolicy({
    bindHost: host,
    allowOrigins: options.allowOrigins,
    allowHosts: options.allowHosts,
  })
  const openSockets = new Set<UwsConnection>()
  let nextId = 1
  const takeId = (): number => nextId++

  const app = uws.App()
  const http = uwsHttpRoutes({ handler, policy, maxBodyBytes, nextId: takeId, get: options.get })

  app.post('/*', http.post)
  app.options('/*', http.options)
  app.ws<WsUserData>(
    '/*',
    uwsWebSocketBehavior({
      handler,
      maxBodyBytes,
      ledger,
      compressionDisabled: uws.DISABLED,
      admit: http.admit,
      nextId: takeId,
      openSockets,
    }),
  )
  // GET without upgrade (the ws route yields it), HEAD (both to options.get when given), PUT, DELETE...
  app.any('/*', http.other)

  // Exclusive: without it uSockets sets SO_REUSEPORT and a second server would share the port silently.
  const listen = (p: number) =>
    new Promise<uws.us_listen_socket | false>((resolve) => {
      // the native listen also takes (host, port, options, cb); the typings lack that overload
      ;(app as unknown as ListenWithOptions).listen(host, p, uwsConstants.LIBUS_LISTEN_EXCLUSIVE_PORT, resolve)
    })
  // Port 0: uSockets binds a port-0 listener without SO_REUSEADDR, and on Linux the connections it accepted then
  // keep the port in TIME_WAIT (~60 s) against a new bind, so a node started with port 0, closed and started again
  // on the port it got failed with "already in use". So the kernel's pick is taken from a throw-away port-0
  // listener (it accepts nothing) and the real one listens on that concrete port, which uSockets binds with
  // SO_REUSEADDR. Another process may take the port in between: a few tries. (node:net is not used for the probe:
  // its listen loads cluster and child_process, ~2 ms of start-up.)
  let listenSocket: uws.us_listen_socket | false = false
  for (let attempt = 0; attempt < (port === 0 ? 5 : 1) && listenSocket === false; attempt++) {
    let concrete = port
    if (port === 0) {
      const probe = await listen(0)
      if (probe === false) break
      concrete = uws.us_socket_local_port(probe as unknown as uws.us_socket)
      uws.us_listen_socket_close(probe)
    }
    listenSocket = await listen(concrete)
  }
  if (listenSocket === false) {
    closeApp(app)
    throw await listenFailure(host, port)
  }
  const boundPort = uws.us_socket_local_port(listenSocket as unknown as uws.us_socket)

  let closing: Promise<void> | undefined
  return {
    port: boundPort,
    transport: 'uws',
    close(): Promise<void> {
      closing ??= new Promise<void>((resolve) => {
        ledger.stop()
        uws.us_listen_socket_close(listenSocket)
        // end() runs the close handler synchronously, which mutates the set: iterate a copy
        for (const connection of Array.from(openSockets)) connection.end()
        // force-closes keep-alive HTTP sockets (pending requests see onAborted)
        closeApp(app)
        // resolve after an I/O turn, so that clients in this process see the connections end before they send again
        setTimeout(() => setImmediate(resolve), 1)
      })
      return closing
    },
  }
}

/** The `listen(host, port, options, cb)` overload of the native App. */
interface ListenWithOptions {
  listen(host: string, port: number, options: number, cb: (listenSocket: uws.us_listen_socket | false) => void): unknown
}

function closeApp(app: uws.TemplatedApp): void {
  if (typeof app.close === 'function') app.close()
}
