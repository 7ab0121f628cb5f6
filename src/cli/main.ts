/**
 * The `node-cli` command: flags → NodeConfig, startup banner, request log, clean shutdown on SIGINT/SIGTERM.
 * The pieces: the flags (./options.ts), their checks and the NodeConfig (./node-config.ts), the banner
 * (./banner.ts), terminal output (./terminal.ts), signal handling (./shutdown.ts), the heap-growth bound
 * (./heap-growth.ts), the progress of long work at start and exit (./progress.ts).
 */
import { createNode } from '../node.js'
import type { Node } from '../node-api.js'
import { internals } from '../node-internals.js'
import { exposureWarnings, banner } from './banner.js'
import { boundHeapGrowth, HEAP_FLAG_DELAY_MS } from './heap-growth.js'
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
   * Called once, {@link HEAP_FLAG_DELAY_MS} after the node serves and before {@link boundHeapGrowth} changes a V8
   * flag (bin/node-cli.js writes the bundle's V8 code cache here). V8 stamps a code cache with a hash of the
   * flags and rejects it when they differ, so a cache written after the flag change was rejected at every later
   * start: the 1 MB bundle was compiled from source each time (~45 ms more start-up, measured).
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
  return `head #${internals(node).chain.head.header.number}`
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
  // after the first answers, not before: changing V8 flags makes Node's cached builtins miss (~8 ms of start-up)
  setTimeout(() => {
    options.afterStartup?.()
    boundHeapGrowth()
  }, HEAP_FLAG_DELAY_MS).unref()
}
