/**
 * debug_traceTransaction / debug_traceBlockByHash / debug_traceBlockByNumber / debug_traceCall over real HTTP:
 * the reference's struct logs of hand-assembled bytecode checked entry by entry, geth's struct-log format, the
 * reference's callTracer (nested calls, DELEGATECALL/STATICCALL, value transfers, CREATE/CREATE2,
 * SELFDESTRUCT, reverts with reasons and custom errors, out of gas, precompiles, logs), prestateTracer,
 * 4byteTracer, the 10 MB limit (-32011), unknown hashes (null) and malformed options (-32602).
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

/** Init code that deploys `runtime` (hex without 0x). */
const initFor = (runtime: string): string => {
  const len = (runtime.length / 2).toString(16).padStart(2, '0')
  return '0x60' + len + '600c60003960' + len + '6000f3' + runtime
}
/** MSTORE 0x2a at 0, SSTORE 7 at slot 1, SLOAD slot 1, RETURN memory[0:32]. */
const STORE = '602a600052' + '6007600155' + '600154' + '60206000f3'
/** Forwards the calldata to `target` with CALL (f1), DELEGATECALL (f4) or STATICCALL (fa) and returns its return data. */
const relay = (op: 'f1' | 'f4' | 'fa', target: string): string =>
  '3660006000' +
  '37' +
  '60006000366000' +
  (op === 'f1' ? '6000' : '') +
  '73' +
  target.slice(2).toLowerCase() +
  '5a' +
  op +
  '3d600060003e' +
  '3d6000f3'
/** SELFDESTRUCT to COW1. */
const SUICIDE = '73' + COW1.address.slice(2) + 'ff'
/** A loop that never ends (JUMPDEST PUSH1 0 JUMP): runs out of gas. */
const LOOP = '5b600056'
/** A loop that writes 64 bytes of memory per step and never ends: a huge struct-log trace. */
const MEMLOOP = '5b' + '59' + '59' + '52' + '600056'

const trace = (hash: string, opts?: unknown) =>
  rpc(url, 'debug_traceTransaction', opts === undefined ? [hash] : [hash, opts])
const callTrace = (hash: string, cfg: Record<string, unknown> = {}) =>
  trace(hash, { tracer: 'callTracer', tracerConfig: cfg })
const send = async (tx: Record<string, unknown>): Promise<any> => sendTx(url, tx)
/** Sends a transaction that fails (automine answers -32015 and mines it); returns its receipt. */
const sendFailing = async (tx: Record<string, unknown>): Promise<any> => {
  expect((await rpcError(url, 'eth_sendTransaction', [{ from: COW.address, gas: '0x2dc6c0', ...tx }])).code).toBe(
    -32015,
  )
  const block = await rpc(url, 'eth_getBlockByNumber', ['latest', false])
  const receipt = await rpc(url, 'eth_getTransactionReceipt', [block.transactions[0]])
  expect(receipt.status).toBe('0x0')
  return receipt
}
const w = (n: number | bigint): string => n.toString(16).padStart(64, '0')

let store: string
let relayCall: string
let relayDelegate: string
let relayStatic: string
let relaySha: string
let nested: string
let suicide: string
let loop: string
let memLoop: string

beforeAll(async () => {
  node = await startNode()
  url = node.url
  ;({ address: probeAddress } = await deploy(url, Probe.bytecode))
  ;({ address: store } = await deploy(url, initFor(STORE)))
  ;({ address: relayCall } = await deploy(url, initFor(relay('f1', probeAddress))))
  ;({ address: relayDelegate } = await deploy(url, initFor(relay('f4', probeAddress))))
  ;({ address: relayStatic } = await deploy(url, initFor(relay('fa', probeAddress))))
  ;({ address: relaySha } = await deploy(url, initFor(relay('f1', '0x0000000000000000000000000000000000000002'))))
  ;({ address: nested } = await deploy(url, initFor(relay('f1', relayStatic))))
  ;({ address: suicide } = await deploy(url, initFor(SUICIDE)))
  ;({ address: loop } = await deploy(url, initFor(LOOP)))
  ;({ address: memLoop } = await deploy(url, initFor(MEMLOOP)))
  // Probe holds 1000 wei for withdraw()
  expect((await send({ to: probeAddress, value: q(1000), data: probe.encodeFunctionData('deposit') })).status).toBe(
    '0x1',
  )
})
afterAll(() => node?.close())

