/**
 * State and node cheats (the peers' setBalance/Code/Nonce/Storage,
 * impersonation and vendor-namespace methods; docs/reference-rules.md#lib-impersonation): set{Balance,Nonce,Code,StorageAt} under the anvil_,
 * hardhat_ and ganache evm_setAccount* names apply to the latest state in place (no block mined);
 * impersonation (anvil_/hardhat_impersonateAccount, stopImpersonatingAccount, autoImpersonateAccount) and
 * eth_sendUnsignedTransaction; setCoinbase, setMinGasPrice, dropTransaction, setLoggingEnabled,
 * metadata / nodeInfo, anvil_reset / hardhat_reset.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Interface, Wallet } from 'ethers'
import type { Node } from '../../src/index.js'
import { Probe } from '../../fixtures/index.js'
import { COW, COW1, rpc, rpcError, startNode } from '../helpers/node.js'
import { HASH, MINER, q, QTY, word } from './shapes.js'

const probe = new Interface(Probe.abi)
const fresh = () => Wallet.createRandom().address.toLowerCase()

let node: Node
let url: string
const logged: string[] = []
const internalErrors: unknown[] = []

const blockNumber = async () => BigInt(await rpc<string>(url, 'eth_blockNumber'))
const latest = () => rpc(url, 'eth_getBlockByNumber', ['latest', false])
const receipt = (h: string) => rpc(url, 'eth_getTransactionReceipt', [h])

beforeAll(async () => {
  node = await startNode({
    onRequest: (method) => logged.push(method),
    onInternalError: (_m, err) => internalErrors.push(err),
  })
  url = node.url
})
afterAll(async () => {
  await node?.close()
  expect(internalErrors).toEqual([])
})

/** The three naming families, each as [balance, nonce, code, storage] method names. */
const FAMILIES = [
  ['anvil', ['anvil_setBalance', 'anvil_setNonce', 'anvil_setCode', 'anvil_setStorageAt']],
  ['hardhat', ['hardhat_setBalance', 'hardhat_setNonce', 'hardhat_setCode', 'hardhat_setStorageAt']],
  ['ganache', ['evm_setAccountBalance', 'evm_setAccountNonce', 'evm_setAccountCode', 'evm_setAccountStorageAt']],
] as const

