/**
 * Test helper: the endless-loop contract the execution-deadline tests run (calls, estimates, sends, mining).
 */
import { expect } from 'vitest'
import { COW, rpc } from './node.js'

/** Runtime `5b600056`: JUMPDEST PUSH1 0 JUMP, a loop that only ends when the gas runs out (12 gas a turn). */
export const LOOP_RUNTIME = '5b600056'
/** Init code returning it: PUSH4 <runtime> PUSH1 0 MSTORE PUSH1 4 PUSH1 28 RETURN. */
export const LOOP_INIT = `0x63${LOOP_RUNTIME}6000526004601cf3`

/** Deploys the endless loop from COW (automine on); returns its address. */
export async function deployLoop(url: string): Promise<string> {
  const hash = await rpc<string>(url, 'eth_sendTransaction', [{ from: COW.address, data: LOOP_INIT, gas: '0x100000' }])
  const receipt = await rpc<{ contractAddress: string; status: string }>(url, 'eth_getTransactionReceipt', [hash])
  expect(receipt.status).toBe('0x1')
  expect(await rpc(url, 'eth_getCode', [receipt.contractAddress, 'latest'])).toBe(`0x${LOOP_RUNTIME}`)
  return receipt.contractAddress
}

/** Resolves with the order in which the given promises settled (their indexes). */
export async function settleOrder(promises: Promise<unknown>[]): Promise<number[]> {
  const order: number[] = []
  await Promise.all(
    promises.map((p, i) =>
      p.then(
        () => order.push(i),
        () => order.push(i),
      ),
    ),
  )
  return order
}
