/**
 * Polled filters over real HTTP (spec §3 filter states, §4 "Logs and filters" incl. the topic rule;
 * docs/reference-rules.md#rule-filters: "-32000 filter not found", expiry after 5 min unpolled, id = 0x + hex of a 36-char UUID):
 * eth_newFilter (address string/array, topics with null wildcards and OR-arrays, fromBlock/toBlock numbers and
 * tags, blockHash), eth_getFilterChanges (only what is new since the previous poll), eth_newBlockFilter,
 * eth_newPendingTransactionFilter, eth_getFilterLogs, eth_uninstallFilter, unknown ids and expiry on an
 * injected clock.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { id as eventId, Interface } from 'ethers'
import type { Node } from '../../src/index.js'
import { Probe } from '../../fixtures/index.js'
import { COW, COW1, rpc, rpcError, startNode } from '../helpers/node.js'
import { addrWord, deploy, expectKeys, HASH, LOG_FIELDS, q, sendTx, word } from './shapes.js'

const probe = new Interface(Probe.abi)
const VALUE_CHANGED = eventId('ValueChanged(address,uint256,uint256)')
const TICK = eventId('Tick(uint256,uint256)')
const FILTER_ID = /^0x[0-9a-f]{72}$/
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const MINUTE = 60_000

/** The injected wall clock (ms): drives filter expiry (and block timestamps). */
let now = Date.UTC(2030, 0, 1)
let node: Node
let url: string
let probeA: string
let probeB: string
/** Value stored in each probe (setValue emits the old one as a topic). */
const stored: Record<string, number> = {}

const newFilter = (f: Record<string, unknown>) => rpc<string>(url, 'eth_newFilter', [f])
const changes = (id: string) => rpc<any[]>(url, 'eth_getFilterChanges', [id])
const filterLogs = (id: string) => rpc<any[]>(url, 'eth_getFilterLogs', [id])
const head = async () => BigInt(await rpc(url, 'eth_blockNumber'))

/** target.setValue(v) from `from`; returns the receipt. */
async function setValue(target: string, v: number, from = COW.address): Promise<any> {
  const r = await sendTx(url, { from, to: target, data: probe.encodeFunctionData('setValue', [v]) })
  expect(r.status).toBe('0x1')
  stored[target] = v
  return r
}
/** target.emitMany(n) from COW; returns the receipt. */
async function emitMany(target: string, n: number): Promise<any> {
  const r = await sendTx(url, { to: target, data: probe.encodeFunctionData('emitMany', [n]) })
  expect(r.status).toBe('0x1')
  return r
}

beforeAll(async () => {
  node = await startNode({ clock: () => now })
  url = node.url
  probeA = (await deploy(url, Probe.bytecode)).address
  probeB = (await deploy(url, Probe.bytecode)).address
  stored[probeA] = 0
  stored[probeB] = 0
})
afterAll(() => node?.close())

describe('filter ids', () => {
  it('are 0x + 72 hex digits (the hex of a UUID string), distinct per filter and kind', async () => {
    const ids = [
      await newFilter({}),
      await newFilter({ address: probeA }),
      await rpc<string>(url, 'eth_newBlockFilter'),
      await rpc<string>(url, 'eth_newPendingTransactionFilter'),
    ]
    for (const id of ids) {
      expect(id).toMatch(FILTER_ID)
      expect(Buffer.from(id.slice(2), 'hex').toString('latin1')).toMatch(UUID)
    }
    expect(new Set(ids).size).toBe(4)
    for (const id of ids) expect(await rpc(url, 'eth_uninstallFilter', [id])).toBe(true)
  })
})

