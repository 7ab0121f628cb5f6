/**
 * Otterscan's connect probe and block pages over real HTTP (docs/otterscan.md): erigon_getHeaderByNumber,
 * ots_getApiLevel, ots_hasCode, ots_getBlockDetails(ByHash) and ots_getBlockTransactions, checked against the
 * node's own eth_getBlockByNumber / eth_getTransactionReceipt answers for the same blocks.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Node } from '../../src/index.js'
import { Probe } from '../../fixtures/index.js'
import { COW, COW1, rpc, rpcError, startNode } from '../helpers/node.js'
import { ADDR, BLOCK_FIELDS, deploy, HASH, q, sendTx } from './shapes.js'

const REMASC = '0x0000000000000000000000000000000001000008'
const HEADER_KEYS = [
  'parentHash',
  'sha3Uncles',
  'miner',
  'stateRoot',
  'transactionsRoot',
  'receiptsRoot',
  'logsBloom',
  'difficulty',
  'number',
  'gasLimit',
  'gasUsed',
  'timestamp',
  'extraData',
  'mixHash',
  'nonce',
  'hash',
]
/** Six sends mined together: five 1-wei transfers at different prices and one with a long input. */
const BATCH = 6
const LONG_INPUT = '0x' + 'ab'.repeat(40)

let node: Node
let url: string
let probe: string
let deployBlock: number
let batchBlock: number
let emptyBlock: number

beforeAll(async () => {
  node = await startNode()
  url = node.url
  const r = await deploy(url, Probe.bytecode)
  probe = r.address
  deployBlock = Number(r.receipt.blockNumber)
  await rpc(url, 'evm_setAutomine', [false])
  try {
    for (let i = 0; i < BATCH - 1; i++) {
      await rpc(url, 'eth_sendTransaction', [
        { from: COW.address, to: COW1.address, value: '0x1', gas: '0x5208', gasPrice: q(2 + i) },
      ])
    }
    await rpc(url, 'eth_sendTransaction', [
      { from: COW1.address, to: COW.address, value: '0x1', gas: '0x186a0', gasPrice: '0x3', data: LONG_INPUT },
    ])
    await rpc(url, 'evm_mine')
  } finally {
    await rpc(url, 'evm_setAutomine', [true])
  }
  batchBlock = Number(await rpc(url, 'eth_blockNumber'))
  await rpc(url, 'evm_mine')
  emptyBlock = batchBlock + 1
  // one more transaction after the batch so `latest` is not the block under test
  await sendTx(url, { to: COW1.address, value: '0x1', gas: '0x5208', gasPrice: '0x2' })
})
afterAll(() => node?.close())

const block = (n: number, full = false) => rpc(url, 'eth_getBlockByNumber', [q(n), full])

describe('the connect probe', () => {
  it('ots_getApiLevel answers 8 and rpc_modules lists ots and erigon', async () => {
    expect(await rpc(url, 'ots_getApiLevel')).toBe(8)
    const modules = await rpc<Record<string, string>>(url, 'rpc_modules')
    expect(modules).toMatchObject({ ots: '1.0', erigon: '1.0' })
  })

  it('erigon_getHeaderByNumber: the header keys, with the values of eth_getBlockByNumber', async () => {
    const latest = await rpc(url, 'erigon_getHeaderByNumber', ['latest'])
    expect(Object.keys(latest)).toEqual(HEADER_KEYS)
    const b = await rpc(url, 'eth_getBlockByNumber', ['latest', false])
    for (const k of HEADER_KEYS) expect(latest[k], k).toBe(b[k])
    // the UI sends a JSON number for a block number
    const h = await rpc(url, 'erigon_getHeaderByNumber', [batchBlock])
    expect(h.hash).toBe((await block(batchBlock)).hash)
    expect(h.number).toBe(q(batchBlock))
    expect(h).not.toHaveProperty('baseFeePerGas')
  })

  it('erigon_getHeaderByNumber: an unknown block is an error as in Erigon; a bad block -32602', async () => {
    const err = await rpcError(url, 'erigon_getHeaderByNumber', ['0xffff'])
    expect(err).toMatchObject({ code: -32000, message: 'block header not found: 65535' })
    expect((await rpcError(url, 'erigon_getHeaderByNumber', ['nope'])).code).toBe(-32602)
    expect((await rpcError(url, 'erigon_getHeaderByNumber', [])).code).toBe(-32602)
  })
})

