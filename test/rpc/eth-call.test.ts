/**
 * eth_call over real HTTP: Probe's view functions (block context, Cancun opcodes, SELFBALANCE), historical and
 * pending contexts, reverts as -32015 with the revert bytes, non-revert failures, and -32602 on malformed
 * call objects (spec §4 "Calls and gas", §7 rule 2;
 * docs/reference-rules.md#rule-call-defaults, docs/reference-rules.md#rule-error-revert).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AbiCoder, getAddress, Interface, Wallet, ZeroAddress } from 'ethers'
import type { Node } from '../../src/index.js'
import { Probe } from '../../fixtures/index.js'
import { COW, COW1, rpc, rpcError, startNode } from '../helpers/node.js'
import { addrWord, deploy, MINER, q, sendTx, word } from './shapes.js'

const probe = new Interface(Probe.abi)
const abi = AbiCoder.defaultAbiCoder()
const REVERT_PREFIX = 'VM Exception while processing transaction: '

let node: Node
let url: string
let probeAddress: string
/** Block numbers: Probe deployed in 1, value set to 5 in 2, 1000 wei deposited in 3. */
let head: bigint

const call = (fn: string, args: unknown[] = [], block: unknown = 'latest', extra: Record<string, unknown> = {}) =>
  rpc<string>(url, 'eth_call', [{ to: probeAddress, data: probe.encodeFunctionData(fn, args), ...extra }, block])
const decode = (fn: string, data: string) => probe.decodeFunctionResult(fn, data)

beforeAll(async () => {
  node = await startNode()
  url = node.url
  ;({ address: probeAddress } = await deploy(url, Probe.bytecode))
  expect((await sendTx(url, { to: probeAddress, data: probe.encodeFunctionData('setValue', [5]) })).status).toBe('0x1')
  expect(
    (await sendTx(url, { to: probeAddress, value: q(1000), data: probe.encodeFunctionData('deposit') })).status,
  ).toBe('0x1')
  head = BigInt(await rpc(url, 'eth_blockNumber'))
  expect(head).toBe(3n)
})
afterAll(() => node?.close())

describe('eth_call: block context', () => {
  it('chainId() is 33', async () => {
    expect(await call('chainId')).toBe(word(33))
  })

  it('baseFee() is the block minimumGasPrice, 0 on regtest', async () => {
    expect(await call('baseFee')).toBe(word(0))
  })

  it('blockNumber() is the block the call runs in: latest, a past block, pending = head + 1', async () => {
    expect(await call('blockNumber')).toBe(word(head))
    expect(await call('blockNumber', [], '0x1')).toBe(word(1))
    expect(await call('blockNumber', [], { blockNumber: '0x2' })).toBe(word(2))
    expect(await call('blockNumber', [], 'pending')).toBe(word(head + 1n))
  })

  it('timestamp() is the block timestamp', async () => {
    const block = await rpc(url, 'eth_getBlockByNumber', ['latest', false])
    expect(await call('timestamp')).toBe(word(BigInt(block.timestamp)))
    const b1 = await rpc(url, 'eth_getBlockByNumber', ['0x1', false])
    expect(await call('timestamp', [], { blockHash: b1.hash })).toBe(word(BigInt(b1.timestamp)))
  })

  it('coinbase() is the miner address', async () => {
    expect(await call('coinbase')).toBe(addrWord(MINER))
  })

  it('gasLimit() is the block gas limit', async () => {
    const block = await rpc(url, 'eth_getBlockByNumber', ['latest', false])
    expect(await call('gasLimit')).toBe(word(BigInt(block.gasLimit)))
  })

  it('blockHash(n) is the hash of block n, 0 for the current and future blocks', async () => {
    const b1 = await rpc(url, 'eth_getBlockByNumber', ['0x1', false])
    expect(await call('blockHash', [1])).toBe(b1.hash)
    expect(await call('blockHash', [100])).toBe(word(0))
  })

  it('gasPrice() is the call gasPrice; whoami() the from address (zero address without from)', async () => {
    expect(await call('gasPrice', [], 'latest', { gasPrice: '0x7' })).toBe(word(7))
    expect(decode('whoami', await call('whoami', [], 'latest', { from: COW1.address })).toArray()).toEqual([
      getAddress(COW1.address),
      getAddress(COW1.address),
    ])
    expect(decode('whoami', await call('whoami')).toArray()).toEqual([ZeroAddress, ZeroAddress])
  })
})

