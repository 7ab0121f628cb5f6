/**
 * Snapshots (docs/reference-rules.md#rule-evm-snapshot; rskj SnapshotManager):
 * evm_snapshot ids "0x1", "0x2", …; evm_revert restores head, state, pool and indexes, keeps the id
 * (reusable, reference) and drops later ids; unknown id → false, malformed id → -32602; evm_reset back to
 * genesis; logs undone by a revert reach subscriptions and filters with removed: true (newHeads does not
 * re-send removed blocks).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Interface, Wallet } from 'ethers'
import type { Node } from '../../src/index.js'
import { Token } from '../../fixtures/index.js'
import { COW, COW1, rpc, rpcError, startNode } from '../helpers/node.js'
import { WsClient } from '../helpers/ws.js'
import { deploy, q, QTY, sendTx } from './shapes.js'

const token = new Interface(Token.abi)
const TOKEN_DEPLOY = Token.bytecode + token.encodeDeploy(['Snap Token', 'SNP', 1_000_000n]).slice(2)
/** A fresh address nobody holds a key for. */
const RECIPIENT = Wallet.createRandom().address.toLowerCase()

let node: Node
let url: string
let accounts: string[]
const internalErrors: unknown[] = []
const clients: WsClient[] = []

const blockNumber = async () => BigInt(await rpc<string>(url, 'eth_blockNumber'))
const balance = (a: string, tag = 'latest') => rpc<string>(url, 'eth_getBalance', [a, tag])
const nonce = (a: string) => rpc<string>(url, 'eth_getTransactionCount', [a, 'latest'])
const snapshot = () => rpc<string>(url, 'evm_snapshot')
const revert = (id: unknown) => rpc<boolean>(url, 'evm_revert', [id])
const transferValue = (from: string, to: string, wei: bigint) => sendTx(url, { from, to, value: q(wei), gas: '0x5208' })
const tokenTransfer = (tokenAddress: string, to: string, amount: bigint, from = COW.address) =>
  sendTx(url, { from, to: tokenAddress, data: token.encodeFunctionData('transfer', [to, amount]) })

/** Everything a revert must restore, read over RPC. */
async function observe(extra: string[] = []) {
  const addrs = [COW.address, COW1.address, RECIPIENT, ...extra]
  return {
    blockNumber: await blockNumber(),
    head: (await rpc(url, 'eth_getBlockByNumber', ['latest', false])).hash as string,
    balances: await Promise.all(addrs.map((a) => balance(a))),
    nonces: await Promise.all(addrs.map((a) => nonce(a))),
    code: await Promise.all(addrs.map((a) => rpc<string>(url, 'eth_getCode', [a, 'latest']))),
    pool: await rpc(url, 'txpool_content'),
  }
}

beforeAll(async () => {
  node = await startNode({ onInternalError: (_m, err) => internalErrors.push(err) })
  url = node.url
  accounts = await rpc<string[]>(url, 'eth_accounts')
})
afterAll(async () => {
  for (const c of clients) await c.close()
  await node?.close()
  expect(internalErrors).toEqual([])
})

