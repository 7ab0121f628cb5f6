/**
 * trace_transaction / trace_block / trace_filter / trace_get over real HTTP: the parity shapes as the reference
 * emits them (blockNumber a JSON number, call/create/suicide actions, result null plus error on failure,
 * "Reverted"), traceAddress and subtraces of nested calls, the Remasc transaction, trace_filter's address
 * filters and after/count paging, unknown hashes (null) and the errors.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Interface } from 'ethers'
import type { Node } from '../../src/index.js'
import { Probe } from '../../fixtures/index.js'
import { COW, COW1, rpc, rpcError, startNode } from '../helpers/node.js'
import { deploy, q, sendTx } from './shapes.js'

const probe = new Interface(Probe.abi)
let node: Node
let url: string
let probeAddress: string
let relay: string
let suicide: string
const REMASC = '0x0000000000000000000000000000000001000008'
const ZERO = '0x' + '00'.repeat(20)

const initFor = (runtime: string): string => {
  const len = (runtime.length / 2).toString(16).padStart(2, '0')
  return '0x60' + len + '600c60003960' + len + '6000f3' + runtime
}
/** Forwards the calldata to `target` with CALL and returns its return data (ignores failure). */
const relayCode = (target: string): string =>
  '366000600037' +
  '60006000366000' +
  '6000' +
  '73' +
  target.slice(2).toLowerCase() +
  '5a' +
  'f1' +
  '3d600060003e' +
  '3d6000f3'

const traceTx = (hash: string) => rpc(url, 'trace_transaction', [hash])

beforeAll(async () => {
  node = await startNode()
  url = node.url
  ;({ address: probeAddress } = await deploy(url, Probe.bytecode))
  ;({ address: relay } = await deploy(url, initFor(relayCode(probeAddress))))
  ;({ address: suicide } = await deploy(url, initFor('73' + COW1.address.slice(2) + 'ff')))
  expect(
    (await sendTx(url, { to: probeAddress, value: q(500), data: probe.encodeFunctionData('deposit') })).status,
  ).toBe('0x1')
})
afterAll(() => node?.close())

