/**
 * Mining modes and the block clock (docs/reference-rules.md#rule-evm-mining, docs/reference-rules.md#rule-evm-increase-time;
 * the peers' evm_/anvil_/hardhat_ mining methods): manual mode (evm_setAutomine false), block
 * building from the pool by gas price then nonce within the block gas limit, evm_stopMining/evm_startMining
 * and eth_mining, interval mining driven by injected fake timers, anvil_mine/hardhat_mine (count, interval),
 * evm_mine with a timestamp, evm_increaseTime (accumulated offset, cleared once a block is built — reference
 * MinerClock) and evm_setNextBlockTimestamp. The node runs on an injected clock, so timestamps are exact.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Wallet } from 'ethers'
import type { Node } from '../../src/index.js'
import type { Timers } from '../../src/util/timers.js'
import { COW, COW1, internals, rpc, rpcError, startNode } from '../helpers/node.js'
import { q } from './shapes.js'

/** Fake interval timers: the callbacks are kept and fired by the test. */
class FakeTimers implements Timers {
  readonly armed = new Map<number, { cb: () => void; ms: number }>()
  readonly history: { ms: number; handle: number }[] = []
  readonly cleared: number[] = []
  private next = 1
  setInterval(cb: () => void, ms: number): unknown {
    const handle = this.next++
    this.armed.set(handle, { cb, ms })
    this.history.push({ ms, handle })
    return handle
  }
  clearInterval(handle: unknown): void {
    this.cleared.push(handle as number)
    this.armed.delete(handle as number)
  }
  /** The one armed interval (fails when there is none or several). */
  only(): { cb: () => void; ms: number } {
    expect(this.armed.size).toBe(1)
    return [...this.armed.values()][0]!
  }
}

const RECIPIENT = Wallet.createRandom().address.toLowerCase()
/** The injected wall clock (ms). */
let clockMs = 1_750_000_000_000
const nowSeconds = () => BigInt(Math.floor(clockMs / 1000))

let node: Node
let url: string
let accounts: string[]
const timers = new FakeTimers()
const internalErrors: unknown[] = []

const blockNumber = async (u = url) => BigInt(await rpc<string>(u, 'eth_blockNumber'))
/** A block without its last transaction, the Remasc one every mined block ends with (docs/reference-rules.md#rule-remasc-transaction). */
const withoutRemasc = (b: any) => (b && BigInt(b.number) > 0n ? { ...b, transactions: b.transactions.slice(0, -1) } : b)
const latest = async (u = url) => withoutRemasc(await rpc(u, 'eth_getBlockByNumber', ['latest', false]))
const block = async (n: bigint, u = url) => withoutRemasc(await rpc(u, 'eth_getBlockByNumber', [q(n), false]))
const send = (tx: Record<string, unknown>, u = url) =>
  rpc<string>(u, 'eth_sendTransaction', [{ to: RECIPIENT, value: '0x1', gas: '0x5208', ...tx }])
const receipt = (h: string, u = url) => rpc(u, 'eth_getTransactionReceipt', [h])
const pendingHashes = async (u = url) => {
  const content = await rpc(u, 'txpool_content')
  return Object.values(content.pending as Record<string, Record<string, any[]>>)
    .flatMap((byNonce) => Object.values(byNonce).flat())
    .map((t) => t.hash as string)
}

/** Runs `fn` in manual mode (automine off), restoring instant mining afterwards. */
async function manual<T>(fn: () => Promise<T>): Promise<T> {
  expect(await rpc(url, 'evm_setAutomine', [false])).toBeNull()
  try {
    return await fn()
  } finally {
    await rpc(url, 'evm_setAutomine', [true])
  }
}

beforeAll(async () => {
  node = await startNode({ timers, clock: () => clockMs, onInternalError: (_m, err) => internalErrors.push(err) })
  url = node.url
  accounts = await rpc<string[]>(url, 'eth_accounts')
})
afterAll(async () => {
  await node?.close()
  expect(internalErrors).toEqual([])
})