describe('default tracer: the reference struct logs', () => {
  it('hand-assembled code: every entry exactly (op, depth, pc, gas, gasCost, memory, stack, storage)', async () => {
    const r = await send({ to: store, gas: q(100_000) })
    expect(r.status).toBe('0x1')
    const t = await trace(r.transactionHash)
    const g = 100_000 - 21_000
    const s1 = { [w(1)]: w(7) }
    const m = [w(0x2a)]
    expect(t.structLogs).toEqual([
      { op: 'PUSH1', depth: 0, pc: 0, gas: g, gasCost: 3, memory: [], stack: [], storage: {} },
      { op: 'PUSH1', depth: 0, pc: 2, gas: g - 3, gasCost: 3, memory: [], stack: [w(0x2a)], storage: {} },
      { op: 'MSTORE', depth: 0, pc: 4, gas: g - 6, gasCost: 6, memory: [], stack: [w(0x2a), w(0)], storage: {} },
      { op: 'PUSH1', depth: 0, pc: 5, gas: g - 12, gasCost: 3, memory: m, stack: [], storage: {} },
      { op: 'PUSH1', depth: 0, pc: 7, gas: g - 15, gasCost: 3, memory: m, stack: [w(7)], storage: {} },
      { op: 'SSTORE', depth: 0, pc: 9, gas: g - 18, gasCost: 20_000, memory: m, stack: [w(7), w(1)], storage: {} },
      { op: 'PUSH1', depth: 0, pc: 10, gas: g - 20_018, gasCost: 3, memory: m, stack: [], storage: s1 },
      {
        op: 'SLOAD',
        depth: 0,
        pc: 12,
        gas: g - 20_021,
        gasCost: t.structLogs[7].gasCost,
        memory: m,
        stack: [w(1)],
        storage: s1,
      },
      {
        op: 'PUSH1',
        depth: 0,
        pc: 13,
        gas: g - 20_021 - t.structLogs[7].gasCost,
        gasCost: 3,
        memory: m,
        stack: [w(7)],
        storage: s1,
      },
      {
        op: 'PUSH1',
        depth: 0,
        pc: 15,
        gas: g - 20_024 - t.structLogs[7].gasCost,
        gasCost: 3,
        memory: m,
        stack: [w(7), w(0x20)],
        storage: s1,
      },
      {
        op: 'RETURN',
        depth: 0,
        pc: 17,
        gas: g - 20_027 - t.structLogs[7].gasCost,
        gasCost: 0,
        memory: m,
        stack: [w(7), w(0x20), w(0)],
        storage: s1,
      },
    ])
    expect(t.structLogs[7].gasCost).toBeGreaterThan(0)
    expect(t).toMatchObject({
      contractAddress: store.slice(2),
      initStorage: {},
      result: w(0x2a),
      error: '',
      reverted: false,
      storageSize: 1,
      currentStorage: s1,
    })
    // the receipt gas is what the trace spent
    expect(BigInt(r.gasUsed)).toBe(BigInt(21_000 + 20_027 + t.structLogs[7].gasCost))
  })

  it('a second run starts from the stored cells (initStorage); disableMemory/Stack/Storage drop the fields', async () => {
    const r = await send({ to: store, gas: q(100_000) })
    const t = await trace(r.transactionHash, { disableMemory: true, disableStack: true, disableStorage: true })
    expect(t.structLogs[0]).toEqual({ op: 'PUSH1', depth: 0, pc: 0, gas: 79_000, gasCost: 3 })
    expect(t.structLogs.map((l: any) => l.op)).toEqual([
      'PUSH1',
      'PUSH1',
      'MSTORE',
      'PUSH1',
      'PUSH1',
      'SSTORE',
      'PUSH1',
      'SLOAD',
      'PUSH1',
      'PUSH1',
      'RETURN',
    ])
    const full = await trace(r.transactionHash)
    expect(full.initStorage).toEqual({ [w(1)]: w(7) })
    expect(full.structLogs[0].storage).toEqual({ [w(1)]: w(7) })
  })

  it('sub-call entries follow the CALL at depth + 1, with their own storage; reverts are flagged', async () => {
    const r = await send({ to: relayCall, data: probe.encodeFunctionData('value') })
    const t = await trace(r.transactionHash)
    const depths = [...new Set(t.structLogs.map((l: any) => l.depth))]
    expect(depths).toEqual([0, 1])
    const call = t.structLogs.findIndex((l: any) => l.op === 'CALL')
    expect(t.structLogs[call + 1]).toMatchObject({ depth: 1, pc: 0 })
    expect(t.structLogs.slice(call + 1).some((l: any) => l.op === 'SLOAD' && l.depth === 1)).toBe(true)
    const bad = await sendFailing({ to: probeAddress, data: probe.encodeFunctionData('failWithReason') })
    const tb = await trace(bad.transactionHash)
    expect(tb).toMatchObject({ reverted: true, error: '' })
    expect(tb.structLogs.at(-1).op).toBe('REVERT')
    expect(tb.result).toContain('08c379a0'.slice(0)) // Error(string) selector (hex without 0x)
  })
})

