/**
 * With --db the state's tries read their nodes from the database as they reach them and drop what they loaded every
 * UNLOAD_STATE_EVERY_BLOCKS blocks (docs/architecture.md#storage; src/db/chain-storage.ts `readNodesOnDemand`,
 * src/state/unitrie-state-db.ts `unloadStored`, src/chain/mining/block-commit.ts): every state read, call and mined
 * block must answer the same after an unload as a node that keeps its whole state in memory, and a restart reads
 * the head's state lazily.
 */
import { describe, expect, it } from 'vitest'
import { dbNodes, FIXED_CLOCK } from '../helpers/db-nodes.js'
import { internals } from '../../src/node-internals.js'
import type { ChainStorage } from '../../src/db/chain-storage.js'
import { UNLOAD_STATE_EVERY_BLOCKS } from '../../src/chain/mining/block-commit.js'
import { buildChain, observe, probe } from '../helpers/chain-fixture.js'
import { COW, COW1, rpc } from '../helpers/node.js'
import { q, sendTx } from '../rpc/shapes.js'

const { tempDir, open, close } = dbNodes('node-cli-lazy-', { clock: FIXED_CLOCK })

/** Transactions that read and write state already on disk: storage, balances, a new account. */
async function touchState(url: string, probeAddress: string, value: number): Promise<void> {
  await sendTx(url, { to: probeAddress, data: probe.encodeFunctionData('setValue', [value]) })
  await sendTx(url, { from: COW1.address, to: COW.address, value: q(value), gas: '0x5208' })
  await sendTx(url, { to: '0x' + value.toString(16).padStart(40, '0'), value: '0x1', gas: '0x5208' })
}

describe('--db: state read on demand and unloaded', () => {
  it('answers and mines as a node with its whole state in memory, across unloads and a restart', async () => {
    const dir = tempDir()
    const a = await open({ db: dir, stateHistory: 3 })
    const ref = await open({})
    const { probeAddress } = await buildChain(a.url)
    expect((await buildChain(ref.url)).probeAddress).toBe(probeAddress)
    const storage = (internals(a).chain as unknown as { assembly: { opts: { storage: ChainStorage } } }).assembly.opts
      .storage
    expect(storage.nodeStore).toBeDefined()

    // an explicit unload: every registered root the database holds becomes a lazy trie, then the same answers
    const sm = internals(a).chain.executor.stateManager
    const before = await observe(a.url, probeAddress)
    expect(sm.db.unloadStored(storage.nodeStore!)).toBeGreaterThan(0)
    await internals(a).chain.executor.resetTo(internals(a).chain.executor.stateRoot)
    expect(await observe(a.url, probeAddress)).toEqual(before)
    expect(before).toEqual(await observe(ref.url, probeAddress))

    // past the automatic unload (every UNLOAD_STATE_EVERY_BLOCKS blocks), on both nodes
    for (const url of [a.url, ref.url]) {
      await touchState(url, probeAddress, 11)
      await rpc(url, 'anvil_mine', [q(UNLOAD_STATE_EVERY_BLOCKS)])
      await touchState(url, probeAddress, 12)
    }
    const head = Number(await rpc<string>(a.url, 'eth_blockNumber'))
    expect(head).toBeGreaterThan(UNLOAD_STATE_EVERY_BLOCKS)
    for (let n = head - 8; n <= head; n++)
      expect(await rpc(a.url, 'eth_getBlockByNumber', [q(n), true])).toEqual(
        await rpc(ref.url, 'eth_getBlockByNumber', [q(n), true]),
      )
    const reads = async (url: string) => ({
      value: await rpc(url, 'eth_getStorageAt', [probeAddress, '0x0', 'latest']),
      cow: await rpc(url, 'eth_getBalance', [COW.address, 'latest']),
      cow1: await rpc(url, 'eth_getBalance', [COW1.address, 'latest']),
      fresh: await rpc(url, 'eth_getBalance', ['0x' + (12).toString(16).padStart(40, '0'), 'latest']),
      call: await rpc(url, 'eth_call', [{ to: probeAddress, data: probe.encodeFunctionData('value') }, 'latest']),
    })
    const expected = await reads(ref.url)
    expect(expected.value).toBe('0x' + '00'.repeat(31) + '0c')
    expect(await reads(a.url)).toEqual(expected)
    // a state older than the reference's --state-history: read back from the database (setValue(5) in block 2)
    expect(await rpc(a.url, 'eth_getStorageAt', [probeAddress, '0x0', q(2)])).toBe('0x' + '00'.repeat(31) + '05')
    await close(a)

    // a restart reads the head's state lazily: the same answers, and mining goes on as on the reference
    const b = await open({ db: dir, stateHistory: 3 })
    expect(await reads(b.url)).toEqual(expected)
    for (const url of [b.url, ref.url]) await touchState(url, probeAddress, 13)
    expect(await rpc(b.url, 'eth_getBlockByNumber', ['latest', true])).toEqual(
      await rpc(ref.url, 'eth_getBlockByNumber', ['latest', true]),
    )
    await close(b)
    await close(ref)
  })
})
