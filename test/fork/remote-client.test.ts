/**
 * The fork's remote client against a real node-cli behind a proxy that behaves like the reference node
 * (docs/reference-rules.md#rule-fork-remote): typed reads at block numbers, batching, the chain-specific
 * module's two names, retries, and the remote going away.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RemoteClient } from '../../src/fork/remote-client.js'
import { RemoteCallError, RemoteProtocolError, RemoteUnavailableError } from '../../src/fork/remote-errors.js'
import { RemoteNode } from '../../src/fork/remote-node.js'
import { toRpcError } from '../../src/rpc/error-mapping.js'
import { headerRulesFor } from '../../src/rsk/activations.js'
import { headerHash } from '../../src/rsk/header.js'
import { decodeHeader } from '../../src/rsk/header-decode.js'
import { fromHex, toHex } from '../../src/util/bytes.js'
import type { Node } from '../../src/index.js'
import { startRskjProxy, type RskjProxy } from '../helpers/rskj-proxy.js'
import { COW, COW1, rpc, startNode } from '../helpers/node.js'

let node: Node
let proxy: RskjProxy
/** Block at which COW had sent one transfer; later blocks change COW's balance again. */
let before: bigint
const COW_ADDR = fromHex(COW.address)

function client(extra: Partial<ConstructorParameters<typeof RemoteClient>[0]> = {}): RemoteClient {
  return new RemoteClient({ url: proxy.url, backoffMs: 10, maxBackoffMs: 50, ...extra })
}

beforeAll(async () => {
  node = await startNode()
  await rpc(node.url, 'eth_sendTransaction', [{ from: COW.address, to: COW1.address, value: '0x3e8' }])
  before = BigInt(await rpc<string>(node.url, 'eth_blockNumber'))
  await rpc(node.url, 'eth_sendTransaction', [{ from: COW.address, to: COW1.address, value: '0x7d0' }])
  proxy = await startRskjProxy({ upstream: node.url })
})

afterAll(async () => {
  await proxy?.close()
  await node?.close()
})

