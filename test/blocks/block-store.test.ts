/**
 * The block store (docs/architecture.md#storage; src/blocks/block-store.ts, block-backend.ts): blocks are kept
 * encoded and decoded into a bounded cache, so every read method must answer the same for a block that left the
 * cache as it did while the block was fresh — in memory and with --db, after a restart, after a revert across
 * evicted blocks, and on a directory written in the previous storage format (upgraded when opened).
 */
import path from 'node:path'
import { describe, expect, it, vi } from 'vitest'
import { dbNodes, FIXED_CLOCK } from '../helpers/db-nodes.js'
import { ChainStorage, storageKeys } from '../../src/db/chain-storage.js'
import type { BlockBackend } from '../../src/blocks/block-backend.js'
import { OLDER_DECODED_BLOCKS, RECENT_DECODED_BLOCKS } from '../../src/blocks/decoded-block-cache.js'
import { packZeros, unpackZeros } from '../../src/blocks/zero-runs.js'
import { buildChain, observe } from '../helpers/chain-fixture.js'
import { COW1, internals, rpc } from '../helpers/node.js'
import { q, sendTx } from '../rpc/shapes.js'

/** Blocks mined after the fixture chain: enough for its blocks to leave the decoded-block cache. */
const EVICT = RECENT_DECODED_BLOCKS + 64

const { tempDir, open, close } = dbNodes('node-cli-store-', { clock: FIXED_CLOCK })

/** The log queries of {@link logRanges}, as [fromBlock, toBlock, address?]. */
type LogQuery = [number, number | 'latest', string?]

/** eth_getLogs answers over ranges that cover the fixture chain's logs (blocks 2, 3 and 5) in several ways. */
async function logRanges(url: string, probeAddress: string): Promise<unknown[]> {
  const queries: LogQuery[] = [
    [0, 36],
    [0, 36, probeAddress],
    [3, 5],
    [4, 4],
    [2, 'latest', probeAddress],
  ]
  const out: unknown[] = []
  for (const [from, to, address] of queries)
    out.push(
      await rpc(url, 'eth_getLogs', [
        { fromBlock: q(from), toBlock: to === 'latest' ? to : q(to), ...(address ? { address } : {}) },
      ]),
    )
  return out
}

/**
 * Evicts the fixture's blocks from the decoded cache, then decodes blocks 3 and 5 again, so that a log scan over
 * blocks 0-36 meets runs of cached and of encoded-only blocks.
 */
async function evictThenReadSome(url: string): Promise<void> {
  await rpc(url, 'anvil_mine', [q(EVICT)])
  for (const n of [3, 5]) expect(await rpc(url, 'eth_getBlockByNumber', [q(n), false])).not.toBeNull()
}

describe('zero-run packing', () => {
  it('round-trips any bytes, including long zero runs and zeros at both ends', () => {
    const cases = [
      new Uint8Array(0),
      Uint8Array.of(0),
      Uint8Array.of(1, 2, 3),
      new Uint8Array(1000),
      Uint8Array.from({ length: 2000 }, (_, i) => (i % 7 === 0 ? i & 0xff : 0)),
      Uint8Array.from([0, 0, 5, ...new Array(600).fill(0), 9, 0]),
    ]
    for (const c of cases) {
      const out = new Uint8Array(c.length * 2 + 8)
      const n = packZeros(c, out, 3)
      expect(unpackZeros(out.subarray(3, 3 + n), c.length)).toEqual(c)
    }
    // a 256-byte zero bloom takes 4 bytes
    expect(packZeros(new Uint8Array(256), new Uint8Array(16), 0)).toBe(4)
  })
})