describe('eth_call: state and opcodes', () => {
  it('reads storage at latest and at an older block', async () => {
    expect(await call('value')).toBe(word(5))
    expect(await call('value', [], '0x1')).toBe(word(0))
    expect(await call('value', [], 'earliest')).toBe('0x') // no code at genesis
  })

  it('selfBalance() uses SELFBALANCE and sees the deposit', async () => {
    expect(await call('selfBalance')).toBe(word(1000))
    expect(await call('selfBalance', [], '0x2')).toBe(word(0))
    expect(await rpc(url, 'eth_getBalance', [probeAddress, 'latest'])).toBe(q(1000))
  })

  it('transientRoundTrip(v) stores and loads transient storage (TSTORE/TLOAD)', async () => {
    expect(await call('transientRoundTrip', [99])).toBe(word(99))
    expect(await call('transientLoad')).toBe(word(0))
  })

  it('copyBytes(data) copies with MCOPY', async () => {
    const data =
      '0x' + Array.from({ length: 70 }, (_, i) => ((i * 7 + 1) & 0xff).toString(16).padStart(2, '0')).join('')
    const out = await call('copyBytes', [data])
    expect(out).toBe(probe.encodeFunctionResult('copyBytes', [data]))
    expect(decode('copyBytes', out)[0]).toBe(data)
  })

  it('predict(salt) computes the CREATE2 address without deploying', async () => {
    const out = await call('predict', [1])
    expect(out).toMatch(/^0x0{24}[0-9a-f]{40}$/)
  })

  it('does not change state or the caller nonce', async () => {
    await call('setValue', [123], 'latest', { from: COW.address })
    expect(await call('value')).toBe(word(5))
    expect(await rpc(url, 'eth_blockNumber')).toBe(q(head))
    expect(await rpc(url, 'eth_getTransactionCount', [COW.address, 'latest'])).toBe('0x3')
  })

  it('accepts `input` as an alias of `data`, and both when equal', async () => {
    const data = probe.encodeFunctionData('chainId')
    expect(await rpc(url, 'eth_call', [{ to: probeAddress, input: data }, 'latest'])).toBe(word(33))
    expect(await rpc(url, 'eth_call', [{ to: probeAddress, input: data, data }, 'latest'])).toBe(word(33))
  })

  it('answers 0x for a call to an EOA, a missing account, and a call without data (receive())', async () => {
    expect(await rpc(url, 'eth_call', [{ to: COW1.address, data: '0x12345678' }, 'latest'])).toBe('0x')
    expect(await rpc(url, 'eth_call', [{ to: Wallet.createRandom().address }, 'latest'])).toBe('0x')
    expect(await rpc(url, 'eth_call', [{ to: probeAddress }, 'latest'])).toBe('0x')
  })

  it('the block parameter defaults to latest', async () => {
    expect(await rpc(url, 'eth_call', [{ to: probeAddress, data: probe.encodeFunctionData('value') }])).toBe(word(5))
  })
})

