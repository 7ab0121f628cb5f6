/**
 * The `node-cli` command: flags → NodeConfig, startup banner, request log, clean shutdown on SIGINT/SIGTERM.
 */
import { Command, InvalidArgumentError } from 'commander'
import chalk from 'chalk'
import { createNode, VERSION, type Node } from '../node.js'
import type { NodeConfig } from '../config.js'

function int(name: string, min: number, max: number) {
  return (value: string): number => {
    const n = Number(value)
    if (!Number.isInteger(n) || n < min || n > max) throw new InvalidArgumentError(`${name} must be an integer from ${min} to ${max}`)
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

/** Options as commander parses them. */
interface CliOptions {
  network: number
  host: string
  port: number
  accounts: number
  blockTime?: number
  chainId?: number
  gasLimit?: bigint
  batchLimit: number
  rpcModules?: string
  transport?: 'uws' | 'node'
  verbose?: boolean
  silent?: boolean
}

/** Builds the commander program. */
export function buildProgram(): Command {
  return new Command()
    .name('node-cli')
    .description('A local developer chain for the merge-mined EVM network (networks 30-33), JSON-RPC over HTTP and WebSocket.')
    .version(VERSION)
    .option('-n, --network <id>', 'network preset: 33 local/regtest, 32 dev, 31 test, 30 main', int('--network', 30, 33), 33)
    .option('-h, --host <host>', 'interface to bind', '127.0.0.1')
    .option('-p, --port <port>', 'port for HTTP and WebSocket (0 picks a free port)', int('--port', 0, 65535), 4444)
    .option('-a, --accounts <n>', 'number of dev accounts to list (1-10)', int('--accounts', 1, 10), 10)
    .option('-b, --block-time <seconds>', 'mine a block every N seconds (default: instant mining, one block per tx)', int('--block-time', 1, 86400))
    .option('--chain-id <id>', 'override the EIP-155 chain id', int('--chain-id', 1, 2 ** 32))
    .option('--gas-limit <gas>', 'block gas limit (default: the genesis limit, stepping toward 7,500,000)', bigint('--gas-limit'))
    .option('--batch-limit <n>', 'maximum requests per JSON-RPC batch (reference: 50)', int('--batch-limit', 1, 100000), 50)
    .option('--rpc-modules <list>', 'comma-separated RPC modules to enable (e.g. eth,net,web3), or -name to disable one (default: all)')
    .option('--transport <name>', 'force the HTTP/WS server: uws or node (default: uws when available)')
    .option('-v, --verbose', 'log every request with its duration')
    .option('-s, --silent', 'print only the RPC URL line')
    .helpOption('--help', 'display help')
}

function banner(node: Node): string {
  const lines: string[] = []
  const title = chalk.bold(`node-cli v${VERSION}`)
  lines.push(`${title}  ${chalk.dim('network')} ${node.network}  ${chalk.dim('chain id')} ${node.chainId} (0x${node.chainId.toString(16)})`)
  lines.push('')
  lines.push(chalk.bold('Dev accounts') + chalk.dim(' (unlocked; keys are keccak256 of "cow", "cow1" … "cow9")'))
  node.accounts.forEach((a, i) => {
    const bal = (a.balance / 10n ** 18n).toString()
    lines.push(`  (${i}) ${a.address}  ${bal} RBTC`)
    lines.push(chalk.dim(`      ${a.privateKey}`))
  })
  lines.push('')
  const mode = node.mining.mode === 'instant' ? 'instant (one block per transaction)' : `every ${node.mining.blockTime}s`
  lines.push(`${chalk.dim('Mining')}     ${mode}`)
  lines.push(`${chalk.dim('Transport')}  ${node.transport === 'uws' ? 'uWebSockets.js' : 'node:http + ws'}`)
  lines.push('')
  lines.push(urlLine(node))
  return lines.join('\n')
}

function urlLine(node: Node): string {
  return `Listening on ${chalk.green(node.url)} and ${chalk.green(node.wsUrl)}`
}

/**
 * Runs the CLI.
 * @param argv process.argv
 * @returns resolves when the node is up (the process then lives until a signal)
 */
export async function main(argv: string[]): Promise<void> {
  const program = buildProgram()
  program.parse(argv)
  const o = program.opts<CliOptions>()
  if (o.transport !== undefined && o.transport !== 'uws' && o.transport !== 'node') {
    program.error('error: --transport must be uws or node')
  }
  const config: NodeConfig = {
    network: o.network,
    host: o.host,
    port: o.port,
    accounts: o.accounts,
    blockTime: o.blockTime,
    chainId: o.chainId,
    gasLimit: o.gasLimit,
    maxBatchSize: o.batchLimit,
    rpcModules: o.rpcModules?.split(',').map((m) => m.trim()).filter(Boolean),
    transport: o.transport,
    onRequest: o.verbose
      ? (method, ms, err) =>
          console.log(
            `${chalk.dim(new Date().toISOString().slice(11, 23))} ${method} ${chalk.dim(ms.toFixed(1) + 'ms')}` +
              (err ? ' ' + chalk.red(`${err.code} ${err.message}`) : ''),
          )
      : undefined,
    onInternalError: (method, err) => {
      if (!o.silent) console.error(chalk.red(`internal error in ${method}:`), err)
    },
  }
  let node: Node
  try {
    node = await createNode(config)
  } catch (err) {
    const e = err as NodeJS.ErrnoException
    if (e.code === 'EADDRINUSE') console.error(chalk.red(`error: ${e.message} (choose another with --port, or --port 0)`))
    else console.error(chalk.red(`error: ${e.message}`))
    process.exitCode = 1
    return
  }
  console.log(o.silent ? node.url : banner(node))
  let stopping = false
  const stop = (signal: string) => {
    if (stopping) return
    stopping = true
    if (!o.silent) console.log(chalk.dim(`\n${signal}: shutting down`))
    node.close().then(
      () => process.exit(0),
      () => process.exit(1),
    )
  }
  process.on('SIGINT', () => stop('SIGINT'))
  process.on('SIGTERM', () => stop('SIGTERM'))
}
