/**
 * Compatibility profiles (--compat hardhat|anvil) against the reference default, over real HTTP: client version,
 * the Remasc transaction in block lists, revert error shapes, estimated gas for sends without `gas`, the
 * interval-mining unit, hardhat_metadata (answered under the Hardhat profile only, with Hardhat 3's 60 M block gas
 * limit), and errors' HTTP status (test/rpc/compat-http-status.test.ts). The tools themselves run in test/e2e (Hardhat project,
 * viem, web3.js, cast).
 */
import { Interface } from 'ethers'
import { createTestClient, http } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Probe } from '../../fixtures/index.js'
import type { Node } from '../../src/index.js'
import { COW, COW1, rpc, rpcError, startNode } from '../helpers/node.js'
import { deploy, HASH } from './shapes.js'

const probe = new Interface(Probe.abi)
const REMASC = '0x0000000000000000000000000000000001000008'
const REASON_DATA = probe.encodeErrorResult('Error', ['Probe: failed'])
const CUSTOM_DATA = probe.encodeErrorResult('ProbeError', [7n, 'custom failure'])
/** Init code PUSH2 1000 PUSH1 0 RETURN: deploys 1 000 zero bytes of code. */
const RETURN_1000_BYTES = '0x6103e86000f3'
/** Init code JUMPDEST PUSH1 0 JUMP: loops until the gas is gone. */
const ENDLESS_LOOP = '0x5b600056'

interface Started {
  node: Node
  url: string
  probeAddress: string
}

/** Interval timers that record the period (ms) the miner asks for, and never fire. */
function recordingTimers(periods: number[]) {
  return { setInterval: (_cb: () => void, ms: number) => periods.push(ms), clearInterval: () => {} }
}

async function start(compat?: 'hardhat' | 'anvil', periods: number[] = []): Promise<Started & { periods: number[] }> {
  const node = await startNode({ ...(compat ? { compat } : {}), timers: recordingTimers(periods) })
  const { address } = await deploy(node.url, Probe.bytecode)
  return { node, url: node.url, probeAddress: address, periods }
}

const call = (s: Started, fn: string, args: unknown[] = []) => ({
  from: COW.address,
  to: s.probeAddress,
  data: probe.encodeFunctionData(fn, args),
})

describe('reference default (no profile)', () => {
  let s: Started & { periods: number[] }
  beforeAll(async () => (s = await start()))
  afterAll(() => s.node.close())

  it('node-cli client version; anvil_metadata and anvil_nodeInfo say "reference"', async () => {
    expect(await rpc(s.url, 'web3_clientVersion')).toMatch(/^node-cli\/v/)
    expect((await rpc(s.url, 'anvil_metadata')).compat).toBe('reference')
    expect((await rpc(s.url, 'anvil_nodeInfo')).compat).toBe('reference')
    expect(s.node.compat).toBe('reference')
  })

  it('blocks list the Remasc transaction last', async () => {
    const block = await rpc(s.url, 'eth_getBlockByNumber', ['latest', true])
    expect(block.transactions).toHaveLength(2)
    expect(block.transactions[1].to).toBe(REMASC)
    expect(await rpc(s.url, 'eth_getBlockTransactionCountByNumber', ['latest'])).toBe('0x2')
    expect((await rpc(s.url, 'eth_getTransactionByBlockNumberAndIndex', ['latest', '0x1'])).to).toBe(REMASC)
  })

  it('reverts are -32015 with the revert bytes', async () => {
    const e = await rpcError(s.url, 'eth_call', [call(s, 'failWithReason'), 'latest'])
    expect(e).toMatchObject({
      code: -32015,
      message: 'VM Exception while processing transaction: revert Probe: failed',
      data: REASON_DATA,
    })
  })

  it("debug_traceTransaction without a tracer answers the reference's struct logs (rskTracer)", async () => {
    const hash = await rpc(s.url, 'eth_sendTransaction', [{ ...call(s, 'setValue', [3n]), gas: '0x30000' }])
    const t = await rpc(s.url, 'debug_traceTransaction', [hash])
    expect(t).not.toHaveProperty('failed')
    expect(t.structLogs.length).toBeGreaterThan(10)
  })

  it('hardhat_metadata is refused with -32601 naming the reason (hardhat-ethers keeps estimating gas)', async () => {
    const e = await rpcError(s.url, 'hardhat_metadata')
    expect(e.code).toBe(-32601)
    expect(e.message).toMatch(/hardhat_metadata is not available: .*16777216 gas.*anvil_metadata/)
  })

  it('eth_sendTransaction without gas uses the reference default 90 000; running out says so', async () => {
    const hash = await rpc(s.url, 'eth_sendTransaction', [{ from: COW.address, to: COW1.address, value: '0x1' }])
    expect((await rpc(s.url, 'eth_getTransactionByHash', [hash])).gas).toBe('0x15f90')
    // init code returning 1 000 bytes of code: storing them costs 200 000 gas, more than the default 90 000
    const e = await rpcError(s.url, 'eth_sendTransaction', [{ from: COW.address, data: RETURN_1000_BYTES }])
    expect(e.code).toBe(-32015)
    expect(e.message).toBe(
      'VM Exception while processing transaction: out of gas (gas limit 90000, the default of eth_sendTransaction without "gas")',
    )
    // an endless loop runs out of the gas given
    const e2 = await rpcError(s.url, 'eth_sendTransaction', [{ from: COW.address, data: ENDLESS_LOOP, gas: '0xea60' }])
    expect(e2.message).toBe('VM Exception while processing transaction: out of gas (gas limit 60000)')
    // with enough gas the same deployment succeeds
    const ok = await rpc(s.url, 'eth_sendTransaction', [{ from: COW.address, data: RETURN_1000_BYTES, gas: '0x50000' }])
    expect((await rpc(s.url, 'eth_getTransactionReceipt', [ok])).status).toBe('0x1')
  })

  it('evm_setIntervalMining takes milliseconds; anvil_setIntervalMining seconds', async () => {
    await rpc(s.url, 'evm_setIntervalMining', [1500])
    await rpc(s.url, 'anvil_setIntervalMining', [2])
    expect(s.periods).toEqual([1500, 2000])
    await rpc(s.url, 'evm_setIntervalMining', [0])
  })
})