describe('in memory: blocks that left the decoded cache answer as before', () => {
  it('blocks, transactions, receipts, raw headers, receipt nodes, logs, filters and traces', async () => {
    // every state kept, so that old blocks can still be traced
    const node = await open({ stateHistory: 0 })
    const { probeAddress } = await buildChain(node.url)
    const fresh = await observe(node.url, probeAddress, { upTo: 36, states: false })
    expect(fresh.probeLogs).not.toEqual([])
    await rpc(node.url, 'anvil_mine', [q(EVICT)])
    const evicted = await observe(node.url, probeAddress, { upTo: 36, states: false })
    expect(evicted).toEqual(fresh)
    // unknown hashes stay unknown (the prefix-keyed indexes check the full hash)
    const unknown = '0x' + (fresh.blocks[5] as { hash: string }).hash.slice(2, 10) + '00'.repeat(28)
    expect(await rpc(node.url, 'eth_getBlockByHash', [unknown, false])).toBeNull()
    expect(await rpc(node.url, 'eth_getTransactionByHash', [unknown])).toBeNull()
    expect(await rpc(node.url, 'eth_getTransactionReceipt', [unknown])).toBeNull()
  })

  it('eth_getLogs over runs of cached and evicted blocks answers as when the blocks were fresh', async () => {
    const node = await open({})
    const { probeAddress } = await buildChain(node.url)
    const fresh = await logRanges(node.url, probeAddress)
    expect((fresh[0] as unknown[]).length).toBeGreaterThan(4)
    await evictThenReadSome(node.url)
    expect(await logRanges(node.url, probeAddress)).toEqual(fresh)
  })

  it('a revert across evicted blocks: the kept blocks still answer, removed ones are gone, mining continues', async () => {
    const node = await open({ stateHistory: 0 })
    const { probeAddress } = await buildChain(node.url)
    const snap = await rpc<string>(node.url, 'evm_snapshot')
    const before = await observe(node.url, probeAddress, { upTo: 36, states: false })
    const { transactionHash: later } = await sendTx(node.url, { to: COW1.address, value: '0x5', gas: '0x5208' })
    await rpc(node.url, 'anvil_mine', [q(EVICT)])
    expect(await rpc(node.url, 'evm_revert', [snap])).toBe(true)
    expect(Number(await rpc(node.url, 'eth_blockNumber'))).toBe(36)
    expect(await rpc(node.url, 'eth_getTransactionByHash', [later])).toBeNull()
    expect(await rpc(node.url, 'eth_getBlockByNumber', [q(37), false])).toBeNull()
    expect(await observe(node.url, probeAddress, { upTo: 36, states: false })).toEqual(before)
    const receipt = await sendTx(node.url, { to: COW1.address, value: '0x6', gas: '0x5208' })
    expect(receipt.blockNumber).toBe(q(37))
    const b37 = await rpc<{ parentHash: string }>(node.url, 'eth_getBlockByNumber', [q(37), false])
    expect(b37.parentHash).toBe((before.blocks[36 * 5]! as { hash: string }).hash)
  })
})

