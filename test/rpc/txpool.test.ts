/**
 * The pool over real HTTP (spec §4 txpool_*, eth_pendingTransactions, §3 transaction states; docs/reference-rules.md#rule-txpool-shapes,
 * docs/reference-rules.md#rule-pool-validation, docs/reference-rules.md#rule-pool-replacement, docs/reference-rules.md#rule-error-pool): txpool_status/content/inspect shapes, future-nonce
 * transactions queued behind a gap and mined when it fills, same-nonce replacement with the 40% price bump,
 * duplicates, queued transactions through eth_getTransactionByHash, eth_pendingTransactions (the node's
 * accounts only) and the `pending` nonce.
 *
 * Every test uses its own sender, so what one leaves queued does not affect another.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Wallet } from 'ethers'
import type { Node } from '../../src/index.js'
import { COW, internals, rpc, rpcError, startNode } from '../helpers/node.js'
import { expectKeys, q, TX_FIELDS, ZERO_HASH } from './shapes.js'

/** txpool_content entry fields (reference TxPoolModuleImpl.fullSerializer). */
const POOL_TX_FIELDS = [
  'blockHash',
  'blockNumber',
  'transactionIndex',
  'from',
  'gas',
  'gasPrice',
  'hash',
  'input',
  'nonce',
  'to',
  'value',
]
const RECIPIENT = '0x00000000000000000000000000000000000000aa'

let node: Node
let url: string
/** A key the node does not hold, funded by COW. */
const outsider = new Wallet('0x' + '42'.repeat(32))

const nonceOf = async (a: string, tag = 'latest') => BigInt(await rpc(url, 'eth_getTransactionCount', [a, tag]))
const content = () => rpc(url, 'txpool_content')
const inspect = () => rpc(url, 'txpool_inspect')
const status = () => rpc(url, 'txpool_status')
const key = (a: string) => a.slice(2).toLowerCase()
/** eth_sendTransaction from a node account; returns the hash. */
const send = (tx: Record<string, unknown>) => rpc<string>(url, 'eth_sendTransaction', [tx])
/** The i-th dev account (node-held key). */
const dev = (i: number) => node.accounts[i]!.address

beforeAll(async () => {
  node = await startNode()
  url = node.url
  await send({ from: COW.address, to: outsider.address, value: q(10n ** 18n) })
})
afterAll(() => node?.close())

describe('empty pool', () => {
  it('txpool_status {pending:0, queued:0} as JSON numbers; content and inspect {pending:{}, queued:{}}', async () => {
    const s = await status()
    expect(s).toEqual({ pending: 0, queued: 0 })
    expect(typeof s.pending).toBe('number')
    expect(await content()).toEqual({ pending: {}, queued: {} })
    expect(await inspect()).toEqual({ pending: {}, queued: {} })
    expect(await rpc(url, 'eth_pendingTransactions')).toEqual([])
  })
})

