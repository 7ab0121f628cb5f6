/**
 * ots_traceTransaction, ots_getInternalOperations and ots_getTransactionError over real HTTP, on contracts
 * compiled from fixtures/contracts/OtsProbe.sol: Erigon's entry shapes (value null for STATICCALL/DELEGATECALL,
 * depth from 0, CREATE/CREATE2/SELFDESTRUCT entries, output), plain precompiles left out and native contracts
 * kept, internal operation types (0 transfer, 1 self-destruct, 2 create, 3 create2) of nested frames only, the
 * revert bytes, the Remasc transaction, unknown hashes (-32000 as Erigon), malformed params (-32602), and the
 * replay deadline (-32011).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { getCreate2Address, getCreateAddress, Interface, keccak256 } from 'ethers'
import type { Node } from '../../src/index.js'
import { OtsChild, OtsProbe, OtsTarget } from '../../fixtures/index.js'
import { COW, COW1, rpc, rpcError, startNode } from '../helpers/node.js'
import { deployLoop } from '../helpers/loop.js'
import { deploy, q, sendMined, sendTx } from './shapes.js'

const probe = new Interface(OtsProbe.abi)
const target = new Interface(OtsTarget.abi)
const child = new Interface(OtsChild.abi)
const REMASC = '0x0000000000000000000000000000000001000008'
const ENVIRONMENT = '0x0000000000000000000000000000000001000011'
const ZERO = '0x' + '00'.repeat(20)
const lower = (a: string) => a.toLowerCase()

let node: Node
let url: string
let probeAddr: string
let targetAddr: string

const trace = (hash: string) => rpc(url, 'ots_traceTransaction', [hash])
const ops = (hash: string) => rpc(url, 'ots_getInternalOperations', [hash])
const txError = (hash: string) => rpc(url, 'ots_getTransactionError', [hash])

beforeAll(async () => {
  node = await startNode()
  url = node.url
  ;({ address: probeAddr } = await deploy(url, OtsProbe.bytecode))
  ;({ address: targetAddr } = await deploy(url, OtsTarget.bytecode))
})
afterAll(() => node?.close())

describe('ots_traceTransaction', () => {
  it('a plain transfer: its one top-level CALL with the value', async () => {
    const r = await sendTx(url, { to: COW1.address, value: q(1234) })
    expect(await trace(r.transactionHash)).toEqual([
      { type: 'CALL', depth: 0, from: COW.address, to: COW1.address, value: '0x4d2', input: '0x', output: '0x' },
    ])
    expect(await ops(r.transactionHash)).toEqual([])
    expect(await txError(r.transactionHash)).toBe('0x')
  })

  it('nested CALL (with and without value), STATICCALL and DELEGATECALL: value null where none moves', async () => {
    const data = probe.encodeFunctionData('nested', [targetAddr])
    const r = await sendTx(url, { to: probeAddr, value: q(100), data })
    expect(r.status).toBe('0x1')
    const p = lower(probeAddr)
    const t = lower(targetAddr)
    const word = (n: number) => '0x' + n.toString(16).padStart(64, '0')
    expect(await trace(r.transactionHash)).toEqual([
      { type: 'CALL', depth: 0, from: COW.address, to: p, value: '0x64', input: data, output: word(7) },
      {
        type: 'CALL',
        depth: 1,
        from: p,
        to: t,
        value: '0x5',
        input: target.encodeFunctionData('deposit'),
        output: '0x',
      },
      {
        type: 'STATICCALL',
        depth: 1,
        from: p,
        to: t,
        value: null,
        input: target.encodeFunctionData('value'),
        output: word(0),
      },
      {
        type: 'DELEGATECALL',
        depth: 1,
        from: p,
        to: t,
        value: null,
        input: target.encodeFunctionData('setValue', [7]),
        output: '0x',
      },
      {
        type: 'CALL',
        depth: 1,
        from: p,
        to: t,
        value: '0x0',
        input: target.encodeFunctionData('setValue', [1]),
        output: '0x',
      },
    ])
    // only the nested CALL that moved value; the top frame's own value is not an internal operation
    expect(await ops(r.transactionHash)).toEqual([{ type: 0, from: p, to: t, value: '0x5' }])
    expect(await txError(r.transactionHash)).toBe('0x')
  })

  it('CREATE and CREATE2 from a factory: the new addresses as `to`, the init code as input', async () => {
    const salt = 77n
    const data = probe.encodeFunctionData('create', [salt])
    const nonce = Number(await rpc(url, 'eth_getTransactionCount', [probeAddr, 'latest']))
    const r = await sendTx(url, { to: probeAddr, value: q(3), data })
    expect(r.status).toBe('0x1')
    const p = lower(probeAddr)
    const a = lower(getCreateAddress({ from: probeAddr, nonce }))
    const b = lower(
      getCreate2Address(probeAddr, '0x' + salt.toString(16).padStart(64, '0'), keccak256(OtsChild.bytecode)),
    )
    const t = await trace(r.transactionHash)
    expect(t.map((e: any) => [e.type, e.depth, e.from, e.to, e.value])).toEqual([
      ['CALL', 0, COW.address, p, '0x3'],
      ['CREATE', 1, p, a, '0x3'],
      ['CREATE2', 1, p, b, '0x0'],
    ])
    expect(t[1].input).toBe(OtsChild.bytecode)
    expect(t[1].output).toBe(OtsChild.deployedBytecode)
    expect(t[0].output).toBe(probe.encodeFunctionResult('create', [a, b]))
    expect(await rpc(url, 'eth_getCode', [b, 'latest'])).toBe(OtsChild.deployedBytecode)
    expect(await ops(r.transactionHash)).toEqual([
      { type: 2, from: p, to: a, value: '0x3' },
      { type: 3, from: p, to: b, value: '0x0' },
    ])
  })

  it('SELFDESTRUCT: an entry below the frame that ran it, to the beneficiary with the balance', async () => {
    const nonce = Number(await rpc(url, 'eth_getTransactionCount', [probeAddr, 'latest']))
    const c = lower(getCreateAddress({ from: probeAddr, nonce }))
    const beneficiary = '0x00000000000000000000000000000000000b0b0b'
    const data = probe.encodeFunctionData('destroy', [beneficiary])
    const r = await sendTx(url, { to: probeAddr, value: q(9), data })
    expect(r.status).toBe('0x1')
    const p = lower(probeAddr)
    const t = await trace(r.transactionHash)
    expect(t.map((e: any) => [e.type, e.depth, e.from, e.to, e.value])).toEqual([
      ['CALL', 0, COW.address, p, '0x9'],
      ['CREATE', 1, p, c, '0x9'],
      ['CALL', 1, p, c, '0x0'],
      ['SELFDESTRUCT', 2, c, beneficiary, '0x9'],
    ])
    expect(t[2].input).toBe(child.encodeFunctionData('kill', [beneficiary]))
    expect(t[3]).toMatchObject({ input: '0x', output: '0x' })
    expect(await rpc(url, 'eth_getBalance', [beneficiary, 'latest'])).toBe('0x9')
    expect(await ops(r.transactionHash)).toEqual([
      { type: 2, from: p, to: c, value: '0x9' },
      { type: 1, from: c, to: beneficiary, value: '0x9' },
    ])
  })

  it('a plain precompile (sha256) is left out, a native contract (Environment) is kept', async () => {
    const data = probe.encodeFunctionData('precompiles')
    const r = await sendTx(url, { to: probeAddr, data })
    expect(r.status).toBe('0x1')
    const t = await trace(r.transactionHash)
    expect(t.map((e: any) => [e.type, e.depth, e.to])).toEqual([
      ['CALL', 0, lower(probeAddr)],
      ['STATICCALL', 1, ENVIRONMENT],
    ])
    expect(t[1]).toMatchObject({
      from: lower(probeAddr),
      value: null,
      input: new Interface(['function getCallStackDepth()']).encodeFunctionData('getCallStackDepth'),
    })
    // a transaction straight to a precompile traces empty (Erigon); straight to a native contract, one CALL
    const direct = await sendTx(url, { to: '0x' + '00'.repeat(19) + '02', data: '0x01' })
    expect(await trace(direct.transactionHash)).toEqual([])
    const env = await sendTx(url, { to: ENVIRONMENT, data: t[1].input })
    expect(await trace(env.transactionHash)).toEqual([
      {
        type: 'CALL',
        depth: 0,
        from: COW.address,
        to: ENVIRONMENT,
        value: '0x0',
        input: t[1].input,
        output: t[1].output,
      },
    ])
    // (the callTracer keeps the precompile frame: both frames are in the collected tree)
    const callTrace = await rpc(url, 'debug_traceTransaction', [r.transactionHash, { tracer: 'callTracer' }])
    expect(callTrace.calls.map((c: any) => c.to)).toEqual(['0x' + '00'.repeat(19) + '02', ENVIRONMENT])
  })

  it('a revert with a reason: the Error(string) bytes, as the top frame output', async () => {
    const data = probe.encodeFunctionData('fail')
    const hash = await sendMined(url, { to: probeAddr, data })
    const receipt = await rpc(url, 'eth_getTransactionReceipt', [hash])
    expect(receipt.status).toBe('0x0')
    const reason = new Interface(['error Error(string)']).encodeErrorResult('Error', ['ots: failed'])
    expect(await txError(hash)).toBe(reason)
    expect(await trace(hash)).toEqual([
      { type: 'CALL', depth: 0, from: COW.address, to: lower(probeAddr), value: '0x0', input: data, output: reason },
    ])
    expect(await ops(hash)).toEqual([])
  })

  it('the Remasc transaction: one CALL from the zero address, no operations, no error', async () => {
    const block = await rpc(url, 'eth_getBlockByNumber', ['latest', false])
    const remascHash = block.transactions.at(-1)
    expect(await trace(remascHash)).toEqual([
      { type: 'CALL', depth: 0, from: ZERO, to: REMASC, value: '0x0', input: '0x', output: '0x' },
    ])
    expect(await ops(remascHash)).toEqual([])
    expect(await txError(remascHash)).toBe('0x')
  })

  it('an unknown or pending hash: -32000 "transaction … not found" (Erigon); malformed params: -32602', async () => {
    const unknown = '0x' + 'ab'.repeat(32)
    for (const m of ['ots_traceTransaction', 'ots_getInternalOperations', 'ots_getTransactionError']) {
      expect(await rpcError(url, m, [unknown]), m).toMatchObject({
        code: -32000,
        message: `transaction ${unknown} not found`,
      })
      for (const bad of [[], ['0x1234'], [42], ['0x' + 'zz'.repeat(32)]])
        expect((await rpcError(url, m, bad)).code, `${m} ${JSON.stringify(bad)}`).toBe(-32602)
    }
    await rpc(url, 'evm_setAutomine', [false])
    try {
      const pending = await rpc<string>(url, 'eth_sendTransaction', [{ from: COW.address, to: COW1.address }])
      expect((await rpcError(url, 'ots_traceTransaction', [pending])).code).toBe(-32000)
      await rpc(url, 'evm_mine')
      expect(await trace(pending)).toHaveLength(1)
    } finally {
      await rpc(url, 'evm_setAutomine', [true])
    }
  })
})

describe('the replay deadline', () => {
  let dir: string
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('a re-execution past --rpc-timeout answers -32011', async () => {
    dir = mkdtempSync(join(tmpdir(), 'ots-traces-'))
    const first = await startNode({ db: dir })
    let hash: string
    try {
      const loop = await deployLoop(first.url)
      // the endless loop runs out of its 6 M gas well within the default deadline: mined, answered with an error
      const sent = await rpcError(first.url, 'eth_sendTransaction', [
        { from: COW.address, to: loop, gas: q(6_000_000) },
      ])
      expect(sent.message).toMatch(/out of gas/)
      hash = (await rpc(first.url, 'eth_getBlockByNumber', ['latest', false])).transactions[0]
      expect((await rpc(first.url, 'eth_getTransactionReceipt', [hash])).status).toBe('0x0')
      // a failure without revert data: no error bytes (Erigon's ExecutionResult.Revert())
      expect(await rpc(first.url, 'ots_getTransactionError', [hash])).toBe('0x')
      expect(await rpc(first.url, 'ots_traceTransaction', [hash])).toEqual([
        { type: 'CALL', depth: 0, from: COW.address, to: loop.toLowerCase(), value: '0x0', input: '0x', output: '0x' },
      ])
    } finally {
      await first.close()
    }
    const strict = await startNode({ db: dir, rpcTimeout: 0.001 })
    try {
      for (const m of ['ots_traceTransaction', 'ots_getInternalOperations', 'ots_getTransactionError']) {
        expect(await rpcError(strict.url, m, [hash]), m).toMatchObject({ code: -32011 })
      }
    } finally {
      await strict.close()
    }
  })
})