describe('geth struct logs (tracer "structLogger")', () => {
  it('{gas, failed, returnValue, structLogs}: depth from 1, 0x stack, storage on SLOAD/SSTORE, memory only with enableMemory', async () => {
    const r = await send({ to: store, gas: q(100_000) })
    const t = await trace(r.transactionHash, { tracer: 'structLogger' })
    expect(t.gas).toBe(Number(BigInt(r.gasUsed)))
    expect(t.failed).toBe(false)
    expect(t.returnValue).toBe(w(0x2a))
    expect(t.structLogs[2]).toEqual({ pc: 4, op: 'MSTORE', gas: 78_994, gasCost: 6, depth: 1, stack: ['0x2a', '0x0'] })
    expect(t.structLogs[5]).toEqual({
      pc: 9,
      op: 'SSTORE',
      gas: 78_982,
      gasCost: t.structLogs[5].gasCost,
      depth: 1,
      stack: ['0x7', '0x1'],
      storage: { [w(1)]: w(7) },
    })
    expect(t.structLogs[7]).toMatchObject({ op: 'SLOAD', storage: { [w(1)]: w(7) } })
    expect(t.structLogs[3].memory).toBeUndefined()
    const withMem = await trace(r.transactionHash, {
      tracer: 'structLogger',
      enableMemory: true,
      enableReturnData: true,
    })
    expect(withMem.structLogs[3].memory).toEqual([w(0x2a)])
    expect(withMem.structLogs[3].returnData).toBe('0x')
    const bad = await sendFailing({ to: loop, gas: q(30_000) })
    expect((await trace(bad.transactionHash, { tracer: 'structLogger', disableStack: true })).failed).toBe(true)
  })
})

