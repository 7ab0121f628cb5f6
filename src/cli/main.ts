/**
 * The `node-cli` command: flags → NodeConfig, startup banner, request log, clean shutdown on SIGINT/SIGTERM.
 */
import { existsSync, writeSync } from 'node:fs'
import path from 'node:path'
import { Command, InvalidArgumentError } from 'commander'
import type { ChalkInstance } from 'chalk'
import { createNode, VERSION, type Node } from '../node.js'
import { internals } from '../node-internals.js'
import type { NodeConfig } from '../config.js'
import { isPublicBind } from '../server/origin-policy.js'
import type { ConsoleLogEvent } from '../chain/chain.js'
import { addForkOptions, forkConfig, type ForkCliOptions } from './fork-options.js'

function int(name: string, min: number, max: number) {
  return (value: string): number => {
    const n = Number(value)
    if (!Number.isInteger(n) || n < min || n > max)
      throw new InvalidArgumentError(`${name} must be an integer from ${min} to ${max}`)
    return n
  }
}

function bigint(name: string) {
  return (value: string): bigint => {
    try {
      const n = BigInt(value)
      if (n <= 0n) throw new Error()
      return n
    } catch {
      throw new InvalidArgumentError(`${name} must be a positive integer (decimal or 0x hex)`)
    }
  }
}

/** Parses an amount of RBTC (decimal, up to 18 fractional digits) into wei. */
function rbtc(name: string) {
  return (value: string): bigint => {
    const m = /^(\d+)(?:\.(\d{1,18}))?$/.exec(value.trim())
    if (!m) throw new InvalidArgumentError(`${name} must be a non-negative amount of RBTC, e.g. 10000 or 0.5`)
    return BigInt(m[1]!) * 10n ** 18n + BigInt((m[2] ?? '').padEnd(18, '0'))
  }
}

/**
 * chalk, once {@link loadChalk} ran. Loaded only where output is coloured (banner, request log, error lines), not
 * for `--silent`: chalk's colour detection requires node:tty, node:os and so node:net at import (~5 ms of start-up).
 */
let chalk: ChalkInstance

/** Loads {@link chalk} (idempotent). */
async function loadChalk(): Promise<void> {
  chalk ??= (await import('chalk')).default
}

/**
 * Writes `text` and a newline to stdout with write(2) on fd 1, as console.log would. Creating `process.stdout`
 * loads node:net (pipe), node:tty (terminal) or node:stream (file): ~3-6 ms of start-up for one line. A text
 * below PIPE_BUF (4 KB) is written whole or not at all; whatever write(2) refuses (EAGAIN on a non-blocking
 * pipe, EPIPE…) goes to console.log as before.
 */
function printLine(text: string): void {
  const bytes = Buffer.from(text + '\n', 'utf8')
  let written = 0
  try {
    while (written < bytes.length) written += writeSync(1, bytes, written)
  } catch {
    console.log(bytes.toString('utf8', written, bytes.length - 1))
  }
}

/** Parses `--allow-origin` / `--allow-host`: a comma-separated list, or `*` for any. */
function allowList(name: string) {
  return (value: string, previous: string[] | '*' | undefined): string[] | '*' => {
    const entries = value
      .split(',')
      .map((e) => e.trim())
      .filter(Boolean)
    if (entries.length === 0) throw new InvalidArgumentError(`${name} needs a comma-separated list, or *`)
    if (previous === '*' || entries.includes('*')) return '*'
    return [...(previous ?? []), ...entries]
  }
}

/** Parses `--rpc-timeout`: seconds, 0 (off) or a positive number. */
function seconds(name: string) {
  return (value: string): number => {
    const n = Number(value)
    if (!Number.isFinite(n) || n < 0 || n > 86_400)
      throw new InvalidArgumentError(`${name} must be a number of seconds from 0 (off) to 86400`)
    return n
  }
}