describe.each(FAMILIES)('%s set* methods', (_family, [setBalance, setNonce, setCode, setStorageAt]) => {
  it('change the latest state in place: visible at latest and pending, no block mined, earlier blocks unchanged', async () => {
    const a = fresh()
    const n = await blockNumber()
    expect(await rpc(url, setBalance, [a, '0xde0b6b3a7640000'])).toBe(true) // 1 RBTC
    expect(await rpc(url, setNonce, [a, '0x2a'])).toBe(true)
    expect(await rpc(url, 'eth_getBalance', [a, 'latest'])).toBe('0xde0b6b3a7640000')
    expect(await rpc(url, 'eth_getBalance', [a, 'pending'])).toBe('0xde0b6b3a7640000')
    expect(await rpc(url, 'eth_getBalance', [a, q(n)])).toBe('0xde0b6b3a7640000') // the head's number = latest
    expect(await rpc(url, 'eth_getTransactionCount', [a, 'latest'])).toBe('0x2a')
    expect(await blockNumber()).toBe(n)
    if (n > 0n) expect(await rpc(url, 'eth_getBalance', [a, q(n - 1n)])).toBe('0x0')
    // a balance can be lowered too, and an existing account's nonce changed
    expect(await rpc(url, setBalance, [a, '0x5'])).toBe(true)
    expect(await rpc(url, 'eth_getBalance', [a, 'latest'])).toBe('0x5')
    expect(await rpc(url, 'eth_getTransactionCount', [a, 'latest'])).toBe('0x2a')
    expect(await blockNumber()).toBe(n)
  })

  it('setCode + setStorageAt: eth_getCode / eth_getStorageAt see them and eth_call runs the code', async () => {
    const a = fresh()
    const n = await blockNumber()
    expect(await rpc(url, setCode, [a, Probe.deployedBytecode])).toBe(true)
    expect(await rpc(url, 'eth_getCode', [a, 'latest'])).toBe(Probe.deployedBytecode)
    // Probe.value is slot 0; the value is a 32-byte word (viem) or a short quantity
    expect(await rpc(url, setStorageAt, [a, '0x0', word(0x1234)])).toBe(true)
    expect(await rpc(url, 'eth_getStorageAt', [a, '0x0', 'latest'])).toBe(word(0x1234))
    const call = (data: string) => rpc<string>(url, 'eth_call', [{ to: a, data }, 'latest'])
    expect(BigInt(await call(probe.encodeFunctionData('value')))).toBe(0x1234n)
    expect(BigInt(await call(probe.encodeFunctionData('chainId')))).toBe(33n)
    expect(await rpc(url, setStorageAt, [a, q(0), '0x7'])).toBe(true)
    expect(BigInt(await call(probe.encodeFunctionData('value')))).toBe(7n)
    // the mapping slot of balances[COW] (keccak(abi.encode(COW, 1)))
    const { keccak256, AbiCoder } = await import('ethers')
    const slot = keccak256(AbiCoder.defaultAbiCoder().encode(['address', 'uint256'], [COW.address, 1]))
    expect(await rpc(url, setStorageAt, [a, slot, word(99)])).toBe(true)
    expect(BigInt(await call(probe.encodeFunctionData('balances', [COW.address])))).toBe(99n)
    // clearing a word
    expect(await rpc(url, setStorageAt, [a, slot, word(0)])).toBe(true)
    expect(await rpc(url, 'eth_getStorageAt', [a, slot, 'latest'])).toBe(word(0))
    expect(await blockNumber()).toBe(n)
    // a transaction against it mines and sees the same state
    const h = await rpc<string>(url, 'eth_sendTransaction', [
      { from: COW.address, to: a, data: probe.encodeFunctionData('setValue', [8]), gas: '0x30d40' },
    ])
    expect((await receipt(h)).status).toBe('0x1')
    expect(await rpc(url, 'eth_getStorageAt', [a, '0x0', 'latest'])).toBe(word(8))
    // a state change persists across blocks
    expect(await rpc(url, 'eth_getCode', [a, 'latest'])).toBe(Probe.deployedBytecode)
  })

  it('reject malformed arguments with -32602', async () => {
    expect((await rpcError(url, setBalance, ['0x1234', '0x1'])).code).toBe(-32602)
    expect((await rpcError(url, setBalance, [fresh(), 'lots'])).code).toBe(-32602)
    expect((await rpcError(url, setNonce, [fresh()])).code).toBe(-32602)
    expect((await rpcError(url, setCode, [fresh(), '0x123'])).code).toBe(-32602)
    expect((await rpcError(url, setStorageAt, [fresh(), '0x0', '0x' + '11'.repeat(33)])).code).toBe(-32602)
  })
})

describe('the set* changes and snapshots', () => {
  it('evm_revert undoes an in-place balance change made after the snapshot', async () => {
    const a = fresh()
    await rpc(url, 'anvil_setBalance', [a, '0x64'])
    const id = await rpc<string>(url, 'evm_snapshot')
    await rpc(url, 'hardhat_setBalance', [a, '0xc8'])
    await rpc(url, 'anvil_setCode', [a, '0x6001'])
    expect(await rpc(url, 'eth_getBalance', [a, 'latest'])).toBe('0xc8')
    expect(await rpc(url, 'evm_revert', [id])).toBe(true)
    expect(await rpc(url, 'eth_getBalance', [a, 'latest'])).toBe('0x64')
    expect(await rpc(url, 'eth_getCode', [a, 'latest'])).toBe('0x')
  })
})