describe('--compat hardhat', () => {
  let s: Started & { periods: number[] }
  beforeAll(async () => (s = await start('hardhat')))
  afterAll(() => s.node.close())

  it('client version is Hardhat 3\'s (network helpers accept it); metadata says "hardhat"', async () => {
    expect(await rpc(s.url, 'web3_clientVersion')).toMatch(/^HardhatNetwork\/3\.\d+\.\d+\/node-cli\/v/)
    expect((await rpc(s.url, 'anvil_metadata')).compat).toBe('hardhat')
    expect((await rpc(s.url, 'anvil_nodeInfo')).compat).toBe('hardhat')
    expect(s.node.compat).toBe('hardhat')
  })

  it("hardhat_metadata answers Hardhat 3's fields; instanceId new per start and per reset", async () => {
    const m = await rpc(s.url, 'hardhat_metadata')
    expect(Object.keys(m).sort()).toEqual([
      'chainId',
      'clientVersion',
      'instanceId',
      'latestBlockHash',
      'latestBlockNumber',
    ])
    expect(m.chainId).toBe(33)
    expect(m.clientVersion).toBe(await rpc(s.url, 'web3_clientVersion'))
    expect(m.instanceId).toMatch(HASH)
    expect(m.latestBlockNumber).toBe(Number(await rpc(s.url, 'eth_blockNumber')))
    expect(m.latestBlockHash).toBe((await rpc(s.url, 'eth_getBlockByNumber', ['latest', false])).hash)
    expect((await rpc(s.url, 'hardhat_metadata')).instanceId).toBe(m.instanceId)
    const other = await startNode({ compat: 'hardhat' })
    try {
      expect((await rpc(other.url, 'hardhat_metadata')).instanceId).not.toBe(m.instanceId)
      await rpc(other.url, 'hardhat_reset')
      expect((await rpc(other.url, 'hardhat_metadata')).latestBlockNumber).toBe(0)
    } finally {
      await other.close()
    }
  })

  it("block gas limit 60 M (Hardhat 3's): a transaction of 2^24 gas (Hardhat 2 hardhat-ethers' fixed gas) is mined", async () => {
    const genesis = await rpc(s.url, 'eth_getBlockByNumber', ['0x0', false])
    expect(BigInt(genesis.gasLimit)).toBe(60_000_000n)
    expect(BigInt((await rpc(s.url, 'eth_getBlockByNumber', ['latest', false])).gasLimit)).toBe(60_000_000n)
    const hash = await rpc(s.url, 'eth_sendTransaction', [
      { from: COW.address, to: COW1.address, value: '0x1', gas: '0x1000000' },
    ])
    expect((await rpc(s.url, 'eth_getTransactionReceipt', [hash])).status).toBe('0x1')
    // --gas-limit still wins over the profile's
    const small = await startNode({ compat: 'hardhat', gasLimit: 9_000_000n })
    try {
      expect(BigInt((await rpc(small.url, 'eth_getBlockByNumber', ['0x0', false])).gasLimit)).toBe(9_000_000n)
    } finally {
      await small.close()
    }
  })

  it('block lists leave out the Remasc transaction; it is still found by hash, with its receipt, and in the roots', async () => {
    const hash = await rpc(s.url, 'eth_sendTransaction', [
      { from: COW.address, to: COW1.address, value: '0x1', gas: '0x5208' },
    ])
    const block = await rpc(s.url, 'eth_getBlockByNumber', ['latest', false])
    expect(block.transactions).toEqual([hash])
    const full = await rpc(s.url, 'eth_getBlockByHash', [block.hash, true])
    expect(full.transactions.map((t: { hash: string }) => t.hash)).toEqual([hash])
    expect(await rpc(s.url, 'eth_getBlockTransactionCountByNumber', ['latest'])).toBe('0x1')
    expect(await rpc(s.url, 'eth_getBlockTransactionCountByHash', [block.hash])).toBe('0x1')
    expect(await rpc(s.url, 'eth_getTransactionByBlockNumberAndIndex', ['latest', '0x1'])).toBeNull()
    expect(await rpc(s.url, 'eth_getTransactionByBlockHashAndIndex', [block.hash, '0x1'])).toBeNull()
    expect((await rpc(s.url, 'eth_getTransactionByBlockHashAndIndex', [block.hash, '0x0'])).hash).toBe(hash)
    // the Remasc transaction of that block: in the Remasc contract's fee logs' block, found by hash
    const raw = await rpc(s.url, 'ext_getRawBlockHeaderByNumber', [block.number])
    expect(raw).toMatch(/^0x/)
    // the receipts root still covers two receipts: the reference node's root for this block is unchanged, so
    // the block hash (over the header) equals the one a reference-mode node computes for the same block
    expect(block.transactionsRoot).toMatch(HASH)
  })

  it('reverts as Hardhat 3: code 3 "VM Exception … reverted with reason string \'…\'", data the revert bytes', async () => {
    const e = await rpcError(s.url, 'eth_call', [call(s, 'failWithReason'), 'latest'])
    const message = "VM Exception while processing transaction: reverted with reason string 'Probe: failed'"
    expect(e).toEqual({ code: 3, message, data: REASON_DATA, status: 200 })
    const custom = await rpcError(s.url, 'eth_call', [call(s, 'failCustom', [7n]), 'latest'])
    expect(custom).toEqual({
      code: 3,
      message: `VM Exception while processing transaction: reverted with an unrecognized custom error (return data: ${CUSTOM_DATA})`,
      data: CUSTOM_DATA,
      status: 200,
    })
    expect(await rpcError(s.url, 'eth_call', [call(s, 'panic'), 'latest'])).toMatchObject({
      code: 3,
      message:
        'VM Exception while processing transaction: reverted with panic code 0x12 (Division or modulo division by zero)',
    })
    const empty = await rpcError(s.url, 'eth_call', [call(s, 'fail'), 'latest'])
    expect(empty).toEqual({ code: 3, message: 'Transaction reverted without a reason string', data: '0x', status: 200 })
    // estimates revert the same way
    expect(await rpcError(s.url, 'eth_estimateGas', [call(s, 'failWithReason')])).toEqual(e)
  })

  it("a reverting send with gas is mined and answered with the revert (no hash in it, as Hardhat 3's node)", async () => {
    const before = BigInt(await rpc(s.url, 'eth_blockNumber'))
    const e = await rpcError(s.url, 'eth_sendTransaction', [{ ...call(s, 'failWithReason'), gas: '0x30000' }])
    expect(e).toMatchObject({ code: 3, data: REASON_DATA })
    expect(BigInt(await rpc(s.url, 'eth_blockNumber'))).toBe(before + 1n)
    const block = await rpc(s.url, 'eth_getBlockByNumber', ['latest', false])
    expect((await rpc(s.url, 'eth_getTransactionReceipt', [block.transactions[0]])).status).toBe('0x0')
  })

  it('eth_sendTransaction without gas sends with the estimate: a deployment succeeds', async () => {
    const hash = await rpc(s.url, 'eth_sendTransaction', [{ from: COW.address, data: Probe.bytecode }])
    const receipt = await rpc(s.url, 'eth_getTransactionReceipt', [hash])
    expect(receipt.status).toBe('0x1')
    const tx = await rpc(s.url, 'eth_getTransactionByHash', [hash])
    expect(BigInt(tx.gas)).toBeGreaterThan(90_000n)
    expect(BigInt(tx.gas)).toBeGreaterThanOrEqual(BigInt(receipt.gasUsed))
    // a send that would revert is answered with the estimate's revert, nothing is mined
    const before = await rpc(s.url, 'eth_blockNumber')
    const e = await rpcError(s.url, 'eth_sendTransaction', [call(s, 'failWithReason')])
    expect(e.message).toMatch(/reverted with reason string 'Probe: failed'/)
    expect(await rpc(s.url, 'eth_blockNumber')).toBe(before)
  })

  it("debug_traceTransaction without a tracer answers geth's struct logs ({gas, failed, returnValue, structLogs})", async () => {
    const hash = await rpc(s.url, 'eth_sendTransaction', [{ ...call(s, 'setValue', [3n]), gas: '0x30000' }])
    const t = await rpc(s.url, 'debug_traceTransaction', [hash])
    expect(Object.keys(t).sort()).toEqual(['failed', 'gas', 'returnValue', 'structLogs'])
    expect(t.failed).toBe(false)
    expect(t.structLogs.length).toBeGreaterThan(10)
  })

  it('evm_setIntervalMining takes milliseconds (viem hardhat mode sends ms)', async () => {
    await rpc(s.url, 'evm_setIntervalMining', [3000])
    expect(s.periods).toEqual([3000])
    const client = createTestClient({ mode: 'hardhat', transport: http(s.url) })
    await client.setIntervalMining({ interval: 2 })
    expect(s.periods).toEqual([3000, 2000])
    await rpc(s.url, 'evm_setIntervalMining', [0])
  })
})