describe('callTracer (the reference shape)', () => {
  it('a plain call: type, from, to, value, gas, gasUsed = receipt gas, input, output without leading zeros', async () => {
    const r = await send({ to: probeAddress, data: probe.encodeFunctionData('value') })
    expect(await callTrace(r.transactionHash)).toEqual({
      type: 'CALL',
      from: COW.address,
      to: probeAddress,
      value: '0x0',
      // the transaction's gas limit (the reference's top-level invoke gas)
      gas: '0x2dc6c0',
      gasUsed: r.gasUsed,
      input: probe.encodeFunctionData('value'),
      output: '0x0',
    })
  })

  it('nested CALL → STATICCALL → Probe, DELEGATECALL (from = the delegating contract), onlyTopCall', async () => {
    const data = probe.encodeFunctionData('value')
    const r = await send({ to: nested, data })
    const t = await callTrace(r.transactionHash)
    expect(t).toMatchObject({
      type: 'CALL',
      to: nested,
      calls: [
        {
          type: 'CALL',
          from: nested,
          to: relayStatic,
          input: data,
          calls: [{ type: 'STATICCALL', from: relayStatic, to: probeAddress, input: data, output: '0x0' }],
        },
      ],
    })
    expect(BigInt(t.calls[0].gasUsed)).toBeGreaterThan(BigInt(t.calls[0].calls[0].gasUsed))
    expect((await callTrace(r.transactionHash, { onlyTopCall: true })).calls).toBeUndefined()
    const d = await callTrace((await send({ to: relayDelegate, data })).transactionHash)
    expect(d.calls).toEqual([
      expect.objectContaining({
        type: 'DELEGATECALL',
        from: relayDelegate,
        to: probeAddress,
        value: '0x0',
        input: data,
      }),
    ])
  })

  it('value transfers and a precompile call', async () => {
    const r = await send({ to: probeAddress, data: probe.encodeFunctionData('withdraw', [COW1.address, 25]) })
    const t = await callTrace(r.transactionHash)
    expect(t.calls).toEqual([
      expect.objectContaining({
        type: 'CALL',
        from: probeAddress,
        to: COW1.address,
        value: '0x19',
        input: '0x',
        output: '0x0',
      }),
    ])
    const s = await callTrace((await send({ to: relaySha, data: '0x616263' })).transactionHash)
    expect(s.calls).toEqual([
      expect.objectContaining({
        type: 'CALL',
        to: '0x0000000000000000000000000000000000000002',
        input: '0x616263',
        output: '0xba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
      }),
    ])
  })

  it('CREATE (a deployment: output = the created address) and CREATE2 inside a call', async () => {
    const { address, receipt } = await deploy(url, initFor(STORE))
    const t = await callTrace(receipt.transactionHash)
    expect(t).toMatchObject({
      type: 'CREATE',
      from: COW.address,
      value: '0x0',
      input: initFor(STORE),
      output: address,
      gasUsed: receipt.gasUsed,
    })
    expect(t.to).toBeUndefined()
    const predicted = probe.decodeFunctionResult(
      'predict',
      await rpc(url, 'eth_call', [{ to: probeAddress, data: probe.encodeFunctionData('predict', [7]) }, 'latest']),
    )[0]
    const c2 = await callTrace(
      (await send({ to: probeAddress, data: probe.encodeFunctionData('deploy', [7]) })).transactionHash,
    )
    expect(c2.calls).toEqual([
      expect.objectContaining({ type: 'CREATE', from: probeAddress, output: predicted.toLowerCase() }),
    ])
  })

  it('SELFDESTRUCT: a child frame sending the balance to the beneficiary', async () => {
    const r = await send({ to: suicide, value: q(1234) })
    const t = await callTrace(r.transactionHash)
    expect(t.calls).toEqual([
      {
        type: 'SELFDESTRUCT',
        from: suicide,
        to: COW1.address,
        value: q(1234),
        gas: '0x0',
        gasUsed: '0x0',
        input: '0x',
      },
    ])
  })

  it('reverts: error, revertReason and output; custom errors; out of gas', async () => {
    const reason = await callTrace(
      (await sendFailing({ to: probeAddress, data: probe.encodeFunctionData('failWithReason') })).transactionHash,
    )
    expect(reason).toMatchObject({ error: 'execution reverted', revertReason: 'Probe: failed' })
    expect(reason.output.startsWith('0x8c379a0')).toBe(true)
    const custom = await callTrace(
      (await sendFailing({ to: probeAddress, data: probe.encodeFunctionData('failCustom', [5]) })).transactionHash,
    )
    expect(custom.error).toBe('execution reverted')
    expect(custom.revertReason).toBeUndefined()
    expect(probe.parseError(custom.output)?.name).toBe('ProbeError')
    const oog = await callTrace((await sendFailing({ to: loop, gas: q(30_000) })).transactionHash)
    expect(oog).toMatchObject({ error: 'out of gas', gasUsed: q(30_000) })
    expect(oog.output).toBeUndefined()
    // a reverted child inside a successful parent (the relay ignores the failure)
    const inner = await callTrace(
      (await send({ to: relayCall, data: probe.encodeFunctionData('failWithReason') })).transactionHash,
    )
    expect(inner.error).toBeUndefined()
    expect(inner.calls[0]).toMatchObject({ error: 'execution reverted', revertReason: 'Probe: failed' })
  })

  it('withLog: the logs of each frame (none from a reverted frame)', async () => {
    const r = await send({ to: relayCall, data: probe.encodeFunctionData('emitMany', [2]) })
    const t = await callTrace(r.transactionHash, { withLog: true })
    expect(t.logs).toBeUndefined()
    expect(t.calls[0].logs).toEqual(
      r.logs.map((l: any, i: number) => ({ index: q(i), address: l.address, topics: l.topics, data: l.data })),
    )
    expect((await callTrace(r.transactionHash)).calls[0].logs).toBeUndefined()
  })
})

