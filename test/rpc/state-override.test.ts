/**
 * eth_call / eth_estimateGas state overrides (3rd parameter: balance, nonce, code, state, stateDiff;
 * movePrecompileToAddress rejected) and block overrides (4th parameter: number, time, gasLimit, coinbase,
 * difficulty, baseFee), over real HTTP. Chain state is checked unchanged after every overridden call.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { getCreateAddress, Interface } from 'ethers'
import type { Node } from '../../src/index.js'
import { Probe } from '../../fixtures/index.js'
import { COW, COW1, rpc, rpcError, startNode } from '../helpers/node.js'
import { addrWord, deploy, q, sendTx, word } from './shapes.js'

const probe = new Interface(Probe.abi)
let node: Node
let url: string
let probeAddress: string

/** An address with nothing in it, where overridden code is placed. */
const FRESH = '0x00000000000000000000000000000000000c0de1'
/** A never-used EOA. */
const POOR = '0x0000000000000000000000000000000000bad001'

/** Runtime code: returns BALANCE(addr) as one word. */
const balanceOf = (addr: string): string => '0x73' + addr.slice(2) + '31' + '600052' + '60206000f3'
/** Runtime code: CREATE with empty init code, returns the created address (depends on this account's nonce). */
const CREATE_EMPTY = '0x' + '600060006000f0' + '600052' + '60206000f3'

const call = (to: string, data: string, overrides?: unknown, block: unknown = 'latest', blockOverrides?: unknown) => {
  const params: unknown[] = [{ to, data }, block]
  if (overrides !== undefined || blockOverrides !== undefined) params.push(overrides ?? null)
  if (blockOverrides !== undefined) params.push(blockOverrides)
  return rpc<string>(url, 'eth_call', params)
}
const probeCall = (fn: string, overrides?: unknown, args: unknown[] = [], blockOverrides?: unknown) =>
  call(probeAddress, probe.encodeFunctionData(fn, args), overrides, 'latest', blockOverrides)

/** What the overridden accounts look like on chain, to compare before/after. */
async function chainView(): Promise<unknown[]> {
  return Promise.all([
    rpc(url, 'eth_getBalance', [FRESH, 'latest']),
    rpc(url, 'eth_getCode', [FRESH, 'latest']),
    rpc(url, 'eth_getBalance', [POOR, 'latest']),
    rpc(url, 'eth_getTransactionCount', [FRESH, 'latest']),
    rpc(url, 'eth_getCode', [probeAddress, 'latest']),
    ...[0, 3, 4].map((s) => rpc(url, 'eth_getStorageAt', [probeAddress, q(s), 'latest'])),
    rpc(url, 'eth_getBalance', [probeAddress, 'latest']),
  ])
}

beforeAll(async () => {
  node = await startNode()
  url = node.url
  ;({ address: probeAddress } = await deploy(url, Probe.bytecode))
  expect((await sendTx(url, { to: probeAddress, data: probe.encodeFunctionData('setValue', [5]) })).status).toBe('0x1')
  expect((await sendTx(url, { to: probeAddress, data: probe.encodeFunctionData('burn', [2]) })).status).toBe('0x1')
})
afterAll(() => node?.close())