describe('eth_call: failures', () => {
  it('revert with a reason: -32015 "…revert Probe: failed", data = Error(string) bytes', async () => {
    const e = await rpcError(url, 'eth_call', [
      { to: probeAddress, data: probe.encodeFunctionData('failWithReason') },
      'latest',
    ])
    expect(e.code).toBe(-32015)
    expect(e.message).toBe('VM Exception while processing transaction: revert Probe: failed')
    expect(e.data).toBe('0x08c379a0' + abi.encode(['string'], ['Probe: failed']).slice(2))
    expect(e.status).toBe(200)
  })

  it('custom error: -32015 "…: transaction reverted", data = the custom error bytes', async () => {
    const e = await rpcError(url, 'eth_call', [
      { to: probeAddress, data: probe.encodeFunctionData('failCustom', [7]) },
      'latest',
    ])
    expect(e.code).toBe(-32015)
    expect(e.message).toBe(REVERT_PREFIX + 'transaction reverted')
    expect(e.data).toBe(probe.encodeErrorResult('ProbeError', [7, 'custom failure']))
  })

  it('empty revert: -32015 "…: transaction reverted" with data 0x', async () => {
    const e = await rpcError(url, 'eth_call', [{ to: probeAddress, data: probe.encodeFunctionData('fail') }, 'latest'])
    expect(e.code).toBe(-32015)
    expect(e.message).toBe(REVERT_PREFIX + 'transaction reverted')
    expect(e.data).toBe('0x')
  })

  it('panic (division by zero): -32015 with the Panic(0x12) bytes', async () => {
    const e = await rpcError(url, 'eth_call', [{ to: probeAddress, data: probe.encodeFunctionData('panic') }, 'latest'])
    expect(e.code).toBe(-32015)
    expect(e.message).toBe(REVERT_PREFIX + 'transaction reverted')
    expect(e.data).toBe('0x4e487b71' + word(0x12).slice(2))
  })

  it('a non-revert failure (out of gas) answers the return data, 0x', async () => {
    const r = await call('burn', [500], 'latest', { gas: q(30_000) })
    expect(r).toBe('0x')
  })

  it('sending more value than the sender has is -32000 "insufficient funds for transfer"', async () => {
    const poor = Wallet.createRandom().address
    const e = await rpcError(url, 'eth_call', [{ from: poor, to: COW1.address, value: '0x1' }, 'latest'])
    expect(e.code).toBe(-32000)
    expect(e.message).toBe('insufficient funds for transfer')
  })

  it('an unknown block is -32600', async () => {
    const e = await rpcError(url, 'eth_call', [{ to: probeAddress, data: probe.encodeFunctionData('value') }, '0x400'])
    expect(e.code).toBe(-32600)
  })

  it.each([
    ['no arguments', []],
    ['a string instead of the call object', ['0x1234']],
    ['a malformed to', [{ to: '0x1234' }, 'latest']],
    ['a malformed from', [{ from: 'cow', to: COW1.address }, 'latest']],
    ['odd-length data', [{ to: COW1.address, data: '0x123' }, 'latest']],
    ['a malformed gas', [{ to: COW1.address, gas: 'lots' }, 'latest']],
    ['a malformed value', [{ to: COW1.address, value: '0x' }, 'latest']],
    ['data and input that differ', [{ to: COW1.address, data: '0x01', input: '0x02' }, 'latest']],
    ['a malformed block', [{ to: COW1.address }, 'newest']],
    ['too many arguments', [{ to: COW1.address }, 'latest', {}, 'extra']],
  ])('%s is -32602 (HTTP 400)', async (_what, params) => {
    const e = await rpcError(url, 'eth_call', params)
    expect(e.code).toBe(-32602)
    expect(e.status).toBe(400)
  })
})

describe('eth_call / eth_estimateGas away from the live state (spare VMs re-pointed between roots)', () => {
  it('interleaved reads at several old blocks and pending each see their own state', async () => {
    // value(): 0 before block 2 (Probe deployed in 1), 5 from block 2; balance: 1000 wei from block 3
    const atBlock = async (b: string) => BigInt(await call('value', [], b))
    const order = ['0x1', '0x2', '0x3', '0x1', 'pending', '0x2', '0x1', '0x3', 'latest', '0x2', 'pending', '0x1']
    const want: Record<string, bigint> = { '0x1': 0n, '0x2': 5n, '0x3': 5n, latest: 5n, pending: 5n }
    for (const b of order) expect(await atBlock(b)).toBe(want[b])
    const balance = (b: string) => rpc<string>(url, 'eth_getBalance', [probeAddress, b])
    expect(BigInt(await balance('0x2'))).toBe(0n)
    expect(BigInt(await balance('0x3'))).toBe(1000n)
    // an estimate at an old block runs against that block's state too (setValue costs more from 0 than from 5)
    const estimate = (b: string) =>
      rpc<string>(url, 'eth_estimateGas', [
        { from: COW.address, to: probeAddress, data: probe.encodeFunctionData('setValue', [7]) },
        b,
      ])
    const fromZero = BigInt(await estimate('0x1'))
    const fromFive = BigInt(await estimate('0x2'))
    expect(fromZero).toBeGreaterThan(fromFive)
    expect(BigInt(await estimate('0x1'))).toBe(fromZero)
    expect(await atBlock('0x1')).toBe(0n)
  })
})
