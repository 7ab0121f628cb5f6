/**
 * Running a transaction whose sender has code (docs/architecture.md#dependency-patches). The reference node has
 * no EIP-3607 rule: an impersonated contract may send, and eth_call / eth_estimateGas `from` a contract work.
 *
 * Reach: @ethereumjs `runTx` rejects a sender with code unconditionally (no option turns EIP-3607 off). It reads
 * the sender's account once, with `stateManager.getAccount(sender)`, and checks that account's codeHash; the
 * node's state manager is told to report no code for exactly that one read ({@link
 * UnitrieStateManager.maskSenderCodeOnce}). Relies on: runTx's first read of the sender's account being the one
 * it checks. Guard: a run that returns without having read the sender (the mask still pending) fails with
 * EthereumjsShapeError; a second read before the check would make a contract sender fail loudly with
 * @ethereumjs's own EIP-3607 error.
 */
import type { Address } from '@ethereumjs/util'
import { runTx, type RunTxOpts, type RunTxResult, type VM } from '@ethereumjs/vm'
import type { UnitrieStateManager } from '../../state/unitrie-state-manager.js'
import { failOnProblems } from './shape-error.js'

/**
 * `runTx(vm, opts)` with no EIP-3607 check of `sender`.
 * @param sm the VM's state manager; @param sender the transaction's sender
 * @returns runTx's result
 * @throws what runTx throws; EthereumjsShapeError when runTx returned without reading the sender's account
 */
export async function runTxFromAnySender(
  vm: VM,
  sm: UnitrieStateManager,
  sender: Address,
  opts: RunTxOpts,
): Promise<RunTxResult> {
  sm.maskSenderCodeOnce(sender)
  let result: RunTxResult
  try {
    result = await runTx(vm, opts)
  } catch (err) {
    sm.clearSenderCodeMask()
    throw err
  }
  if (sm.clearSenderCodeMask())
    failOnProblems('sender code (EIP-3607)', ['runTx returned without reading the sender account'])
  return result
}