describe('evm_snapshot / evm_revert', () => {
  it('ids are "0x1", "0x2", … (1-based QUANTITY strings)', async () => {
    const a = await snapshot()
    const b = await snapshot()
    expect(a).toMatch(QTY)
    expect(BigInt(b)).toBe(BigInt(a) + 1n)
    // the first snapshot of a fresh node is "0x1"
    expect(a).toBe('0x1')
    expect(b).toBe('0x2')
    expect(await revert(a)).toBe(true)
  })

  it('revert restores balances, nonces, block number, logs, receipts, transactions and code', async () => {
    const before = await observe()
    const id = await snapshot()

    const t1 = await transferValue(COW.address, RECIPIENT, 10n ** 18n)
    const t2 = await transferValue(COW1.address, RECIPIENT, 5n)
    const { address: tokenAddress, receipt: deployReceipt } = await deploy(url, TOKEN_DEPLOY)
    const t3 = await tokenTransfer(tokenAddress, RECIPIENT, 1234n)
    expect(t3.status).toBe('0x1')
    const hashes = [t1, t2, deployReceipt, t3].map((r) => r.transactionHash as string)
    const mined = await observe([tokenAddress])
    expect(mined.blockNumber).toBe(before.blockNumber + 4n)
    expect(mined.balances[2]).toBe(q(10n ** 18n + 5n))
    expect(mined.code[3]).not.toBe('0x')
    const logFilter = { fromBlock: q(before.blockNumber + 1n), toBlock: 'latest', address: tokenAddress }
    const logs = await rpc<any[]>(url, 'eth_getLogs', [logFilter])
    expect(logs.length).toBeGreaterThanOrEqual(2) // the mint Transfer of the constructor and the transfer

    expect(await revert(id)).toBe(true)

    const after = await observe([tokenAddress])
    expect(after.blockNumber).toBe(before.blockNumber)
    expect(after.head).toBe(before.head)
    expect(after.balances).toEqual([...before.balances, '0x0'])
    expect(after.nonces).toEqual([...before.nonces, '0x0'])
    expect(after.code).toEqual(['0x', '0x', '0x', '0x'])
    expect(await rpc(url, 'eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest', address: tokenAddress }])).toEqual([])
    for (const h of hashes) {
      expect(await rpc(url, 'eth_getTransactionByHash', [h])).toBeNull()
      expect(await rpc(url, 'eth_getTransactionReceipt', [h])).toBeNull()
    }
    for (let n = before.blockNumber + 1n; n <= before.blockNumber + 4n; n++) {
      expect(await rpc(url, 'eth_getBlockByNumber', [q(n), false])).toBeNull()
    }
    for (const r of [t1, deployReceipt]) expect(await rpc(url, 'eth_getBlockByHash', [r.blockHash, false])).toBeNull()

    // the chain goes on from there: the same (deterministically signed) transaction is accepted and mined again
    const again = await transferValue(COW.address, RECIPIENT, 10n ** 18n)
    expect(again.transactionHash).toBe(t1.transactionHash)
    expect(again.blockNumber).toBe(q(before.blockNumber + 1n))
    expect(await revert(id)).toBe(true)
  })

  it('the same id can be reverted to again and again (reference SnapshotManager keeps it)', async () => {
    const before = await observe()
    const id = await snapshot()
    for (let round = 0; round < 3; round++) {
      await transferValue(COW.address, RECIPIENT, 7n)
      await transferValue(COW1.address, RECIPIENT, 8n)
      expect(await blockNumber()).toBe(before.blockNumber + 2n)
      expect(await revert(id)).toBe(true)
      expect(await observe()).toEqual(before)
    }
    // the next snapshot after reverting to `id` is id + 1
    const next = await snapshot()
    expect(BigInt(next)).toBe(BigInt(id) + 1n)
    expect(await revert(id)).toBe(true)
  })

  it('reverting drops the ids taken after it: they answer false afterwards', async () => {
    const start = await observe()
    const a = await snapshot()
    await transferValue(COW.address, RECIPIENT, 1n)
    const b = await snapshot()
    await transferValue(COW.address, RECIPIENT, 2n)
    const c = await snapshot()
    expect([BigInt(b), BigInt(c)]).toEqual([BigInt(a) + 1n, BigInt(a) + 2n])

    expect(await revert(b)).toBe(true) // drops c
    expect(await balance(RECIPIENT)).toBe(q(BigInt(start.balances[2]!) + 1n))
    expect(await revert(c)).toBe(false)
    expect(await revert(a)).toBe(true) // drops b
    expect(await revert(b)).toBe(false)
    expect(await observe()).toEqual(start)
    expect(await revert(a)).toBe(true) // a itself stays usable
  })

  it('an unknown id answers false and changes nothing; a malformed id is -32602', async () => {
    const before = await observe()
    expect(await revert('0x999')).toBe(false)
    expect(await revert('0x0')).toBe(false)
    expect(await observe()).toEqual(before)
    for (const bad of ['0xzz', 'one', '0x', true, {}, [1]]) {
      const err = await rpcError(url, 'evm_revert', [bad])
      expect(err.code, JSON.stringify(bad)).toBe(-32602)
    }
    expect((await rpcError(url, 'evm_revert', [])).code).toBe(-32602)
  })

  it('the pool is restored: a queued transaction of snapshot time is back, one added after is gone', async () => {
    const sender = accounts[4]!
    const n = BigInt(await nonce(sender))
    const send = (k: bigint) =>
      rpc<string>(url, 'eth_sendTransaction', [
        { from: sender, to: RECIPIENT, value: '0x1', gas: '0x5208', nonce: q(n + k) },
      ])
    const base = await snapshot()
    // a nonce gap keeps these in the pool (queued) even with instant mining
    const early = await send(5n)
    const id = await snapshot()
    const late = await send(6n)
    await transferValue(COW.address, RECIPIENT, 3n) // a mined block on top
    const queuedHashes = async () => {
      const content = await rpc(url, 'txpool_content')
      return Object.values(content.queued as Record<string, Record<string, any[]>>)
        .flatMap((byNonce) => Object.values(byNonce).flat())
        .map((t) => t.hash as string)
        .sort()
    }
    expect(await queuedHashes()).toEqual([early, late].sort())

    expect(await revert(id)).toBe(true)
    expect(await queuedHashes()).toEqual([early])
    expect(await rpc(url, 'eth_getTransactionByHash', [early])).toMatchObject({ hash: early, blockNumber: null })
    expect(await rpc(url, 'eth_getTransactionByHash', [late])).toBeNull()
    expect((await rpc(url, 'txpool_status')).queued).toBe(1)

    expect(await revert(base)).toBe(true)
    expect(await queuedHashes()).toEqual([])
  })

  it('a pending (manual-mode) transaction of snapshot time is back after revert and mines on evm_mine', async () => {
    const base = await snapshot()
    await rpc(url, 'evm_setAutomine', [false])
    try {
      const waiting = await rpc<string>(url, 'eth_sendTransaction', [
        { from: COW1.address, to: RECIPIENT, value: '0x9', gas: '0x5208' },
      ])
      const id = await snapshot()
      await rpc(url, 'evm_mine')
      expect((await rpc(url, 'eth_getTransactionReceipt', [waiting])).status).toBe('0x1')
      expect(await revert(id)).toBe(true)
      expect(await rpc(url, 'eth_getTransactionReceipt', [waiting])).toBeNull()
      expect((await rpc(url, 'txpool_status')).pending).toBe(1)
      await rpc(url, 'evm_mine')
      expect((await rpc(url, 'eth_getTransactionReceipt', [waiting])).status).toBe('0x1')
    } finally {
      await rpc(url, 'evm_setAutomine', [true])
      expect(await revert(base)).toBe(true)
    }
  })
})

