/**
 * End-to-end: viem's test client (createTestClient) runs unchanged against the node in mode 'anvil' and mode
 * 'hardhat' (each action picks its method prefix by mode: anvil_* / hardhat_*, plus the shared evm_* names),
 * and in mode 'ganache' for the actions viem maps to evm_setAccount* / evm_mine({ blocks }).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  createTestClient,
  createWalletClient,
  defineChain,
  encodeFunctionData,
  decodeFunctionResult,
  getAddress,
  http,
  pad,
  parseEther,
  publicActions,
  walletActions,
  type Address,
  type Chain,
  type Hex,
} from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { Probe } from '../../fixtures/index.js'
import type { Node } from '../../src/index.js'
import { COW, COW1, internals, startNode } from '../helpers/node.js'

const fresh = (): Address => privateKeyToAccount(generatePrivateKey()).address
const cow = getAddress(COW.address)
const cow1 = getAddress(COW1.address)

function rskChain(url: string): Chain {
  return defineChain({
    id: 33,
    name: 'RSK regtest',
    nativeCurrency: { name: 'RBTC', symbol: 'RBTC', decimals: 18 },
    rpcUrls: { default: { http: [url] } },
  })
}

function testClientFor(node: Node, mode: 'anvil' | 'hardhat' | 'ganache') {
  return createTestClient({ mode, chain: rskChain(node.url), transport: http(node.url), pollingInterval: 50 })
    .extend(publicActions)
    .extend(walletActions)
}

describe.each(['anvil', 'hardhat'] as const)('viem test client, mode %s', (mode) => {
  let node: Node
  let client: ReturnType<typeof testClientFor>
  /** Methods the node received, in order. */
  const seen: { method: string; code?: number }[] = []

  /** Interval-mining timers the test fires by hand. */
  const intervals: { cb: () => void; ms: number }[] = []

  beforeAll(async () => {
    node = await startNode({
      onRequest: (method, _ms, error) => seen.push({ method, code: error?.code }),
      timers: {
        setInterval: (cb, ms) => intervals.push({ cb, ms }),
        clearInterval: (handle) => void intervals.splice((handle as number) - 1, 1, { cb: () => undefined, ms: -1 }),
      },
    })
    client = testClientFor(node, mode)
  })
  afterAll(async () => {
    await node?.close()
    // every call answered without an error but the one expected refusal (after stopImpersonatingAccount; viem
    // then retries it as wallet_sendTransaction), and the vendor calls went out under this mode's prefix
    expect(seen.filter((s) => s.code !== undefined)).toEqual([
      { method: 'eth_sendTransaction', code: -32602 },
      { method: 'wallet_sendTransaction', code: -32601 },
    ])
    const vendor = seen.map((s) => s.method).filter((m) => /^(anvil|hardhat)_/.test(m))
    expect(vendor.length).toBeGreaterThan(10)
    expect(vendor.every((m) => m.startsWith(`${mode}_`))).toBe(true)
  })

  it('setBalance', async () => {
    const a = fresh()
    await client.setBalance({ address: a, value: parseEther('12.5') })
    expect(await client.getBalance({ address: a })).toBe(parseEther('12.5'))
  })

  it('impersonateAccount + sendUnsignedTransaction, and eth_sendTransaction from the impersonated address', async () => {
    const who = fresh()
    const to = fresh()
    await client.setBalance({ address: who, value: parseEther('1') })
    await client.impersonateAccount({ address: who })
    const hash = await client.sendUnsignedTransaction({ from: who, to, value: 1000n })
    const receipt = await client.waitForTransactionReceipt({ hash })
    expect(receipt.status).toBe('success')
    expect(getAddress(receipt.from)).toBe(who)
    // the impersonated address as a JSON-RPC account of a wallet client (eth_sendTransaction)
    const wallet = createWalletClient({ account: who, chain: client.chain, transport: http(node.url) })
    const hash2 = await wallet.sendTransaction({ to, value: 2000n, gas: 21_000n })
    expect((await client.waitForTransactionReceipt({ hash: hash2 })).status).toBe('success')
    expect(await client.getBalance({ address: to })).toBe(3000n)
    await client.stopImpersonatingAccount({ address: who })
    await expect(wallet.sendTransaction({ to, value: 1n, gas: 21_000n })).rejects.toThrow(/Could not find account/)
  })

  it('mine({ blocks }) and mine({ blocks, interval })', async () => {
    const n = await client.getBlockNumber({ cacheTime: 0 })
    await client.mine({ blocks: 3 })
    expect(await client.getBlockNumber({ cacheTime: 0 })).toBe(n + 3n)
    await client.mine({ blocks: 4, interval: 30 })
    const blocks = await Promise.all([4n, 5n, 6n, 7n].map((k) => client.getBlock({ blockNumber: n + k })))
    for (let i = 1; i < blocks.length; i++) expect(blocks[i]!.timestamp - blocks[i - 1]!.timestamp).toBe(30n)
  })

  it('increaseTime: the accumulated offset; the next block is at least that much later', async () => {
    const before = await client.getBlock()
    expect(await client.increaseTime({ seconds: 3600 })).toBe('0xe10')
    await client.mine({ blocks: 1 })
    const after = await client.getBlock()
    expect(after.timestamp - before.timestamp).toBeGreaterThanOrEqual(3600n)
  })

  it('setNextBlockTimestamp', async () => {
    const head = await client.getBlock()
    await client.setNextBlockTimestamp({ timestamp: head.timestamp + 777n })
    await client.mine({ blocks: 1 })
    expect((await client.getBlock()).timestamp).toBe(head.timestamp + 777n)
  })

  it('snapshot / revert (twice to the same id)', async () => {
    const a = fresh()
    await client.setBalance({ address: a, value: 1n })
    const n = await client.getBlockNumber({ cacheTime: 0 })
    const id = await client.snapshot()
    expect(id).toMatch(/^0x[0-9a-f]+$/)
    await client.setBalance({ address: a, value: 2n })
    await client.mine({ blocks: 2 })
    await client.revert({ id })
    expect(await client.getBalance({ address: a })).toBe(1n)
    expect(await client.getBlockNumber({ cacheTime: 0 })).toBe(n)
    await client.mine({ blocks: 1 })
    await client.revert({ id })
    expect(await client.getBlockNumber({ cacheTime: 0 })).toBe(n)
  })

  it('setCode, setStorageAt, setNonce', async () => {
    const a = fresh()
    await client.setCode({ address: a, bytecode: Probe.deployedBytecode })
    expect(await client.getCode({ address: a })).toBe(Probe.deployedBytecode)
    await client.setStorageAt({ address: a, index: 0, value: pad('0x2a') })
    expect(await client.getStorageAt({ address: a, slot: '0x0' })).toBe(pad('0x2a'))
    expect(await client.readContract({ address: a, abi: Probe.abi, functionName: 'value' })).toBe(42n)
    await client.setStorageAt({ address: a, index: pad('0x0'), value: pad('0x2b') })
    const data = await client.call({ to: a, data: encodeFunctionData({ abi: Probe.abi, functionName: 'value' }) })
    expect(decodeFunctionResult({ abi: Probe.abi, functionName: 'value', data: data.data! })).toBe(43n)

    const b = fresh()
    await client.setNonce({ address: b, nonce: 17 })
    expect(await client.getTransactionCount({ address: b })).toBe(17)
  })

  it('setAutomine(false) + mine; getAutomine; dropTransaction', async () => {
    expect(await client.getAutomine()).toBe(true)
    await client.setAutomine(false)
    try {
      expect(await client.getAutomine()).toBe(false)
      const hash = await client.sendTransaction({ account: cow, to: cow1, value: 1n, chain: client.chain })
      const dropped = await client.sendTransaction({ account: cow1, to: cow, value: 1n, chain: client.chain })
      expect(await client.getTransactionConfirmations({ hash }).catch(() => 0n)).toBe(0n)
      const content = await client.getTxpoolContent()
      expect(Object.keys(content.pending).length).toBe(2)
      await client.dropTransaction({ hash: dropped })
      expect((await client.getTxpoolStatus()).pending).toBe(1)
      await client.mine({ blocks: 1 })
      const receipt = await client.getTransactionReceipt({ hash })
      expect(receipt.status).toBe('success')
      await expect(client.getTransactionReceipt({ hash: dropped })).rejects.toThrow()
      expect((await client.getTxpoolStatus()).pending).toBe(0)
    } finally {
      await client.setAutomine(true)
    }
    expect(await client.getAutomine()).toBe(true)
  })

  it('setCoinbase, setBlockGasLimit, setMinGasPrice', async () => {
    const cb = fresh()
    await client.setCoinbase({ address: cb })
    await client.setBlockGasLimit({ gasLimit: 9_000_000n })
    await client.setMinGasPrice({ gasPrice: 5n })
    await client.mine({ blocks: 1 })
    const b = await client.getBlock()
    expect(getAddress(b.miner)).toBe(cb)
    expect(b.gasLimit).toBe(9_000_000n)
    expect(BigInt((b as unknown as { minimumGasPrice: Hex }).minimumGasPrice)).toBe(5n)
    await client.setMinGasPrice({ gasPrice: 0n })
    await client.mine({ blocks: 1 })
  })

  // evm_setIntervalMining takes milliseconds here (Hardhat's unit); viem's anvil mode sends seconds (Anvil's
  // unit) under the same method name, so only the hardhat mode is checked.
  it.skipIf(mode !== 'hardhat')(
    'setIntervalMining: a block per tick of an interval in ms; 0 turns it off',
    async () => {
      await client.setIntervalMining({ interval: 2 })
      const armed = intervals.at(-1)!
      expect(armed.ms).toBe(2000)
      const n = await client.getBlockNumber({ cacheTime: 0 })
      armed.cb()
      await internals(node).chain.queue.run(() => undefined)
      expect(await client.getBlockNumber({ cacheTime: 0 })).toBe(n + 1n)
      await client.setIntervalMining({ interval: 0 })
      expect(intervals.at(-1)!.ms).toBe(-1) // cleared
    },
  )

  it('setLoggingEnabled: the request log stops and starts again', async () => {
    await client.setLoggingEnabled(false)
    const before = seen.length
    await client.getBlockNumber({ cacheTime: 0 })
    expect(seen.length).toBe(before) // not logged while off
    await client.setLoggingEnabled(true)
    await client.getBlockNumber({ cacheTime: 0 })
    expect(seen.at(-1)?.method).toBe('eth_blockNumber')
  })

  it('reset', async () => {
    await client.mine({ blocks: 2 })
    expect(await client.getBlockNumber({ cacheTime: 0 })).toBeGreaterThan(0n)
    await client.reset()
    expect(await client.getBlockNumber({ cacheTime: 0 })).toBe(0n)
    expect(await client.getTransactionCount({ address: cow })).toBe(0)
  })
})

