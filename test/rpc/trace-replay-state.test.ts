/**
 * Which state the tracers replay a block on: the state it ran on, including changes made in place between
 * blocks (anvil_setCode / setBalance / setStorageAt before the transaction), and the reference's
 * "State not found" (-32600) once the parent's state is older than --state-history.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Node } from '../../src/index.js'
import { COW, COW1, rpc, rpcError, startNode } from '../helpers/node.js'

/** Runtime code: SLOAD slot 0, return it. */
const LOAD = '0x60005460005260206000f3'
const TARGET = '0x00000000000000000000000000000000000abcde'
const word = (n: number): string => '0x' + n.toString(16).padStart(64, '0')

describe('replay state', () => {
  let node: Node
  let url: string
  beforeAll(async () => {
    node = await startNode({ stateHistory: 5 })
    url = node.url
  })
  afterAll(() => node.close())

  it('code and storage set in place before the transaction are part of the replayed state', async () => {
    await rpc(url, 'anvil_setCode', [TARGET, LOAD])
    await rpc(url, 'anvil_setStorageAt', [TARGET, '0x0', word(0x77)])
    const hash = await rpc(url, 'eth_sendTransaction', [{ from: COW.address, to: TARGET, gas: '0x20000' }])
    const t = await rpc(url, 'debug_traceTransaction', [hash, { tracer: 'callTracer' }])
    expect(t).toMatchObject({ type: 'CALL', to: TARGET, output: '0x77' })
    const s = await rpc(url, 'debug_traceTransaction', [hash])
    expect(s.initStorage).toEqual({ [word(0).slice(2)]: word(0x77).slice(2) })
    expect(s.structLogs.map((l: any) => l.op)).toEqual([
      'PUSH1',
      'SLOAD',
      'PUSH1',
      'MSTORE',
      'PUSH1',
      'PUSH1',
      'RETURN',
    ])
    const [p] = await rpc(url, 'trace_transaction', [hash])
    expect(p.result.output).toBe(word(0x77))
  })

  it('past --state-history: -32600 "State not found…" for every tracing method; recent blocks still trace', async () => {
    const first = await rpc(url, 'eth_sendTransaction', [{ from: COW.address, to: COW1.address, value: '0x1' }])
    for (let i = 0; i < 30; i++)
      await rpc(url, 'eth_sendTransaction', [{ from: COW.address, to: COW1.address, value: '0x1' }])
    const receipt = await rpc(url, 'eth_getTransactionReceipt', [first])
    const parent = await rpc(url, 'eth_getBlockByNumber', [
      '0x' + (BigInt(receipt.blockNumber) - 1n).toString(16),
      false,
    ])
    for (const [m, params] of [
      ['debug_traceTransaction', [first]],
      ['debug_traceBlockByNumber', [receipt.blockNumber]],
      ['trace_transaction', [first]],
      ['trace_block', [receipt.blockNumber]],
    ] as const) {
      const e = await rpcError(url, m, [...params])
      expect(e.code, m).toBe(-32600)
      expect(e.message).toBe(`State not found for block with hash ${parent.hash}`)
    }
    // the Remasc transaction of an old block needs no state: it is not executed
    const old = await rpc(url, 'eth_getBlockByNumber', [receipt.blockNumber, false])
    const remasc = old.transactions.at(-1)
    expect(await rpc(url, 'trace_transaction', [remasc])).toMatchObject([
      { type: 'call', action: { to: '0x0000000000000000000000000000000001000008' } },
    ])
    expect(await rpc(url, 'debug_traceTransaction', [remasc, { tracer: 'callTracer' }])).toMatchObject({
      type: 'CALL',
      gas: '0x0',
    })
    expect(
      await rpc(url, 'trace_filter', [
        {
          fromBlock: receipt.blockNumber,
          toBlock: receipt.blockNumber,
          toAddress: ['0x0000000000000000000000000000000001000008'],
        },
      ]),
    ).toHaveLength(1)
    const last = await rpc(url, 'eth_sendTransaction', [{ from: COW.address, to: COW1.address, value: '0x1' }])
    expect(await rpc(url, 'debug_traceTransaction', [last, { tracer: 'callTracer' }])).toMatchObject({
      type: 'CALL',
      value: '0x1',
      gasUsed: '0x5208',
    })
  })
})
