/**
 * The explorer's server side of one node (createNode with `explorer` on, src/node.ts): the console.log capture
 * (./console-lines.ts), the `--artifacts` registry (./artifacts/artifact-registry.ts, opened at start so that a
 * missing directory stops the start) and the GET routes (./explorer-routes.ts) handed to the server.
 */
import type { Chain } from '../chain/chain.js'
import type { GetHandler } from '../server/types.js'
import { ConsoleLines } from './console-lines.js'
import { ExplorerRoutes } from './explorer-routes.js'

/** Options of {@link openExplorer}. */
export interface ExplorerOptions {
  /** Hardhat `artifacts/` or Foundry `out/` directories naming the user's contracts (`--artifacts`). */
  artifacts?: readonly string[]
  /** The built explorer (dist/explorer/ of this package by default: see src/node.ts). */
  dir: string | URL
}

/** The explorer's server side: its GET handler, and close. */
export interface Explorer {
  /** The GET/HEAD routes for {@link import('../server/types.js').ServerOptions.get}. */
  readonly get: GetHandler
  /** Stops the capture and the artifact watch. */
  close(): void
}

/**
 * Sets up the explorer over a chain.
 * @param chain the node's chain
 * @param options artifact directories and the explorer directory
 * @returns the routes and their close
 * @throws (rejects) the registry's Error when an `artifacts` directory is missing
 */
export async function openExplorer(chain: Chain, options: ExplorerOptions): Promise<Explorer> {
  const dirs = options.artifacts ?? []
  // the registry's module is loaded only with --artifacts: a node without them starts as before
  const registry =
    dirs.length > 0
      ? await (await import('./artifacts/artifact-registry.js')).ArtifactRegistry.open(dirs, { watch: true })
      : undefined
  const consoleLines = new ConsoleLines(chain)
  const get = new ExplorerRoutes({ chain, consoleLines, artifacts: registry, dir: options.dir })
  return {
    get,
    close() {
      consoleLines.close()
      registry?.close()
    },
  }
}