describe('viem test client, mode ganache (the actions viem maps to evm_setAccount* / evm_mine)', () => {
  let node: Node
  let client: ReturnType<typeof testClientFor>
  const seen: string[] = []
  beforeAll(async () => {
    node = await startNode({ onRequest: (method) => seen.push(method) })
    client = testClientFor(node, 'ganache')
  })
  afterAll(async () => {
    await node?.close()
  })

  it('setBalance → evm_setAccountBalance, setCode → evm_setAccountCode, mine → evm_mine({ blocks })', async () => {
    const a = fresh()
    await client.setBalance({ address: a, value: 123n })
    expect(await client.getBalance({ address: a })).toBe(123n)
    await client.setCode({ address: a, bytecode: Probe.deployedBytecode })
    expect(await client.getCode({ address: a })).toBe(Probe.deployedBytecode)
    const n = await client.getBlockNumber({ cacheTime: 0 })
    await client.mine({ blocks: 3 })
    expect(await client.getBlockNumber({ cacheTime: 0 })).toBe(n + 3n)
    expect(seen).toEqual(expect.arrayContaining(['evm_setAccountBalance', 'evm_setAccountCode', 'evm_mine']))
    // viem sends setNonce / setStorageAt as ganache_setNonce / ganache_setStorageAt in this mode (not
    // evm_setAccount*), so they are not part of this check; the evm_setAccount* names are covered in
    // test/rpc/dev-state.test.ts.
  })
})
