/**
 * The library API of a running node: the {@link Node} that createNode (./node.ts) returns and its in-process
 * {@link Eip1193Provider} (docs/architecture.md#request-flow). The CLI and the tests reach the parts behind it
 * through src/node-internals.ts.
 */
import type { MiningControls } from './miner/miner.js'
import type { CompatName } from './rpc/compat.js'
import type { MethodInfo } from './rpc/method-table.js'

/** An EIP-1193 provider over the node's method table (no transport in between). */
export interface Eip1193Provider {
  /**
   * @param args `{ method, params }`
   * @returns the method's JSON result
   * @throws RpcError (with `code`, `message`, `data`) as the method answers over HTTP
   */
  request(args: { method: string; params?: unknown[] }): Promise<unknown>
}

/**
 * A running node: what a library user needs. (The CLI and the tests reach the chain and the miner behind it
 * through src/node-internals.ts, which is not part of the library API.)
 */
export interface Node {
  /** HTTP JSON-RPC URL, e.g. http://127.0.0.1:4444 */
  readonly url: string
  /** WebSocket URL on the same port. */
  readonly wsUrl: string
  readonly port: number
  readonly chainId: number
  readonly network: number
  /** Which transport serves: uWebSockets.js or node:http + ws. */
  readonly transport: 'uws' | 'node'
  /**
   * The funded dev accounts in eth_accounts order: the seeded ones, then the --mnemonic ones. `origin` is the
   * seed ("cow", "cow1", …) or "mnemonic".
   */
  readonly accounts: readonly { address: string; privateKey: string; balance: bigint; origin: string }[]
  /** The mining mode the node started with (`blockTime` in seconds); `miner` changes it at run time. */
  readonly mining: { mode: 'instant' } | { mode: 'interval'; blockTime: number }
  /** The compatibility profile in force ('reference' when none was chosen; see NodeConfig.compat). */
  readonly compat: CompatName
  /** The mining mode at run time: automine, interval mining, stop and start (as the evm_ mining methods). */
  readonly miner: MiningControls
  /** The methods as served (enabled modules only): name, aliases, module, params and summary. */
  readonly methods: readonly MethodInfo[]
  /** In-process EIP-1193 provider (no transport in between; errors as over HTTP). */
  readonly provider: Eip1193Provider
  /**
   * Fork mode (NodeConfig.fork): the remote's origin (its URL without path, which may hold an API key), chain
   * id, and the fork block's number and hash; undefined when not forked. Follows a fork switched by anvil_reset
   * (undefined after a reset without `forking`).
   */
  readonly fork?: {
    remote: string
    chainId: number
    blockNumber: bigint
    blockHash: string
    cacheDir?: string
    cacheWarning?: string
  }
  /** What `loadState` loaded at start-up (undefined without it). */
  readonly loadedState?: { file: string; kind: 'chain' | 'merged'; accounts: number; cells: number; head: bigint }
  /**
   * Writes the chain's state file (format: src/state-file/format.ts) to `file`, atomically (a temporary file
   * renamed into place).
   * @throws (rejects) the file-system error; the previous file is then unchanged
   */
  dumpState(file: string): Promise<void>
  /** Stops mining and the server, writes the `dumpState` file when configured. Idempotent. */
  close(): Promise<void>
}