describe('manual mode (evm_setAutomine false)', () => {
  it('sends return hashes and wait in the pool; evm_mine mines them in one block by gas price, then nonce', async () => {
    await manual(async () => {
      expect(await rpc(url, 'hardhat_getAutomine')).toBe(false)
      expect(await rpc(url, 'anvil_getAutomine')).toBe(false)
      const start = await blockNumber()
      const [a2, a3] = [accounts[2]!, accounts[3]!]
      const h = {
        a2: await send({ from: a2, gasPrice: '0x5' }),
        cow1: await send({ from: COW1.address, gasPrice: '0x5' }),
        cow0: await send({ from: COW.address, gasPrice: '0x3' }),
        cow1n: await send({ from: COW.address, gasPrice: '0xa' }), // COW's second: higher price, but nonce order wins
        a3: await send({ from: a3, gasPrice: '0x4' }),
      }
      for (const hash of Object.values(h)) {
        expect(hash).toMatch(/^0x[0-9a-f]{64}$/)
        expect(await receipt(hash)).toBeNull()
        expect(await rpc(url, 'eth_getTransactionByHash', [hash])).toMatchObject({
          hash,
          blockHash: null,
          blockNumber: null,
        })
      }
      expect((await pendingHashes()).sort()).toEqual(Object.values(h).sort())
      expect(await rpc(url, 'txpool_status')).toEqual({ pending: 5, queued: 0 })
      expect(await rpc(url, 'eth_getTransactionCount', [COW.address, 'pending'])).toBe(
        q(BigInt(await rpc(url, 'eth_getTransactionCount', [COW.address, 'latest'])) + 2n),
      )
      expect(await blockNumber()).toBe(start)

      expect(await rpc(url, 'evm_mine')).toBeNull()
      expect(await blockNumber()).toBe(start + 1n)
      const b = await latest()
      // equal prices keep arrival order; COW's nonce 1 (price 10) waits for its nonce 0 (price 3)
      expect(b.transactions).toEqual([h.a2, h.cow1, h.a3, h.cow0, h.cow1n])
      for (const hash of Object.values(h)) expect((await receipt(hash)).blockHash).toBe(b.hash)
      expect(await rpc(url, 'txpool_status')).toEqual({ pending: 0, queued: 0 })
    })
  })

  it("the block gas limit is respected: what does not fit waits for the next evm_mine (and so do its sender's later ones)", async () => {
    const original = (await latest()).gasLimit as string
    await manual(async () => {
      expect(await rpc(url, 'evm_setBlockGasLimit', ['0xc350'])).toBe(true) // 50 000
      const [a2] = [accounts[2]!]
      const A = await send({ from: COW.address, gas: q(25_000), gasPrice: '0xa' })
      const B = await send({ from: COW1.address, gas: q(30_000), gasPrice: '0x5' })
      const B2 = await send({ from: COW1.address, gas: q(21_000), gasPrice: '0x64' })
      const C = await send({ from: a2, gas: q(21_000), gasPrice: '0x1' })
      const start = await blockNumber()

      await rpc(url, 'evm_mine')
      const b1 = await latest()
      expect(b1.gasLimit).toBe('0xc350')
      // A (25 000) + B (30 000) > 50 000: B waits, B2 waits behind it, C (21 000) still fits after A
      expect(b1.transactions).toEqual([A, C])
      expect(BigInt(b1.gasUsed)).toBeLessThanOrEqual(50_000n)
      expect((await pendingHashes()).sort()).toEqual([B, B2].sort())

      await rpc(url, 'evm_mine')
      const b2 = await latest()
      expect(b2.gasLimit).toBe('0xc350')
      expect(b2.transactions).toEqual([B]) // B + B2 = 51 000 > 50 000
      await rpc(url, 'evm_mine')
      expect((await latest()).transactions).toEqual([B2])
      expect(await blockNumber()).toBe(start + 3n)

      // a transaction above the block gas limit is refused (-32010, reference wording)
      const err = await rpcError(url, 'eth_sendTransaction', [{ from: COW.address, to: RECIPIENT, gas: q(60_000) }])
      expect(err.code).toBe(-32010)
      expect(err.message).toMatch(/higher than the block's gas limit/)
    })
    expect(await rpc(url, 'evm_setBlockGasLimit', [original])).toBe(true)
    await rpc(url, 'evm_mine')
    expect((await latest()).gasLimit).toBe(original)
  })

  it('evm_mine on an empty pool mines an empty block; evm_mine accepts { blocks } (ganache form)', async () => {
    const start = await blockNumber()
    expect(await rpc(url, 'evm_mine')).toBeNull()
    expect((await latest()).transactions).toEqual([])
    expect(await rpc(url, 'evm_mine', [{ blocks: '0x3' }])).toBeNull()
    expect(await blockNumber()).toBe(start + 4n)
  })
})

describe('evm_stopMining / evm_startMining, eth_mining, getAutomine', () => {
  it('stop: eth_mining false and sends wait; start: eth_mining true and the next send mines the waiting one first', async () => {
    expect(await rpc(url, 'eth_mining')).toBe(true)
    expect(await rpc(url, 'hardhat_getAutomine')).toBe(true)
    expect(await rpc(url, 'evm_stopMining')).toBeNull()
    expect(await rpc(url, 'eth_mining')).toBe(false)
    const start = await blockNumber()
    const waiting = await send({ from: COW.address })
    expect(await receipt(waiting)).toBeNull()
    expect(await pendingHashes()).toEqual([waiting])
    expect(await blockNumber()).toBe(start)
    // evm_mine still mines on request while stopped
    await rpc(url, 'evm_mine')
    expect((await receipt(waiting)).blockNumber).toBe(q(start + 1n))
    const waiting2 = await send({ from: COW.address })
    expect(await receipt(waiting2)).toBeNull()

    expect(await rpc(url, 'evm_startMining')).toBeNull()
    expect(await rpc(url, 'eth_mining')).toBe(true)
    const next = await send({ from: COW.address })
    const [r2, r3] = [await receipt(waiting2), await receipt(next)]
    expect(r2.status).toBe('0x1')
    expect(r3.status).toBe('0x1')
    expect(BigInt(r2.blockNumber)).toBeLessThan(BigInt(r3.blockNumber))
    expect(await rpc(url, 'txpool_status')).toEqual({ pending: 0, queued: 0 })
  })

  it('automine off and no interval: eth_mining false; getAutomine follows evm_setAutomine', async () => {
    await manual(async () => {
      expect(await rpc(url, 'eth_mining')).toBe(false)
      expect(await rpc(url, 'hardhat_getAutomine')).toBe(false)
    })
    expect(await rpc(url, 'eth_mining')).toBe(true)
    expect(await rpc(url, 'anvil_getAutomine')).toBe(true)
    expect((await rpcError(url, 'evm_setAutomine', ['yes'])).code).toBe(-32602)
  })
})

describe('interval mining (fake timers)', () => {
  let inode: Node
  const itimers = new FakeTimers()
  /** Fires the armed interval and waits for the chain's queue to drain (the block is appended). */
  const fire = async (t: FakeTimers, n: Node) => {
    t.only().cb()
    await internals(n).chain.queue.run(() => undefined)
  }
  beforeAll(async () => {
    inode = await startNode({ blockTime: 2, timers: itimers, clock: () => clockMs })
  })
  afterAll(async () => {
    await inode?.close()
  })

  it('--block-time: one interval of blockTime seconds; sends wait; each tick mines the pool, empty blocks too', async () => {
    expect(inode.mining).toEqual({ mode: 'interval', blockTime: 2 })
    expect(itimers.only().ms).toBe(2000)
    const u = inode.url
    expect(await rpc(u, 'eth_mining')).toBe(true)
    expect(await rpc(u, 'hardhat_getAutomine')).toBe(false)
    expect((await rpc(u, 'anvil_nodeInfo')).miningMode).toBe('interval')

    const h1 = await send({ from: COW.address }, u)
    const h2 = await send({ from: COW1.address, gasPrice: '0x2' }, u)
    expect(await receipt(h1, u)).toBeNull()
    expect(await blockNumber(u)).toBe(0n)

    await fire(itimers, inode)
    expect(await blockNumber(u)).toBe(1n)
    expect((await latest(u)).transactions).toEqual([h2, h1])
    expect((await receipt(h1, u)).status).toBe('0x1')

    await fire(itimers, inode)
    await fire(itimers, inode)
    expect(await blockNumber(u)).toBe(3n)
    expect((await latest(u)).transactions).toEqual([])
    const [b2, b3] = [await block(2n, u), await block(3n, u)]
    expect(b3.parentHash).toBe(b2.hash)
  })

  it('evm_setIntervalMining(0) clears the timer; a new interval arms one; stop/start re-arm it', async () => {
    const u = inode.url
    const handle = itimers.history.at(-1)!.handle
    expect(await rpc(u, 'evm_setIntervalMining', [0])).toBeNull()
    expect(itimers.cleared).toContain(handle)
    expect(itimers.armed.size).toBe(0)
    expect(await rpc(u, 'eth_mining')).toBe(false)
    expect((await rpc(u, 'anvil_nodeInfo')).miningMode).toBe('manual')
    const waiting = await send({ from: COW.address }, u)
    expect(await receipt(waiting, u)).toBeNull()

    expect(await rpc(u, 'evm_setIntervalMining', ['0x1f4'])).toBeNull() // 500 ms
    expect(itimers.only().ms).toBe(500)
    const before = await blockNumber(u)
    await fire(itimers, inode)
    expect(await blockNumber(u)).toBe(before + 1n)
    expect((await receipt(waiting, u)).status).toBe('0x1')

    await rpc(u, 'evm_stopMining')
    expect(itimers.armed.size).toBe(0)
    expect(await rpc(u, 'eth_mining')).toBe(false)
    await rpc(u, 'evm_startMining')
    expect(itimers.only().ms).toBe(500)
    expect(await rpc(u, 'eth_mining')).toBe(true)

    // the default node (instant) also takes an interval, through its injected timers: instant + interval
    expect(timers.armed.size).toBe(0)
    await rpc(url, 'evm_setIntervalMining', [1000])
    expect(timers.only().ms).toBe(1000)
    expect((await rpc(url, 'anvil_nodeInfo')).miningMode).toBe('instant+interval')
    const start = await blockNumber()
    await fire(timers, node)
    expect(await blockNumber()).toBe(start + 1n)
    await rpc(url, 'evm_setIntervalMining', [0])
    expect(timers.armed.size).toBe(0)
    expect((await rpc(url, 'anvil_nodeInfo')).miningMode).toBe('instant')
  })

  it('closing the node clears its timer', async () => {
    const t = new FakeTimers()
    const n = await startNode({ blockTime: 1, timers: t })
    expect(t.only().ms).toBe(1000)
    await n.close()
    expect(t.armed.size).toBe(0)
  })
})

describe('anvil_mine / hardhat_mine', () => {
  it('mines n blocks with timestamps `interval` seconds apart (both names)', async () => {
    for (const name of ['anvil_mine', 'hardhat_mine']) {
      const start = await blockNumber()
      const t0 = BigInt((await latest()).timestamp)
      expect(await rpc(url, name, ['0x5', '0x3c'])).toBeNull()
      expect(await blockNumber()).toBe(start + 5n)
      const stamps: bigint[] = []
      for (let n = start + 1n; n <= start + 5n; n++) stamps.push(BigInt((await block(n)).timestamp))
      expect(stamps[0]!).toBeGreaterThan(t0)
      for (let i = 1; i < 5; i++) expect(stamps[i]! - stamps[i - 1]!, `${name} block ${i}`).toBe(60n)
    }
  })

  it('no arguments mines one block; interval 0x0 (what viem sends by default) mines with the block clock', async () => {
    const start = await blockNumber()
    expect(await rpc(url, 'hardhat_mine')).toBeNull()
    expect(await blockNumber()).toBe(start + 1n)
    expect(await rpc(url, 'anvil_mine', ['0x3', '0x0'])).toBeNull()
    expect(await blockNumber()).toBe(start + 4n)
    const stamps = await Promise.all([1n, 2n, 3n, 4n].map(async (k) => BigInt((await block(start + k)).timestamp)))
    for (let i = 1; i < stamps.length; i++) expect(stamps[i]!).toBeGreaterThan(stamps[i - 1]!)
  })

  it('the first block of a batch takes the pool (manual mode); the rest are empty', async () => {
    await manual(async () => {
      const h = await send({ from: COW.address })
      const start = await blockNumber()
      await rpc(url, 'anvil_mine', ['0x2'])
      expect((await block(start + 1n)).transactions).toEqual([h])
      expect((await block(start + 2n)).transactions).toEqual([])
    })
  })

  it('anvil_mine(1000) produces exactly 1000 chained blocks (linear; wall time logged, not asserted)', async () => {
    const start = await blockNumber()
    const t = performance.now()
    expect(await rpc(url, 'anvil_mine', [q(1000)])).toBeNull()
    const ms = performance.now() - t
    console.log(`anvil_mine(1000): ${ms.toFixed(0)} ms (${(ms / 1000).toFixed(2)} ms/block)`)
    expect(await blockNumber()).toBe(start + 1000n)
    const [first, mid, last] = [await block(start + 1n), await block(start + 500n), await block(start + 1000n)]
    expect(first.number).toBe(q(start + 1n))
    expect(mid.parentHash).toBe((await block(start + 499n)).hash)
    expect(last.number).toBe(q(start + 1000n))
    expect(await block(start + 1001n)).toBeNull()
  })
})

describe('the block clock: evm_mine(timestamp), evm_increaseTime, evm_setNextBlockTimestamp', () => {
  it('evm_mine with a timestamp mines at exactly that time; not after the head → -32602', async () => {
    const head = BigInt((await latest()).timestamp)
    expect(await rpc(url, 'evm_mine', [q(head + 1000n)])).toBeNull()
    expect((await latest()).timestamp).toBe(q(head + 1000n))
    expect(await rpc(url, 'evm_mine', [{ timestamp: q(head + 2000n) }])).toBeNull()
    expect((await latest()).timestamp).toBe(q(head + 2000n))
    const n = await blockNumber()
    for (const ts of [head + 2000n, head]) {
      const err = await rpcError(url, 'evm_mine', [q(ts)])
      expect(err.code).toBe(-32602)
    }
    expect(await blockNumber()).toBe(n)
  })

  it('evm_increaseTime returns the accumulated offset (hex); ≤ 0 is a no-op; decimal, hex and numbers accepted', async () => {
    // start from a head behind the wall clock, so the clock (not the parent) decides the timestamp
    clockMs += 100_000_000
    await rpc(url, 'evm_mine')
    expect(await rpc(url, 'evm_increaseTime', [0])).toBe('0x0')
    expect(await rpc(url, 'evm_increaseTime', ['0xe10'])).toBe('0xe10') // 3600
    expect(await rpc(url, 'evm_increaseTime', ['60'])).toBe(q(3660))
    expect(await rpc(url, 'evm_increaseTime', ['0'])).toBe(q(3660))
    expect(await rpc(url, 'evm_increaseTime', ['-100'])).toBe(q(3660))
    expect(await rpc(url, 'evm_increaseTime', [40])).toBe(q(3700))
    for (const bad of ['ten', '0xzz', null, {}, '1.5']) {
      expect((await rpcError(url, 'evm_increaseTime', [bad])).code, JSON.stringify(bad)).toBe(-32602)
    }
    expect(await rpc(url, 'evm_increaseTime', ['0x0'])).toBe(q(3700))
  })

  it('the next block is at least previous + offset; then the offset is cleared (the following block does not add it again)', async () => {
    clockMs += 1_000_000
    const prev = BigInt((await latest()).timestamp)
    expect(prev).toBeLessThan(nowSeconds())
    const offset = BigInt(await rpc<string>(url, 'evm_increaseTime', ['0']))
    expect(offset).toBe(3700n)
    const r = await send({ from: COW.address }) // automine builds the block
    const b1 = await rpc(url, 'eth_getBlockByHash', [(await receipt(r)).blockHash, false])
    const ts1 = BigInt(b1.timestamp)
    expect(ts1).toBe(nowSeconds() + offset)
    expect(ts1).toBeGreaterThanOrEqual(prev + offset)

    expect(await rpc(url, 'evm_increaseTime', ['0'])).toBe('0x0')
    await rpc(url, 'evm_mine')
    const ts2 = BigInt((await latest()).timestamp)
    // the wall clock is now behind the head: the next block is head + 1, not head + offset
    expect(ts2).toBe(ts1 + 1n)
    expect(ts2 - ts1).toBeLessThan(offset)
    clockMs += 10_000_000
    await rpc(url, 'evm_mine')
    expect(BigInt((await latest()).timestamp)).toBe(nowSeconds())
  })

  it('with the head ahead of the wall clock, evm_increaseTime still moves the next block previous + offset', async () => {
    const head = BigInt((await latest()).timestamp)
    await rpc(url, 'evm_setNextBlockTimestamp', [q(nowSeconds() + 50_000n)])
    await rpc(url, 'evm_mine')
    const prev = BigInt((await latest()).timestamp)
    expect(prev).toBeGreaterThan(head)
    expect(prev).toBeGreaterThan(nowSeconds())
    expect(await rpc(url, 'evm_increaseTime', [q(3600)])).toBe(q(3600))
    await rpc(url, 'evm_mine')
    expect(BigInt((await latest()).timestamp)).toBe(prev + 3600n)
    await rpc(url, 'evm_mine')
    expect(BigInt((await latest()).timestamp)).toBe(prev + 3601n)
  })

  it('evm_setNextBlockTimestamp fixes the next block exactly (once); not after the head → -32602', async () => {
    const head = BigInt((await latest()).timestamp)
    expect(await rpc(url, 'evm_setNextBlockTimestamp', [q(head + 12_345n)])).toBeNull()
    const r = await receipt(await send({ from: COW1.address }))
    expect((await rpc(url, 'eth_getBlockByHash', [r.blockHash, false])).timestamp).toBe(q(head + 12_345n))
    await rpc(url, 'evm_mine')
    expect(BigInt((await latest()).timestamp)).toBe(head + 12_346n)

    const now = BigInt((await latest()).timestamp)
    for (const ts of [now, now - 1n, 0n]) {
      const err = await rpcError(url, 'evm_setNextBlockTimestamp', [q(ts)])
      expect(err.code).toBe(-32602)
      expect(err.message).toMatch(/lower than or equal to previous block's timestamp/)
    }
    expect((await rpcError(url, 'evm_setNextBlockTimestamp', ['soon'])).code).toBe(-32602)
    // a JSON number is accepted too
    expect(await rpc(url, 'evm_setNextBlockTimestamp', [Number(now + 5n)])).toBeNull()
    await rpc(url, 'evm_mine')
    expect((await latest()).timestamp).toBe(q(now + 5n))
  })
})
