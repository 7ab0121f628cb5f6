/**
 * The `node-cli` command's flags: the commander program with every option, the parsers that check their values,
 * and {@link CliOptions}, the options as parsed (./node-config.ts turns them into a NodeConfig).
 */
import { Command, InvalidArgumentError } from 'commander'
import { VERSION } from '../node.js'
import { addForkOptions, type ForkCliOptions } from './fork-options.js'
import { checkChainId } from '../rsk/networks.js'

function int(name: string, min: number, max: number) {
  return (value: string): number => {
    const n = Number(value)
    if (!Number.isInteger(n) || n < min || n > max)
      throw new InvalidArgumentError(`${name} must be an integer from ${min} to ${max}`)
    return n
  }
}

/**
 * Parses `--chain-id`: an integer the signatures' one-byte v can carry (docs/reference-rules.md#rule-chain-id-limit).
 */
function chainId(value: string): number {
  const n = Number(value)
  try {
    checkChainId(n)
  } catch (err) {
    throw new InvalidArgumentError(`--chain-id ${value}: ${(err as Error).message}`)
  }
  return n
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

/** Collects a repeatable flag's values (`--artifacts a --artifacts b`), in order. */
function repeated(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value]
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
export interface CliOptions extends ForkCliOptions {
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
  /** false with --no-explorer. */
  explorer: boolean
  /** --artifacts directories, in the order given. */
  artifacts?: string[]
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
    .option('--chain-id <id>', 'override the EIP-155 chain id (1-109: v must fit one byte)', chainId)
    .option(
      '--gas-limit <gas>',
      'block gas limit (default: the genesis limit, stepping toward 7,500,000; 60,000,000 with --compat hardhat)',
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
      "behave as hardhat or anvil where that tool's clients assume it: client version, no Remasc tx in block lists, " +
        'revert error shape, estimated gas for sends without gas, interval-mining unit ' +
        "(default: the reference node's behaviour)",
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
      'web origins allowed to call the node from a browser, comma-separated (e.g. https://app.example.com), ' +
        'or * for any (default: localhost pages and wallet extensions only)',
      allowList('--allow-origin'),
    )
    .option(
      '--allow-host <list>',
      'Host header names accepted besides localhost and the bound address, comma-separated ' +
        '(e.g. host.docker.internal), or * for any',
      allowList('--allow-host'),
    )
    .option(
      '--rpc-timeout <seconds>',
      'stop an eth_call / eth_estimateGas / trace / transaction execution after N seconds with -32011 ' +
        '(0 = never; reference: 5)',
      seconds('--rpc-timeout'),
      5,
    )
    .option('--no-console-log', 'do not decode and print Solidity console.log output')
    .option('--no-explorer', 'do not serve the block explorer on the JSON-RPC port (GET / then answers 405)')
    .option(
      '--artifacts <dir>',
      'Hardhat artifacts/ or Foundry out/ directory whose contracts the explorer names (repeatable)',
      repeated,
    )
    .option('-v, --verbose', 'log every request with its duration')
    .option('-s, --silent', 'print only the RPC URL line')
  return addForkOptions(program).helpOption('--help', 'display help')
}