describe('eth_newFilter + eth_getFilterChanges', () => {
  it('address string: only that contract, log fields one by one with removed false, then only what is new', async () => {
    const id = await newFilter({ address: probeA })
    expect(await changes(id)).toEqual([]) // nothing since installation

    const old = stored[probeA]!
    const r = await setValue(probeA, 5)
    await setValue(probeB, 6) // other address: not matched
    const got = await changes(id)
    expect(got).toHaveLength(1)
    const log = got[0]
    expectKeys(log, LOG_FIELDS)
    expect(log.logIndex).toBe('0x0')
    expect(log.blockNumber).toBe(r.blockNumber)
    expect(log.blockHash).toBe(r.blockHash)
    expect(log.transactionHash).toBe(r.transactionHash)
    expect(log.transactionIndex).toBe('0x0')
    expect(log.address).toBe(probeA)
    expect(log.data).toBe(word(5))
    expect(log.topics).toEqual([VALUE_CHANGED, addrWord(COW.address), word(old)])
    expect(log.removed).toBe(false)
    // the same log as the receipt and eth_getLogs carry, plus removed
    expect(log).toEqual({ ...r.logs[0], removed: false })

    expect(await changes(id)).toEqual([]) // already delivered
    const r2 = await emitMany(probeA, 2)
    const next = await changes(id)
    expect(next.map((l) => [l.transactionHash, l.logIndex, l.topics[0], l.removed])).toEqual([
      [r2.transactionHash, '0x0', TICK, false],
      [r2.transactionHash, '0x1', TICK, false],
    ])
    expect(await changes(id)).toEqual([])
  })

  it('address array: logs of any listed contract, in chain order', async () => {
    const id = await newFilter({ address: [probeA, probeB] })
    const a = await setValue(probeA, 11)
    const b = await setValue(probeB, 12)
    const got = await changes(id)
    expect(got.map((l) => [l.address, l.transactionHash])).toEqual([
      [probeA, a.transactionHash],
      [probeB, b.transactionHash],
    ])
  })

  it('topics: exact, null wildcards, OR-arrays, shorter filters and non-matching positions', async () => {
    const oldA = stored[probeA]!
    const ids = {
      valueChanged: await newFilter({ topics: [VALUE_CHANGED] }),
      byCow1: await newFilter({ topics: [null, addrWord(COW1.address)] }),
      either: await newFilter({ topics: [[VALUE_CHANGED, TICK]] }),
      ticks02: await newFilter({ address: probeA, topics: [TICK, [word(0), word(2)]] }),
      oldValue: await newFilter({ topics: [VALUE_CHANGED, null, word(oldA)] }),
      all: await newFilter({ topics: [] }),
      fiveTopics: await newFilter({ topics: [null, null, null, VALUE_CHANGED] }), // longer than the log's topics
      none: await newFilter({ topics: [eventId('Nope()')] }),
      tickWildcards: await newFilter({ topics: [TICK, null, null] }), // Tick has 2 topics: never matches
      tickOneWildcard: await newFilter({ topics: [TICK, null] }),
    }
    const s1 = await setValue(probeA, 21) // ValueChanged(COW, oldA, 21)
    const s2 = await setValue(probeB, 22, COW1.address) // ValueChanged(COW1, …, 22)
    const t = await emitMany(probeA, 3) // Tick(0,3) Tick(1,3) Tick(2,3)
    const txs = async (id: string) => (await changes(id)).map((l) => `${l.transactionHash}:${l.logIndex}`)
    const s1l = `${s1.transactionHash}:0x0`
    const s2l = `${s2.transactionHash}:0x0`
    const tl = (i: number) => `${t.transactionHash}:${q(i)}`
    expect(await txs(ids.valueChanged)).toEqual([s1l, s2l])
    expect(await txs(ids.byCow1)).toEqual([s2l])
    expect(await txs(ids.either)).toEqual([s1l, s2l, tl(0), tl(1), tl(2)])
    expect(await txs(ids.ticks02)).toEqual([tl(0), tl(2)])
    expect(await txs(ids.oldValue)).toEqual([s1l])
    expect(await txs(ids.all)).toEqual([s1l, s2l, tl(0), tl(1), tl(2)])
    expect(await txs(ids.fiveTopics)).toEqual([])
    expect(await txs(ids.none)).toEqual([])
    expect(await txs(ids.tickWildcards)).toEqual([])
    expect(await txs(ids.tickOneWildcard)).toEqual([tl(0), tl(1), tl(2)])
  })

  it('fromBlock/toBlock numbers: eth_getFilterLogs covers the range; new blocks past toBlock are not delivered', async () => {
    const r1 = await setValue(probeA, 31)
    const r2 = await setValue(probeA, 32)
    const id = await newFilter({ address: probeA, fromBlock: r1.blockNumber, toBlock: r2.blockNumber })
    expect((await filterLogs(id)).map((l) => l.transactionHash)).toEqual([r1.transactionHash, r2.transactionHash])
    await setValue(probeA, 33)
    expect(await changes(id)).toEqual([])
    // still the same range
    expect((await filterLogs(id)).map((l) => l.transactionHash)).toEqual([r1.transactionHash, r2.transactionHash])
    // a range that is only in the future: logs arrive as those blocks are mined, and stop after toBlock
    const n = await head()
    const future = await newFilter({ address: probeA, fromBlock: q(n + 2n), toBlock: q(n + 2n) })
    await setValue(probeA, 34) // n+1: before the range
    const inRange = await setValue(probeA, 35) // n+2
    await setValue(probeA, 36) // n+3: after
    expect((await changes(future)).map((l) => l.transactionHash)).toEqual([inRange.transactionHash])
    expect((await filterLogs(future)).map((l) => l.transactionHash)).toEqual([inRange.transactionHash])
  })

  it('tags: earliest..latest covers the whole chain; latest (the default) follows the head', async () => {
    const everything = await rpc<any[]>(url, 'eth_getLogs', [
      { address: probeB, fromBlock: 'earliest', toBlock: 'latest' },
    ])
    expect(everything.length).toBeGreaterThan(0)
    const id = await newFilter({ address: probeB, fromBlock: 'earliest', toBlock: 'latest' })
    expect(await filterLogs(id)).toEqual(everything.map((l) => ({ ...l, removed: false })))
    const latest = await newFilter({ address: probeB, fromBlock: 'latest', toBlock: 'latest' })
    const byDefault = await newFilter({ address: probeB })
    // a filter from `latest` has no logs yet: its range starts at the head at installation
    const r = await setValue(probeB, 41)
    for (const f of [id, latest, byDefault]) {
      expect((await changes(f)).map((l) => l.transactionHash)).toEqual([r.transactionHash])
    }
    expect((await filterLogs(id)).at(-1).transactionHash).toBe(r.transactionHash)
    expect((await filterLogs(id)).length).toBe(everything.length + 1)
  })

  it('blockHash: one block only', async () => {
    const t = await emitMany(probeB, 2)
    const id = await newFilter({ blockHash: t.blockHash })
    // (the block's Remasc transaction adds its payment logs after the block's own)
    const got = (await filterLogs(id)).filter((l) => l.transactionHash === t.transactionHash)
    expect(got.map((l) => [l.blockHash, l.transactionHash, l.logIndex, l.removed])).toEqual([
      [t.blockHash, t.transactionHash, '0x0', false],
      [t.blockHash, t.transactionHash, '0x1', false],
    ])
    expect(got).toEqual(t.logs.map((l: object) => ({ ...l, removed: false })))
    const withTopic = await newFilter({ blockHash: t.blockHash, topics: [TICK, word(1)] })
    expect((await filterLogs(withTopic)).map((l) => l.logIndex)).toEqual(['0x1'])
    // later blocks never match a blockHash filter
    await emitMany(probeB, 1)
    expect(await changes(id)).toEqual([])
  })

  it('blockHash together with fromBlock/toBlock → -32602', async () => {
    const b = await rpc(url, 'eth_getBlockByNumber', ['latest', false])
    const e = await rpcError(url, 'eth_newFilter', [{ blockHash: b.hash, fromBlock: '0x1' }])
    expect(e.code).toBe(-32602)
  })
})