describe('ots_hasCode', () => {
  it('true for a contract from its deploy block on, false for an account without code', async () => {
    expect(await rpc(url, 'ots_hasCode', [probe, 'latest'])).toBe(true)
    expect(await rpc(url, 'ots_hasCode', [probe, q(deployBlock)])).toBe(true)
    expect(await rpc(url, 'ots_hasCode', [probe, q(deployBlock - 1)])).toBe(false)
    expect(await rpc(url, 'ots_hasCode', [COW.address, 'latest'])).toBe(false)
    // a block hash, or the {blockHash} map, as eth_getCode takes
    const deployHash = (await block(deployBlock)).hash
    expect(await rpc(url, 'ots_hasCode', [probe, deployHash])).toBe(true)
    expect(await rpc(url, 'ots_hasCode', [probe, { blockHash: (await block(deployBlock - 1)).hash }])).toBe(false)
  })

  it('an unknown block is -32600 (as eth_getCode); a bad address -32602', async () => {
    expect(await rpcError(url, 'ots_hasCode', [probe, '0xffff'])).toMatchObject({
      code: -32600,
      message: 'Block 0xffff not found',
    })
    expect((await rpcError(url, 'ots_hasCode', ['0x12', 'latest'])).code).toBe(-32602)
  })
})

describe('ots_getBlockDetails / ots_getBlockDetailsByHash', () => {
  it('the block without transactions, with transactionCount and a null logsBloom; issuance 0; the fees paid', async () => {
    const eth = await block(batchBlock)
    const d = await rpc(url, 'ots_getBlockDetails', [batchBlock])
    expect(Object.keys(d).sort()).toEqual(['block', 'issuance', 'totalFees'])
    const expectedKeys = [...BLOCK_FIELDS.filter((k) => k !== 'transactions'), 'transactionCount']
    expect(Object.keys(d.block).sort()).toEqual([...expectedKeys].sort())
    for (const k of expectedKeys) {
      if (k === 'logsBloom' || k === 'transactionCount') continue
      expect(d.block[k], k).toEqual(eth[k])
    }
    expect(d.block.logsBloom).toBeNull()
    expect(d.block.transactionCount).toBe(BATCH + 1)
    expect(d.block.transactionCount).toBe(eth.transactions.length)
    expect(d.issuance).toEqual({ blockReward: '0x0', uncleReward: '0x0', issuance: '0x0' })

    // totalFees: Σ gasUsed × gasPrice over the block's receipts, which is the header's paidFees
    let sum = 0n
    for (const hash of eth.transactions as string[]) {
      const tx = await rpc(url, 'eth_getTransactionByHash', [hash])
      const r = await rpc(url, 'eth_getTransactionReceipt', [hash])
      sum += BigInt(r.gasUsed) * BigInt(tx.gasPrice)
    }
    expect(sum).toBeGreaterThan(0n)
    expect(d.totalFees).toBe(q(sum))
    expect(d.totalFees).toBe(eth.paidFees)

    expect(await rpc(url, 'ots_getBlockDetailsByHash', [eth.hash])).toEqual(d)
    expect(await rpc(url, 'ots_getBlockDetails', [q(batchBlock)])).toEqual(d)
  })

  it('the genesis has no transactions and no fees; a block with only Remasc has no fees', async () => {
    const g = await rpc(url, 'ots_getBlockDetails', [0])
    expect(g.block.transactionCount).toBe(0)
    expect(g.totalFees).toBe('0x0')
    const e = await rpc(url, 'ots_getBlockDetails', [emptyBlock])
    expect(e.block.transactionCount).toBe(1)
    expect(e.totalFees).toBe('0x0')
  })

  it('an unknown block is null; bad parameters -32602', async () => {
    expect(await rpc(url, 'ots_getBlockDetails', ['0xffff'])).toBeNull()
    expect(await rpc(url, 'ots_getBlockDetailsByHash', ['0x' + '12'.repeat(32)])).toBeNull()
    expect((await rpcError(url, 'ots_getBlockDetails', ['nope'])).code).toBe(-32602)
    expect((await rpcError(url, 'ots_getBlockDetailsByHash', ['0x1234'])).code).toBe(-32602)
    expect((await rpcError(url, 'ots_getBlockDetailsByHash', [])).code).toBe(-32602)
  })
})

describe('the pending block', () => {
  it('answers as eth_getBlockByNumber("pending") does: number, hash and miner null', async () => {
    const h = await rpc(url, 'erigon_getHeaderByNumber', ['pending'])
    expect(h).toMatchObject({ number: null, hash: null, miner: null })
    expect(h.parentHash).toBe((await rpc(url, 'eth_getBlockByNumber', ['latest', false])).hash)
    const d = await rpc(url, 'ots_getBlockDetails', ['pending'])
    expect(d.block).toMatchObject({ number: null, hash: null, logsBloom: null, transactionCount: 1 })
    expect(d.totalFees).toBe('0x0')
    const t = await rpc(url, 'ots_getBlockTransactions', ['pending', 0, 25])
    expect(t.fullblock.transactions.map((x: any) => x.to)).toEqual([REMASC])
    expect(t.receipts).toHaveLength(1)
  })
})

