/**
 * NodeConfig: everything `createNode` needs, with the CLI's defaults.
 */
import type { ProgressListener } from './util/progress.js'

export type { Progress, ProgressListener } from './util/progress.js'

/** Configuration of a node. All fields optional; see {@link DEFAULT_CONFIG}. */
export interface NodeConfig {
  /** Network preset 30 | 31 | 32 | 33. Default 33. */
  network?: number
  /** Interface to bind. Default 127.0.0.1. */
  host?: string
  /** TCP port; 0 picks a free one. Default 4444 (the reference node's). */
  port?: number
  /** Override the EIP-155 chain id (default: the network's, 30-33). */
  chainId?: number
  /**
   * Genesis (and target) block gas limit, in gas; default the network's genesis limit stepping toward 7 500 000
   * (60 000 000 under `compat: 'hardhat'`).
   */
  gasLimit?: bigint
  /** Seconds between blocks in interval mode; undefined = instant mining. */
  blockTime?: number
  /** Number of seeded dev accounts ("cow" … "cow9") listed, 1-10. Default 10. */
  accounts?: number
  /**
   * BIP-39 mnemonic (English): derive {@link mnemonicAccounts} extra dev accounts along `<hdPath>/i`, fund
   * each with {@link balance} in the genesis alloc (so the genesis hash differs from the reference's), and list
   * them right after the seeded accounts. Default: none.
   */
  mnemonic?: string
  /** Number of accounts derived from {@link mnemonic}. Default 10. */
  mnemonicAccounts?: number
  /** BIP-32 derivation prefix of the mnemonic accounts; account i is `<hdPath>/i`. Default "m/44'/60'/0'/0". */
  hdPath?: string
  /** Genesis balance of each mnemonic account, in wei. Default 10 000 RBTC (10^22 wei). */
  balance?: bigint
  /**
   * Data directory: the chain in `<db>/chain` (LevelDB: blocks as the reference encodes them, receipts, the
   * head and the Unitrie state of every block, one atomic batch per block; see src/db/chain-storage.ts) and the
   * keystore in `<db>/keystore` (`UTC--…--<address>` v3 files of the accounts created with personal_newAccount /
   * personal_importRawKey, listed (locked) again on restart). A directory that already holds a chain is
   * continued from its head (states of all its blocks stay readable, beyond {@link stateHistory}); one that
   * holds another genesis or chain id is refused. The pool, snapshots and clock offsets are not kept.
   * Without it, everything lives in memory.
   */
  db?: string
  /**
   * Fork a live node of network 30, 31 or 33 (`--fork-url` and the `--fork-*` options;
   * docs/architecture.md#forking): the chain continues the remote's from its fork block, over its state.
   * Not combined with `db` or `loadState`.
   */
  fork?: ForkConfig
  /** scrypt cost of new keystore files: 'light' (N=4096, p=6; default) or 'standard' (N=262144, p=1). */
  keystoreKdf?: 'light' | 'standard'
  /** Target minimumGasPrice in wei (reference miner.minGasPrice). Default 0. */
  minGasPrice?: bigint
  /**
   * RPC modules (namespaces) switches, like the reference's rpc.modules: names enable only those modules,
   * `-name` disables one, `all` starts from everything. Default: all on. See {@link resolveModules}.
   */
  rpcModules?: string[]
  /** Maximum requests per JSON-RPC batch. Default 50 (reference). */
  maxBatchSize?: number
  /** Force the transport ('uws' | 'node'); default: uWS when its binary loads. */
  transport?: 'uws' | 'node'
  /**
   * Web origins allowed to call the node from a browser besides the default ones, e.g.
   * `['https://app.example.com']`, or `'*'` for any (the CLI's `--allow-origin`). By default only pages on
   * localhost / 127.0.0.1 / [::1] (any port) and browser-extension wallets may; requests without an `Origin`
   * header (non-browser clients) always may. Others get HTTP 403 over HTTP and WebSocket (src/server/origin-policy.ts).
   */
  allowOrigin?: readonly string[] | '*'
  /**
   * `Host` header names accepted besides loopback names and the bound address (DNS-rebinding protection), e.g.
   * `['host.docker.internal']`, or `'*'` for any (the CLI's `--allow-host`). Others get HTTP 403.
   */
  allowHost?: readonly string[] | '*'
  /**
   * Deadline of one execution (eth_call, eth_estimateGas, traces, and each transaction's execution in a block
   * being built), in seconds: a longer one is stopped with no state change and answers -32011 "Execution has got
   * timeout out."; a transaction stopped so is dropped from the pool (an automined send answers -32011; a mined
   * block is built without it; docs/reference-rules.md#rule-send-deadline). Default 5 (reference `rpc.timeout`
   * 5000 ms); 0 disables it.
   */
  rpcTimeout?: number
  /** Interval-mining timers (tests inject fake ones). */
  timers?: import('./util/timers.js').Timers
  /**
   * Number of recent blocks whose state stays readable for historical reads (older reads answer -32600
   * "State not found…"); genesis and snapshot states are always kept. With {@link db}, older states are read
   * back from the database instead (this then only bounds the states held in memory). Default 500 (Anvil keeps 500 in
   * memory); 0 keeps every state (memory then grows with every block).
   */
  stateHistory?: number
  /**
   * Anvil's `--prune-history [N]`: only the states of the N most recent blocks stay readable, also with
   * {@link db} (older ones answer -32600 "State not found…" instead of being read back). Overrides
   * {@link stateHistory}. Undefined: off.
   */
  pruneHistory?: number
  /**
   * Anvil's `--transaction-block-keeper N`: receipts of only the N most recent blocks are kept; older blocks
   * still answer (header and transactions), but their transactions by hash and their receipts answer null and
   * their logs are no longer listed. Undefined: keep all.
   */
  transactionBlockKeeper?: number
  /**
   * Overrides web3_clientVersion. Tools that only run against development networks check it: e.g.
   * `HardhatNetwork/2.22.0/node-cli` lets @nomicfoundation/hardhat-network-helpers accept the node.
   */
  clientVersion?: string
  /**
   * Compatibility profile for a tool's assumptions that differ from the reference node (src/rpc/compat.ts):
   * 'hardhat' or 'anvil' — client version the tool's helpers accept, no Remasc transaction in block transaction
   * lists, reverts in that tool's error shape, estimated gas for sends without `gas`, its interval-mining unit,
   * errors answered with HTTP 200; 'hardhat' also answers hardhat_metadata and starts with Hardhat 3's block gas
   * limit of 60 000 000 (docs/compat-profiles.md). Default: none (the reference's behaviour). An explicit
   * {@link clientVersion} or {@link gasLimit} wins over the profile's.
   */
  compat?: 'hardhat' | 'anvil'
  /**
   * State file to start from (`--load-state`; format: src/state-file/format.ts): a node-cli file of the same
   * network and genesis continues its chain (blocks and the exact state); an Anvil file is merged into the
   * genesis state. A bad file stops the start with an Error naming the problem. Not with {@link db}.
   */
  loadState?: string
  /** State file written on close (and every {@link stateInterval} seconds), atomically (`--dump-state`). */
  dumpState?: string
  /** Seconds between {@link dumpState} writes while running; default: only on close. */
  stateInterval?: number
  /** Wall clock in ms (tests inject one). */
  clock?: () => number
  /** Called for each RPC request (method, ms, error) — the CLI's request log. */
  onRequest?: (method: string, ms: number, error?: { code: number; message: string }) => void
  /** Called for unexpected internal errors. */
  onInternalError?: (method: string, err: unknown) => void
  /**
   * Called when a pool transaction is dropped without being mined — it can no longer be applied (its sender's
   * nonce or funds changed), or its execution passed {@link rpcTimeout} while a block was built: the hash
   * (0x-prefixed hex) and the reason (the JSON-RPC error message). The CLI logs it.
   */
  onDroppedTransaction?: (hash: string, reason: string) => void
  /**
   * Decode Solidity console.log calls (hardhat/console.sol, forge-std console2) of mined transactions, eth_call
   * and eth_estimateGas (default true; the CLI's --no-console-log sets false).
   */
  consoleLog?: boolean
  /**
   * The tracer of debug_trace* requests that name none: `rskTracer` (default, the reference's struct logs) or
   * `structLogger` (geth's format, what Hardhat/Foundry-style tools read).
   */
  defaultTracer?: 'rskTracer' | 'structLogger'
  /**
   * Serve the block explorer on the JSON-RPC port (default true; the CLI's `--no-explorer` sets false): GET `/` and
   * the page routes `/block/…`, `/tx/…`, `/address/…` answer the explorer's page, `/assets/…` its files,
   * `/explorer-api/…` its JSON endpoints (src/explorer-server/explorer-routes.ts), after the same Origin/Host
   * checks as JSON-RPC. Off: GET answers 405 as any method but POST and OPTIONS.
   */
  explorer?: boolean
  /**
   * Directories of compiled contracts the explorer names the user's contracts from (the CLI's repeatable
   * `--artifacts <dir>`): Hardhat `artifacts/` or Foundry `out/`, matched by runtime code and re-read when they
   * change (src/explorer-server/artifacts/artifact-registry.ts). A missing directory stops the start with an Error
   * naming it. Not with `explorer: false`. Default: none.
   */
  artifacts?: readonly string[]
  /**
   * Where the built explorer is (its `index.html` and `assets/`); default this package's `dist/explorer/`, written
   * by `npm run build`. Read on the first GET; when it is missing, GET / answers a text saying how to build it.
   */
  explorerDir?: string
  /** Receives each execution's console.log lines (also the chain's `console` event). */
  onConsoleLog?: (event: import('./chain/chain.js').ConsoleLogEvent) => void
  /**
   * Receives the progress of long work at start and at close (the CLI shows it on a terminal): opening
   * {@link fork} (`asking the remote for its chain id and head`, `reading fork block #<n>`, `fetching the dev
   * accounts from the remote`, `opening the fork cache`), opening {@link db} (`opening the database`, `reading the
   * stored chain`), reading {@link loadState} (`reading` in bytes of the file
   * with accounts and cells, `sorting entries` and `building the state trie` in entries, `importing blocks` in
   * blocks) and, on close, writing {@link dumpState} (`writing` in bytes with accounts and cells, `syncing`). Steps
   * with a measure report at most every ~100 ms; the calls are synchronous, from the work itself: keep the
   * listener quick. The {@link stateInterval} dumps while running report nothing.
   */
  onProgress?: ProgressListener
}

