/**
 * createNode(config): the one entry used by the CLI, the tests and library users (docs/architecture.md#request-flow).
 * Builds the chain for a network preset, the method table, and the HTTP+WS server on one port. The returned
 * {@link Node} (./node-api.ts) is the library API; the CLI and the tests reach the parts behind it through
 * src/node-internals.ts.
 */
import { createRequire } from 'node:module'
import path from 'node:path'
import { AccountStore, addressOfKey, mnemonicAccounts, seededAccounts } from './accounts/dev-accounts.js'
import { DirectoryKeystore, MemoryKeystore } from './accounts/keystore.js'
import { Wallet } from './accounts/wallet.js'
import { Chain } from './chain/chain.js'
import { ChainStorage } from './db/chain-storage.js'
import { DEFAULT_CONFIG, resolveModules, type NodeConfig } from './config.js'
import { createChainCommon } from './execution/common.js'
import { keccak256 } from './crypto/secp256k1.js'
import { Dispatcher } from './rpc/dispatcher.js'
import { compatProfile } from './rpc/compat.js'
import { toRpcError } from './rpc/error-mapping.js'
import { methodList } from './rpc/method-list.js'
import { formatFilterLog, formatHead } from './rpc/methods/filters.js'
import { Miner } from './miner/miner.js'
import type { Eip1193Provider, Node } from './node-api.js'
import { registerInternals } from './node-internals.js'
import { Impersonation } from './accounts/impersonation.js'
import { randomBytes } from 'node:crypto'
import { FilterManager } from './events/filters.js'
import { SubscriptionManager } from './events/subscriptions.js'
import type { Services } from './rpc/services.js'
import { checkChainId, DEV_ACCOUNT_BALANCE, networkPreset } from './rsk/networks.js'
import { startServer } from './server/index.js'
import { minerExtraData } from './chain/mining/consensus.js'
import type { Connection, RunningServer } from './server/types.js'
import { bytesToBigInt, toHex } from './util/bytes.js'
import { startWasmKeccak } from './crypto/keccak.js'
import type { OpenFork } from './fork/fork-setup.js'
import type { ChainOptions } from './chain/chain-options.js'
import { forkSwitcher } from './node-fork.js'
import { openExplorer, type Explorer } from './explorer-server/explorer.js'

/** Delay after the server is up before the WebAssembly Keccak is set up (ms; crypto/keccak.ts startWasmKeccak). */
const WASM_KECCAK_DELAY_MS = 200

const require = createRequire(import.meta.url)
/** This package's version. */
export const VERSION: string = (require('../package.json') as { version: string }).version

/** The request log used when logging is switched on at run time without a configured one. */
function defaultRequestLog(method: string, ms: number, err?: { code: number; message: string }): void {
  console.log(`${method} ${ms.toFixed(1)}ms${err ? ` ${err.code} ${err.message}` : ''}`)
}

/**
 * Creates and starts a node.
 * @param config see {@link NodeConfig}; defaults in {@link DEFAULT_CONFIG}
 * @throws Error with `code: 'EADDRINUSE'` when the port is taken; Error on an unknown network; RangeError for a
 *   chain id above 109, MAX_EIP155_CHAIN_ID (docs/reference-rules.md#rule-chain-id-limit)
 */
export async function createNode(config: NodeConfig = {}): Promise<Node> {
  const compat = compatProfile(config.compat)
  const rpcTimeout = config.rpcTimeout ?? DEFAULT_CONFIG.rpcTimeout
  if (!Number.isFinite(rpcTimeout) || rpcTimeout < 0)
    throw new RangeError(`rpcTimeout must be a number of seconds >= 0, got ${rpcTimeout}`)
  if (config.chainId !== undefined) checkChainId(config.chainId)
  const disabledModules = resolveModules(config.rpcModules)
  // a fork runs the remote's network (docs/architecture.md#forking); it keeps no database
  if (config.fork && config.db)
    throw new Error(
      '--fork-url cannot be combined with --db ' +
        '(a fork keeps its chain in memory; its remote data is cached in --fork-cache)',
    )
  if (config.fork && config.loadState !== undefined) throw new Error('--fork-url cannot be combined with --load-state')
  if (config.explorer === false && config.artifacts !== undefined && config.artifacts.length > 0)
    throw new Error('--artifacts names contracts for the explorer; it cannot be combined with --no-explorer')
  const fork = config.fork
    ? await (await import('./fork/fork-setup.js')).openFork(config.fork, config.onProgress)
    : undefined
  try {
    return await startNode(config, compat, rpcTimeout, disabledModules, fork)
  } catch (err) {
    await fork?.close()
    throw err
  }
}