describe('eth_call state overrides', () => {
  it('balance: BALANCE reads the overridden value; the chain keeps its own', async () => {
    const before = await chainView()
    expect(await call(FRESH, '0x', { [FRESH]: { code: balanceOf(POOR) } })).toBe(word(0))
    expect(
      await call(FRESH, '0x', { [FRESH]: { code: balanceOf(POOR) }, [POOR]: { balance: '0xde0b6b3a7640000' } }),
    ).toBe(word(10n ** 18n))
    expect(await chainView()).toEqual(before)
    expect(await rpc(url, 'eth_getBalance', [POOR, 'latest'])).toBe('0x0')
  })

  it('nonce: CREATE derives the new address from the overridden nonce', async () => {
    const at = (nonce: number) => addrWord(getCreateAddress({ from: FRESH, nonce }))
    expect(await call(FRESH, '0x', { [FRESH]: { code: CREATE_EMPTY } })).toBe(at(0))
    expect(await call(FRESH, '0x', { [FRESH]: { code: CREATE_EMPTY, nonce: '0x7' } })).toBe(at(7))
    expect(await rpc(url, 'eth_getTransactionCount', [FRESH, 'latest'])).toBe('0x0')
  })

  it('code: runs the given code at an empty address; empty code removes it', async () => {
    const before = await chainView()
    const data = probe.encodeFunctionData('value')
    expect(await call(FRESH, data)).toBe('0x')
    expect(await call(FRESH, data, { [FRESH]: { code: Probe.deployedBytecode } })).toBe(word(0))
    // Probe's value() without code is a plain call to an EOA: empty output
    expect(await call(probeAddress, data, { [probeAddress]: { code: '0x' } })).toBe('0x')
    expect(await chainView()).toEqual(before)
  })

  it('state: replaces the whole storage (unlisted slots read zero)', async () => {
    const before = await chainView()
    expect(await probeCall('value')).toBe(word(5))
    const burnAcc = await probeCall('burnAccumulator')
    expect(burnAcc).not.toBe(word(0))
    const over = { [probeAddress]: { state: { [word(4)]: word(9) } } }
    expect(await probeCall('value', over)).toBe(word(0))
    expect(await probeCall('burnAccumulator', over)).toBe(word(0))
    expect(await probeCall('burnCount', over)).toBe(word(9))
    // an empty state wipes everything
    expect(await probeCall('value', { [probeAddress]: { state: {} } })).toBe(word(0))
    expect(await chainView()).toEqual(before)
    expect(await probeCall('value')).toBe(word(5))
  })

  it('stateDiff: overrides single slots and keeps the others; a zero value clears a slot', async () => {
    const before = await chainView()
    const burnAcc = await probeCall('burnAccumulator')
    const over = { [probeAddress]: { stateDiff: { '0x0': word(42) } } }
    expect(await probeCall('value', over)).toBe(word(42))
    expect(await probeCall('burnAccumulator', over)).toBe(burnAcc)
    expect(await probeCall('burnAccumulator', { [probeAddress]: { stateDiff: { [word(3)]: word(0) } } })).toBe(word(0))
    // code and storage together at a fresh address
    expect(
      await call(FRESH, probe.encodeFunctionData('value'), {
        [FRESH]: { code: Probe.deployedBytecode, stateDiff: { [word(0)]: word(77) } },
      }),
    ).toBe(word(77))
    expect(await chainView()).toEqual(before)
  })

  it('overrides see writes of the call itself (setValue then the answer) and leave nothing behind', async () => {
    const before = await chainView()
    const over = { [probeAddress]: { stateDiff: { [word(0)]: word(1) }, balance: '0x10' } }
    await call(probeAddress, probe.encodeFunctionData('setValue', [99]), over)
    expect(await probeCall('selfBalance', over)).toBe(word(16))
    expect(await chainView()).toEqual(before)
    // identical calls without the override are not answered from the overridden call's memo
    expect(await probeCall('selfBalance')).toBe(word(0))
    expect(await probeCall('value')).toBe(word(5))
  })

  it('value transfers: an overridden balance covers the value of a call from an empty account', async () => {
    const params = { from: POOR, to: probeAddress, value: '0x64', data: probe.encodeFunctionData('deposit') }
    expect((await rpcError(url, 'eth_call', [params, 'latest'])).message).toBe('insufficient funds for transfer')
    expect(await rpc(url, 'eth_call', [params, 'latest', { [POOR]: { balance: '0x64' } }])).toBe('0x')
    expect(
      await rpc(url, 'eth_call', [
        { ...params, to: undefined, data: '0x00' },
        'latest',
        { [POOR]: { balance: '0x64' } },
      ]),
    ).toBe('0x')
  })

  it('works at past blocks and at pending', async () => {
    const over = { [probeAddress]: { stateDiff: { [word(0)]: word(3) } } }
    expect(await call(probeAddress, probe.encodeFunctionData('value'), over, '0x2')).toBe(word(3))
    expect(await call(probeAddress, probe.encodeFunctionData('value'), over, 'pending')).toBe(word(3))
    expect(await call(probeAddress, probe.encodeFunctionData('value'), undefined, '0x2')).toBe(word(5))
  })

  it('an empty map or null is no override', async () => {
    expect(await probeCall('value', {})).toBe(word(5))
    expect(
      await rpc(url, 'eth_call', [{ to: probeAddress, data: probe.encodeFunctionData('value') }, 'latest', null]),
    ).toBe(word(5))
  })

  it.each([
    [
      'movePrecompileToAddress',
      { ['0x' + '00'.repeat(19) + '01']: { movePrecompileToAddress: FRESH } },
      'movePrecompileToAddress is not supported',
    ],
    ['state and stateDiff together', { [FRESH]: { state: {}, stateDiff: {} } }, 'both state and stateDiff are set'],
    ['a bad address key', { '0x1234': { balance: '0x1' } }, 'want 40 for RSK address'],
    ['a bad balance', { [FRESH]: { balance: 'lots' } }, '.balance'],
    ['a bad nonce', { [FRESH]: { nonce: '0x' } }, '.nonce'],
    ['bad code', { [FRESH]: { code: '0x123' } }, '.code'],
    ['a bad slot', { [FRESH]: { stateDiff: { zz: word(1) } } }, 'stateDiff slot'],
    ['a bad slot value', { [FRESH]: { state: { [word(1)]: 5.5 } } }, '.state['],
    ['an unknown field', { [FRESH]: { balanse: '0x1' } }, 'unknown state override field "balanse"'],
    ['an entry that is not an object', { [FRESH]: '0x1' }, 'must be an object'],
    ['a map that is an array', [FRESH], 'state override must be an object'],
  ])('-32602 for %s', async (_name, overrides, message) => {
    const e = await rpcError(url, 'eth_call', [{ to: probeAddress, data: '0x' }, 'latest', overrides])
    expect(e.code).toBe(-32602)
    expect(e.message).toContain(message)
    expect(e.status).toBe(400)
  })
})