describe('blocks, calls and the other tracers', () => {
  it('debug_traceBlockByHash / ByNumber: [{txHash, result}] for every transaction, Remasc last with an empty trace', async () => {
    const r = await send({ to: store, gas: q(100_000) })
    const block = await rpc(url, 'eth_getBlockByHash', [r.blockHash, false])
    const byHash = await rpc(url, 'debug_traceBlockByHash', [r.blockHash, { tracer: 'callTracer' }])
    expect(byHash.map((x: any) => x.txHash)).toEqual(block.transactions)
    expect(byHash[0].result).toEqual(await callTrace(r.transactionHash))
    expect(byHash[1].result).toEqual({
      type: 'CALL',
      from: '0x' + '00'.repeat(20),
      to: '0x0000000000000000000000000000000001000008',
      value: '0x0',
      gas: '0x0',
      gasUsed: '0x0',
      input: '0x',
      output: '0x0',
    })
    const byNumber = await rpc(url, 'debug_traceBlockByNumber', [r.blockNumber])
    expect(byNumber[0].result).toEqual(await trace(r.transactionHash))
    expect(byNumber[1].result).toMatchObject({
      structLogs: [],
      contractAddress: '0000000000000000000000000000000001000008',
    })
    expect(await rpc(url, 'debug_traceBlockByNumber', ['earliest'])).toEqual([])
  })

  it('debug_traceCall: like eth_call with a tracer, state overrides in the options, nothing kept', async () => {
    const data = probe.encodeFunctionData('value')
    const t = await rpc(url, 'debug_traceCall', [
      { from: COW.address, to: relayCall, data },
      'latest',
      { tracer: 'callTracer' },
    ])
    expect(t.calls[0]).toMatchObject({ type: 'CALL', to: probeAddress, output: '0x0' })
    const o = await rpc(url, 'debug_traceCall', [
      { to: relayCall, data },
      'latest',
      { tracer: 'callTracer', stateOverrides: { [probeAddress]: { stateDiff: { [q(0)]: '0x' + w(99) } } } },
    ])
    expect(o.calls[0].output).toBe('0x63')
    const s = await rpc(url, 'debug_traceCall', [{ to: store }, 'latest'])
    expect(s.structLogs).toHaveLength(11)
    expect(await rpc(url, 'eth_getStorageAt', [probeAddress, '0x0', 'latest'])).toBe('0x' + w(0))
  })

  it('prestateTracer (and diffMode) and 4byteTracer', async () => {
    const r = await send({ to: store, gas: q(100_000) })
    const pre = await trace(r.transactionHash, { tracer: 'prestateTracer' })
    expect(pre[store]).toEqual({
      balance: '0x0',
      nonce: 1,
      code: '0x' + STORE,
      storage: { ['0x' + w(1)]: '0x' + w(7) },
    })
    expect(pre[COW.address]).toMatchObject({ balance: expect.any(String) })
    const fresh = await deploy(url, initFor(STORE))
    const r2 = await send({ to: fresh.address, gas: q(100_000) })
    const diff = await trace(r2.transactionHash, { tracer: 'prestateTracer', tracerConfig: { diffMode: true } })
    expect(diff.post[fresh.address]).toEqual({ storage: { ['0x' + w(1)]: '0x' + w(7) } })
    const four = await trace((await send({ to: nested, data: probe.encodeFunctionData('value') })).transactionHash, {
      tracer: '4byteTracer',
    })
    expect(four).toEqual({ [probe.getFunction('value')!.selector + '-0']: 3 })
  })

  it('unknown transaction or block → null', async () => {
    const none = '0x' + 'ab'.repeat(32)
    expect(await rpc(url, 'debug_traceTransaction', [none])).toBeNull()
    expect(await rpc(url, 'debug_traceBlockByHash', [none])).toBeNull()
    expect(await rpc(url, 'debug_traceBlockByNumber', ['0xffff'])).toBeNull()
  })

  it('a struct-log trace past 10 MB answers -32011 (the reference maxResponseSize), a callTracer of it works', async () => {
    const r = await sendFailing({ to: memLoop, gas: q(3_000_000) })
    const e = await rpcError(url, 'debug_traceTransaction', [r.transactionHash])
    expect(e.code).toBe(-32011)
    expect(e.message).toContain('10 MB')
    expect((await callTrace(r.transactionHash)).error).toBe('out of gas')
    // the node still answers
    expect(await rpc(url, 'eth_blockNumber')).toMatch(/^0x/)
  })

  it('a block shares one 10 MB budget: each transaction traces alone, the block answers -32011', async () => {
    await rpc(url, 'evm_setAutomine', [false])
    const hashes = []
    try {
      for (let i = 0; i < 2; i++)
        hashes.push(await rpc(url, 'eth_sendTransaction', [{ from: COW.address, to: loop, gas: q(300_000) }]))
      await rpc(url, 'evm_mine')
    } finally {
      await rpc(url, 'evm_setAutomine', [true])
    }
    const receipt = await rpc(url, 'eth_getTransactionReceipt', [hashes[1]])
    expect(receipt.blockNumber).toBe((await rpc(url, 'eth_getTransactionReceipt', [hashes[0]])).blockNumber)
    for (const h of hashes) expect((await trace(h, { disableMemory: true })).structLogs.length).toBeGreaterThan(60_000)
    const e = await rpcError(url, 'debug_traceBlockByNumber', [receipt.blockNumber, { disableMemory: true }])
    expect(e.code).toBe(-32011)
    expect(
      (await rpc(url, 'debug_traceBlockByNumber', [receipt.blockNumber, { tracer: 'callTracer' }])).map(
        (t: any) => t.result.error,
      ),
    ).toEqual(['out of gas', 'out of gas', undefined])
  })

  it('an aborted debug_traceCall at latest (the live state) leaves the chain working and unchanged', async () => {
    const before = await rpc(url, 'eth_getStorageAt', [store, '0x1', 'latest'])
    const e = await rpcError(url, 'debug_traceCall', [{ to: memLoop, gas: q(3_000_000) }, 'latest'])
    expect(e.code).toBe(-32011)
    const s = await rpc(url, 'debug_traceCall', [{ to: store }, 'latest'])
    expect(s.structLogs).toHaveLength(11)
    const r = await send({ to: store, gas: q(100_000) })
    expect(r.status).toBe('0x1')
    expect(await rpc(url, 'eth_getStorageAt', [store, '0x1', 'latest'])).toBe(before)
    expect((await trace(r.transactionHash)).structLogs).toHaveLength(11)
  })

  it('debug_traceCall prestateTracer: the overridden state is the state before the call', async () => {
    const pre = await rpc(url, 'debug_traceCall', [
      { from: COW1.address, to: store },
      'latest',
      { tracer: 'prestateTracer', stateOverrides: { [store]: { balance: '0x2a' } } },
    ])
    expect(pre[store]).toMatchObject({ balance: '0x2a', code: '0x' + STORE })
    expect(pre[COW1.address]).toMatchObject({ balance: expect.stringMatching(/^0x/) })
  })

  it('debug_traceCall: blockOverrides change the block context the call sees', async () => {
    const blockNumber = probe.encodeFunctionData('blockNumber')
    const t = await rpc(url, 'debug_traceCall', [
      { to: probeAddress, data: blockNumber },
      'latest',
      { tracer: 'callTracer', blockOverrides: { number: '0x4d2' } },
    ])
    expect(t.output).toBe('0x4d2')
    const g = await rpc(url, 'debug_traceCall', [
      { to: probeAddress, data: blockNumber },
      'latest',
      { tracer: 'structLogger', blockOverrides: { number: '0x4d2' } },
    ])
    expect(g.returnValue).toBe(w(0x4d2))
  })

  it.each([
    ['an unknown tracer', ['0x' + '11'.repeat(32), { tracer: 'jsTracer' }], 'unknown tracer'],
    ['a non-boolean flag', ['0x' + '11'.repeat(32), { disableStack: 'yes' }], 'disableStack must be a boolean'],
    ['options that are not an object', ['0x' + '11'.repeat(32), 'callTracer'], 'trace options must be an object'],
    ['a bad hash', ['0x1234'], 'want 64'],
  ])('-32602 for %s', async (_n, params, message) => {
    const e = await rpcError(url, 'debug_traceTransaction', params)
    expect(e.code).toBe(-32602)
    expect(e.message).toContain(message)
  })

  it('-32602 for debug_traceCall with bad overrides and debug_traceBlockByNumber pending', async () => {
    const e = await rpcError(url, 'debug_traceCall', [
      { to: store },
      'latest',
      { stateOverrides: { [store]: { movePrecompileToAddress: store } } },
    ])
    expect(e).toMatchObject({ code: -32602 })
    expect((await rpcError(url, 'debug_traceBlockByNumber', ['pending'])).code).toBe(-32602)
    expect((await rpcError(url, 'debug_traceCall', [{ to: store }, '0xffff'])).code).toBe(-32600)
  })
})

describe('defaultTracer: structLogger (createNode option, for tools expecting geth format)', () => {
  it('requests without a tracer get geth struct logs; rskTracer still answers when named', async () => {
    const n = await startNode({ defaultTracer: 'structLogger' })
    try {
      const { address } = await deploy(n.url, initFor(STORE))
      const r = await sendTx(n.url, { to: address, gas: q(100_000) })
      const g = await rpc(n.url, 'debug_traceTransaction', [r.transactionHash])
      expect(g).toMatchObject({ gas: Number(BigInt(r.gasUsed)), failed: false, returnValue: w(0x2a) })
      expect(g.structLogs[0]).toEqual({ pc: 0, op: 'PUSH1', gas: 79_000, gasCost: 3, depth: 1, stack: [] })
      expect((await rpc(n.url, 'debug_traceTransaction', [r.transactionHash, {}])).failed).toBe(false)
      expect(
        (await rpc(n.url, 'debug_traceTransaction', [r.transactionHash, { tracer: 'rskTracer' }])).contractAddress,
      ).toBe(address.slice(2))
      expect((await rpc(n.url, 'debug_traceCall', [{ to: address }, 'latest'])).structLogs[0].depth).toBe(1)
    } finally {
      await n.close()
    }
  })
})