describe('--compat anvil', () => {
  let s: Started & { periods: number[] }
  beforeAll(async () => (s = await start('anvil')))
  afterAll(() => s.node.close())

  it('client version starts with anvil; Remasc transaction out of block lists', async () => {
    expect(await rpc(s.url, 'web3_clientVersion')).toMatch(/^anvil\/v1\.\d+\.\d+\/node-cli\/v/)
    // refused, as without a profile: the block gas limit is the network's, too small for hardhat-ethers' 2^24
    expect((await rpcError(s.url, 'hardhat_metadata')).code).toBe(-32601)
    expect(BigInt((await rpc(s.url, 'eth_getBlockByNumber', ['0x0', false])).gasLimit)).toBe(10_000_000n)
    expect(await rpc(s.url, 'eth_getBlockTransactionCountByNumber', ['latest'])).toBe('0x1')
  })

  it('reverts: code 3 "execution reverted: …" with the revert bytes as data', async () => {
    expect(await rpcError(s.url, 'eth_call', [call(s, 'failWithReason'), 'latest'])).toEqual({
      code: 3,
      message: 'execution reverted: Probe: failed',
      data: REASON_DATA,
      status: 200,
    })
    expect(await rpcError(s.url, 'eth_call', [call(s, 'failCustom', [7n]), 'latest'])).toMatchObject({
      code: 3,
      message: 'execution reverted',
      data: CUSTOM_DATA,
    })
    expect((await rpcError(s.url, 'eth_call', [call(s, 'panic'), 'latest'])).message).toBe(
      'execution reverted: panic code 0x12',
    )
  })

  it('evm_setIntervalMining takes seconds (viem anvil mode, Anvil)', async () => {
    await rpc(s.url, 'evm_setIntervalMining', [2])
    expect(s.periods).toEqual([2000])
    // viem's test client in anvil mode sends the seconds it is given
    const client = createTestClient({ mode: 'anvil', transport: http(s.url) })
    await client.setIntervalMining({ interval: 3 })
    expect(s.periods).toEqual([2000, 3000])
    await rpc(s.url, 'evm_setIntervalMining', [0])
  })

  it('eth_getLogs and log filters answer a range over 5000 blocks (the reference: -32012, eth-blocks-logs.test.ts)', async () => {
    const { receipt } = await deploy(s.url, Probe.bytecode)
    const emitted = await rpc(s.url, 'eth_sendTransaction', [
      { from: COW.address, to: receipt.contractAddress, data: probe.encodeFunctionData('emitMany', [1n]) },
    ])
    await rpc(s.url, 'anvil_mine', ['0x1389']) // 5001 blocks
    const range = { fromBlock: '0x0', toBlock: 'latest', address: receipt.contractAddress }
    const logs = await rpc(s.url, 'eth_getLogs', [range])
    expect(logs.map((l: { transactionHash: string }) => l.transactionHash)).toEqual([emitted])
    const id = await rpc(s.url, 'eth_newFilter', [range])
    expect(await rpc(s.url, 'eth_getFilterLogs', [id])).toEqual(logs)
  })
})