async function startNode(
  config: NodeConfig,
  compat: ReturnType<typeof compatProfile>,
  rpcTimeout: number,
  disabledModules: ReturnType<typeof resolveModules>,
  fork: OpenFork | undefined,
): Promise<Node> {
  const network = fork?.network ?? config.network ?? DEFAULT_CONFIG.network
  const preset = networkPreset(network)
  const chainId = config.chainId ?? (fork ? Number(fork.point.chainId) : preset.chainId)
  const common = createChainCommon(chainId)

  // Keyring order (eth_accounts): seeded dev accounts, --mnemonic accounts, miner, then run-time/keystore accounts.
  const accounts = new AccountStore(config.clock)
  const seeded = seededAccounts(preset.devAccountSeeds).slice(0, config.accounts ?? DEFAULT_CONFIG.accounts)
  const derived = config.mnemonic
    ? await mnemonicAccounts(config.mnemonic, config.mnemonicAccounts ?? DEFAULT_CONFIG.mnemonicAccounts, config.hdPath)
    : []
  const dev = [...seeded, ...derived]
  for (const a of dev) accounts.add(a)
  const minerKey = keccak256(new TextEncoder().encode(preset.minerSecret))
  const minerAddress = addressOfKey(minerKey) // a table lookup: start-up does not load secp256k1
  accounts.add({ address: minerAddress, privateKey: minerKey, origin: 'miner' })
  const wallet = new Wallet({
    accounts,
    storage: config.db ? new DirectoryKeystore(path.join(config.db, 'keystore')) : new MemoryKeystore(),
    kdf: config.keystoreKdf,
  })

  // a fork's state is the remote's: only the dev accounts are funded over it
  const allocOf = (f: OpenFork | undefined): Record<string, bigint> => {
    const alloc: Record<string, bigint> = f ? {} : { ...preset.alloc }
    for (const a of seeded) {
      const key = toHex(a.address)
      if (alloc[key] === undefined || alloc[key] === 0n) alloc[key] = DEV_ACCOUNT_BALANCE
    }
    for (const a of derived) alloc[toHex(a.address)] = config.balance ?? DEFAULT_CONFIG.balance
    return alloc
  }
  const alloc = allocOf(fork)
  // a compatibility profile may bring its tool's block gas limit (src/rpc/compat.ts blockGasLimit)
  const configuredGasLimit = config.gasLimit ?? (fork ? undefined : compat.blockGasLimit)
  const gasLimit = configuredGasLimit ?? preset.genesis.gasLimit
  // --db: the chain lives in <db>/chain (level); without it, in memory
  const progress = config.onProgress
  if (config.db) progress?.({ phase: 'opening the database' })
  const storage = config.db
    ? await ChainStorage.openDirectory(path.join(config.db, 'chain'), { label: `--db ${config.db}` })
    : undefined
  /** The chain's options over fork `f` (or none): at start, and when anvil_reset switches the fork. */
  const chainOptions = (f: OpenFork | undefined): ChainOptions => ({
    common,
    genesis: {
      ...preset.genesis,
      difficulty: bytesToBigInt(preset.genesis.difficultyBytes),
      gasLimit,
      bitcoinMergedMining: Uint8Array.of(0),
    },
    network: network as 30 | 31 | 32 | 33,
    alloc: f === fork ? alloc : allocOf(f),
    coinbase: minerAddress,
    // a fork's blocks follow the fork block's gas limit and minimum gas price unless told otherwise
    targetGasLimit: config.gasLimit ?? f?.chain.block.header.gasLimit ?? configuredGasLimit ?? preset.targetGasLimit,
    // reference MinerServerImpl.buildExtraData: RLP[version 0x01, "<identity>"]
    extraData: minerExtraData(`node-cli-${VERSION}`),
    minGasPrice: config.minGasPrice ?? f?.chain.block.header.minimumGasPrice ?? DEFAULT_CONFIG.minGasPrice,
    clock: config.clock,
    poolOutdated: compat.keepsOutdatedTransactions ? false : undefined,
    stateHistory: config.stateHistory,
    pruneHistory: config.pruneHistory,
    transactionBlockKeeper: config.transactionBlockKeeper,
    executionTimeoutMs: Math.round(rpcTimeout * 1000),
    storage,
    fork: f?.chain,
    onProgress: storage && progress,
  })
  let chain: Chain
  /** The fork of the moment: anvil_reset may switch it (./node-fork.ts). */
  let currentFork = fork
  try {
    // (a fork's chain starts with the dev accounts' remote state; a --db chain with its stored head)
    if (fork || storage)
      progress?.({ phase: fork ? 'fetching the dev accounts from the remote' : 'reading the stored chain' })
    chain = await Chain.create(chainOptions(fork))
    // the fork's disk cache opened meanwhile (Node.fork shows its directory, or why it is not used)
    if (fork) progress?.({ phase: 'opening the fork cache' })
    await fork?.cache.ready
  } catch (err) {
    await storage?.close()
    throw err
  }

  const identity = { network, chainId: Number(chainId) }
  let loaded: Node['loadedState']
  if (config.loadState !== undefined) {
    try {
      if (config.db)
        throw new Error('--load-state cannot be combined with --db (the directory already keeps the chain)')
      const { loadStateFileIntoNewChain } = await import('./state-file/chain-state.js')
      const summary = await loadStateFileIntoNewChain(chain, identity, config.loadState, progress)
      loaded = { file: config.loadState, ...summary }
    } catch (err) {
      await chain.close()
      throw err
    }
  }
  // Solidity console.log: decoded unless switched off; library users get the chain's `console` event or the callback
  chain.executor.consoleLog = config.consoleLog ?? true
  if (config.onConsoleLog !== undefined) chain.on('console', config.onConsoleLog)

  const mining = config.blockTime
    ? { mode: 'interval' as const, blockTime: config.blockTime }
    : { mode: 'instant' as const }
  const miner = new Miner(chain, {
    automine: mining.mode === 'instant',
    intervalMs: mining.mode === 'interval' ? mining.blockTime * 1000 : 0,
    timers: config.timers,
    onError: (err) => config.onInternalError?.('interval mining', err),
  })
  let onRequest = config.onRequest
  let instanceId: string | undefined

  const services: Services = {
    chain,
    accounts,
    wallet,
    network,
    clientVersion:
      config.clientVersion ??
      compat.clientVersion(
        `node-cli/v${VERSION}/${process.platform}-${process.arch}/Node${process.versions.node.split('.')[0]}`,
      ),
    compat,
    miner,
    impersonation: new Impersonation(),
    fork: fork && { url: config.fork!.url, point: fork.point, history: fork.history, remote: fork.remote },
    switchFork:
      fork &&
      forkSwitcher({
        chain,
        config: config.fork!,
        chainOptions,
        current: () => currentFork,
        adopt: (f, s) => {
          currentFork = f
          services.fork = s
        },
      }),
    setLogging: (on) => {
      onRequest = on ? (config.onRequest ?? defaultRequestLog) : undefined
    },
    // drawn on first use: node:crypto is not loaded at start-up (~10 ms, see scripts/bundle.mjs LAZY_BUILTINS)
    get instanceId() {
      return (instanceId ??= '0x' + randomBytes(32).toString('hex'))
    },
    set instanceId(id: string) {
      instanceId = id
    },
  }
  const filters = new FilterManager(chain, {
    keccak: keccak256,
    clock: config.clock,
    logBlockLimit: compat.logBlockLimit,
  })
  const subscriptions = new SubscriptionManager(chain, { head: formatHead, log: formatFilterLog }, (from) =>
    accounts.has(from),
  )
  const methods = methodList(services, {
    filters,
    subscriptions,
    disabledModules,
    // Hardhat's and Anvil's debug_traceTransaction answer geth's struct logs when no tracer is named
    defaultTracer: config.defaultTracer ?? (compat.name === 'reference' ? undefined : 'structLogger'),
  })
  const dispatcher = new Dispatcher(methods, {
    maxBatchSize: config.maxBatchSize ?? DEFAULT_CONFIG.maxBatchSize,
    disabledModules,
    onRequest: (method, ms, err) => onRequest?.(method, ms, err),
    onInternalError: config.onInternalError,
    before: () => chain.finishingBlock,
    mapError: (err) => toRpcError(err, compat),
    errorsAnswerHttp200: compat.errorsAnswerHttp200,
  })
  chain.on('internalError', (err: unknown) => config.onInternalError?.('block finishing', err))
  chain.on('droppedTransaction', (hash: Uint8Array, reason: string) =>
    config.onDroppedTransaction?.(toHex(hash), reason),
  )

  const host = config.host ?? DEFAULT_CONFIG.host
  let server: RunningServer
  let explorer: Explorer | undefined
  try {
    // the explorer's files: dist/explorer/ of this package (this module is dist/node.js, or the bundle in dist/)
    if (config.explorer !== false)
      explorer = await openExplorer(chain, {
        artifacts: config.artifacts,
        dir: config.explorerDir ?? new URL('../dist/explorer/', import.meta.url),
      })
    server = await startServer(dispatcher, {
      host,
      port: config.port ?? DEFAULT_CONFIG.port,
      transport: config.transport,
      allowOrigins: config.allowOrigin,
      allowHosts: config.allowHost,
      get: explorer?.get,
    })
  } catch (err) {
    explorer?.close()
    miner.close()
    await chain.close()
    throw err
  }
  // the faster Keccak once the node is up (its WebAssembly compilation stays out of the start-up)
  setTimeout(startWasmKeccak, WASM_KECCAK_DELAY_MS).unref()
  const urlHost = host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host

  const localConnection: Connection = { id: 0, transport: 'http', push() {}, onClose() {} }
  const provider: Eip1193Provider = {
    request: ({ method, params }) => dispatcher.call(method, params ?? [], localConnection),
  }
  /** Writes the state file (atomically), for --dump-state on exit (with progress) and every --state-interval. */
  const dumpState = async (file: string, onProgress?: NodeConfig['onProgress']) => {
    const { dumpChainToFile } = await import('./state-file/chain-state.js')
    await dumpChainToFile(chain, identity, file, onProgress)
  }
  let dumping: Promise<void> | undefined
  const intervalDumps =
    config.dumpState !== undefined && config.stateInterval
      ? setInterval(() => {
          // one dump at a time: a slow dump is not overtaken by the next
          dumping ??= dumpState(config.dumpState!)
            .catch((err: unknown) => config.onInternalError?.('state dump', err))
            .finally(() => (dumping = undefined))
        }, config.stateInterval * 1000).unref()
      : undefined
  let closed: Promise<void> | undefined
  const node: Node = {
    url: `http://${urlHost}:${server.port}`,
    wsUrl: `ws://${urlHost}:${server.port}`,
    port: server.port,
    chainId,
    network,
    transport: server.transport,
    accounts: dev.map((a) => ({
      address: toHex(a.address),
      privateKey: toHex(a.privateKey),
      balance: alloc[toHex(a.address)]!,
      origin: a.origin,
    })),
    mining,
    compat: compat.name,
    miner,
    methods: methods.filter((m) => !disabledModules.has(m.module)),
    provider,
    loadedState: loaded,
    get fork() {
      const f = currentFork
      return (
        f && {
          remote: f.client.origin,
          chainId: Number(f.point.chainId),
          blockNumber: f.point.number,
          blockHash: toHex(f.point.hash),
          cacheDir: f.cache.path,
          cacheWarning: f.cache.warning,
        }
      )
    },
    dumpState: (file) => dumpState(file),
    close() {
      closed ??= (async () => {
        miner.close()
        if (intervalDumps) clearInterval(intervalDumps)
        await server.close()
        explorer?.close()
        try {
          await dumping
          if (config.dumpState !== undefined) await dumpState(config.dumpState, progress)
        } finally {
          await chain.close()
          await currentFork?.close()
        }
      })()
      return closed
    },
  }
  registerInternals(node, { chain, miner })
  return node
}
