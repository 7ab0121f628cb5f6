/**
 * Block counts, uncles and by-index lookups over real HTTP, the `pending` tag with transactions waiting in
 * the pool, and the `{blockHash}` / `{blockNumber}` map forms (spec §2 rule 4, §4 "Blocks" and
 * "Transactions"; docs/reference-rules.md#rule-block-json, docs/reference-rules.md#rule-remasc-transaction,
 * docs/reference-rules.md#rule-error-codes "-32600 Block … not found"):
 * eth_getBlockTransactionCountByHash/ByNumber, eth_getUncleCountByBlockHash/ByBlockNumber,
 * eth_getUncleByBlockHashAndIndex/ByBlockNumberAndIndex, eth_getTransactionByBlockHashAndIndex/
 * ByBlockNumberAndIndex, and `pending` on eth_getBlockByNumber, eth_getBalance, eth_getCode,
 * eth_getTransactionCount.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { getCreateAddress } from 'ethers'
import type { Node } from '../../src/index.js'
import { Probe } from '../../fixtures/index.js'
import { COW, COW1, internals, rpc, rpcError, startNode } from '../helpers/node.js'
import { BLOCK_FIELDS, deploy, expectKeys, q, sendTx, TX_FIELDS } from './shapes.js'

const UNKNOWN_HASH = '0x' + 'ab'.repeat(32)
const FAR = '0xffff'

let node: Node
let url: string
let probeAddress: string
/** Block 1 (the Probe deployment) and block 2 (a value transfer). */
let b1: any
let b2: any
let transferHash: string

beforeAll(async () => {
  node = await startNode()
  url = node.url
  const d = await deploy(url, Probe.bytecode)
  probeAddress = d.address
  const r = await sendTx(url, { to: COW1.address, value: '0x7', gas: '0x5208' })
  transferHash = r.transactionHash
  b1 = await rpc(url, 'eth_getBlockByNumber', ['0x1', false])
  b2 = await rpc(url, 'eth_getBlockByNumber', ['0x2', false])
  // every block ends with the Remasc transaction (docs/reference-rules.md#rule-remasc-transaction)
  expect(b2.transactions).toHaveLength(2)
  expect(b2.transactions[0]).toBe(transferHash)
})
afterAll(() => node?.close())

describe('eth_getBlockTransactionCountByHash / ByNumber', () => {
  it('by hash: the count; null for an unknown block', async () => {
    expect(await rpc(url, 'eth_getBlockTransactionCountByHash', [b2.hash])).toBe('0x2') // + Remasc
    const genesis = await rpc(url, 'eth_getBlockByNumber', ['0x0', false])
    expect(await rpc(url, 'eth_getBlockTransactionCountByHash', [genesis.hash])).toBe('0x0')
    expect(await rpc(url, 'eth_getBlockTransactionCountByHash', [UNKNOWN_HASH])).toBeNull()
  })

  it('by number and tag; -32600 "Block … not found" for an unknown number', async () => {
    expect(await rpc(url, 'eth_getBlockTransactionCountByNumber', ['0x1'])).toBe('0x2') // + Remasc
    expect(await rpc(url, 'eth_getBlockTransactionCountByNumber', ['earliest'])).toBe('0x0')
    expect(await rpc(url, 'eth_getBlockTransactionCountByNumber', ['latest'])).toBe('0x2')
    expect(await rpc(url, 'eth_getBlockTransactionCountByNumber', ['pending'])).toBe('0x1') // empty pool: Remasc only
    const e = await rpcError(url, 'eth_getBlockTransactionCountByNumber', [FAR])
    expect(e.code).toBe(-32600)
    expect(e.message).toMatch(/^Block .*not found$/)
    expect(e.message).toContain(FAR)
  })

  it('map forms {blockHash} and {blockNumber}', async () => {
    expect(await rpc(url, 'eth_getBlockTransactionCountByNumber', [{ blockNumber: '0x2' }])).toBe('0x2')
    expect(await rpc(url, 'eth_getBlockTransactionCountByNumber', [{ blockHash: b1.hash }])).toBe('0x2')
  })
})

