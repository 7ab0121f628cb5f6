/**
 * From parsed flags to the node's configuration: the checks commander cannot express (combinations of flags,
 * names from a fixed set), then the {@link NodeConfig} with the request log and console.log printers.
 */
import { existsSync, statSync } from 'node:fs'
import type { Command } from 'commander'
import type { NodeConfig } from '../config.js'
import { forkConfig } from './fork-options.js'
import type { CliOptions } from './options.js'
import { chalk, printLine, consoleBlock } from './terminal.js'

/**
 * Rejects flag values and combinations outside what commander checks (exits with the error through
 * `program.error`): --transport, --compat, --keystore-kdf names, the --state / --state-interval combinations, and
 * --artifacts directories (each must exist; not with --no-explorer).
 */
export function checkOptions(program: Command, o: CliOptions): void {
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
  if (o.artifacts !== undefined) {
    if (!o.explorer) program.error('error: --artifacts names contracts for the explorer; drop --no-explorer')
    for (const dir of o.artifacts)
      if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory())
        program.error(
          `error: --artifacts ${dir}: no such directory (give a Hardhat artifacts/ or Foundry out/ directory; ` +
            'compile the contracts first)',
        )
  }
}

/**
 * The node's configuration from the parsed flags (exits through `program.error` on a flag that needs
 * --mnemonic, or on a bad fork flag). The printers it sets use chalk: load it first unless --silent (./terminal.ts).
 */
export function nodeConfig(program: Command, o: CliOptions): NodeConfig {
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
  return {
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
    explorer: o.explorer,
    artifacts: o.artifacts,
    onRequest: o.verbose
      ? (method, ms, err) =>
          console.log(
            `${chalk.dim(new Date().toISOString().slice(11, 23))} ${method} ${chalk.dim(ms.toFixed(1) + 'ms')}` +
              (err ? ' ' + chalk.red(`${err.code} ${err.message}`) : ''),
          )
      : undefined,
    // (--silent prints nothing, so nothing is decoded either, unless the explorer shows the lines)
    consoleLog: o.consoleLog && (!o.silent || o.explorer),
    onConsoleLog: o.silent || !o.consoleLog ? undefined : (e) => printLine(consoleBlock(e)),
    onInternalError: (method, err) => {
      if (!o.silent) console.error(chalk.red(`internal error in ${method}:`), err)
    },
    onDroppedTransaction: o.silent
      ? undefined
      : (hash, reason) => console.log(chalk.yellow(`dropped transaction ${hash}: ${reason}`)),
  }
}