describe('removed logs after a revert', () => {
  it('a WS logs subscription gets removed: true for undone logs; newHeads does not re-send removed blocks', async () => {
    const base = await snapshot()
    const c = await WsClient.open(node.wsUrl)
    clients.push(c)
    const logsSub = await c.call<string>('eth_subscribe', ['logs', {}])
    const headsSub = await c.call<string>('eth_subscribe', ['newHeads'])

    const id = await c.call<string>('evm_snapshot')
    const { address: tokenAddress } = await deploy(url, TOKEN_DEPLOY)
    const t = await tokenTransfer(tokenAddress, RECIPIENT, 99n)
    const live = await c.waitResults(logsSub, 2)
    expect(live.every((l) => l.removed === false)).toBe(true)
    const heads = await c.waitResults(headsSub, 2)
    expect(heads.map((h) => h.number)).toEqual([q(BigInt(t.blockNumber) - 1n), t.blockNumber])

    expect(await c.call('evm_revert', [id])).toBe(true)
    const all = await c.waitResults(logsSub, live.length * 2)
    const removed = all.slice(live.length)
    expect(removed.every((l) => l.removed === true)).toBe(true)
    // the same logs (identity: block hash, tx hash, log index), newest block first
    const key = (l: any) => `${l.blockHash}:${l.transactionHash}:${l.logIndex}`
    expect(new Set(removed.map(key))).toEqual(new Set(live.map(key)))
    expect(removed.map((l) => ({ ...l, removed: false }))).toEqual(expect.arrayContaining(live))
    expect(BigInt(removed[0].blockNumber)).toBeGreaterThanOrEqual(BigInt(removed[removed.length - 1].blockNumber))

    // a new block after the revert: newHeads delivers it, and nothing for the removed blocks
    await c.call('evm_mine')
    const headsAfter = await c.waitResults(headsSub, 3)
    expect(headsAfter).toHaveLength(3)
    expect(headsAfter[2].number).toBe(heads[0].number)
    expect(headsAfter[2].hash).not.toBe(heads[0].hash)
    expect(c.results(logsSub)).toHaveLength(live.length * 2)
    await c.call('eth_unsubscribe', [logsSub])
    await c.call('eth_unsubscribe', [headsSub])
    expect(await revert(base)).toBe(true)
  })

  it('eth_newFilter + eth_getFilterChanges return the undone logs with removed: true', async () => {
    const base = await snapshot()
    const { address: tokenAddress, receipt: deployed } = await deploy(url, TOKEN_DEPLOY)
    const filter = await rpc<string>(url, 'eth_newFilter', [{ address: tokenAddress }])
    const blockFilter = await rpc<string>(url, 'eth_newBlockFilter')
    const id = await snapshot()
    const t1 = await tokenTransfer(tokenAddress, RECIPIENT, 1n)
    const t2 = await tokenTransfer(tokenAddress, COW1.address, 2n)
    const live = await rpc<any[]>(url, 'eth_getFilterChanges', [filter])
    expect(live.map((l) => [l.transactionHash, l.removed])).toEqual([
      [t1.transactionHash, false],
      [t2.transactionHash, false],
    ])
    expect(await rpc<string[]>(url, 'eth_getFilterChanges', [blockFilter])).toEqual([t1.blockHash, t2.blockHash])

    expect(await revert(id)).toBe(true)
    const undone = await rpc<any[]>(url, 'eth_getFilterChanges', [filter])
    expect(undone).toHaveLength(2)
    expect(undone.every((l) => l.removed === true)).toBe(true)
    expect(undone.map((l) => ({ ...l, removed: false }))).toEqual(expect.arrayContaining(live))
    // block filters report new blocks only
    expect(await rpc(url, 'eth_getFilterChanges', [blockFilter])).toEqual([])
    // the deploy (before the snapshot; the filter starts at its block) is still there
    const remaining = await rpc<any[]>(url, 'eth_getFilterLogs', [filter])
    expect(remaining.map((l) => [l.transactionHash, l.removed])).toEqual([[deployed.transactionHash, false]])
    expect(await rpc<string>(url, 'eth_getCode', [tokenAddress, 'latest'])).not.toBe('0x')
    expect(await revert(base)).toBe(true)
  })
})