describe('uncles: a local chain has none', () => {
  it('eth_getUncleCountByBlockHash: "0x0"; unknown hash → -32600', async () => {
    expect(await rpc(url, 'eth_getUncleCountByBlockHash', [b1.hash])).toBe('0x0')
    const e = await rpcError(url, 'eth_getUncleCountByBlockHash', [UNKNOWN_HASH])
    expect(e.code).toBe(-32600)
    expect(e.message).toMatch(/not found/)
  })

  it('eth_getUncleCountByBlockNumber: "0x0" for numbers, tags, pending and map forms; unknown → -32600', async () => {
    for (const ref of ['0x0', '0x2', 'latest', 'earliest', 'pending', { blockNumber: '0x1' }, { blockHash: b2.hash }]) {
      expect(await rpc(url, 'eth_getUncleCountByBlockNumber', [ref])).toBe('0x0')
    }
    expect((await rpcError(url, 'eth_getUncleCountByBlockNumber', [FAR])).code).toBe(-32600)
  })

  it('eth_getUncleByBlockHashAndIndex / ByBlockNumberAndIndex: null for index 0 and for unknown blocks', async () => {
    expect(await rpc(url, 'eth_getUncleByBlockHashAndIndex', [b1.hash, '0x0'])).toBeNull()
    expect(await rpc(url, 'eth_getUncleByBlockHashAndIndex', [UNKNOWN_HASH, '0x0'])).toBeNull()
    for (const ref of ['0x1', 'latest', 'earliest', 'pending', FAR]) {
      expect(await rpc(url, 'eth_getUncleByBlockNumberAndIndex', [ref, '0x0'])).toBeNull()
    }
    expect(await rpc(url, 'eth_getUncleByBlockNumberAndIndex', ['0x1', '0x5'])).toBeNull()
  })
})

describe('eth_getTransactionByBlockHashAndIndex / ByBlockNumberAndIndex', () => {
  it('the transaction at the index, equal to eth_getTransactionByHash', async () => {
    const byHash = await rpc(url, 'eth_getTransactionByHash', [transferHash])
    expectKeys(byHash, TX_FIELDS)
    expect(await rpc(url, 'eth_getTransactionByBlockHashAndIndex', [b2.hash, '0x0'])).toEqual(byHash)
    expect(await rpc(url, 'eth_getTransactionByBlockNumberAndIndex', ['0x2', '0x0'])).toEqual(byHash)
    expect(await rpc(url, 'eth_getTransactionByBlockNumberAndIndex', ['latest', '0x0'])).toEqual(byHash)
    expect(await rpc(url, 'eth_getTransactionByBlockNumberAndIndex', [{ blockNumber: '0x2' }, '0x0'])).toEqual(byHash)
    expect(byHash).toMatchObject({ blockHash: b2.hash, blockNumber: '0x2', transactionIndex: '0x0', value: '0x7' })
  })

  it('out of range → null; unknown block → null', async () => {
    expect(await rpc(url, 'eth_getTransactionByBlockHashAndIndex', [b2.hash, '0x2'])).toBeNull() // 0x1 is Remasc
    expect(await rpc(url, 'eth_getTransactionByBlockHashAndIndex', [UNKNOWN_HASH, '0x0'])).toBeNull()
    expect(await rpc(url, 'eth_getTransactionByBlockNumberAndIndex', ['0x2', '0x2'])).toBeNull()
    expect(await rpc(url, 'eth_getTransactionByBlockNumberAndIndex', ['earliest', '0x0'])).toBeNull()
    expect(await rpc(url, 'eth_getTransactionByBlockNumberAndIndex', [FAR, '0x0'])).toBeNull()
    expect(await rpc(url, 'eth_getTransactionByBlockNumberAndIndex', ['pending', '0x1'])).toBeNull() // empty pool: Remasc at 0x0
  })

  it('a malformed index → -32602', async () => {
    expect((await rpcError(url, 'eth_getTransactionByBlockHashAndIndex', [b2.hash, 'zero'])).code).toBe(-32602)
  })
})