describe('eth_newBlockFilter', () => {
  it('delivers the hashes of blocks mined since the previous poll', async () => {
    const id = await rpc<string>(url, 'eth_newBlockFilter')
    expect(await changes(id)).toEqual([])
    const r1 = await sendTx(url, { to: COW1.address, value: '0x1', gas: '0x5208' })
    const r2 = await sendTx(url, { to: COW1.address, value: '0x1', gas: '0x5208' })
    const got = await changes(id)
    expect(got).toEqual([r1.blockHash, r2.blockHash])
    for (const h of got) expect(h).toMatch(HASH)
    expect(await changes(id)).toEqual([])
    const r3 = await sendTx(url, { to: COW1.address, value: '0x1', gas: '0x5208' })
    expect(await changes(id)).toEqual([r3.blockHash])
  })

  it('eth_getFilterLogs of a block filter → -32000 "filter not found"', async () => {
    const id = await rpc<string>(url, 'eth_newBlockFilter')
    const e = await rpcError(url, 'eth_getFilterLogs', [id])
    expect(e.code).toBe(-32000)
    expect(e.message).toBe('filter not found')
  })
})

describe('eth_newPendingTransactionFilter', () => {
  it('delivers the hashes of transactions entering the pool (mined at once or queued behind a nonce gap)', async () => {
    const id = await rpc<string>(url, 'eth_newPendingTransactionFilter')
    expect(await changes(id)).toEqual([])
    const mined = await rpc<string>(url, 'eth_sendTransaction', [{ from: COW.address, to: COW1.address, value: '0x1' }])
    // a future nonce from a dev account nobody else in this file uses: it waits in the pool (queued)
    const sender = node.accounts[9]!.address
    const nonce = BigInt(await rpc(url, 'eth_getTransactionCount', [sender, 'latest']))
    const queued = await rpc<string>(url, 'eth_sendTransaction', [
      { from: sender, to: COW1.address, value: '0x1', nonce: q(nonce + 3n) },
    ])
    expect((await rpc(url, 'eth_getTransactionByHash', [queued])).blockHash).toBeNull()
    expect(await changes(id)).toEqual([mined, queued])
    expect(await changes(id)).toEqual([])
  })

  it('eth_getFilterLogs of a pending-transaction filter → -32000', async () => {
    const id = await rpc<string>(url, 'eth_newPendingTransactionFilter')
    expect((await rpcError(url, 'eth_getFilterLogs', [id])).code).toBe(-32000)
  })
})