/** Options as commander parses them. */
interface CliOptions extends ForkCliOptions {
  network: number
  host: string
  port: number
  accounts?: number
  mnemonic?: string
  hdPath?: string
  balance?: bigint
  db?: string
  keystoreKdf?: string
  blockTime?: number
  chainId?: number
  gasLimit?: bigint
  batchLimit: number
  stateHistory: number
  pruneHistory?: number | true
  transactionBlockKeeper?: number
  clientVersion?: string
  compat?: string
  dumpState?: string
  loadState?: string
  state?: string
  stateInterval?: number
  rpcModules?: string
  transport?: 'uws' | 'node'
  allowOrigin?: string[] | '*'
  allowHost?: string[] | '*'
  rpcTimeout: number
  verbose?: boolean
  /** false with --no-console-log. */
  consoleLog: boolean
  silent?: boolean
}

/** Builds the commander program. */
export function buildProgram(): Command {
  const program = new Command()
    .name('node-cli')
    .description(
      'A local developer chain for the merge-mined EVM network (networks 30-33), JSON-RPC over HTTP and WebSocket.',
    )
    .version(VERSION)
    .option(
      '-n, --network <id>',
      'network preset: 33 local/regtest, 32 dev, 31 test, 30 main',
      int('--network', 30, 33),
      33,
    )
    .option('-h, --host <host>', 'interface to bind', '127.0.0.1')
    .option('-p, --port <port>', 'port for HTTP and WebSocket (0 picks a free port)', int('--port', 0, 65535), 4444)
    .option(
      '-a, --accounts <n>',
      'seeded dev accounts to list (1-10, default 10); with --mnemonic: accounts to derive (default 10)',
      int('--accounts', 1, 1000),
    )
    .option(
      '-m, --mnemonic <words>',
      'BIP-39 mnemonic: derive --accounts extra funded accounts, listed after the seeded ones',
    )
    .option(
      '--hd-path <path>',
      'BIP-32 derivation prefix of the mnemonic accounts (account i is <path>/i)',
      "m/44'/60'/0'/0",
    )
    .option('--balance <rbtc>', 'genesis balance of each mnemonic account, in RBTC (default 10000)', rbtc('--balance'))
    .option(
      '--db <dir>',
      'data directory: keeps the chain (<dir>/chain) and the keystore (<dir>/keystore) across restarts',
    )
    .option(
      '--keystore-kdf <cost>',
      'scrypt cost of new keystore files: light (N=4096, default) or standard (N=262144)',
    )
    .option(
      '-b, --block-time <seconds>',
      'mine a block every N seconds (default: instant mining, one block per tx)',
      int('--block-time', 1, 86400),
    )
    .option('--chain-id <id>', 'override the EIP-155 chain id', int('--chain-id', 1, 2 ** 32))
    .option(
      '--gas-limit <gas>',
      'block gas limit (default: the genesis limit, stepping toward 7,500,000)',
      bigint('--gas-limit'),
    )
    .option(
      '--state-history <blocks>',
      'recent block states kept for historical reads; 0 keeps all',
      int('--state-history', 0, 10_000_000),
      500,
    )
    .option(
      '--prune-history [blocks]',
      'keep only the states of the last N blocks (default 1), also with --db (Anvil)',
      int('--prune-history', 1, 10_000_000),
    )
    .option(
      '--transaction-block-keeper <blocks>',
      'keep receipts of only the last N blocks; older transactions answer null (Anvil)',
      int('--transaction-block-keeper', 1, 10_000_000),
    )
    .option(
      '--compat <tool>',
      "behave as hardhat or anvil where that tool's clients assume it: client version, no Remasc tx in block lists, revert error shape, estimated gas for sends without gas, interval-mining unit (default: the reference node's behaviour)",
    )
    .option('--client-version <text>', 'override web3_clientVersion')
    .option(
      '--load-state <file>',
      'start from a state file (a node-cli dump continues its chain; an Anvil file is merged into the genesis state)',
    )
    .option('--dump-state <file>', 'write a state file on exit (and every --state-interval seconds), atomically')
    .option('--state <file>', '--load-state <file> when it exists, and --dump-state <file>')
    .option(
      '--state-interval <seconds>',
      'seconds between state-file writes while running (with --dump-state or --state)',
      int('--state-interval', 1, 86400),
    )
    .option(
      '--batch-limit <n>',
      'maximum requests per JSON-RPC batch (reference: 50)',
      int('--batch-limit', 1, 100000),
      50,
    )
    .option(
      '--rpc-modules <list>',
      'comma-separated RPC modules to enable (e.g. eth,net,web3), or -name to disable one (default: all)',
    )
    .option('--transport <name>', 'force the HTTP/WS server: uws or node (default: uws when available)')
    .option(
      '--allow-origin <list>',
      'web origins allowed to call the node from a browser, comma-separated (e.g. https://app.example.com), or * for any (default: localhost pages and wallet extensions only)',
      allowList('--allow-origin'),
    )
    .option(
      '--allow-host <list>',
      'Host header names accepted besides localhost and the bound address, comma-separated (e.g. host.docker.internal), or * for any',
      allowList('--allow-host'),
    )
    .option(
      '--rpc-timeout <seconds>',
      'stop an eth_call / eth_estimateGas / trace / transaction execution after N seconds with -32011 (0 = never; reference: 5)',
      seconds('--rpc-timeout'),
      5,
    )
    .option('--no-console-log', 'do not decode and print Solidity console.log output')
    .option('-v, --verbose', 'log every request with its duration')
    .option('-s, --silent', 'print only the RPC URL line')
  return addForkOptions(program).helpOption('--help', 'display help')
}

