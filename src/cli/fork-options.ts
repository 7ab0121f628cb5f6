/**
 * The `--fork-*` options of the `node-cli` command (docs/architecture.md#forking): parsing them into
 * NodeConfig.fork, and the banner's fork line.
 */
import { type Command, InvalidArgumentError } from 'commander'
import type { ForkConfig } from '../config.js'

/** The fork options as commander parses them. */
export interface ForkCliOptions {
  forkUrl?: string
  forkBlockNumber?: bigint
  forkHeaders?: string[]
  forkRetries?: number
  forkTimeout?: number
  forkRps?: number
  /** A directory, or false with --no-fork-cache. */
  forkCache?: string | false
  /** `--fork-activation name=height` pairs. */
  forkActivation?: Record<string, number>
}

function count(name: string, min: number, max: number) {
  return (value: string): number => {
    const n = Number(value)
    if (!Number.isInteger(n) || n < min || n > max)
      throw new InvalidArgumentError(`${name} must be an integer from ${min} to ${max}`)
    return n
  }
}

/** `--fork-block-number`: a decimal or 0x number, negative counting back from the remote's head. */
function blockNumber(value: string): bigint {
  if (!/^(-?\d+|0x[0-9a-fA-F]+)$/.test(value.trim())) {
    throw new InvalidArgumentError('--fork-block-number must be an integer (negative: blocks below the remote head)')
  }
  return BigInt(value.trim())
}

/** `--fork-headers`: `Name: value` pairs, the option repeatable. */
function header(value: string, previous: string[] | undefined): string[] {
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+\s*:/.test(value))
    throw new InvalidArgumentError('--fork-headers takes "Name: value"')
  return [...(previous ?? []), value]
}

/**
 * `--fork-activation`: `name=height` (an upgrade like `lovell700` or a rule like `rskip144`; -1 = never), the
 * option repeatable (docs/reference-rules.md#rule-network-activations). Names are checked when the fork opens.
 */
function activation(value: string, previous: Record<string, number> | undefined): Record<string, number> {
  const m = /^\s*([A-Za-z][A-Za-z0-9]*)\s*=\s*(-1|\d+)\s*$/.exec(value)
  if (m === null) throw new InvalidArgumentError('--fork-activation takes name=height (height -1: never)')
  return { ...previous, [m[1]!]: Number(m[2]) }
}

/** Adds the fork options to `program`. */
export function addForkOptions(program: Command): Command {
  return program
    .option(
      '--fork-url <url>',
      'fork a live node of network 30, 31 or 33 (JSON-RPC URL): its state and blocks up to the fork block, ' +
        'lazily fetched and cached',
    )
    .option(
      '--fork-block-number <n>',
      'fork block (negative: below the remote head; default: remote head - 5)',
      blockNumber,
    )
    .option('--fork-headers <header...>', 'extra HTTP headers sent to the fork remote, "Name: value"', header)
    .option(
      '--fork-retries <n>',
      'retries of a failed request to the fork remote (default 5)',
      count('--fork-retries', 0, 100),
    )
    .option(
      '--fork-timeout <ms>',
      'time allowed for one request to the fork remote (default 30000)',
      count('--fork-timeout', 1, 3_600_000),
    )
    .option(
      '--fork-rps <n>',
      'requests per second to the fork remote (default: no cap)',
      count('--fork-rps', 1, 1_000_000),
    )
    .option(
      '--fork-cache <dir>',
      'root of the fork cache (default ~/.cache/node-cli/fork, or $XDG_CACHE_HOME/node-cli/fork)',
    )
    .option('--no-fork-cache', 'keep what the fork fetched in memory only')
    .option(
      '--fork-activation <name=height...>',
      "activation height instead of the remote network's: upgrade (lovell700) or rule (rskip144), -1 = never",
      activation,
    )
}

/**
 * NodeConfig.fork from the options, or undefined without --fork-url.
 * @throws Error naming the option when a fork option is given without --fork-url
 */
export function forkConfig(o: ForkCliOptions): ForkConfig | undefined {
  if (o.forkUrl === undefined) {
    const stray = (
      ['forkBlockNumber', 'forkHeaders', 'forkRetries', 'forkTimeout', 'forkRps', 'forkActivation'] as const
    ).find((k) => o[k] !== undefined)
    if (stray !== undefined || typeof o.forkCache === 'string') throw new Error('the --fork-* options need --fork-url')
    return undefined
  }
  const headers: Record<string, string> = {}
  for (const h of o.forkHeaders ?? []) {
    const at = h.indexOf(':')
    headers[h.slice(0, at).trim()] = h.slice(at + 1).trim()
  }
  return {
    url: o.forkUrl,
    blockNumber: o.forkBlockNumber,
    headers,
    retries: o.forkRetries,
    timeoutMs: o.forkTimeout,
    requestsPerSecond: o.forkRps,
    cache: o.forkCache === false ? false : o.forkCache,
    activations: o.forkActivation,
  }
}