describe('ots_getBlockTransactions', () => {
  it('pages are cut from the block end: page 0 holds the last transactions, the Remasc one last', async () => {
    const eth = await block(batchBlock, true)
    const all = eth.transactions as any[]
    expect(all).toHaveLength(BATCH + 1)
    const pages = []
    for (let p = 0; p < 3; p++) pages.push(await rpc(url, 'ots_getBlockTransactions', [batchBlock, p, 3]))
    expect(pages.map((pg) => pg.fullblock.transactions.length)).toEqual([3, 3, 1])
    expect(pages[0].fullblock.transactions.map((t: any) => t.hash)).toEqual(all.slice(4).map((t) => t.hash))
    expect(pages[1].fullblock.transactions.map((t: any) => t.hash)).toEqual(all.slice(1, 4).map((t) => t.hash))
    expect(pages[2].fullblock.transactions.map((t: any) => t.hash)).toEqual([all[0].hash])
    const remasc = pages[0].fullblock.transactions[2]
    expect(remasc).toMatchObject({ to: REMASC, gasPrice: '0x0', transactionIndex: q(BATCH) })

    // past the start: an empty page of the same block
    const past = await rpc(url, 'ots_getBlockTransactions', [batchBlock, 3, 3])
    expect(past.fullblock.transactions).toEqual([])
    expect(past.receipts).toEqual([])
    expect(past.fullblock.transactionCount).toBe(BATCH + 1)
  })

  it('fullblock is the block JSON with its page of full transactions (input cut to the selector)', async () => {
    const eth = await block(batchBlock, true)
    const res = await rpc(url, 'ots_getBlockTransactions', [batchBlock, 0, 25])
    expect(Object.keys(res).sort()).toEqual(['fullblock', 'receipts'])
    const { fullblock } = res
    for (const k of BLOCK_FIELDS) {
      if (k === 'logsBloom' || k === 'transactions') continue
      expect(fullblock[k], k).toEqual(eth[k])
    }
    expect(fullblock.logsBloom).toBeNull()
    expect(fullblock.transactionCount).toBe(BATCH + 1)
    expect(fullblock.transactions).toHaveLength(BATCH + 1)
    let cropped = 0
    for (const [i, t] of (fullblock.transactions as any[]).entries()) {
      const e = eth.transactions[i]
      if (e.input.length > 10) {
        expect(e.input).toBe(LONG_INPUT)
        expect(t.input).toBe(LONG_INPUT.slice(0, 10))
        cropped++
      }
      expect({ ...t, input: e.input }).toEqual(e)
    }
    expect(cropped).toBe(1)
  })

  it('receipts pair with the page, as eth_getTransactionReceipt with logs and logsBloom null', async () => {
    const res = await rpc(url, 'ots_getBlockTransactions', [q(batchBlock), '0x0', '0x4'])
    expect(res.receipts).toHaveLength(4)
    for (const [i, r] of (res.receipts as any[]).entries()) {
      const tx = res.fullblock.transactions[i]
      expect(r.transactionHash).toBe(tx.hash)
      expect(r.transactionHash).toMatch(HASH)
      expect(r.from).toMatch(ADDR)
      const eth = await rpc(url, 'eth_getTransactionReceipt', [tx.hash])
      expect(r).toEqual({ ...eth, logs: null, logsBloom: null })
    }
  })

  it('the genesis is an empty page; an unknown block is null', async () => {
    const g = await rpc(url, 'ots_getBlockTransactions', [0, 0, 25])
    expect(g.fullblock.transactions).toEqual([])
    expect(g.fullblock.transactionCount).toBe(0)
    expect(g.receipts).toEqual([])
    expect(await rpc(url, 'ots_getBlockTransactions', ['0xffff', 0, 25])).toBeNull()
  })

  it('a page number or size over 255 (Erigon: uint8), or a bad one, is -32602', async () => {
    expect(await rpc(url, 'ots_getBlockTransactions', [batchBlock, 255, 255])).toMatchObject({ receipts: [] })
    expect(await rpcError(url, 'ots_getBlockTransactions', [batchBlock, 0, 256])).toMatchObject({
      code: -32602,
      message: 'invalid argument 2: pageSize must be at most 255, got 256',
    })
    expect(await rpcError(url, 'ots_getBlockTransactions', [batchBlock, 256, 25])).toMatchObject({
      code: -32602,
      message: 'invalid argument 1: pageNumber must be at most 255, got 256',
    })
    expect((await rpcError(url, 'ots_getBlockTransactions', [batchBlock, -1, 25])).code).toBe(-32602)
    expect((await rpcError(url, 'ots_getBlockTransactions', [batchBlock, 0])).code).toBe(-32602)
    expect((await rpcError(url, 'ots_getBlockTransactions', ['nope', 0, 25])).code).toBe(-32602)
    expect((await rpcError(url, 'ots_getBlockTransactions', [batchBlock, '25', 0])).code).toBe(-32602)
  })
})