describe('RemoteNode reads through a reference-like proxy', () => {
  it('reads balance, nonce, code and storage at a block number, never with a block object', async () => {
    const remote = new RemoteNode(client())
    const [balance, nonce, code, word] = await Promise.all([
      remote.balance(COW_ADDR, before),
      remote.nonce(COW_ADDR, before),
      remote.code(COW_ADDR, before),
      remote.storageAt(COW_ADDR, new Uint8Array(32), before),
    ])
    expect(balance).toBe(BigInt(await rpc<string>(node.url, 'eth_getBalance', [COW.address, toHexNum(before)])))
    expect(balance).not.toBe(BigInt(await rpc<string>(node.url, 'eth_getBalance', [COW.address, 'latest'])))
    expect(nonce).toBe(1n)
    expect(code).toEqual(new Uint8Array(0))
    expect(word).toEqual(new Uint8Array(32))
    expect(await remote.chainId()).toBe(33n)
    expect(await remote.blockNumber()).toBe(before + 1n)
  })

  it('the proxy refuses block objects like the reference (so the client is known never to send one)', async () => {
    const boolObject = await rpcVia(proxy.url, 'eth_getBalance', [
      COW.address,
      { blockHash: '0x' + '11'.repeat(32), requireCanonical: false },
    ])
    expect(boolObject.error).toEqual({ code: -32603, message: 'Internal server error' })
    const plain = await rpcVia(proxy.url, 'eth_getCode', [COW.address, { blockNumber: '0x1' }])
    expect(plain.error?.code).toBe(-32602)
    const proof = await rpcVia(proxy.url, 'eth_getProof', [COW.address, [], 'latest'])
    expect(proof.error?.code).toBe(-32601)
  })

  it('answers eth_getProof as the reference does: a RemoteCallError keeping -32601', async () => {
    const c = client()
    const err = await c.call('eth_getProof', [COW.address, [], 'latest']).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(RemoteCallError)
    expect((err as RemoteCallError).remoteCode).toBe(-32601)
    expect(toRpcError(err)).toMatchObject({ code: -32000, message: (err as Error).message })
    expect((err as RemoteCallError).message).toMatch(/eth_getProof with -32601/)
  })

  it('finds the chain module under the reference name rsk_ once, then calls it directly', async () => {
    proxy.resetCounts()
    const remote = new RemoteNode(client())
    const cells = await Promise.all([0, 1, 2].map((i) => remote.storageBytes(COW_ADDR, slot(i), before)))
    expect(cells).toEqual([new Uint8Array(0), new Uint8Array(0), new Uint8Array(0)])
    const raw = await remote.rawHeaderByNumber(before)
    expect(raw).toBeInstanceOf(Uint8Array)
    const header = decodeHeader(raw!, headerRulesFor(33))
    const block = await rpc<{ hash: string }>(node.url, 'eth_getBlockByNumber', [toHexNum(before), false])
    expect(toHex(headerHash(header))).toBe(block.hash)
    expect(await remote.rawHeaderByNumber(10_000n)).toBeNull()
    expect(proxy.counts.get('ext_getStorageBytesAt')).toBe(1)
    expect(proxy.counts.get('rsk_getStorageBytesAt')).toBe(3)
    expect(proxy.counts.get('ext_getRawBlockHeaderByNumber')).toBe(1)
    expect(proxy.counts.get('rsk_getRawBlockHeaderByNumber')).toBe(2)
  })

  it('reports no storage-bytes method when the remote has it off (as the reference ships)', async () => {
    const off = await startRskjProxy({ upstream: node.url, storageBytes: false })
    try {
      const remote = new RemoteNode(new RemoteClient({ url: off.url }))
      expect(await remote.storageBytes(COW_ADDR, slot(0), before)).toBeUndefined()
      expect(await remote.storageBytes(COW_ADDR, slot(1), before)).toBeUndefined()
      expect(off.counts.get('rsk_getStorageBytesAt')).toBe(1)
    } finally {
      await off.close()
    }
  })

  it('reads blocks, transactions, receipts and logs', async () => {
    const remote = new RemoteNode(client())
    const block = await remote.blockByNumber(before, true)
    expect(block?.number).toBe(toHexNum(before))
    const txs = block!.transactions as Array<{ hash: string }>
    const tx = await remote.transactionByHash(fromHex(txs[0]!.hash))
    expect(tx?.from).toBe(COW.address)
    const receipt = await remote.transactionReceipt(fromHex(txs[0]!.hash))
    expect(receipt?.status).toBe('0x1')
    expect(await remote.blockByHash(fromHex(block!.hash as string), false)).toMatchObject({ number: toHexNum(before) })
    expect(await remote.blockByNumber(10_000n, false)).toBeNull()
    expect(await remote.transactionByHash(new Uint8Array(32))).toBeNull()
    expect(await remote.logs({ fromBlock: 0n, toBlock: before })).toEqual([])
  })
})

describe('RemoteClient batching and pacing', () => {
  it('sends calls made together as batches of at most 50', async () => {
    proxy.resetCounts()
    const c = client()
    const results = await Promise.all(Array.from({ length: 120 }, () => c.call<string>('eth_chainId')))
    expect(results.every((r) => r === '0x21')).toBe(true)
    expect(proxy.batchSizes.sort((a, b) => b - a)).toEqual([50, 50, 20])
    expect(c.stats).toMatchObject({ calls: 120, httpRequests: 3, retries: 0 })
  })

  it('keeps to a remote whose batch limit is lower, by halving its batches', async () => {
    const small = await startRskjProxy({ upstream: node.url, maxBatch: 10 })
    try {
      const c = new RemoteClient({ url: small.url })
      const results = await Promise.all(
        Array.from({ length: 60 }, (_, i) => c.call<string>('eth_getBalance', [COW.address, toHexNum(BigInt(i % 2))])),
      )
      expect(new Set(results).size).toBe(2)
      expect(Math.max(...small.batchSizes.slice(-4))).toBeLessThanOrEqual(10)
    } finally {
      await small.close()
    }
  })

  it('bounds the HTTP requests in flight and the calls per batch under a rate cap', async () => {
    proxy.resetCounts()
    proxy.setLatency(30)
    try {
      const c = client({ concurrency: 1, maxBatchSize: 5 })
      await Promise.all(Array.from({ length: 20 }, () => c.call('eth_blockNumber')))
      expect(proxy.maxInFlight()).toBe(1)
      expect(proxy.batchSizes).toEqual([5, 5, 5, 5])
      proxy.resetCounts()
      const capped = client({ requestsPerSecond: 40 })
      await Promise.all(Array.from({ length: 60 }, () => capped.call('eth_blockNumber')))
      expect(Math.max(...proxy.batchSizes)).toBeLessThanOrEqual(40)
    } finally {
      proxy.setLatency(0)
    }
  })

  it('sends the custom headers', async () => {
    await client({ headers: { 'x-api-key': 'secret-key' } }).call('eth_chainId')
    expect(proxy.lastHeaders()['x-api-key']).toBe('secret-key')
  })
})

