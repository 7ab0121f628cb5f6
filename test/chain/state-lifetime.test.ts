/**
 * How long states stay in memory (docs/architecture.md#storage, "States"): the `pending` block's preview roots
 * take no place among the block states `--state-history` keeps (src/state/unitrie-state-db.ts `registerPreview`),
 * so a preview per block (every eth_estimateGas without a block reads at `pending`) neither halves the readable
 * history nor keeps superseded previews.
 */
import { afterAll, describe, expect, it } from 'vitest'
import type { Node } from '../../src/index.js'
import { MAX_PREVIEW_ROOTS } from '../../src/state/unitrie-state-db.js'
import { COW, COW1, internals, rpc, rpcError, startNode } from '../helpers/node.js'
import { q, sendTx } from '../rpc/shapes.js'

const HISTORY = 20
let node: Node

afterAll(async () => {
  await node?.close()
})

/** One value transfer to a new address (one block), then a read at `pending` (a new preview of the next block). */
async function blockAndPendingRead(url: string, i: number): Promise<void> {
  await sendTx(url, { to: '0x' + (0x5e0000 + i).toString(16).padStart(40, '0'), value: q(i + 1), gas: '0x5208' })
  const gas = await rpc<string>(url, 'eth_estimateGas', [{ from: COW.address, to: COW1.address, value: '0x1' }])
  expect(BigInt(gas)).toBe(21000n)
}

describe('state lifetime in memory', () => {
  it('previews of the pending block do not shorten --state-history, and only the newest stay', async () => {
    node = await startNode({ stateHistory: HISTORY })
    const url = node.url
    for (let i = 0; i < 2 * HISTORY; i++) await blockAndPendingRead(url, i)
    const head = Number(await rpc<string>(url, 'eth_blockNumber'))
    expect(head).toBe(2 * HISTORY)
    // every one of the last HISTORY blocks' states answers (each block's recipient got i + 1 wei)
    for (let n = head - HISTORY + 1; n <= head; n++) {
      const i = n - 1
      const who = '0x' + (0x5e0000 + i).toString(16).padStart(40, '0')
      expect(await rpc(url, 'eth_getBalance', [who, q(n)])).toBe(q(i + 1))
    }
    // far older states are gone (-32600 State not found)
    expect((await rpcError(url, 'eth_getBalance', [COW.address, q(2)])).code).toBe(-32600)
    // the pending state still answers, with the pool's effects
    await rpc(url, 'evm_setAutomine', [false])
    await rpc(url, 'eth_sendTransaction', [{ from: COW.address, to: COW1.address, value: '0x7', gas: '0x5208' }])
    const latest = BigInt(await rpc<string>(url, 'eth_getBalance', [COW1.address, 'latest']))
    expect(BigInt(await rpc<string>(url, 'eth_getBalance', [COW1.address, 'pending']))).toBe(latest + 7n)
    const db = internals(node).chain.executor.stateManager.db
    expect(db.previewCount).toBeGreaterThan(0)
    expect(db.previewCount).toBeLessThanOrEqual(MAX_PREVIEW_ROOTS)
    await rpc(url, 'evm_setAutomine', [true])
  })
})