describe('future nonces (queued)', () => {
  it('a future-nonce tx waits under queued, keyed by sender without 0x and the nonce in decimal', async () => {
    const from = dev(2)
    const n = await nonceOf(from)
    const head = await rpc(url, 'eth_blockNumber')
    const hash = await send({ from, to: RECIPIENT, value: '0x80', gas: '0x5208', gasPrice: '0x0', nonce: q(n + 1n) })
    expect(await rpc(url, 'eth_blockNumber')).toBe(head) // nothing mined
    expect(await status()).toEqual({ pending: 0, queued: 1 })

    const c = await content()
    expect(c.pending).toEqual({})
    expect(Object.keys(c.queued)).toEqual([key(from)])
    expect(Object.keys(c.queued[key(from)])).toEqual([String(n + 1n)])
    const [entry] = c.queued[key(from)][String(n + 1n)]
    expectKeys(entry, POOL_TX_FIELDS)
    expect(entry).toEqual({
      blockHash: ZERO_HASH,
      blockNumber: null,
      transactionIndex: null,
      from,
      gas: '0x5208',
      gasPrice: '0x00', // Java BigInteger bytes of 0
      hash,
      input: '0x',
      nonce: q(n + 1n),
      to: RECIPIENT,
      value: '0x0080', // BigInteger.toByteArray() keeps a sign byte when the top bit is set
    })

    expect(await inspect()).toEqual({
      pending: {},
      queued: { [key(from)]: { [String(n + 1n)]: [`${key(RECIPIENT)}: 128 wei + 21000 x 0 gas`] } },
    })

    // eth_getTransactionByHash: the pooled tx with null block fields
    const tx = await rpc(url, 'eth_getTransactionByHash', [hash])
    expectKeys(tx, TX_FIELDS)
    expect(tx).toMatchObject({
      hash,
      from,
      to: RECIPIENT,
      nonce: q(n + 1n),
      value: '0x80',
      blockHash: null,
      blockNumber: null,
      transactionIndex: null,
    })
    expect(await rpc(url, 'eth_getTransactionReceipt', [hash])).toBeNull()

    // pending vs latest nonce: the gap means the pending nonce does not move
    expect(await nonceOf(from, 'pending')).toBe(n)
    expect(await nonceOf(from, 'latest')).toBe(n)
  })

  it('filling the gap mines both; the pool empties and the nonce advances by 2', async () => {
    const from = dev(3)
    const n = await nonceOf(from)
    const head = BigInt(await rpc(url, 'eth_blockNumber'))
    const later = await send({ from, to: RECIPIENT, value: '0x1', gas: '0x5208', nonce: q(n + 1n) })
    expect((await content()).queued[key(from)]).toBeDefined()
    const first = await send({ from, to: RECIPIENT, value: '0x1', gas: '0x5208' })
    const r1 = await rpc(url, 'eth_getTransactionReceipt', [first])
    const r2 = await rpc(url, 'eth_getTransactionReceipt', [later])
    expect(r1.status).toBe('0x1')
    expect(r2.status).toBe('0x1')
    expect(BigInt(r1.blockNumber)).toBe(head + 1n)
    expect(BigInt(r2.blockNumber)).toBe(head + 2n)
    expect(await nonceOf(from)).toBe(n + 2n)
    expect(await nonceOf(from, 'pending')).toBe(n + 2n)
    const c = await content()
    expect(c.pending[key(from)]).toBeUndefined()
    expect(c.queued[key(from)]).toBeUndefined()
    expect((await rpc(url, 'eth_getTransactionByHash', [later])).blockNumber).toBe(q(head + 2n))
  })

  it('a contract creation shows to "0x00" in content and an empty recipient in inspect', async () => {
    const from = dev(4)
    const n = await nonceOf(from)
    const hash = await send({ from, data: '0x00', gas: '0x186a0', value: '0x0', gasPrice: '0x3', nonce: q(n + 1n) })
    const [entry] = (await content()).queued[key(from)][String(n + 1n)]
    expect(entry).toMatchObject({ hash, to: '0x00', value: '0x00', gasPrice: '0x03', gas: '0x186a0', input: '0x00' })
    expect((await inspect()).queued[key(from)][String(n + 1n)]).toEqual([': 0 wei + 100000 x 3 gas'])
    expect((await rpc(url, 'eth_getTransactionByHash', [hash])).to).toBeNull()
  })
})

describe('replacement and duplicates (reference: +40% and strictly higher; -32010)', () => {
  it('same nonce: +39% → "gas price not enough to bump transaction"; +40% and more → replaced', async () => {
    const from = dev(5)
    const nonce = q((await nonceOf(from)) + 1n)
    const base = { from, to: RECIPIENT, value: '0x1', gas: '0x5208', nonce }
    const first = await send({ ...base, gasPrice: q(100) })

    // (the same price and value would be the very same tx: a duplicate, see below — so change the value)
    for (const price of [100, 101, 139]) {
      const e = await rpcError(url, 'eth_sendTransaction', [{ ...base, value: '0x2', gasPrice: q(price) }])
      expect([e.code, e.message]).toEqual([-32010, 'gas price not enough to bump transaction'])
    }
    const second = await send({ ...base, gasPrice: q(140) })
    let entries = (await content()).queued[key(from)]
    expect(Object.keys(entries)).toEqual([String(BigInt(nonce))])
    expect(entries[String(BigInt(nonce))].map((t: any) => [t.hash, t.gasPrice])).toEqual([[second, '0x008c']])
    expect(await rpc(url, 'eth_getTransactionByHash', [first])).toBeNull()

    // the next bump is relative to 140: 195 is short of 196
    const e = await rpcError(url, 'eth_sendTransaction', [{ ...base, gasPrice: q(195) }])
    expect(e.code).toBe(-32010)
    const third = await send({ ...base, gasPrice: q(1000) })
    entries = (await content()).queued[key(from)]
    expect(entries[String(BigInt(nonce))].map((t: any) => t.hash)).toEqual([third])
    expect(await status()).toMatchObject({ pending: 0 })
  })

  it('a zero gas price cannot be bumped by another zero (must be strictly higher)', async () => {
    const from = dev(6)
    const base = { from, to: RECIPIENT, value: '0x1', gas: '0x5208', nonce: q((await nonceOf(from)) + 1n) }
    await send({ ...base, gasPrice: '0x0' })
    const e = await rpcError(url, 'eth_sendTransaction', [{ ...base, value: '0x2', gasPrice: '0x0' }])
    expect([e.code, e.message]).toEqual([-32010, 'gas price not enough to bump transaction'])
    await send({ ...base, value: '0x2', gasPrice: '0x1' })
  })

  it('the same signed tx again → "pending transaction with same hash already exists"', async () => {
    const n = await nonceOf(outsider.address)
    const raw = await outsider.signTransaction({
      type: 0,
      chainId: 33,
      nonce: Number(n) + 1,
      gasPrice: 5,
      gasLimit: 21_000,
      to: RECIPIENT,
      value: 3,
    })
    const hash = await rpc<string>(url, 'eth_sendRawTransaction', [raw])
    const e = await rpcError(url, 'eth_sendRawTransaction', [raw])
    expect([e.code, e.message]).toEqual([-32010, 'pending transaction with same hash already exists'])
    expect((await content()).queued[key(outsider.address)][String(n + 1n)].map((t: any) => t.hash)).toEqual([hash])
  })
})