describe('impersonation', () => {
  for (const [start, stop] of [
    ['anvil_impersonateAccount', 'anvil_stopImpersonatingAccount'],
    ['hardhat_impersonateAccount', 'hardhat_stopImpersonatingAccount'],
  ]) {
    it(`${start}: eth_sendTransaction from an address without a key mines; ${stop} ends it`, async () => {
      const who = fresh()
      const to = fresh()
      const send = () => rpc<string>(url, 'eth_sendTransaction', [{ from: who, to, value: '0x3e8', gas: '0x5208' }])
      const before = await rpcError(url, 'eth_sendTransaction', [{ from: who, to, value: '0x1' }])
      expect(before.code).toBe(-32602)
      expect(before.message).toBe(`Could not find account for address: ${who}`)

      await rpc(url, 'hardhat_setBalance', [who, '0xde0b6b3a7640000'])
      expect(await rpc(url, start, [who])).toBeNull()
      const h = await send()
      const r = await receipt(h)
      expect(r.status).toBe('0x1')
      expect(r.from).toBe(who)
      const tx = await rpc(url, 'eth_getTransactionByHash', [h])
      expect(tx.from).toBe(who)
      expect(tx.nonce).toBe('0x0')
      expect(await rpc(url, 'eth_getBalance', [to, 'latest'])).toBe('0x3e8')
      expect(await rpc(url, 'eth_getTransactionCount', [who, 'latest'])).toBe('0x1')
      // a second one (nonce 1) gets a distinct hash
      const h2 = await send()
      expect(h2).not.toBe(h)
      expect((await receipt(h2)).status).toBe('0x1')
      // not an account the node lists
      expect(await rpc<string[]>(url, 'eth_accounts')).not.toContain(who)

      expect(await rpc(url, stop, [who])).toBeNull()
      const after = await rpcError(url, 'eth_sendTransaction', [{ from: who, to, value: '0x1' }])
      expect(after.code).toBe(-32602)
      expect(after.message).toMatch(/^Could not find account/)
      // stopping twice is harmless
      expect(await rpc(url, stop, [who])).toBeNull()
    })
  }

  // Anvil and Hardhat let an impersonated contract address send (act as a token contract or a multisig);
  // the reference has no EIP-3607, so @ethereumjs's unconditional sender-has-code check is masked.
  it('a contract can be impersonated too (sending from a contract address), and eth_call from it works', async () => {
    const c = fresh()
    await rpc(url, 'anvil_setCode', [c, Probe.deployedBytecode])
    await rpc(url, 'anvil_setBalance', [c, '0x1000000'])
    await rpc(url, 'anvil_impersonateAccount', [c])
    const h = await rpc<string>(url, 'eth_sendTransaction', [
      { from: c, to: COW1.address, value: '0x10', gas: '0x5208' },
    ])
    expect((await receipt(h)).from).toBe(c)
    // the code is untouched, and calls/estimates from the contract work
    expect(await rpc(url, 'eth_getCode', [c, 'latest'])).toBe(Probe.deployedBytecode)
    expect(BigInt(await rpc(url, 'eth_estimateGas', [{ from: c, to: COW1.address, value: '0x1' }]))).toBe(21_000n)
    expect(await rpc(url, 'eth_call', [{ from: c, to: COW1.address, value: '0x1' }, 'latest'])).toBe('0x')
    await rpc(url, 'anvil_stopImpersonatingAccount', [c])
  })

  it('anvil_autoImpersonateAccount(true) lets any address send; false ends it', async () => {
    const who = fresh()
    await rpc(url, 'anvil_setBalance', [who, '0xde0b6b3a7640000'])
    expect(await rpc(url, 'anvil_autoImpersonateAccount', [true])).toBeNull()
    try {
      const h = await rpc<string>(url, 'eth_sendTransaction', [
        { from: who, to: COW.address, value: '0x1', gas: '0x5208' },
      ])
      expect((await receipt(h)).from).toBe(who)
      // the node's own accounts still sign with their keys
      const own = await rpc<string>(url, 'eth_sendTransaction', [{ from: COW1.address, to: COW.address, value: '0x1' }])
      const tx = await rpc(url, 'eth_getTransactionByHash', [own])
      expect(BigInt(tx.v)).toBeGreaterThanOrEqual(35n) // EIP-155, really signed
    } finally {
      expect(await rpc(url, 'anvil_autoImpersonateAccount', [false])).toBeNull()
    }
    expect((await rpcError(url, 'eth_sendTransaction', [{ from: who, to: COW.address, value: '0x1' }])).code).toBe(
      -32602,
    )
    expect((await rpcError(url, 'anvil_autoImpersonateAccount', ['yes'])).code).toBe(-32602)
  })

  it('eth_sendUnsignedTransaction sends from any address without impersonation', async () => {
    const who = fresh()
    await rpc(url, 'hardhat_setBalance', [who, '0xde0b6b3a7640000'])
    const h = await rpc<string>(url, 'eth_sendUnsignedTransaction', [
      { from: who, to: COW.address, value: '0x2', gas: '0x5208' },
    ])
    expect(h).toMatch(HASH)
    const r = await receipt(h)
    expect(r.status).toBe('0x1')
    expect(r.from).toBe(who)
    // still not impersonated for eth_sendTransaction
    expect((await rpcError(url, 'eth_sendTransaction', [{ from: who, to: COW.address }])).code).toBe(-32602)
    // the pool rules still apply
    const poor = fresh()
    const err = await rpcError(url, 'eth_sendUnsignedTransaction', [
      { from: poor, to: COW.address, value: '0x1', gas: '0x5208', gasPrice: '0x1' },
    ])
    expect(err.code).toBe(-32010)
    expect((await rpcError(url, 'eth_sendUnsignedTransaction', [{ to: COW.address }])).code).toBe(-32602)
  })
})