describe('evm_reset', () => {
  it('goes back to genesis: block 0 unchanged, balances original, pool and snapshots cleared', async () => {
    const genesis = await rpc(url, 'eth_getBlockByNumber', ['0x0', false])
    const original = await Promise.all([COW.address, COW1.address, RECIPIENT].map((a) => balance(a, '0x0')))
    await transferValue(COW.address, RECIPIENT, 10n ** 17n)
    await deploy(url, TOKEN_DEPLOY)
    const queued = await rpc<string>(url, 'eth_sendTransaction', [
      { from: accounts[5], to: RECIPIENT, value: '0x1', gas: '0x5208', nonce: '0x9' },
    ])
    const id = await snapshot()
    await transferValue(COW1.address, RECIPIENT, 1n)
    expect(await blockNumber()).toBeGreaterThan(0n)

    expect(await rpc(url, 'evm_reset')).toBeNull()
    expect(await blockNumber()).toBe(0n)
    expect(await rpc(url, 'eth_getBlockByNumber', ['latest', false])).toEqual(genesis)
    expect(await rpc(url, 'eth_getBlockByNumber', ['0x1', false])).toBeNull()
    expect(await Promise.all([COW.address, COW1.address, RECIPIENT].map((a) => balance(a)))).toEqual(original)
    expect(await nonce(COW.address)).toBe('0x0')
    expect(await rpc(url, 'eth_getTransactionByHash', [queued])).toBeNull()
    expect(await rpc(url, 'txpool_status')).toEqual({ pending: 0, queued: 0 })
    expect(await revert(id)).toBe(false)
    expect(await snapshot()).toBe('0x1')

    // mining goes on from genesis
    const r = await transferValue(COW.address, RECIPIENT, 1n)
    expect(r.blockNumber).toBe('0x1')
    expect((await rpc(url, 'eth_getBlockByNumber', ['0x1', false])).parentHash).toBe(genesis.hash)
  })
})