describe('map forms {blockHash} / {blockNumber} on state reads and eth_getBlockByNumber', () => {
  it('eth_getBalance, eth_getCode, eth_getTransactionCount, eth_getBlockByNumber', async () => {
    // block 1: Probe deployed, COW nonce 1, COW1 not yet paid; block 2: COW1 got 7 wei
    const cow1Before = await rpc(url, 'eth_getBalance', [COW1.address, '0x1'])
    expect(await rpc(url, 'eth_getBalance', [COW1.address, { blockHash: b1.hash }])).toBe(cow1Before)
    expect(await rpc(url, 'eth_getBalance', [COW1.address, { blockNumber: '0x1' }])).toBe(cow1Before)
    expect(await rpc(url, 'eth_getBalance', [COW1.address, { blockNumber: '0x2' }])).toBe(q(BigInt(cow1Before) + 7n))
    expect(await rpc(url, 'eth_getCode', [probeAddress, { blockNumber: '0x0' }])).toBe('0x')
    expect(await rpc(url, 'eth_getCode', [probeAddress, { blockHash: b1.hash }])).toBe(Probe.deployedBytecode)
    expect(await rpc(url, 'eth_getTransactionCount', [COW.address, { blockNumber: '0x0' }])).toBe('0x0')
    expect(await rpc(url, 'eth_getTransactionCount', [COW.address, { blockHash: b1.hash }])).toBe('0x1')
    expect(await rpc(url, 'eth_getTransactionCount', [COW.address, { blockHash: b2.hash }])).toBe('0x2')
    expect(await rpc(url, 'eth_getBlockByNumber', [{ blockNumber: '0x1' }, false])).toEqual(b1)
    expect(await rpc(url, 'eth_getBlockByNumber', [{ blockHash: b2.hash }, false])).toEqual(b2)
    expect(await rpc(url, 'eth_getBlockByNumber', [{ blockNumber: FAR }, false])).toBeNull()
  })

  it('an unknown block in a map form: state reads → -32600', async () => {
    for (const ref of [{ blockHash: UNKNOWN_HASH }, { blockNumber: FAR }]) {
      expect((await rpcError(url, 'eth_getBalance', [COW.address, ref])).code).toBe(-32600)
      expect((await rpcError(url, 'eth_getCode', [COW.address, ref])).code).toBe(-32600)
      expect((await rpcError(url, 'eth_getTransactionCount', [COW.address, ref])).code).toBe(-32600)
    }
  })

  it('a map with neither key → -32602', async () => {
    expect((await rpcError(url, 'eth_getBalance', [COW.address, { number: '0x1' }])).code).toBe(-32602)
  })
})

