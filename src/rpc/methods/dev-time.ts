/**
 * Dev-chain controls of where the chain stands in time: snapshots, reverts and resets (evm_snapshot, evm_revert,
 * evm_reset, anvil_reset / hardhat_reset) and the next block's clock (evm_increaseTime, evm_setNextBlockTimestamp),
 * with the reference's semantics (rskj EvmModuleImpl / SnapshotManager / MinerClock).
 */
import { randomBytes } from 'node:crypto'
import { invalidParams } from '../rpc-error.js'
import { quantity } from '../../util/bytes.js'
import { method, type MethodSpec } from '../method-table.js'
import { decodeQuantity, optional, P, param } from '../params.js'
import type { Services } from '../services.js'
import { requireTimestamp } from '../bounds.js'

/** A number of seconds as the reference's evm_increaseTime takes it: decimal or 0x-hex string, or a JSON number. */
const seconds = (name: string) =>
  param(name, (v) => {
    if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v)
    if (typeof v === 'string' && /^-?\d+$/.test(v)) return BigInt(v)
    if (typeof v === 'string' && /^0x[0-9a-fA-F]+$/.test(v)) return BigInt(v)
    throw invalidParams(`invalid number of seconds ${JSON.stringify(v)}`)
  })

/** A snapshot id: "0x1" (reference) or a JSON number. */
const snapshotId = () =>
  param('snapshotId', (v) => {
    try {
      const n = decodeQuantity(v, 0)
      if (n > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error()
      return Number(n)
    } catch {
      throw invalidParams(`invalid snapshot id ${typeof v === 'string' ? v : JSON.stringify(v)}`)
    }
  })

/** The snapshot, reset and clock methods. */
export function devTimeMethods(s: Services): MethodSpec[] {
  const { chain } = s

  /** Back to genesis; a new instanceId, as hardhat_reset documents (hardhat_metadata). */
  const reset = async () => {
    await chain.reset()
    s.instanceId = '0x' + randomBytes(32).toString('hex')
  }

  return [
    method('evm_snapshot', 'evm', 'records the chain; returns an id "0x1", "0x2", …', [], async () =>
      quantity(await chain.snapshot()),
    ),
    method(
      'evm_revert',
      'evm',
      'restores a snapshot (the id stays usable); false when unknown',
      [snapshotId()],
      (_c, id) => chain.revertTo(id),
    ),
    method('evm_reset', 'evm', 'back to genesis', [], async () => {
      await reset()
      return null
    }),
    method(
      'evm_increaseTime',
      'evm',
      "adds seconds to the next block's clock; returns the accumulated offset",
      [seconds('seconds')],
      (_c, n) => {
        if (n > 0n) requireTimestamp(chain.reads.now() + n, 0, 'seconds (added to the clock)')
        return quantity(chain.increaseTime(n))
      },
    ),
    method(
      'evm_setNextBlockTimestamp',
      'evm',
      "fixes the next block's timestamp",
      [P.quantity('timestamp')],
      (_c, t) => {
        chain.setNextBlockTimestamp(requireTimestamp(t, 0, 'timestamp'))
        return null
      },
    ),
    method(
      'anvil_reset',
      'anvil',
      'back to genesis; in a fork: to the fork block, another fork ({ forking: { jsonRpcUrl, blockNumber } }) or none',
      [optional(P.any('options'), undefined)],
      async (_c, opts) => {
        // viem's reset() always sends { forking: { blockNumber } } (null when not given): only a fork URL is refused
        // (a node started with a fork answers through the fork layer instead, src/rpc/methods/fork.ts)
        const forking = opts && typeof opts === 'object' ? (opts as { forking?: unknown }).forking : undefined
        if (forking && typeof forking === 'object' && (forking as { jsonRpcUrl?: unknown }).jsonRpcUrl != null) {
          throw invalidParams(
            'forking not enabled: start with --fork-url to fork (a node started without one cannot fork at run time)',
          )
        }
        await reset()
        return null
      },
      ['hardhat_reset'],
    ),
  ]
}
