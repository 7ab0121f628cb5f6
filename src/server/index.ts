/**
 * Transport entry point: serves a {@link RequestHandler} over HTTP POST and WebSocket on one port,
 * with uWebSockets.js when its native binary loads and node:http + ws otherwise.
 */
import { createRequire } from 'node:module'
import type { RequestHandler, RunningServer, ServerOptions } from './types.js'
import type { UwsModule } from './uws.js'

export type {
  Connection,
  HandlerResponse,
  RequestHandler,
  RunningServer,
  ServerOptions,
  ServerTimeouts,
} from './types.js'

/** Inside the CLI bundle: the loader of its dynamic imports, which bin/node-cli.js supplies (scripts/bundle.mjs). */
declare const __nodeCliImport: unknown

let uwsModule: Promise<UwsModule | undefined> | undefined
let uwsLoadErrors: unknown[] = []

/**
 * Loads uWebSockets.js once (the result, success or failure, is cached), from the first of its two npm
 * distributions (package.json) whose native binary loads here:
 * - `uWebSockets.js` (@btc-vision/uwebsockets.js 20.56.0: by its README and source_commit file, upstream's v20.56.0
 *   binaries of source commit ff48755d): Node 20, 22, 24 and 25 (ABI 115/127/137/141) on Linux, macOS and Windows
 *   (x64, arm64; no Windows arm64); upstream builds the Linux ones on Ubuntu 24.04, so they need glibc >= 2.38 (not
 *   Debian 12 or Ubuntu 22.04, glibc 2.36/2.35). (Its 20.57.0 is a build of its own: App.setIdleTimeout and kin
 *   added, HTTP sockets idle for 30 s instead of uWS's 10 s before they are closed, measured.)
 * - `uws-pack` 20.0.8 (an ESM repack of upstream's v20 binaries): Node 18-22 (ABI 108/115/120/127), glibc >= 2.27,
 *   so Node 20 and 22 keep uWS on an older glibc; Node 24+ there gets the node:http + ws fallback.
 * @returns the module, or `undefined` when neither binary loads (each failure kept for {@link startServer}'s
 *   error). Never rejects.
 */
export function loadUws(): Promise<UwsModule | undefined> {
  uwsModule ??= importFirstDistribution()
    .catch((err: unknown) => {
      uwsLoadErrors = [err]
      return import('uws-pack')
    })
    .then(
      (mod) => mod as unknown as UwsModule,
      (err: unknown) => {
        uwsLoadErrors.push(err)
        return undefined
      },
    )
  return uwsModule
}

/**
 * Imports the `uWebSockets.js` distribution; rejects when its binary does not load.
 *
 * Its ES entry (ESM_wrapper.mjs) imports its CommonJS uws.js, which throws where the binary does not load, and
 * Node 20 then also reports that error as an unhandled rejection although the import() is caught: the process
 * exits (Node 20.20; not Node 22.23 or 24.22, measured). So outside the bundle the CommonJS entry is required
 * first, which throws synchronously (a rejection here); once it loaded, the import finds it in the require cache.
 * The bundle's import() is bin/node-cli.js's, which requires the binary directly.
 * Both imports stay literal `import('…')` calls: scripts/bundle.mjs rewrites only those.
 */
async function importFirstDistribution(): Promise<unknown> {
  if (typeof __nodeCliImport !== 'function') createRequire(import.meta.url)('uWebSockets.js')
  return import('uWebSockets.js')
}

/**
 * Starts the transport.
 * @param handler receives every POST body and WebSocket message as text
 * @param options host, port (0 = any free port), maxBodyBytes (bytes, default 5 MB), transport:
 *   `'uws'` or `'node'` forces one; by default uWebSockets.js, falling back to node:http + ws when
 *   its binary does not load
 * @returns the running server (its `transport` says which implementation serves)
 * @throws (rejects) an Error when `transport: 'uws'` is forced but uWebSockets.js cannot load (an AggregateError of
 *   each distribution's load error as `cause`);
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
          `(${process.platform}/${process.arch}, ABI ${process.versions.modules}): ${loadFailure(uwsLoadErrors)}`,
        { cause: new AggregateError(uwsLoadErrors, 'no uWebSockets.js binary loads') },
      )
    }
  }
  const { startNodeServer } = await import('./node-http.js')
  return startNodeServer(handler, options)
}

/**
 * What went wrong loading the uWS binaries, in one line: of each load error's message, the first line that is the
 * dynamic linker's or module resolver's own (e.g. "…libc.so.6: version `GLIBC_2.38' not found" or "Cannot find
 * module './bin/uws_linux_x64_137.node'"), not the package's "This version of uWS.js supports…" preamble.
 * @param errors the load errors, in the order tried
 * @returns those lines joined by "; "
 */
function loadFailure(errors: unknown[]): string {
  return errors
    .map((e) => {
      const lines = (e instanceof Error ? e.message : String(e)).split('\n').filter((l) => l.trim() !== '')
      const own = lines.find((l) => !/^This version of uWS/.test(l)) ?? lines[0] ?? ''
      return own.replace(/^Error: /, '').replace(/\s*\(required by .*\)$/, '')
    })
    .join('; ')
}