describe('the pending tag with transactions waiting in the pool (automine off)', () => {
  /** Turns automine off, queues a payment to COW1 and a Probe deployment from COW, runs `check`, mines them. */
  async function withPendingTxs(
    check: (p: {
      pay: string
      create: string
      created: string
      nonce: bigint
      cow1Latest: bigint
      latest: any
    }) => Promise<void>,
  ) {
    const from = COW.address
    const nonce = BigInt(await rpc(url, 'eth_getTransactionCount', [from, 'latest']))
    const cow1Latest = BigInt(await rpc(url, 'eth_getBalance', [COW1.address, 'latest']))
    const latest = await rpc(url, 'eth_getBlockByNumber', ['latest', false])
    internals(node).chain.setAutomine(false)
    try {
      const pay = await rpc<string>(url, 'eth_sendTransaction', [
        { from, to: COW1.address, value: '0x3e8', gas: '0x5208' },
      ])
      const create = await rpc<string>(url, 'eth_sendTransaction', [{ from, data: Probe.bytecode, gas: '0x5b8d80' }])
      const created = getCreateAddress({ from, nonce: nonce + 1n }).toLowerCase()
      expect(await rpc(url, 'eth_getBlockByNumber', ['latest', false])).toEqual(latest) // nothing mined
      await check({ pay, create, created, nonce, cow1Latest, latest })
    } finally {
      await internals(node).chain.mineBlock()
      internals(node).chain.setAutomine(true)
    }
    const mined = await rpc(url, 'eth_getBlockByNumber', ['latest', false])
    expect(mined.transactions).toHaveLength(3) // + Remasc
    expect(await rpc(url, 'eth_getBlockTransactionCountByNumber', ['pending'])).toBe('0x1')
  }

  it('eth_getBlockByNumber, the counts and by-index lookups see the pool', async () => {
    let pendingRoot = ''
    await withPendingTxs(async ({ pay, create, latest }) => {
      const pending = await rpc(url, 'eth_getBlockByNumber', ['pending', false])
      expectKeys(pending, BLOCK_FIELDS)
      expect(pending).toMatchObject({ number: null, hash: null, logsBloom: null, miner: null, parentHash: latest.hash })
      expect(pending.transactions.slice(0, 2)).toEqual([pay, create])
      expect(pending.transactions).toHaveLength(3) // + Remasc
      pendingRoot = pending.stateRoot
      const full = await rpc(url, 'eth_getBlockByNumber', ['pending', true])
      expect(
        full.transactions.slice(0, 2).map((t: any) => [t.hash, t.blockHash, t.blockNumber, t.transactionIndex]),
      ).toEqual([
        [pay, null, null, null],
        [create, null, null, null],
      ])
      expect(await rpc(url, 'eth_getBlockTransactionCountByNumber', ['pending'])).toBe('0x3')
      expect(await rpc(url, 'eth_getUncleCountByBlockNumber', ['pending'])).toBe('0x0')
      expect(await rpc(url, 'eth_getUncleByBlockNumberAndIndex', ['pending', '0x0'])).toBeNull()
      const second = await rpc(url, 'eth_getTransactionByBlockNumberAndIndex', ['pending', '0x1'])
      expectKeys(second, TX_FIELDS)
      expect(second).toMatchObject({
        hash: create,
        from: COW.address,
        to: null,
        blockHash: null,
        blockNumber: null,
        transactionIndex: null,
      })
      expect(await rpc(url, 'eth_getTransactionByBlockNumberAndIndex', ['pending', '0x3'])).toBeNull()
    })
    // the mined block is what pending showed
    expect((await rpc(url, 'eth_getBlockByNumber', ['latest', false])).stateRoot).toBe(pendingRoot)
  })

  // Was a node bug (fixed): the preview root of the pending block was taken inside a checkpoint that is then
  // reverted and was never made readable, so every read at `pending` failed with "State trie does not contain
  // state root" once the pool held an executable transaction (UnitrieStateManager.registerCurrentView now).
  it('eth_getBalance, eth_getCode, eth_getTransactionCount, eth_call and eth_estimateGas read the pending state', async () => {
    await withPendingTxs(async ({ created, nonce, cow1Latest }) => {
      const from = COW.address
      expect(await rpc(url, 'eth_getBalance', [COW1.address, 'latest'])).toBe(q(cow1Latest))
      expect(await rpc(url, 'eth_getCode', [created, 'latest'])).toBe('0x')
      expect(await rpc(url, 'eth_getTransactionCount', [from, 'latest'])).toBe(q(nonce))
      expect(await rpc(url, 'eth_getTransactionCount', [from, 'pending'])).toBe(q(nonce + 2n)) // pool-based, works
      expect(await rpc(url, 'eth_getBalance', [COW1.address, 'pending'])).toBe(q(cow1Latest + 1000n))
      expect(await rpc(url, 'eth_getCode', [created, 'pending'])).toBe(Probe.deployedBytecode)
      const chainIdCall = { to: created, data: '0x9a8a0592' } // Probe.chainId()
      expect(BigInt(await rpc(url, 'eth_call', [chainIdCall, 'pending']))).toBe(33n)
      expect(await rpc(url, 'eth_call', [chainIdCall, 'latest'])).toBe('0x')
      expect(BigInt(await rpc(url, 'eth_estimateGas', [{ from, ...chainIdCall }]))).toBeGreaterThan(21_000n)
    })
  })
})
