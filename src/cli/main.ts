/**
 * The `node-cli` command: flags → NodeConfig, startup banner, request log, clean shutdown on SIGINT/SIGTERM.
 * The pieces: the flags (./options.ts), their checks and the NodeConfig (./node-config.ts), the banner
 * (./banner.ts), terminal output (./terminal.ts), signal handling (./shutdown.ts), the progress of
 * long work at start and exit (./progress.ts). The process's memory settings are decided before this module loads
 * (bin/start-settings.js).
 */
import { createNode } from '../node.js'
import type { Node } from '../node-api.js'
import { internals } from '../node-internals.js'
import { exposureWarnings, banner } from './banner.js'
import { checkOptions, nodeConfig } from './node-config.js'
import { buildProgram, type CliOptions } from './options.js'
import { ProgressDisplay, startTitle } from './progress.js'
import { handleShutdownSignals } from './shutdown.js'
import { chalk, loadChalk, printLine } from './terminal.js'

export { buildProgram } from './options.js'
export { consoleBlock } from './terminal.js'
export { exposureWarnings } from './banner.js'

/** Options of {@link main}. */
export interface MainOptions {
  /**
   * Called once, right after the node serves and its banner (or URL) is printed, in a later turn of the event loop
   * (bin/node-cli.js writes the bundle's V8 code cache here, so that it holds the functions start-up compiled).
   */
  afterStartup?: () => void
}

/** The end of the start's long work as its progress line sums it up (the banner has the details). */
function startSummary(node: Node): string {
  const fork = node.fork
  if (fork) return `block #${fork.blockNumber} of chain id ${fork.chainId}`
  const loaded = node.loadedState
  if (loaded)
    return (
      `${loaded.accounts.toLocaleString('en-US')} accounts, ${loaded.cells.toLocaleString('en-US')} storage cells` +
      (loaded.kind === 'chain' ? `, head #${loaded.head}` : '')
    )
  return `head #${internals(node).chain.reads.head.header.number}`
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
  checkOptions(program, o)
  if (!o.silent || o.verbose) await loadChalk()
  const config = nodeConfig(program, o)
  // long work at start (fork, state file, --db) or exit (--dump-state) shows its progress (./progress.ts)
  const title = startTitle(config)
  const progress =
    o.silent || (title === undefined && config.dumpState === undefined) ? undefined : new ProgressDisplay()
  if (progress) config.onProgress = progress.listener
  if (title !== undefined) progress?.begin(title)
  let node: Node
  try {
    node = await createNode(config)
  } catch (err) {
    progress?.fail()
    const e = err as NodeJS.ErrnoException
    await loadChalk()
    if (e.code === 'EADDRINUSE')
      console.error(chalk.red(`error: ${e.message} (choose another with --port, or --port 0)`))
    else console.error(chalk.red(`error: ${e.message}`))
    process.exitCode = 1
    return
  }
  progress?.end(startSummary(node))
  // before the URL is printed: a signal sent by whoever waits for it (a test, a script) finds the handlers
  handleShutdownSignals(node, o, progress)
  printLine(o.silent ? node.url : banner(node, o))
  if (o.silent) for (const warning of exposureWarnings(o)) console.error(warning)
  if (options.afterStartup) setImmediate(options.afterStartup).unref()
}