/** Defaults applied by createNode. */
export const DEFAULT_CONFIG = {
  network: 33,
  host: '127.0.0.1',
  port: 4444,
  accounts: 10,
  mnemonicAccounts: 10,
  /** 10 000 RBTC in wei. */
  balance: 10_000n * 10n ** 18n,
  minGasPrice: 0n,
  maxBatchSize: 50,
  /** Seconds (reference rpc.timeout = 5000 ms). */
  rpcTimeout: 5,
} as const

/** Every RPC module (namespace) of the method table. */
export const ALL_MODULES = [
  'eth',
  'net',
  'web3',
  'evm',
  'personal',
  'debug',
  'trace',
  'txpool',
  'mnr',
  'sco',
  'ext',
  'anvil',
  'hardhat',
  'ots',
  'erigon',
] as const

/**
 * Turns module switches into the set of disabled modules.
 * @param spec e.g. `["eth","net","web3"]` (only those), `["-sco","-debug"]` or `["all","-sco"]` (all but those)
 * @throws Error naming an unknown module
 */
export function resolveModules(spec: readonly string[] | undefined): Set<(typeof ALL_MODULES)[number]> {
  type M = (typeof ALL_MODULES)[number]
  if (!spec || spec.length === 0) return new Set()
  const positives = spec.filter((s) => !s.startsWith('-') && s !== 'all')
  const enabled = new Set<M>(positives.length > 0 && !spec.includes('all') ? [] : ALL_MODULES)
  for (const raw of spec) {
    const name = raw.replace(/^-/, '')
    if (name === 'all') continue
    if (!(ALL_MODULES as readonly string[]).includes(name)) {
      throw new Error(`unknown RPC module "${name}" (known: ${ALL_MODULES.join(', ')})`)
    }
    if (raw.startsWith('-')) enabled.delete(name as M)
    else enabled.add(name as M)
  }
  return new Set(ALL_MODULES.filter((m) => !enabled.has(m)))
}

/** How to fork a live node (NodeConfig.fork). Times in milliseconds. */
export interface ForkConfig {
  /** JSON-RPC URL of the remote (the reference node or a hosted service of it). */
  url: string
  /** Fork block number; negative counts back from the remote's head; default: the head minus 5. */
  blockNumber?: bigint | number
  /** Extra HTTP headers sent to the remote (an API key header). */
  headers?: Readonly<Record<string, string>>
  /** Retries of a failed request to the remote (default 5). */
  retries?: number
  /** Time allowed for one request to the remote (default 30 000). */
  timeoutMs?: number
  /** Calls per second to the remote (default: no cap). */
  requestsPerSecond?: number
  /** Root of the disk cache (default `~/.cache/node-cli/fork`, or under `$XDG_CACHE_HOME`); false = memory only. */
  cache?: string | false
  /**
   * Activation heights instead of the remote network's recorded ones: upgrade (`'lovell700'`) or rule
   * (`'rskip144'`) → block number, -1 = never (docs/reference-rules.md#rule-network-activations).
   */
  activations?: Readonly<Record<string, number>>
}