describe('trace_transaction', () => {
  it('a call with a nested value call: traceAddress, subtraces, blockNumber as a number, receipt gas on top', async () => {
    const data = probe.encodeFunctionData('withdraw', [COW1.address, 7])
    const r = await sendTx(url, { to: probeAddress, data })
    const t = await traceTx(r.transactionHash)
    const common = {
      blockHash: r.blockHash,
      blockNumber: Number(r.blockNumber),
      transactionHash: r.transactionHash,
      transactionPosition: 0,
    }
    expect(t).toEqual([
      {
        action: { callType: 'call', from: COW.address, to: probeAddress, gas: '0x2dc6c0', input: data, value: '0x0' },
        ...common,
        type: 'call',
        subtraces: 1,
        traceAddress: [],
        result: { gasUsed: r.gasUsed, output: '0x' },
      },
      {
        action: {
          callType: 'call',
          from: probeAddress,
          to: COW1.address,
          gas: t[1].action.gas,
          input: '0x',
          value: '0x7',
        },
        ...common,
        type: 'call',
        subtraces: 0,
        traceAddress: [0],
        result: { gasUsed: '0x0', output: '0x' },
      },
    ])
  })

  it('each CALL has its own input (the reference bug of repeating the transaction input is not reproduced); deeper traceAddress', async () => {
    const data = probe.encodeFunctionData('deploy', [3])
    const r = await sendTx(url, { to: relay, data })
    const t = await traceTx(r.transactionHash)
    expect(t.map((x: any) => [x.type, x.traceAddress, x.subtraces])).toEqual([
      ['call', [], 1],
      ['call', [0], 1],
      ['create', [0, 0], 0],
    ])
    expect(t[1].action).toMatchObject({ from: relay, to: probeAddress, input: data })
    expect(t[2].action).toMatchObject({ from: probeAddress, creationMethod: 'create2', value: '0x0' })
    expect(t[2].action.init.length).toBeGreaterThan(10)
    expect(t[2].result.address).toMatch(/^0x[0-9a-f]{40}$/)
    expect(t[2].result.code).toBe(await rpc(url, 'eth_getCode', [t[2].result.address, 'latest']))
  })

  it('a deployment: create action {from, gas, init, value} without creationMethod, result {gasUsed, code, address}', async () => {
    const init = initFor('600160005500')
    const { address, receipt } = await deploy(url, init)
    const [t] = await traceTx(receipt.transactionHash)
    expect(t.type).toBe('create')
    expect(t.action).toEqual({ from: COW.address, gas: t.action.gas, init, value: '0x0' })
    expect(t.result).toEqual({ gasUsed: receipt.gasUsed, code: '0x600160005500', address })
  })

  it('suicide: {address, refundAddress, balance}, result null', async () => {
    const r = await sendTx(url, { to: suicide, value: q(99) })
    const t = await traceTx(r.transactionHash)
    expect(t[1]).toMatchObject({
      type: 'suicide',
      action: { address: suicide, refundAddress: COW1.address, balance: q(99) },
      result: null,
      traceAddress: [0],
    })
    expect(t[1].error).toBeUndefined()
  })

  it('failures: result null with error "Reverted", or the EVM error; a reverted child in a successful call', async () => {
    const e = await rpcError(url, 'eth_sendTransaction', [
      { from: COW.address, to: probeAddress, gas: '0x30000', data: probe.encodeFunctionData('failWithReason') },
    ])
    expect(e.code).toBe(-32015)
    const head = await rpc(url, 'eth_getBlockByNumber', ['latest', false])
    const [t] = await traceTx(head.transactionHashes?.[0] ?? head.transactions[0])
    expect(t).toMatchObject({ result: null, error: 'Reverted', type: 'call' })
    const r = await sendTx(url, { to: relay, data: probe.encodeFunctionData('failWithReason') })
    expect(r.status).toBe('0x1')
    const t2 = await traceTx(r.transactionHash)
    expect(t2[0].error).toBeUndefined()
    expect(t2[1]).toMatchObject({ result: null, error: 'Reverted', traceAddress: [0] })
  })

  it('the Remasc transaction: a plain call with no gas', async () => {
    const block = await rpc(url, 'eth_getBlockByNumber', ['latest', false])
    const remascHash = block.transactions.at(-1)
    expect(await traceTx(remascHash)).toEqual([
      {
        action: { callType: 'call', from: ZERO, to: REMASC, gas: '0x0', input: '0x', value: '0x0' },
        blockHash: block.hash,
        blockNumber: Number(block.number),
        transactionHash: remascHash,
        transactionPosition: block.transactions.length - 1,
        type: 'call',
        subtraces: 0,
        traceAddress: [],
        result: { gasUsed: '0x0', output: '0x' },
      },
    ])
  })

  it('unknown hash → null; a malformed hash → -32602', async () => {
    expect(await traceTx('0x' + '12'.repeat(32))).toBeNull()
    expect((await rpcError(url, 'trace_transaction', ['0x12'])).code).toBe(-32602)
  })
})

