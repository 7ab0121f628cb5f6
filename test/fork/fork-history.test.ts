/**
 * The remote's history up to the fork block (docs/architecture.md#forking), from a real node-cli behind a
 * reference-like proxy: blocks, transactions, receipts and logs at or below the fork block, nothing above it,
 * the fork block's header decoded and checked, and every answer cached.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Interface } from 'ethers'
import { Token } from '../../fixtures/index.js'
import { ForkCache } from '../../src/fork/fork-cache.js'
import { ForkHistory, READ_AHEAD_BLOCKS } from '../../src/fork/fork-history.js'
import {
  DEFAULT_FORK_CONFIRMATIONS,
  findForkPoint,
  resolveForkPoint,
  type ForkPoint,
} from '../../src/fork/fork-point.js'
import { InvalidArgumentError } from '../../src/errors/domain-errors.js'
import { RemoteClient } from '../../src/fork/remote-client.js'
import { RemoteNode } from '../../src/fork/remote-node.js'
import type { Node } from '../../src/index.js'
import { fromHex, toHex } from '../../src/util/bytes.js'
import { COW, COW1, rpc, startNode } from '../helpers/node.js'
import { startRskjProxy, type RskjProxy } from '../helpers/rskj-proxy.js'

let node: Node
let proxy: RskjProxy
let point: ForkPoint
let token: string
let beforeTx: string
let afterTx: string
let afterBlockHash: string
const iface = new Interface(Token.abi)

async function history(url = proxy.url): Promise<ForkHistory> {
  const remote = new RemoteNode(new RemoteClient({ url, retries: 0 }))
  return new ForkHistory(remote, await ForkCache.open({ chainId: point.chainId, forkBlockHash: point.hash }), point)
}

beforeAll(async () => {
  node = await startNode()
  const deploy = await rpc<string>(node.url, 'eth_sendTransaction', [
    { from: COW.address, data: Token.bytecode + iface.encodeDeploy(['T', 'T', 1000n]).slice(2), gas: '0x2dc6c0' },
  ])
  token = (await rpc<{ contractAddress: string }>(node.url, 'eth_getTransactionReceipt', [deploy])).contractAddress
  const transfer = (n: bigint) => ({
    from: COW.address,
    to: token,
    data: iface.encodeFunctionData('transfer', [COW1.address, n]),
    gas: '0x30d40',
  })
  beforeTx = await rpc<string>(node.url, 'eth_sendTransaction', [transfer(1n)])
  const number = BigInt(await rpc<string>(node.url, 'eth_blockNumber'))
  const hash = (await rpc<{ hash: string }>(node.url, 'eth_getBlockByNumber', ['0x' + number.toString(16), false])).hash
  point = { chainId: 33n, number, hash: fromHex(hash) }
  afterTx = await rpc<string>(node.url, 'eth_sendTransaction', [transfer(2n)])
  afterBlockHash = (await rpc<{ blockHash: string }>(node.url, 'eth_getTransactionReceipt', [afterTx])).blockHash
  proxy = await startRskjProxy({ upstream: node.url })
})

afterAll(async () => {
  await proxy?.close()
  await node?.close()
})

describe('ForkHistory', () => {
  it('serves blocks at or below the fork block and nothing above it', async () => {
    const h = await history()
    const fork = await h.blockByNumber(point.number, true)
    expect(fork?.hash).toBe(toHex(point.hash))
    expect(await h.blockByHash(point.hash, false)).toMatchObject({ number: '0x' + point.number.toString(16) })
    expect(await h.blockByNumber(point.number + 1n, false)).toBeNull()
    expect(await h.blockByHash(fromHex(afterBlockHash), false)).toBeNull()
    expect(await h.blockByNumber(-1n, false)).toBeNull()
  })

  it('serves transactions and receipts mined up to the fork block only', async () => {
    const h = await history()
    expect(await h.transactionByHash(fromHex(beforeTx))).toMatchObject({ hash: beforeTx, from: COW.address })
    expect(await h.transactionReceipt(fromHex(beforeTx))).toMatchObject({ transactionHash: beforeTx, status: '0x1' })
    expect(await h.transactionByHash(fromHex(afterTx))).toBeNull()
    expect(await h.transactionReceipt(fromHex(afterTx))).toBeNull()
  })

  it('clamps log ranges to the fork block', async () => {
    const h = await history()
    const all = await h.logs({ fromBlock: 0n, toBlock: point.number + 10n, address: token })
    expect(all).toHaveLength(2) // the mint and the transfer before the fork; not the one after
    expect(all.every((l) => BigInt(l.blockNumber as string) <= point.number)).toBe(true)
    expect(await h.logs({ fromBlock: point.number + 1n })).toEqual([])
    expect(await h.logs({ blockHash: fromHex(afterBlockHash) })).toEqual([])
    expect(await h.logs({ blockHash: point.hash, address: token })).toHaveLength(1)
  })

  it('decodes the fork block header with the network rules and checks its hash', async () => {
    const h = await history()
    const header = await h.forkHeader()
    expect(header.number).toBe(point.number)
    expect(header.version).toBe(2)
    expect(await h.rawHeaderByNumber(point.number + 1n)).toBeNull()
    const wrong = new ForkHistory(h.remote, h.cache, { ...point, hash: new Uint8Array(32) })
    await expect(wrong.forkHeader()).rejects.toThrow(/does not hash to 0x0000/)
  })

  it('answers a second time from the cache', async () => {
    const h = await history()
    await h.blockByNumber(1n, true)
    await h.transactionReceipt(fromHex(afterTx))
    await h.logs({ fromBlock: 0n, toBlock: point.number })
    proxy.resetCounts()
    expect((await h.blockByNumber(1n, true))?.number).toBe('0x1')
    expect(await h.transactionReceipt(fromHex(afterTx))).toBeNull()
    expect((await h.logs({ fromBlock: 0n, toBlock: point.number })).length).toBeGreaterThan(0)
    expect(proxy.total()).toBe(0)
  })

  it('reads consecutive blocks ahead in aligned runs that share one batch request each', async () => {
    await rpc(node.url, 'evm_mine', [{ blocks: '0x28' }])
    const n = BigInt(await rpc<string>(node.url, 'eth_blockNumber'))
    const hash = (await rpc<{ hash: string }>(node.url, 'eth_getBlockByNumber', ['0x' + n.toString(16), false])).hash
    const h = new ForkHistory(
      new RemoteNode(new RemoteClient({ url: proxy.url, retries: 0 })),
      await ForkCache.open({ chainId: 33n, forkBlockHash: fromHex(hash) }),
      { chainId: 33n, number: n, hash: fromHex(hash) },
    )
    proxy.resetCounts()
    const first = n - 20n
    for (let m = first; m <= n; m++) {
      const b = await h.blockReadingAhead(m)
      expect(b?.number).toBe('0x' + m.toString(16))
    }
    // 21 consecutive numbers lie in at most 3 aligned runs of READ_AHEAD_BLOCKS: one request per run
    expect(READ_AHEAD_BLOCKS).toBe(16n)
    // each block asked once, none past the fork block
    expect(proxy.counts.get('eth_getBlockByNumber')).toBe(21)
    expect(proxy.httpRequests()).toBeLessThanOrEqual(3)
    expect(await h.blockReadingAhead(n + 1n)).toBeNull()
    proxy.resetCounts()
    expect((await h.blockByNumber(first, false))?.number).toBe('0x' + first.toString(16))
    expect(proxy.total()).toBe(0)
  })
})

describe('resolveForkPoint', () => {
  it('finds an explicit fork block, its hash and raw header in one request, which the history then answers', async () => {
    const remote = new RemoteNode(new RemoteClient({ url: proxy.url }))
    proxy.resetCounts()
    const found = await findForkPoint(remote, { url: proxy.url, blockNumber: point.number })
    expect(found.point).toEqual(point)
    expect(found.fetched?.block.hash).toBe(toHex(point.hash))
    expect(proxy.httpRequests()).toBe(1)
    const h = new ForkHistory(remote, await ForkCache.open({ chainId: 33n, forkBlockHash: point.hash }), point)
    await h.adopt(found.fetched!)
    expect((await h.forkHeader()).number).toBe(point.number)
    expect((await h.blockByNumber(point.number, false))?.hash).toBe(toHex(point.hash))
    expect(proxy.httpRequests()).toBe(1)
  })

  it('picks the head minus the confirmations by default, counts back from the head for a negative number', async () => {
    const remote = new RemoteNode(new RemoteClient({ url: proxy.url }))
    expect((await resolveForkPoint(remote, { url: proxy.url, confirmations: 1000n })).number).toBe(0n)
    await rpc(node.url, 'evm_mine', [{ blocks: '0x8' }])
    const head = BigInt(await rpc<string>(node.url, 'eth_blockNumber'))
    const hashOf = async (n: bigint) =>
      (await rpc<{ hash: string }>(node.url, 'eth_getBlockByNumber', ['0x' + n.toString(16), false])).hash
    const byDefault = await resolveForkPoint(remote, { url: proxy.url })
    expect(byDefault.number).toBe(head - DEFAULT_FORK_CONFIRMATIONS)
    expect(toHex(byDefault.hash)).toBe(await hashOf(head - DEFAULT_FORK_CONFIRMATIONS))
    expect(byDefault.chainId).toBe(33n)
    expect((await resolveForkPoint(remote, { url: proxy.url, blockNumber: -1n })).number).toBe(head - 1n)
    expect(await resolveForkPoint(remote, { url: proxy.url, blockNumber: point.number })).toEqual(point)
    await expect(resolveForkPoint(remote, { url: proxy.url, blockNumber: head + 1n })).rejects.toThrow(
      InvalidArgumentError,
    )
    await expect(resolveForkPoint(remote, { url: proxy.url, blockNumber: -(head + 1n) })).rejects.toThrow(
      /before block 0/,
    )
  })
})
