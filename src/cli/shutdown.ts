/**
 * Clean shutdown of the CLI's node on SIGINT/SIGTERM: close the node (writing the --dump-state file), exit at
 * once on a second signal, and exit anyway after a grace period when nothing is being written.
 */
import type { Node } from '../node-api.js'
import type { CliOptions } from './options.js'
import type { ProgressDisplay } from './progress.js'
import { chalk } from './terminal.js'

/** Longest a SIGINT/SIGTERM shutdown waits for the node to close before the process exits anyway (ms). */
const SHUTDOWN_GRACE_MS = 800

/**
 * Installs the SIGINT and SIGTERM handlers that close `node` and exit the process (0 after a clean close, 1 on
 * a close error or a second signal).
 * @param progress where the --dump-state write on exit shows its progress (none with --silent)
 */
export function handleShutdownSignals(node: Node, o: CliOptions, progress?: ProgressDisplay): void {
  let stopping = false
  const dumpTo = o.dumpState ?? o.state
  const stop = (signal: string) => {
    // a second signal while closing (a long --dump-state write) exits at once: the state file is written to a
    // temporary file renamed into place, so the previous one stays whole
    if (stopping) {
      progress?.fail(`interrupted (${signal}), the previous file is unchanged`)
      process.exit(1)
    }
    stopping = true
    if (!o.silent) console.log(chalk.dim(`\n${signal}: shutting down${dumpTo ? `, writing ${dumpTo}` : ''}`))
    if (dumpTo) progress?.begin(`Writing state file ${dumpTo}`)
    node.close().then(
      () => {
        progress?.end()
        process.exit(0)
      },
      (err: unknown) => {
        progress?.fail()
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
}