describe('trace_block', () => {
  it('by number, tag and hash: every transaction of the block in order, Remasc last; genesis → []', async () => {
    const r = await sendTx(url, { to: probeAddress, data: probe.encodeFunctionData('value') })
    const byNumber = await rpc(url, 'trace_block', [r.blockNumber])
    expect(byNumber.map((t: any) => t.transactionPosition)).toEqual([0, 1])
    expect(byNumber[0]).toEqual((await traceTx(r.transactionHash))[0])
    expect(byNumber[1].action.to).toBe(REMASC)
    expect(await rpc(url, 'trace_block', ['latest'])).toEqual(byNumber)
    expect(await rpc(url, 'trace_block', [r.blockHash])).toEqual(byNumber)
    expect(await rpc(url, 'trace_block', ['earliest'])).toEqual([])
  })

  it('unknown block → null; pending → the reference -32201; malformed → -32602', async () => {
    expect(await rpc(url, 'trace_block', ['0xfffff'])).toBeNull()
    expect(await rpc(url, 'trace_block', ['0x' + '34'.repeat(32)])).toBeNull()
    expect((await rpcError(url, 'trace_block', ['pending'])).code).toBe(-32201)
    expect((await rpcError(url, 'trace_block', ['soon'])).code).toBe(-32602)
    expect((await rpcError(url, 'trace_block', [])).code).toBe(-32602)
  })
})

describe('trace_filter and trace_get', () => {
  it('a range with address filters, then after/count paging over the same list', async () => {
    const start = await rpc(url, 'eth_blockNumber')
    const sends = []
    for (let i = 0; i < 3; i++) sends.push(await sendTx(url, { to: relay, data: probe.encodeFunctionData('value') }))
    const end = await rpc(url, 'eth_blockNumber')
    const range = { fromBlock: q(BigInt(start) + 1n), toBlock: end }
    const all = await rpc(url, 'trace_filter', [range])
    // per block: relay call + its child + Remasc
    expect(all).toHaveLength(9)
    const mine = await rpc(url, 'trace_filter', [{ ...range, fromAddress: [COW.address], toAddress: [relay] }])
    expect(mine.map((t: any) => [t.transactionHash, t.traceAddress])).toEqual(
      sends.flatMap((s) => [
        [s.transactionHash, []],
        [s.transactionHash, [0]],
      ]),
    )
    expect(await rpc(url, 'trace_filter', [{ ...range, toAddress: [probeAddress] }])).toEqual([])
    const page = await rpc(url, 'trace_filter', [{ ...range, fromAddress: [COW.address], after: 1, count: 3 }])
    expect(page).toEqual(mine.slice(1, 4))
    expect(await rpc(url, 'trace_filter', [{ ...range, after: 100 }])).toEqual([])
    // defaults: earliest..latest
    expect(await rpc(url, 'trace_filter', [{ fromAddress: [COW1.address] }])).toEqual([])
  })

  it('errors: fromBlock after toBlock, count or after beyond 10 000, malformed addresses', async () => {
    expect((await rpcError(url, 'trace_filter', [{ fromBlock: '0x5', toBlock: '0x2' }])).message).toContain(
      'fromBlock must not be greater than toBlock',
    )
    expect((await rpcError(url, 'trace_filter', [{ count: q(10_001) }])).message).toContain(
      'count exceeds the maximum of 10000',
    )
    expect((await rpcError(url, 'trace_filter', [{ after: q(10_001) }])).code).toBe(-32602)
    expect((await rpcError(url, 'trace_filter', [{ fromAddress: ['0x12'] }])).message).toContain('fromAddress')
    expect((await rpcError(url, 'trace_filter', ['latest'])).code).toBe(-32602)
  })

  it('trace_get(hash, [i]): the i-th trace of the transaction; beyond → null; unknown hash → null', async () => {
    const r = await sendTx(url, { to: relay, data: probe.encodeFunctionData('value') })
    const all = await traceTx(r.transactionHash)
    expect(await rpc(url, 'trace_get', [r.transactionHash, ['0x0']])).toEqual(all[0])
    expect(await rpc(url, 'trace_get', [r.transactionHash, ['0x1']])).toEqual(all[1])
    expect(await rpc(url, 'trace_get', [r.transactionHash, ['0x5']])).toBeNull()
    expect(await rpc(url, 'trace_get', ['0x' + '56'.repeat(32), ['0x0']])).toBeNull()
    expect((await rpcError(url, 'trace_get', [r.transactionHash, []])).code).toBe(-32602)
  })
})
