/**
 * Options for users who want less (Anvil's semantics): `--transaction-block-keeper N` drops receipts of blocks
 * older than the last N (their transactions answer null by hash; the blocks stay) and `--prune-history N` keeps
 * only the last N states readable, also with --db (older reads answer -32600 "State not found…").
 */
import { describe, expect, it } from 'vitest'
import { dbNodes } from '../helpers/db-nodes.js'
import type { NodeConfig } from '../../src/config.js'
import { probe } from '../helpers/chain-fixture.js'
import { Probe } from '../../fixtures/index.js'
import { COW, COW1, rpc, rpcError } from '../helpers/node.js'
import { deploy, q, sendTx } from '../rpc/shapes.js'

const { tempDir, open, close } = dbNodes('node-cli-prune-')

/** Blocks 1-3 with logs and transfers; returns the transaction hashes of blocks 2 and 3. */
async function someBlocks(url: string): Promise<{ probeAddress: string; old: string; recent: string }> {
  const { address: probeAddress } = await deploy(url, Probe.bytecode) // 1
  const old = (await sendTx(url, { to: probeAddress, data: probe.encodeFunctionData('emitMany', [2]) })).transactionHash // 2
  const recent = (await sendTx(url, { to: COW1.address, value: '0x1', gas: '0x5208' })).transactionHash // 3
  return { probeAddress, old, recent }
}

describe.each([
  ['in memory', () => ({})],
  ['with --db', () => ({ db: tempDir() })],
])('--transaction-block-keeper, %s', (_name, extra) => {
  it('old transactions answer null by hash, their blocks stay, their logs are no longer listed', async () => {
    const config: NodeConfig = { transactionBlockKeeper: 3, ...extra() }
    const node = await open(config)
    const { probeAddress, old, recent } = await someBlocks(node.url)
    const block2 = await rpc<{ transactions: { hash: string }[] }>(node.url, 'eth_getBlockByNumber', [q(2), true])
    expect(
      (await rpc<unknown[]>(node.url, 'eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest', address: probeAddress }]))
        .length,
    ).toBe(2)
    await rpc(node.url, 'anvil_mine', [q(3)]) // head 6: blocks ≤ 3 lose their receipts
    expect(await rpc(node.url, 'eth_getTransactionByHash', [old])).toBeNull()
    expect(await rpc(node.url, 'eth_getTransactionReceipt', [old])).toBeNull()
    expect(await rpc(node.url, 'eth_getTransactionByHash', [recent])).toBeNull()
    expect(await rpc(node.url, 'eth_getBlockByNumber', [q(2), true])).toEqual(block2)
    // block 2 is decoded again (cached): its transaction stays dropped
    expect(await rpc(node.url, 'eth_getTransactionByHash', [old])).toBeNull()
    expect(await rpc(node.url, 'eth_getTransactionReceipt', [old])).toBeNull()
    expect(
      await rpc(node.url, 'eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest', address: probeAddress }]),
    ).toEqual([])
    // the blocks the keeper still covers keep everything
    const kept = await sendTx(node.url, { from: COW.address, to: COW1.address, value: '0x2', gas: '0x5208' })
    expect(await rpc(node.url, 'eth_getTransactionByHash', [kept.transactionHash])).not.toBeNull()
    // past a whole chunk of pruned blocks (in memory the chunk is compacted): the blocks read the same
    await rpc(node.url, 'anvil_mine', [q(600)])
    const b500 = await rpc(node.url, 'eth_getBlockByNumber', [q(500), true])
    expect(b500).not.toBeNull()
    await rpc(node.url, 'anvil_mine', [q(1500)])
    expect(await rpc(node.url, 'eth_getBlockByNumber', [q(2), true])).toEqual(block2)
    expect(await rpc(node.url, 'eth_getBlockByNumber', [q(500), true])).toEqual(b500)
    if (config.db !== undefined) {
      // and after a restart they stay dropped; new ones are kept
      await close(node)
      const again = await open(config)
      expect(await rpc(again.url, 'eth_getTransactionByHash', [old])).toBeNull()
      expect(await rpc(again.url, 'eth_getBlockByNumber', [q(2), true])).toEqual(block2)
      expect(await rpc(again.url, 'eth_getTransactionByHash', [kept.transactionHash])).toBeNull()
      const fresh = await sendTx(again.url, { from: COW.address, to: COW1.address, value: '0x3', gas: '0x5208' })
      expect(
        (await rpc<{ status: string }>(again.url, 'eth_getTransactionReceipt', [fresh.transactionHash])).status,
      ).toBe('0x1')
    }
  })
})

describe('--prune-history', () => {
  it('with --db, states older than the kept ones answer "State not found" instead of being read back', async () => {
    const dir = tempDir()
    const node = await open({ db: dir, pruneHistory: 2 })
    await someBlocks(node.url)
    await rpc(node.url, 'anvil_mine', [q(20)])
    const err = await rpcError(node.url, 'eth_getBalance', [COW.address, q(2)])
    expect(err.code).toBe(-32600)
    expect(err.message).toMatch(/^State not found for block with hash 0x[0-9a-f]{64}$/)
    expect(await rpc(node.url, 'eth_getBalance', [COW.address, 'latest'])).toMatch(/^0x[0-9a-f]+$/)
    // without it the same directory reads the old state back
    await close(node)
    const full = await open({ db: dir })
    expect(await rpc(full.url, 'eth_getBalance', [COW.address, q(2)])).toMatch(/^0x[0-9a-f]+$/)
  })
})