describe('--db: blocks read back from the database', () => {
  it('after eviction and after a restart every read answers as when the blocks were fresh', async () => {
    const dir = tempDir()
    const a = await open({ db: dir, stateHistory: 3 })
    const { probeAddress } = await buildChain(a.url)
    const fresh = await observe(a.url, probeAddress, { upTo: 36, states: false })
    await rpc(a.url, 'anvil_mine', [q(EVICT)])
    expect(await observe(a.url, probeAddress, { upTo: 36, states: false })).toEqual(fresh)
    const head = await rpc(a.url, 'eth_getBlockByNumber', ['latest', false])
    await close(a)

    const b = await open({ db: dir, stateHistory: 3 })
    expect(await rpc(b.url, 'eth_getBlockByNumber', ['latest', false])).toEqual(head)
    expect(await observe(b.url, probeAddress, { upTo: 36, states: false })).toEqual(fresh)
    await close(b)
  })

  it('eth_getLogs over runs of cached blocks and blocks read from the database, and after a restart', async () => {
    const dir = tempDir()
    const a = await open({ db: dir })
    const { probeAddress } = await buildChain(a.url)
    const fresh = await logRanges(a.url, probeAddress)
    expect((fresh[0] as unknown[]).length).toBeGreaterThan(4)
    await evictThenReadSome(a.url)
    expect(await logRanges(a.url, probeAddress)).toEqual(fresh)
    await close(a)

    // after a restart only the head is decoded: every other block is read from the database
    const b = await open({ db: dir })
    expect(await logRanges(b.url, probeAddress)).toEqual(fresh)
    await evictThenReadSome(b.url)
    expect(await logRanges(b.url, probeAddress)).toEqual(fresh)
    await close(b)
  })

  it('a directory in another storage format (e.g. 1: no hash or transaction index) is refused, naming both formats', async () => {
    const dir = tempDir()
    const a = await open({ db: dir })
    await rpc(a.url, 'anvil_mine', ['0x3'])
    await close(a)

    // make it a format 1 directory: no 'H'/'T' records, meta format 1
    const storage = await ChainStorage.openDirectory(path.join(dir, 'chain'))
    const meta = await storage.read()
    const removed: Uint8Array[] = []
    for await (const key of storage.db.keys())
      if (key[0] === storageKeys.byHash(new Uint8Array(0))[0] || key[0] === storageKeys.tx(new Uint8Array(0))[0])
        removed.push(key)
    expect(removed.length).toBeGreaterThan(3)
    await storage.db.batch(removed.map((key) => ({ type: 'del' as const, key })))
    await storage.db.put(storageKeys.meta, Buffer.from(JSON.stringify({ ...meta!.meta, format: 1 }), 'utf8'))
    await storage.close()

    await expect(open({ db: dir })).rejects.toThrow(/holds a chain in storage format 1; this version reads format 2$/)
    // nothing was written: the directory still says format 1
    const reopened = await ChainStorage.openDirectory(path.join(dir, 'chain'))
    expect((await reopened.read())!.meta.format).toBe(1)
    await reopened.close()
  })
})

describe('reads of older blocks keep the recent ones decoded', () => {
  for (const mode of ['in memory', '--db'] as const) {
    it(`${mode}: a poll of eth_getLogs over the last 1 000 blocks reads nothing back however many older blocks are read`, async () => {
      const node = await open(mode === '--db' ? { db: tempDir() } : {})
      await rpc(node.url, 'anvil_mine', [q(RECENT_DECODED_BLOCKS + 200)])
      const head = Number(await rpc<string>(node.url, 'eth_blockNumber'))
      const poll = { fromBlock: q(head - 999), toBlock: q(head) }
      const before = await rpc(node.url, 'eth_getLogs', [poll])
      // a client that keeps reading early blocks (their receipts, their transactions): more than the older ones kept
      for (let round = 0; round < 2; round++)
        for (let n = 1; n <= OLDER_DECODED_BLOCKS + 20; n++)
          expect(await rpc(node.url, 'eth_getBlockByNumber', [q(n), true])).not.toBeNull()
      const backend = (internals(node).chain as unknown as { parts: { blocks: { backend: BlockBackend } } }).parts
        .blocks.backend
      const ranges = vi.spyOn(backend, 'encodedRange')
      const points = vi.spyOn(backend, 'encoded')
      expect(await rpc(node.url, 'eth_getLogs', [poll])).toEqual(before)
      for (const n of [head - 999, head - 500, head - 1])
        expect(await rpc(node.url, 'eth_getBlockByNumber', [q(n), false])).not.toBeNull()
      expect(ranges).not.toHaveBeenCalled()
      expect(points).not.toHaveBeenCalled()
      // the older blocks read last are still decoded too; one read before them is read back
      for (let n = 21; n <= OLDER_DECODED_BLOCKS + 20; n++) await rpc(node.url, 'eth_getBlockByNumber', [q(n), false])
      expect(points).not.toHaveBeenCalled()
      await rpc(node.url, 'eth_getBlockByNumber', [q(1), false])
      expect(points).toHaveBeenCalledTimes(1)
      await close(node)
    })
  }
})