describe('block parameters of the next blocks', () => {
  it("anvil_setCoinbase / hardhat_setCoinbase: the next block's miner (and eth_coinbase)", async () => {
    const cb = fresh()
    expect((await latest()).miner).toBe(MINER)
    expect(await rpc(url, 'anvil_setCoinbase', [cb])).toBeNull()
    expect(await rpc(url, 'eth_coinbase')).toBe(cb)
    await rpc(url, 'evm_mine')
    expect((await latest()).miner).toBe(cb)
    const cb2 = fresh()
    expect(await rpc(url, 'hardhat_setCoinbase', [cb2])).toBeNull()
    await rpc(url, 'evm_mine')
    expect((await latest()).miner).toBe(cb2)
    await rpc(url, 'anvil_setCoinbase', [MINER])
    await rpc(url, 'evm_mine')
    expect((await latest()).miner).toBe(MINER)
  })

  it("hardhat_setMinGasPrice / anvil_setMinGasPrice: the next block's minimumGasPrice, then eth_gasPrice", async () => {
    const gwei = 1_000_000_000n
    expect(await rpc(url, 'hardhat_setMinGasPrice', [q(gwei)])).toBeNull()
    expect((await rpc(url, 'anvil_nodeInfo')).environment.gasPrice).toBe(q(gwei))
    // a transaction below it is refused for the next block
    const low = await rpcError(url, 'eth_sendTransaction', [{ from: COW.address, to: COW1.address, gasPrice: '0x1' }])
    expect(low.code).toBe(-32010)
    expect(low.message).toMatch(/gas price lower than block's minimum/)
    await rpc(url, 'evm_mine')
    expect((await latest()).minimumGasPrice).toBe(q(gwei))
    expect(await rpc(url, 'eth_gasPrice')).toBe(q((gwei * 110n) / 100n))
    // it stays (the target) for the blocks after
    const h = await rpc<string>(url, 'eth_sendTransaction', [
      { from: COW.address, to: COW1.address, gasPrice: q(gwei) },
    ])
    expect((await receipt(h)).status).toBe('0x1')
    expect((await latest()).minimumGasPrice).toBe(q(gwei))

    expect(await rpc(url, 'anvil_setMinGasPrice', ['0x0'])).toBeNull()
    await rpc(url, 'evm_mine')
    expect((await latest()).minimumGasPrice).toBe('0x0')
    expect(await rpc(url, 'eth_gasPrice')).toBe('0x0')
  })

  it("anvil_setBlockGasLimit / hardhat_setBlockGasLimit: the next block's gasLimit", async () => {
    const original = (await latest()).gasLimit as string
    expect(await rpc(url, 'anvil_setBlockGasLimit', ['0x1c9c380'])).toBe(true) // 30 M
    await rpc(url, 'evm_mine')
    expect((await latest()).gasLimit).toBe('0x1c9c380')
    expect(await rpc(url, 'hardhat_setBlockGasLimit', [original])).toBe(true)
    await rpc(url, 'evm_mine')
    expect((await latest()).gasLimit).toBe(original)
  })
})

describe('pool and node utilities', () => {
  it('anvil_dropTransaction / hardhat_dropTransaction remove a waiting transaction: true, then false', async () => {
    const sender = (await rpc<string[]>(url, 'eth_accounts'))[6]!
    const n = BigInt(await rpc<string>(url, 'eth_getTransactionCount', [sender, 'latest']))
    const queue = (k: bigint) =>
      rpc<string>(url, 'eth_sendTransaction', [
        { from: sender, to: COW.address, value: '0x1', gas: '0x5208', nonce: q(n + k) },
      ])
    const h1 = await queue(3n)
    const h2 = await queue(4n)
    expect(await rpc(url, 'txpool_status')).toEqual({ pending: 0, queued: 2 })
    expect(await rpc(url, 'anvil_dropTransaction', [h1])).toBe(true)
    expect(await rpc(url, 'anvil_dropTransaction', [h1])).toBe(false)
    expect(await rpc(url, 'eth_getTransactionByHash', [h1])).toBeNull()
    expect(await rpc(url, 'hardhat_dropTransaction', [h2])).toBe(true)
    expect(await rpc(url, 'hardhat_dropTransaction', [h2])).toBe(false)
    expect(await rpc(url, 'txpool_status')).toEqual({ pending: 0, queued: 0 })
    // a mined transaction is not in the pool
    const mined = await rpc<string>(url, 'eth_sendTransaction', [{ from: COW.address, to: COW1.address }])
    expect(await rpc(url, 'anvil_dropTransaction', [mined])).toBe(false)
    expect((await receipt(mined)).status).toBe('0x1')
    expect((await rpcError(url, 'anvil_dropTransaction', ['0x1234'])).code).toBe(-32602)
  })

  it('anvil_setLoggingEnabled / hardhat_setLoggingEnabled return null and switch the request log', async () => {
    expect(await rpc(url, 'hardhat_setLoggingEnabled', [false])).toBeNull()
    const mark = logged.length
    await rpc(url, 'eth_chainId')
    await rpc(url, 'net_version')
    expect(logged.slice(mark).filter((m) => m === 'eth_chainId' || m === 'net_version')).toEqual([])
    expect(await rpc(url, 'anvil_setLoggingEnabled', [true])).toBeNull()
    await rpc(url, 'eth_chainId')
    expect(logged.slice(mark)).toContain('eth_chainId')
    expect((await rpcError(url, 'anvil_setLoggingEnabled', [])).code).toBe(-32602)
  })

  it('anvil_metadata: client version, chain 33, instance id, latest block, compat profile', async () => {
    const head = await latest()
    const m = await rpc(url, 'anvil_metadata')
    expect(m).toEqual({
      clientVersion: await rpc(url, 'web3_clientVersion'),
      chainId: 33,
      instanceId: expect.stringMatching(HASH),
      latestBlockNumber: Number(head.number),
      latestBlockHash: head.hash,
      snapshots: {},
      compat: 'reference',
    })
    await rpc(url, 'evm_mine')
    const m2 = await rpc(url, 'anvil_metadata')
    expect(m2.latestBlockNumber).toBe(m.latestBlockNumber + 1)
    expect(m2.instanceId).toBe(m.instanceId)
  })

  it("anvil_nodeInfo: the node's current block and configuration", async () => {
    const head = await latest()
    const info = await rpc(url, 'anvil_nodeInfo')
    expect(info).toMatchObject({
      currentBlockNumber: head.number,
      currentBlockTimestamp: Number(head.timestamp),
      currentBlockHash: head.hash,
      miningMode: 'instant',
      environment: { chainId: 33, gasLimit: expect.stringMatching(QTY), gasPrice: '0x0' },
    })
  })

  it("anvil_reset / hardhat_reset: back to genesis (viem's { forking: { blockNumber: null } } too); a fork URL is -32602", async () => {
    const genesis = await rpc(url, 'eth_getBlockByNumber', ['0x0', false])
    const before = (await rpc(url, 'anvil_metadata')).instanceId
    for (const [name, params] of [
      ['anvil_reset', []],
      ['hardhat_reset', [{}]],
      ['anvil_reset', [{ forking: { blockNumber: null } }]],
      ['hardhat_reset', [{ forking: {} }]],
    ] as const) {
      await rpc(url, 'eth_sendTransaction', [{ from: COW.address, to: COW1.address, value: '0x1' }])
      expect(await blockNumber()).toBeGreaterThan(0n)
      expect(await rpc(url, name, [...params]), `${name} ${JSON.stringify(params)}`).toBeNull()
      expect(await blockNumber()).toBe(0n)
      expect(await latest()).toEqual(genesis)
      expect(await rpc(url, 'eth_getTransactionCount', [COW.address, 'latest'])).toBe('0x0')
    }
    // Hardhat: a reset gives the node a new instanceId
    expect((await rpc(url, 'anvil_metadata')).instanceId).not.toBe(before)
    const err = await rpcError(url, 'anvil_reset', [{ forking: { jsonRpcUrl: 'http://127.0.0.1:1', blockNumber: 1 } }])
    expect(err.code).toBe(-32602)
    expect(err.message).toMatch(/forking/)
  })
})
