/**
 * How long states stay in memory (docs/architecture.md#storage, "States"): the `pending` block's preview roots
 * take no place among the block states `--state-history` keeps (src/state/unitrie-state-db.ts `registerPreview`),
 * so a preview per block (every eth_estimateGas without a block reads at `pending`) neither halves the readable
 * history nor keeps superseded previews; in memory, the kept states are packed into an arena every
 * UNLOAD_STATE_EVERY_BLOCKS blocks (src/state/packed-states.ts) and read, and mine, the same afterwards.
 */
import { afterAll, describe, expect, it } from 'vitest'
import type { Node } from '../../src/index.js'
import { hexToBytes } from '@ethereumjs/util'
import { UNLOAD_STATE_EVERY_BLOCKS } from '../../src/chain/mining/block-commit.js'
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

  it('every UNLOAD_STATE_EVERY_BLOCKS blocks the kept states are packed; reads and mining go on the same', async () => {
    const url = node.url
    const chain = internals(node).chain
    const db = chain.executor.stateManager.db
    // not packed yet: the live state is a trie of node objects
    const live = () => chain.executor.stateManager.getTrie()
    expect(live().store).toBeUndefined()
    const recipient = (i: number): string => '0x' + (0x5e0000 + i).toString(16).padStart(40, '0')
    const reads = async (block: string) => ({
      cow: await rpc(url, 'eth_getBalance', [COW.address, block]),
      cow1: await rpc(url, 'eth_getBalance', [COW1.address, block]),
      nonce: await rpc(url, 'eth_getTransactionCount', [COW.address, block]),
      fresh: await rpc(url, 'eth_getBalance', [recipient(3), block]),
    })
    await rpc(url, 'evm_mine') // the transaction the first test left in the pool
    const head = Number(await rpc<string>(url, 'eth_blockNumber'))
    const latest = await reads('latest')
    await rpc(url, 'anvil_mine', [q(UNLOAD_STATE_EVERY_BLOCKS - head - 1)])
    expect(live().store).toBeUndefined()
    // the states of the last blocks were saved into the arena ahead of the pack, the others were not
    const stateRoot = async (n: number) =>
      hexToBytes((await rpc<{ stateRoot: `0x${string}` }>(url, 'eth_getBlockByNumber', [q(n), false])).stateRoot)
    expect(db.packed?.store?.get(await stateRoot(UNLOAD_STATE_EVERY_BLOCKS - 2))).toBeDefined()
    expect(db.packed?.store?.get(await stateRoot(head + 1))).toBeUndefined()
    await blockAndPendingRead(url, UNLOAD_STATE_EVERY_BLOCKS) // block UNLOAD_STATE_EVERY_BLOCKS: packed after it
    expect(Number(await rpc<string>(url, 'eth_blockNumber'))).toBe(UNLOAD_STATE_EVERY_BLOCKS)
    const arena = db.packed?.store
    expect(arena?.size).toBeGreaterThan(0)
    // the live state and the kept block states are lazy tries over the arena
    expect(live().store).toBe(arena)
    expect(db.lookup(await stateRoot(UNLOAD_STATE_EVERY_BLOCKS - 10))?.store).toBe(arena)
    const after = await reads(q(UNLOAD_STATE_EVERY_BLOCKS - 1))
    expect(after).toEqual({ ...latest, nonce: after.nonce })
    expect(BigInt(after.nonce)).toBe(BigInt(latest.nonce))
    expect(await rpc(url, 'eth_getBalance', [recipient(UNLOAD_STATE_EVERY_BLOCKS), 'latest'])).toBe(
      q(UNLOAD_STATE_EVERY_BLOCKS + 1),
    )
    // mining on the packed state: the same balances as computed
    const cow1 = BigInt(await rpc<string>(url, 'eth_getBalance', [COW1.address, 'latest']))
    await sendTx(url, { to: COW1.address, value: '0x9', gas: '0x5208' })
    expect(BigInt(await rpc<string>(url, 'eth_getBalance', [COW1.address, 'latest']))).toBe(cow1 + 9n)
    expect(await rpc(url, 'eth_getBalance', [COW1.address, q(UNLOAD_STATE_EVERY_BLOCKS)])).toBe(q(cow1))
    expect(await rpc(url, 'eth_getBalance', [recipient(3), 'pending'])).toBe(latest.fresh)
  })
})