describe('RemoteClient retries and failures', () => {
  it('retries HTTP 500, 503, 429 and reset connections, then answers', async () => {
    const c = client()
    proxy.failNext(1, 'http500')
    proxy.failNext(1, 'http503')
    proxy.failNext(1, 'http429')
    proxy.failNext(1, 'reset')
    expect(await c.call('eth_chainId')).toBe('0x21')
    expect(c.stats.retries).toBe(4)
  })

  it('retries a request that gets no answer within the timeout', async () => {
    const c = client({ timeoutMs: 300 })
    proxy.failNext(1, 'timeout')
    expect(await c.call('eth_chainId')).toBe('0x21')
    expect(c.stats.retries).toBe(1)
  })

  it('gives up with RemoteUnavailableError after the retries', async () => {
    const c = client({ retries: 2 })
    proxy.failNext(3, 'http503')
    const err = await c.call('eth_chainId').catch((e: unknown) => e)
    expect(err).toBeInstanceOf(RemoteUnavailableError)
    expect(toRpcError(err)?.code).toBe(-32000)
    expect((err as RemoteUnavailableError).message).toBe(
      `fork remote ${proxy.url} is unavailable: HTTP 503 (3 attempts)`,
    )
  })

  it('does not retry an answer that is not JSON-RPC (an HTTP 401 page)', async () => {
    const c = client()
    proxy.failNext(1, 'http401')
    const err = await c.call('eth_chainId').catch((e: unknown) => e)
    expect(err).toBeInstanceOf(RemoteProtocolError)
    expect((err as Error).message).toMatch(/HTTP 401 with a body that is not JSON/)
    expect(c.stats.retries).toBe(0)
  })

  it('fails every queued call when closed', async () => {
    const c = client()
    const pending = c.call('eth_chainId')
    c.close()
    await expect(pending).rejects.toBeInstanceOf(RemoteUnavailableError)
    await expect(c.call('eth_chainId')).rejects.toThrow(/closed/)
  })

  it('reports a remote that is gone, keeps the URL path out of the message, and fails fast in the cool-down', async () => {
    const gone = await startRskjProxy({ upstream: node.url })
    const c = new RemoteClient({ url: `${gone.url}/secret-api-key`, retries: 2, backoffMs: 10, cooldownMs: 60_000 })
    expect(await c.call('eth_chainId')).toBe('0x21')
    await gone.close()
    const err = await c.call('eth_chainId').catch((e: unknown) => e)
    expect(err).toBeInstanceOf(RemoteUnavailableError)
    expect((err as RemoteUnavailableError).attempts).toBe(3)
    expect((err as Error).message).toMatch(/unavailable: connection (refused|reset)/)
    expect((err as Error).message).not.toMatch(/secret/)
    const sent = c.stats.httpRequests
    const again = await c.call('eth_chainId').catch((e: unknown) => e)
    expect((again as RemoteUnavailableError).attempts).toBe(0)
    expect(c.stats.httpRequests).toBe(sent)
  })
})

function slot(i: number): Uint8Array {
  const s = new Uint8Array(32)
  s[31] = i
  return s
}

function toHexNum(n: bigint): string {
  return '0x' + n.toString(16)
}

async function rpcVia(
  url: string,
  method: string,
  params: unknown[],
): Promise<{ error?: { code: number; message: string } }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  })
  return (await res.json()) as { error?: { code: number; message: string } }
}