describe('eth_call block overrides', () => {
  it('number, time, gasLimit, coinbase, difficulty and baseFee', async () => {
    const o = {
      number: '0x1234',
      time: '0x5f5e100',
      gasLimit: '0x989680',
      coinbase: COW1.address,
      difficulty: '0x77',
      baseFee: '0x3b9aca00',
    }
    expect(await probeCall('blockNumber', null, [], o)).toBe(word(0x1234))
    expect(await probeCall('timestamp', null, [], o)).toBe(word(0x5f5e100))
    expect(await probeCall('gasLimit', null, [], o)).toBe(word(10_000_000))
    expect(await probeCall('coinbase', null, [], o)).toBe(addrWord(COW1.address))
    expect(await probeCall('prevrandao', null, [], o)).toBe(word(0x77))
    expect(await probeCall('baseFee', null, [], o)).toBe(word(10n ** 9n))
    // unchanged without them
    expect(await probeCall('blockNumber')).not.toBe(word(0x1234))
    expect(await probeCall('baseFee')).toBe(word(0))
  })

  it('only the given fields change; together with state overrides', async () => {
    const head = BigInt(await rpc(url, 'eth_blockNumber'))
    expect(await probeCall('blockNumber', null, [], { time: '0x1' })).toBe(word(head))
    expect(
      await probeCall('value', { [probeAddress]: { stateDiff: { [word(0)]: word(8) } } }, [], { number: '0x1' }),
    ).toBe(word(8))
  })

  it.each([
    ['an unknown field', { nmber: '0x1' }, 'unknown block override field "nmber"'],
    ['a bad number', { number: 'x' }, 'number'],
    ['a bad coinbase', { coinbase: '0x12' }, 'coinbase'],
    ['not an object', ['0x1'], 'block override must be an object'],
  ])('-32602 for %s', async (_name, o, message) => {
    const e = await rpcError(url, 'eth_call', [{ to: probeAddress, data: '0x' }, 'latest', {}, o])
    expect(e.code).toBe(-32602)
    expect(e.message).toContain(message)
  })
})

describe('eth_estimateGas overrides', () => {
  it('balance lets an empty account estimate a value transfer', async () => {
    const params = { from: POOR, to: COW.address, value: '0x64' }
    expect((await rpcError(url, 'eth_estimateGas', [params])).message).toBe('insufficient funds for transfer')
    expect(await rpc(url, 'eth_estimateGas', [params, 'latest', { [POOR]: { balance: '0x64' } }])).toBe(q(21000))
  })

  it('code and state: estimates overridden code, and reverts by the overridden state', async () => {
    const data = probe.encodeFunctionData('value')
    const plain = BigInt(await rpc(url, 'eth_estimateGas', [{ to: FRESH, data }]))
    const withCode = BigInt(
      await rpc(url, 'eth_estimateGas', [{ to: FRESH, data }, 'latest', { [FRESH]: { code: Probe.deployedBytecode } }]),
    )
    expect(withCode).toBeGreaterThan(plain)
    // panic() divides by (value - value): always reverts; withdraw reverts when the contract cannot pay
    const withdraw = probe.encodeFunctionData('withdraw', [COW1.address, 50])
    expect((await rpcError(url, 'eth_estimateGas', [{ to: probeAddress, data: withdraw }])).code).toBe(-32015)
    const est = await rpc(url, 'eth_estimateGas', [
      { to: probeAddress, data: withdraw },
      'latest',
      { [probeAddress]: { balance: '0x64' } },
    ])
    expect(BigInt(est)).toBeGreaterThan(21000n)
    expect(await rpc(url, 'eth_getBalance', [probeAddress, 'latest'])).toBe('0x0')
  })

  it('block overrides apply to the estimate', async () => {
    const data = probe.encodeFunctionData('blockNumber')
    expect(
      BigInt(await rpc(url, 'eth_estimateGas', [{ to: probeAddress, data }, 'latest', null, { number: '0x99' }])),
    ).toBeGreaterThan(21000n)
  })

  it('-32602 for movePrecompileToAddress and malformed entries', async () => {
    const e = await rpcError(url, 'eth_estimateGas', [
      { to: probeAddress },
      'latest',
      { [FRESH]: { movePrecompileToAddress: POOR } },
    ])
    expect(e).toMatchObject({ code: -32602 })
    expect(e.message).toContain('movePrecompileToAddress is not supported')
    expect(
      (await rpcError(url, 'eth_estimateGas', [{ to: probeAddress }, 'latest', { [FRESH]: { nonce: -1 } }])).code,
    ).toBe(-32602)
  })
})
