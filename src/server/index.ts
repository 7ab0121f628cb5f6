/**
 * Transport entry point: serves a {@link RequestHandler} over HTTP POST and WebSocket on one port,
 * with uWebSockets.js when its native binary loads and node:http + ws otherwise.
 */
import type { RequestHandler, RunningServer, ServerOptions } from './types.js'

export type { Connection, HandlerResponse, RequestHandler, RunningServer, ServerOptions } from './types.js'

let uwsModule: Promise<typeof import('uWebSockets.js') | undefined> | undefined
let uwsLoadError: unknown

/**
 * Loads uWebSockets.js once (the result, success or failure, is cached).
 * @returns the module, or `undefined` when its native binary does not load on this platform/Node
 *   version (uws-pack 20.0.8 has binaries for Node ABI 108/115/120/127 only, i.e. not Node 23+). Never rejects.
 */
export function loadUws(): Promise<typeof import('uWebSockets.js') | undefined> {
  uwsModule ??= import('uWebSockets.js').then(
    (mod) => mod,
    (err: unknown) => {
      uwsLoadError = err
      return undefined
    },
  )
  return uwsModule
}

/**
 * Starts the transport.
 * @param handler receives every POST body and WebSocket message as text
 * @param options host, port (0 = any free port), maxBodyBytes (bytes, default 5 MB), transport:
 *   `'uws'` or `'node'` forces one; by default uWebSockets.js, falling back to node:http + ws when
 *   its binary does not load
 * @returns the running server (its `transport` says which implementation serves)
 * @throws (rejects) an Error when `transport: 'uws'` is forced but uWebSockets.js cannot load (load error as `cause`);
 *   an Error with `code: 'EADDRINUSE'` and message `port <n> on <host> is already in use` when the port is taken;
 *   other listen errors with their errno `code`; RangeError for an invalid `maxBodyBytes`
 */
export async function startServer(handler: RequestHandler, options: ServerOptions): Promise<RunningServer> {
  if (options.transport !== 'node') {
    const uws = await loadUws()
    if (uws !== undefined) {
      const { startUwsServer } = await import('./uws.js')
      return startUwsServer(uws, handler, options)
    }
    if (options.transport === 'uws') {
      throw new Error(
        `uWebSockets.js cannot load on Node ${process.versions.node} ` +
          `(${process.platform}/${process.arch}, ABI ${process.versions.modules})`,
        { cause: uwsLoadError },
      )
    }
  }
  const { startNodeServer } = await import('./node-http.js')
  return startNodeServer(handler, options)
}
