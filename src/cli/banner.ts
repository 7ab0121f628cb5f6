/**
 * The start-up banner: version, network and chain id, the dev and mnemonic accounts with their keys, mining,
 * transport, fork, storage and access settings, the explorer's URL, exposure warnings, and the URL line.
 */
import path from 'node:path'
import type { Node } from '../node-api.js'
import { VERSION } from '../node.js'
import { internals } from '../node-internals.js'
import { isPublicBind } from '../server/origin-policy.js'
import type { CliOptions } from './options.js'
import { chalk } from './terminal.js'

/** The banner printed once the node serves (chalk must be loaded; ./terminal.ts). */
export function banner(node: Node, o: CliOptions): string {
  const lines: string[] = []
  const title = chalk.bold(`node-cli v${VERSION}`)
  lines.push(
    `${title}  ${chalk.dim('network')} ${node.network}  ` +
      `${chalk.dim('chain id')} ${node.chainId} (0x${node.chainId.toString(16)})`,
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
        : `${node.compat} (see README "Compatibility profiles": block lists without the Remasc tx, ` +
          `${node.compat} error shapes)`
    }`,
  )
  if (node.fork) {
    const f = node.fork
    lines.push(`${chalk.dim('Fork')}       ${f.remote} chain id ${f.chainId}, block #${f.blockNumber} ${f.blockHash}`)
    lines.push(
      `${chalk.dim('Fork cache')} ` +
        (f.cacheDir ?? (f.cacheWarning ? chalk.yellow(f.cacheWarning) : 'in memory (--no-fork-cache)')),
    )
  }
  lines.push(
    `${chalk.dim('Chain')}      ` +
      (o.db
        ? `${path.join(o.db, 'chain')} (head #${internals(node).chain.reads.head.header.number})`
        : 'in memory (use --db <dir> to keep it)'),
  )
  lines.push(
    `${chalk.dim('Keystore')}   ${o.db ? path.join(o.db, 'keystore') : 'in memory (use --db <dir> to keep it)'}`,
  )
  lines.push(
    `${chalk.dim('Origins')}    ` +
      accessLine(o.allowOrigin, 'localhost pages and wallet extensions only (--allow-origin to open)'),
  )
  lines.push(
    `${chalk.dim('Hosts')}      ` +
      accessLine(o.allowHost, 'loopback names and the bound address only (--allow-host to open)'),
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
  if (o.explorer) lines.push(`${chalk.dim('Explorer')}   ${chalk.green(node.url + '/')}`)
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
      `WARNING: listening on ${o.host}, not a loopback interface: anyone who can reach this port can send from ` +
        'the unlocked dev accounts and read their private keys.',
    )
  }
  if (o.allowOrigin === '*')
    warnings.push(
      'WARNING: --allow-origin *: any web page you open can call this node, send from its accounts ' +
        'and read their keys.',
    )
  if (o.allowHost === '*') warnings.push('WARNING: --allow-host *: DNS-rebinding protection is off.')
  return warnings
}

/** The line naming the HTTP and WebSocket URLs. */
function urlLine(node: Node): string {
  return `Listening on ${chalk.green(node.url)} and ${chalk.green(node.wsUrl)}`
}