describe('eth_uninstallFilter and unknown ids', () => {
  it('true the first time, false after; the filter is gone', async () => {
    for (const id of [
      await newFilter({}),
      await rpc<string>(url, 'eth_newBlockFilter'),
      await rpc<string>(url, 'eth_newPendingTransactionFilter'),
    ]) {
      expect(await rpc(url, 'eth_uninstallFilter', [id])).toBe(true)
      expect(await rpc(url, 'eth_uninstallFilter', [id])).toBe(false)
      const e = await rpcError(url, 'eth_getFilterChanges', [id])
      expect([e.code, e.message]).toEqual([-32000, 'filter not found'])
    }
  })

  it('an unknown id: -32000 "filter not found" for polls, false for uninstall', async () => {
    const unknown = '0x' + Buffer.from('00000000-0000-0000-0000-000000000000', 'latin1').toString('hex')
    for (const m of ['eth_getFilterChanges', 'eth_getFilterLogs']) {
      for (const id of [unknown, '0x1']) {
        const e = await rpcError(url, m, [id])
        expect([e.code, e.message]).toEqual([-32000, 'filter not found'])
      }
    }
    expect(await rpc(url, 'eth_uninstallFilter', [unknown])).toBe(false)
  })

  it('a filter id that is not hex → -32602', async () => {
    expect((await rpcError(url, 'eth_getFilterChanges', ['nope'])).code).toBe(-32602)
    expect((await rpcError(url, 'eth_uninstallFilter', [7])).code).toBe(-32602)
  })
})

// Last: it moves the injected clock forward, which would expire the filters of the tests above.
describe('expiry (reference: 5 minutes without a poll)', () => {
  it('a poll before 5 minutes keeps a filter alive; 5 minutes without one removes it', async () => {
    const polled = await rpc<string>(url, 'eth_newBlockFilter')
    const idle = await newFilter({ address: probeA })
    const idleBlock = await rpc<string>(url, 'eth_newBlockFilter')

    now += 4 * MINUTE
    expect(await changes(polled)).toEqual([])
    now += 4 * MINUTE // polled 4 min ago; the others 8 min ago
    const r = await sendTx(url, { to: COW1.address, value: '0x1', gas: '0x5208' })
    expect(await changes(polled)).toEqual([r.blockHash])
    for (const id of [idle, idleBlock]) {
      const e = await rpcError(url, 'eth_getFilterChanges', [id])
      expect([e.code, e.message]).toEqual([-32000, 'filter not found'])
      expect(await rpc(url, 'eth_uninstallFilter', [id])).toBe(false)
    }

    // 1 ms short of 5 minutes it still lives; at 5 minutes it is gone (reference Filter.hasExpired:
    // accessTime + timeout <= now)
    now += 5 * MINUTE - 1
    expect(await changes(polled)).toEqual([])
    now += 5 * MINUTE
    expect((await rpcError(url, 'eth_getFilterChanges', [polled])).code).toBe(-32000)
  })

  // reference Filter.getEvents (eth_getFilterLogs) also refreshes accessTime
  it('eth_getFilterLogs also counts as a use of a log filter', async () => {
    const id = await newFilter({ address: probeA })
    now += 4 * MINUTE
    await filterLogs(id)
    now += 4 * MINUTE
    expect(await changes(id)).toEqual([])
  })
})
