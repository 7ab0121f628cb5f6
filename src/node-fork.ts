/**
 * Switching a node's fork at run time (anvil_reset / hardhat_reset with `forking`, docs/architecture.md#forking):
 * opens the new fork first — so an unreachable remote or a bad block leaves the running chain as it was — then
 * starts the chain over on it (Chain.reopen), or with no fork: a plain local chain of the same network, as Anvil
 * and Hardhat reset without `forking`. The new fork's cache is keyed by its own chain id and fork block hash.
 */
import type { Chain } from './chain/chain.js'
import type { ChainOptions } from './chain/chain-options.js'
import type { ForkConfig } from './config.js'
import { InvalidArgumentError } from './errors/domain-errors.js'
import type { OpenFork } from './fork/fork-setup.js'
import type { ForkServices } from './rpc/services.js'

/** The node's side of a fork switch. */
export interface ForkSwitchHost {
  chain: Chain
  /** The fork options the node started with (headers, retries, cache, activations are kept). */
  config: ForkConfig
  /** The chain's options over a fork, or none. */
  chainOptions(fork: OpenFork | undefined): ChainOptions
  /** The fork of the moment (undefined after a switch to no fork). */
  current(): OpenFork | undefined
  /** Records the new fork (and its services for the RPC: undefined for none). */
  adopt(fork: OpenFork | undefined, services: ForkServices | undefined): void
}

/**
 * The `Services.switchFork` of a node started with a fork.
 * @returns a function: target `{ url, blockNumber? }` (no block number: the remote's default fork block) or
 *   undefined (no fork)
 * @throws (the function) InvalidArgumentError (-32602) for a bad URL or block, or a remote of another chain id
 *   than the node's; ForkRemoteError (-32000) when the remote cannot answer — the chain is then unchanged
 */
export function forkSwitcher(host: ForkSwitchHost) {
  return async (target: { url: string; blockNumber?: bigint } | undefined): Promise<void> => {
    const old = host.current()
    if (target === undefined) {
      await host.chain.reopen(host.chainOptions(undefined))
      host.adopt(undefined, undefined)
      await old?.close()
      return
    }
    const { openFork } = await import('./fork/fork-setup.js')
    const next = await openFork({ ...host.config, url: target.url, blockNumber: target.blockNumber })
    try {
      await next.cache.ready
      const runs = host.chain.reads.chainId
      if (next.point.chainId !== runs) {
        throw new InvalidArgumentError(
          `cannot fork chain id ${next.point.chainId} at run time: this node runs chain id ${runs} ` +
            '(restart with --fork-url to fork another network)',
        )
      }
      await host.chain.reopen(host.chainOptions(next))
    } catch (err) {
      await next.close()
      throw err
    }
    host.adopt(next, { url: target.url, point: next.point, history: next.history, remote: next.remote })
    await old?.close()
  }
}