function banner(node: Node, o: CliOptions): string {
  const lines: string[] = []
  const title = chalk.bold(`node-cli v${VERSION}`)
  lines.push(
    `${title}  ${chalk.dim('network')} ${node.network}  ${chalk.dim('chain id')} ${node.chainId} (0x${node.chainId.toString(16)})`,
  )
  lines.push('')
  lines.push(chalk.bold('Dev accounts') + chalk.dim(' (unlocked; keys are keccak256 of "cow", "cow1" … "cow9")'))
  node.accounts.forEach((a, i) => {
    if (a.origin === 'mnemonic' && node.accounts[i - 1]?.origin !== 'mnemonic') {
      lines.push(chalk.bold('Mnemonic accounts') + chalk.dim(` (unlocked; derived along ${o.hdPath}/i)`))
    }
    const bal = (a.balance / 10n ** 18n).toString()
    lines.push(`  (${i}) ${a.address}  ${bal} RBTC`)
    lines.push(chalk.dim(`      ${a.privateKey}`))
  })
  lines.push('')
  const mode =
    node.mining.mode === 'instant' ? 'instant (one block per transaction)' : `every ${node.mining.blockTime}s`
  lines.push(`${chalk.dim('Mining')}     ${mode}`)
  lines.push(`${chalk.dim('Transport')}  ${node.transport === 'uws' ? 'uWebSockets.js' : 'node:http + ws'}`)
  lines.push(
    `${chalk.dim('Compat')}     ${
      node.compat === 'reference'
        ? "reference node's behaviour (--compat hardhat|anvil for those tools' habits)"
        : `${node.compat} (see README "Compatibility profiles": block lists without the Remasc tx, ${node.compat} error shapes)`
    }`,
  )
  if (node.fork) {
    const f = node.fork
    lines.push(`${chalk.dim('Fork')}       ${f.remote} chain id ${f.chainId}, block #${f.blockNumber} ${f.blockHash}`)
    lines.push(
      `${chalk.dim('Fork cache')} ${f.cacheDir ?? (f.cacheWarning ? chalk.yellow(f.cacheWarning) : 'in memory (--no-fork-cache)')}`,
    )
  }
  lines.push(
    `${chalk.dim('Chain')}      ${o.db ? `${path.join(o.db, 'chain')} (head #${internals(node).chain.head.header.number})` : 'in memory (use --db <dir> to keep it)'}`,
  )
  lines.push(
    `${chalk.dim('Keystore')}   ${o.db ? path.join(o.db, 'keystore') : 'in memory (use --db <dir> to keep it)'}`,
  )
  lines.push(
    `${chalk.dim('Origins')}    ${accessLine(o.allowOrigin, 'localhost pages and wallet extensions only (--allow-origin to open)')}`,
  )
  lines.push(
    `${chalk.dim('Hosts')}      ${accessLine(o.allowHost, 'loopback names and the bound address only (--allow-host to open)')}`,
  )
  const loaded = node.loadedState
  if (loaded) {
    const what =
      loaded.kind === 'chain'
        ? `chain continued at block #${loaded.head}`
        : `${loaded.accounts} accounts merged into the state`
    lines.push(
      `${chalk.dim('Loaded')}     ${loaded.file}: ${what} (${loaded.accounts} accounts, ${loaded.cells} storage cells)`,
    )
  }
  const dumpTo = o.dumpState ?? o.state
  if (dumpTo)
    lines.push(`${chalk.dim('Dumps to')}   ${dumpTo} on exit${o.stateInterval ? ` and every ${o.stateInterval}s` : ''}`)
  lines.push('')
  for (const warning of exposureWarnings(o)) lines.push(chalk.yellow(warning))
  lines.push(urlLine(node))
  return lines.join('\n')
}

/** The banner's description of an allow-list: the default, or what was opened. */
function accessLine(list: string[] | '*' | undefined, dflt: string): string {
  if (list === undefined) return dflt
  if (list === '*') return chalk.yellow('ANY (opened with *)')
  return chalk.yellow(`defaults + ${list.join(', ')}`)
}

/**
 * Warnings printed (also with --silent, on stderr) when the node is reachable beyond this machine's loopback or
 * its web checks are off: its accounts are unlocked and personal_dumpRawKey answers their keys.
 */
export function exposureWarnings(o: {
  host: string
  allowOrigin?: string[] | '*'
  allowHost?: string[] | '*'
}): string[] {
  const warnings: string[] = []
  if (isPublicBind(o.host)) {
    warnings.push(
      `WARNING: listening on ${o.host}, not a loopback interface: anyone who can reach this port can send from the unlocked dev accounts and read their private keys.`,
    )
  }
  if (o.allowOrigin === '*')
    warnings.push(
      'WARNING: --allow-origin *: any web page you open can call this node, send from its accounts and read their keys.',
    )
  if (o.allowHost === '*') warnings.push('WARNING: --allow-host *: DNS-rebinding protection is off.')
  return warnings
}

function urlLine(node: Node): string {
  return `Listening on ${chalk.green(node.url)} and ${chalk.green(node.wsUrl)}`
}

/** Options of {@link main}. */
export interface MainOptions {
  /**
   * Called once, {@link HEAP_FLAG_DELAY_MS} after the node serves and before {@link boundHeapGrowth} changes a V8
   * flag (bin/node-cli.js writes the bundle's V8 code cache here). V8 stamps a code cache with a hash of the
   * flags and rejects it when they differ, so a cache written after the flag change was rejected at every later
   * start: the 1 MB bundle was compiled from source each time (~45 ms more start-up, measured).
   */
  afterStartup?: () => void
}

/**
 * Runs the CLI.
 * @param argv process.argv
 * @param options see {@link MainOptions}
 * @returns resolves when the node is up (the process then lives until a signal)
 */
export async function main(argv: string[], options: MainOptions = {}): Promise<void> {
  const program = buildProgram()
  program.parse(argv)
  const o = program.opts<CliOptions>()
  if (o.transport !== undefined && o.transport !== 'uws' && o.transport !== 'node') {
    program.error('error: --transport must be uws or node')
  }
  if (o.compat !== undefined && o.compat !== 'hardhat' && o.compat !== 'anvil') {
    program.error('error: --compat must be hardhat or anvil')
  }
  if (o.state !== undefined && (o.loadState !== undefined || o.dumpState !== undefined)) {
    program.error('error: --state is --load-state plus --dump-state; give it alone')
  }
  if (o.stateInterval !== undefined && o.dumpState === undefined && o.state === undefined) {
    program.error('error: --state-interval needs --dump-state or --state')
  }
  if (o.keystoreKdf !== undefined && o.keystoreKdf !== 'light' && o.keystoreKdf !== 'standard') {
    program.error('error: --keystore-kdf must be light or standard')
  }
  if (!o.silent || o.verbose) await loadChalk()
  if (o.mnemonic === undefined) {
    if (o.accounts !== undefined && o.accounts > 10)
      program.error('error: --accounts must be an integer from 1 to 10 (more need --mnemonic)')
    if (o.balance !== undefined) program.error('error: --balance applies to --mnemonic accounts; give --mnemonic too')
    if (program.getOptionValueSource('hdPath') === 'cli')
      program.error('error: --hd-path applies to --mnemonic accounts; give --mnemonic too')
  }
  let fork
  try {
    fork = forkConfig(o)
  } catch (err) {
    program.error(`error: ${(err as Error).message}`)
  }
  const config: NodeConfig = {
    fork,
    network: o.network,
    host: o.host,
    port: o.port,
    accounts: o.mnemonic === undefined ? o.accounts : undefined,
    mnemonic: o.mnemonic,
    mnemonicAccounts: o.mnemonic === undefined ? undefined : o.accounts,
    hdPath: o.hdPath,
    balance: o.balance,
    db: o.db,
    keystoreKdf: o.keystoreKdf as NodeConfig['keystoreKdf'],
    blockTime: o.blockTime,
    chainId: o.chainId,
    gasLimit: o.gasLimit,
    maxBatchSize: o.batchLimit,
    stateHistory: o.stateHistory,
    pruneHistory: o.pruneHistory === true ? 1 : o.pruneHistory,
    transactionBlockKeeper: o.transactionBlockKeeper,
    clientVersion: o.clientVersion,
    compat: o.compat as NodeConfig['compat'],
    loadState: o.loadState ?? (o.state !== undefined && existsSync(o.state) ? o.state : undefined),
    dumpState: o.dumpState ?? o.state,
    stateInterval: o.stateInterval,
    rpcModules: o.rpcModules
      ?.split(',')
      .map((m) => m.trim())
      .filter(Boolean),
    transport: o.transport,
    allowOrigin: o.allowOrigin,
    allowHost: o.allowHost,
    rpcTimeout: o.rpcTimeout,
    onRequest: o.verbose
      ? (method, ms, err) =>
          console.log(
            `${chalk.dim(new Date().toISOString().slice(11, 23))} ${method} ${chalk.dim(ms.toFixed(1) + 'ms')}` +
              (err ? ' ' + chalk.red(`${err.code} ${err.message}`) : ''),
          )
      : undefined,
    // (--silent prints nothing, so nothing is decoded either)
    consoleLog: o.consoleLog && !o.silent,
    onConsoleLog: o.silent || !o.consoleLog ? undefined : (e) => printLine(consoleBlock(e)),
    onInternalError: (method, err) => {
      if (!o.silent) console.error(chalk.red(`internal error in ${method}:`), err)
    },
    onDroppedTransaction: o.silent
      ? undefined
      : (hash, reason) => console.log(chalk.yellow(`dropped transaction ${hash}: ${reason}`)),
  }
  let node: Node
  try {
    node = await createNode(config)
  } catch (err) {
    const e = err as NodeJS.ErrnoException
    await loadChalk()
    if (e.code === 'EADDRINUSE')
      console.error(chalk.red(`error: ${e.message} (choose another with --port, or --port 0)`))
    else console.error(chalk.red(`error: ${e.message}`))
    process.exitCode = 1
    return
  }
  printLine(o.silent ? node.url : banner(node, o))
  if (o.silent) for (const warning of exposureWarnings(o)) console.error(warning)
  let stopping = false
  const stop = (signal: string) => {
    // a second signal while closing (a long --dump-state write) exits at once: the state file is written to a
    // temporary file renamed into place, so the previous one stays whole
    if (stopping) process.exit(1)
    stopping = true
    if (!o.silent)
      console.log(
        chalk.dim(`\n${signal}: shutting down${(o.dumpState ?? o.state) ? `, writing ${o.dumpState ?? o.state}` : ''}`),
      )
    node.close().then(
      () => process.exit(0),
      (err: unknown) => {
        console.error(chalk.red(`error: ${(err as Error).message}`))
        process.exit(1)
      },
    )
    // a close waits for the chain's running task (an execution stops at --rpc-timeout, mining yields between
    // blocks); whatever still runs after this long does not keep the process: exit anyway (the --db store
    // writes each block as one atomic batch, so nothing is torn). Not while a state file is being written on
    // exit: that takes as long as the state is large (a second signal still exits at once)
    if ((o.dumpState ?? o.state) === undefined) setTimeout(() => process.exit(0), SHUTDOWN_GRACE_MS).unref()
  }
  process.on('SIGINT', () => stop('SIGINT'))
  process.on('SIGTERM', () => stop('SIGTERM'))
  // after the first answers, not before: changing V8 flags makes Node's cached builtins miss (~8 ms of start-up)
  setTimeout(() => {
    options.afterStartup?.()
    boundHeapGrowth()
  }, HEAP_FLAG_DELAY_MS).unref()
}

/** Longest a SIGINT/SIGTERM shutdown waits for the node to close before the process exits anyway (ms). */
const SHUTDOWN_GRACE_MS = 800

/**
 * The CLI's console.log output: a heading naming the transaction (or eth_call / eth_estimateGas), then the
 * lines indented, as Hardhat prints them under each request.
 */
export function consoleBlock(e: ConsoleLogEvent): string {
  const head =
    e.source === 'transaction'
      ? `console.log (transaction 0x${Buffer.from(e.hash!).toString('hex')}):`
      : `console.log (${e.source === 'call' ? 'eth_call' : 'eth_estimateGas'}):`
  return [chalk.dim(head), ...e.lines.map((l) => '  ' + l)].join('\n')
}

/** Delay before {@link boundHeapGrowth} (ms). */
const HEAP_FLAG_DELAY_MS = 200

/**
 * Caps V8's old-generation growth at 2× the live heap after each full GC (`--heap-growing-percent=100`) for this
 * process. V8's own factor rises towards 4× under a high allocation rate, and the EVM allocates ~0.5-0.8 MB per
 * transaction or estimate: over a 10-minute mixed load (bench --sustain) RSS grew ~64 KB per mined transaction
 * while the live heap grew ~15 KB. Measured in-process (800 transfers, 40 000 reads): peak RSS 314 → 218 MB (50%:
 * 199 MB), old space after a full GC 187 → 99 MB (50%: 70 MB); cost ~3% of automined tx/s (50%: ~5%).
 * NODE_CLI_HEAP_GROWING_PERCENT overrides it (0 = V8's dynamic factor). Not applied to library users
 * (`createNode`): the flag is process-wide.
 */
function boundHeapGrowth(): void {
  const raw = process.env['NODE_CLI_HEAP_GROWING_PERCENT']
  const percent = raw === undefined || raw === '' ? 100 : Number(raw)
  if (!Number.isInteger(percent) || percent < 0) return
  void import('node:v8').then((v8) => v8.setFlagsFromString(`--heap-growing-percent=${percent}`))
}
