/**
 * Solidity console.log: calls to the console address decoded for each overload kind (string, uint, int, bool,
 * address, bytes, bytesN, the old `uint` spelling, format strings, 2-4 arguments), delivered once per
 * transaction / eth_call / eth_estimateGas through createNode's onConsoleLog and the chain's `console` event,
 * and off with consoleLog: false. Also the decoder on its own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AbiCoder, getAddress, Interface, id } from 'ethers'
import type { Node } from '../../src/index.js'
import type { ConsoleLogEvent } from '../../src/chain/chain.js'
import { decodeConsoleLog } from '../../src/execution/console-log.js'
import { ConsoleProbe, Probe } from '../../fixtures/index.js'
import { COW, internals, rpc, rpcError, startNode } from '../helpers/node.js'
import { deploy, sendTx } from './shapes.js'

const probe = new Interface(ConsoleProbe.abi)
const ALL_LINES = (counter: number, sender: string) => [
  'hello',
  '42',
  '-7',
  'true',
  '0x7986b3DF570230288501EEa3D890bd66948C9B79',
  '0xc0ffee',
  '0xdeadbeef',
  '5',
  `counter is ${counter}`,
  `from ${sender} ok true`,
  '1 two -3 0x0000000000000000000000000000000000000000',
  '',
]
const ZERO_SENDER = '0x0000000000000000000000000000000000000000'

describe('console.log', () => {
  let node: Node
  let url: string
  let address: string
  const events: ConsoleLogEvent[] = []
  beforeAll(async () => {
    node = await startNode({ onConsoleLog: (e) => events.push(e) })
    url = node.url
    ;({ address } = await deploy(url, ConsoleProbe.bytecode))
  })
  afterAll(() => node?.close())
  const take = (): ConsoleLogEvent[] => events.splice(0)

  it('eth_call: every overload kind, in order, once', async () => {
    take()
    await rpc(url, 'eth_call', [{ to: address, data: probe.encodeFunctionData('all') }, 'latest'])
    expect(take()).toEqual([{ source: 'call', lines: ALL_LINES(0, ZERO_SENDER) }])
  })

  it('a mined transaction: under its hash; the chain `console` event carries the same', async () => {
    const seen: ConsoleLogEvent[] = []
    const listener = (e: ConsoleLogEvent) => seen.push(e)
    internals(node).chain.on('console', listener)
    take()
    const r = await sendTx(url, { to: address, data: probe.encodeFunctionData('count') })
    internals(node).chain.off('console', listener)
    const got = take()
    expect(got).toHaveLength(1)
    expect(got[0]!.source).toBe('transaction')
    expect('0x' + Buffer.from(got[0]!.hash!).toString('hex')).toBe(r.transactionHash)
    expect(got[0]!.lines).toEqual(['count now 1'])
    expect(seen).toEqual(got)
    // the contract's own events are untouched
    expect(r.logs).toHaveLength(1)
  })

  it('eth_estimateGas prints too; nested frames in order; a failing call still prints its lines', async () => {
    take()
    await rpc(url, 'eth_estimateGas', [{ from: COW.address, to: address, data: probe.encodeFunctionData('count') }])
    expect(take()).toEqual([{ source: 'estimateGas', lines: ['count now 2'] }])
    await rpc(url, 'eth_call', [{ from: COW.address, to: address, data: probe.encodeFunctionData('nested') }, 'latest'])
    expect(take()).toEqual([{ source: 'call', lines: ['outer', ...ALL_LINES(1, getAddress(address))] }])
    expect(
      (await rpcError(url, 'eth_call', [{ to: address, data: probe.encodeFunctionData('failing') }, 'latest'])).code,
    ).toBe(-32015)
    expect(take()).toEqual([{ source: 'call', lines: ['about to fail'] }])
  })

  it('a contract that never logs produces no event; tracing replays do not print', async () => {
    const { address: p } = await deploy(url, Probe.bytecode)
    take()
    await rpc(url, 'eth_call', [{ to: p, data: new Interface(Probe.abi).encodeFunctionData('value') }, 'latest'])
    const r = await sendTx(url, { to: address, data: probe.encodeFunctionData('count') })
    take()
    await rpc(url, 'debug_traceTransaction', [r.transactionHash, { tracer: 'callTracer' }])
    await rpc(url, 'eth_call', [{ to: p, data: new Interface(Probe.abi).encodeFunctionData('value') }, 'latest'])
    expect(take()).toEqual([])
  })

  it('consoleLog: false switches decoding off', async () => {
    const seen: ConsoleLogEvent[] = []
    const quiet = await startNode({ consoleLog: false, onConsoleLog: (e) => seen.push(e) })
    try {
      const { address: a } = await deploy(quiet.url, ConsoleProbe.bytecode)
      await rpc(quiet.url, 'eth_call', [{ to: a, data: probe.encodeFunctionData('all') }, 'latest'])
      await sendTx(quiet.url, { to: a, data: probe.encodeFunctionData('count') })
      expect(seen).toEqual([])
    } finally {
      await quiet.close()
    }
  })
})

describe('decodeConsoleLog', () => {
  const abi = AbiCoder.defaultAbiCoder()
  const call = (sig: string, types: string[], values: unknown[]) =>
    Uint8Array.from(Buffer.from(id(sig).slice(2, 10) + abi.encode(types, values).slice(2), 'hex'))

  it.each([
    ['log(string)', ['string'], ['hi'], 'hi'],
    ['logString(string)', ['string'], ['hi'], 'hi'],
    ['logUint(uint256)', ['uint256'], [7n], '7'],
    ['logUint(uint)', ['uint256'], [7n], '7'],
    ['logInt(int256)', ['int256'], [-1n], '-1'],
    ['logBool(bool)', ['bool'], [false], 'false'],
    [
      'logAddress(address)',
      ['address'],
      ['0xcd2a3d9f938e13cd947ec05abc7fe734df8dd826'],
      getAddress('0xcd2a3d9f938e13cd947ec05abc7fe734df8dd826'),
    ],
    ['logBytes32(bytes32)', ['bytes32'], ['0x' + '11'.repeat(32)], '0x' + '11'.repeat(32)],
    ['logBytes1(bytes1)', ['bytes1'], ['0xab'], '0xab'],
    ['log(uint,uint)', ['uint256', 'uint256'], [1n, 2n], '1 2'],
    ['log(string,string,string)', ['string', 'string', 'string'], ['%s-%s', 'a', 'b'], 'a-b'],
    ['log(string,uint256,uint256)', ['string', 'uint256', 'uint256'], ['%d%% of %i', 5n, 9n], '5% of 9'],
    [
      'log(bool,address,string,uint256)',
      ['bool', 'address', 'string', 'uint256'],
      [true, '0x' + '00'.repeat(20), 'x', 3n],
      'true 0x0000000000000000000000000000000000000000 x 3',
    ],
    ['log(string,uint256)', ['string', 'uint256'], ['no format', 3n], 'no format 3'],
  ])('%s', (sig, types, values, line) => {
    expect(decodeConsoleLog(call(sig, types, values))).toBe(line)
  })

  it('unknown selectors and short data are ignored', () => {
    expect(decodeConsoleLog(Uint8Array.of(1, 2, 3, 4))).toBeUndefined()
    expect(decodeConsoleLog(Uint8Array.of(1))).toBeUndefined()
    expect(decodeConsoleLog(call('log(uint256)', [], []))).toBeUndefined()
  })
})