describe('eth_pendingTransactions', () => {
  it("lists pool transactions from the node's accounts only, as transaction objects", async () => {
    const from = dev(7)
    const mine = await send({ from, to: RECIPIENT, value: '0x5', gas: '0x5208', nonce: q((await nonceOf(from)) + 2n) })
    // the outsider's queued tx (previous test) is in the pool but not listed
    expect(Object.keys((await content()).queued)).toContain(key(outsider.address))
    const list = await rpc<any[]>(url, 'eth_pendingTransactions')
    for (const tx of list) {
      expectKeys(tx, TX_FIELDS)
      expect(tx.blockHash).toBeNull()
      expect(tx.blockNumber).toBeNull()
      expect(tx.transactionIndex).toBeNull()
      expect(node.accounts.map((a) => a.address)).toContain(tx.from)
    }
    expect(list.map((t) => t.hash)).toContain(mine)
    expect(list.map((t) => t.from)).not.toContain(outsider.address.toLowerCase())
    // every node-account pool tx is there
    const c = await content()
    const ours = Object.entries({ ...c.pending, ...c.queued })
      .filter(([sender]) => sender !== key(outsider.address))
      .flatMap(([, byNonce]) =>
        Object.values(byNonce as Record<string, any[]>)
          .flat()
          .map((t) => t.hash),
      )
    expect(list.map((t) => t.hash).sort()).toEqual(ours.sort())
  })
})

describe("eth_getTransactionCount 'pending' vs 'latest'", () => {
  it('pending counts executable pool transactions (automine off), latest only mined ones', async () => {
    const from = dev(1)
    const n = await nonceOf(from)
    internals(node).chain.setAutomine(false)
    try {
      await send({ from, to: RECIPIENT, value: '0x1', gas: '0x5208' })
      await send({ from, to: RECIPIENT, value: '0x1', gas: '0x5208' })
      await send({ from, to: RECIPIENT, value: '0x1', gas: '0x5208', nonce: q(n + 5n) }) // gap: not counted
      expect(await nonceOf(from, 'latest')).toBe(n)
      expect(await nonceOf(from, 'pending')).toBe(n + 2n)
      expect(await nonceOf(from)).toBe(n) // default: latest
      const s = await status()
      expect(s.pending).toBe(2)
      const c = await content()
      expect(Object.keys(c.pending[key(from)])).toEqual([String(n), String(n + 1n)])
      expect(Object.keys(c.queued[key(from)])).toEqual([String(n + 5n)])
      expect((await inspect()).pending[key(from)][String(n)]).toEqual([`${key(RECIPIENT)}: 1 wei + 21000 x 0 gas`])
      await internals(node).chain.mineBlock()
      expect(await nonceOf(from, 'latest')).toBe(n + 2n)
      expect(await nonceOf(from, 'pending')).toBe(n + 2n)
      expect((await content()).pending[key(from)]).toBeUndefined()
    } finally {
      internals(node).chain.setAutomine(true)
    }
  })
})
