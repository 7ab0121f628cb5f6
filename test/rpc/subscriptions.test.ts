/**
 * WebSocket subscriptions (spec §2 "New-head notification result", §3 subscription states, §4
 * "Subscriptions (WebSocket only)", §6 events; docs/reference-rules.md#rule-subscriptions: ids are 16 random bytes;
 * newHeads includes baseEvent): eth_subscribe newHeads | logs | newPendingTransactions | syncing over a raw `ws`
 * socket, the exact notification envelope, eth_unsubscribe, what closing a socket does, eth_subscribe over
 * HTTP, and real clients: ethers WebSocketProvider (block and contract events) and viem watchers over
 * webSocket (eth_subscribe) and http (polling, via filters).
 */
import { Wallet } from 'ethers'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { until, WsClient } from '../helpers/ws.js'
import { Contract, id as eventId, Interface, Network, WebSocketProvider } from 'ethers'
import { createPublicClient, getAddress, http, webSocket, type Address, type Hex } from 'viem'
import type { Node } from '../../src/index.js'
import { Probe, Token } from '../../fixtures/index.js'
import { COW, COW1, rpc, rpcError, startNode } from '../helpers/node.js'
import { addrWord, deploy, expectKeys, LOG_FIELDS, sendTx, word } from './shapes.js'

const probe = new Interface(Probe.abi)
const token = new Interface(Token.abi)
const VALUE_CHANGED = eventId('ValueChanged(address,uint256,uint256)')
const TICK = eventId('Tick(uint256,uint256)')
const SUB_ID = /^0x[0-9a-f]{32}$/
/** Spec §2 "New-head notification result", plus the reference's baseEvent (docs/reference-rules.md#rule-subscriptions). */
const HEAD_FIELDS = [
  'difficulty',
  'extraData',
  'gasLimit',
  'gasUsed',
  'logsBloom',
  'miner',
  'number',
  'parentHash',
  'receiptsRoot',
  'sha3Uncles',
  'stateRoot',
  'timestamp',
  'transactionsRoot',
  'hash',
]

/** Every request the node handled (method, error code). */
const seen: { method: string; code?: number }[] = []
const internalErrors: unknown[] = []
const count = (method: string) => seen.filter((s) => s.method === method).length

let node: Node
let url: string
let probeA: string
let probeB: string
let tokenAddress: string
const clients: WsClient[] = []

async function client(): Promise<WsClient> {
  const c = await WsClient.open(node.wsUrl)
  clients.push(c)
  return c
}
const setValue = async (target: string, v: number, from = COW.address) => {
  const r = await sendTx(url, { from, to: target, data: probe.encodeFunctionData('setValue', [v]) })
  expect(r.status).toBe('0x1')
  return r
}
const transfer = async (to: string, amount: bigint) => {
  const r = await sendTx(url, { to: tokenAddress, data: token.encodeFunctionData('transfer', [to, amount]) })
  expect(r.status).toBe('0x1')
  return r
}
const valueTransfer = () => sendTx(url, { to: COW1.address, value: '0x1', gas: '0x5208' })

beforeAll(async () => {
  node = await startNode({
    onRequest: (method, _ms, error) => seen.push({ method, code: error?.code }),
    onInternalError: (_m, err) => internalErrors.push(err),
  })
  url = node.url
  probeA = (await deploy(url, Probe.bytecode)).address
  probeB = (await deploy(url, Probe.bytecode)).address
  tokenAddress = (await deploy(url, Token.bytecode + token.encodeDeploy(['Sub Token', 'ST', 1_000_000n]).slice(2)))
    .address
})
afterAll(async () => {
  for (const c of clients) await c.close()
  await node?.close()
  expect(internalErrors).toEqual([])
})

describe('eth_subscribe over a raw WebSocket', () => {
  it('newHeads: an id of 16 random bytes; one notification per block with the new-head fields', async () => {
    const c = await client()
    const sub = await c.call<string>('eth_subscribe', ['newHeads'])
    expect(sub).toMatch(SUB_ID)
    const r1 = await valueTransfer()
    const r2 = await valueTransfer()
    const [h1, h2] = await c.waitResults(sub, 2)
    expectKeys(h1, [...HEAD_FIELDS, 'baseEvent'])
    expect(h1.baseEvent).toBe('0x00')
    for (const [head, r] of [
      [h1, r1],
      [h2, r2],
    ]) {
      const block = await rpc(url, 'eth_getBlockByHash', [r.blockHash, false])
      for (const f of HEAD_FIELDS) expect(head[f], f).toBe(block[f])
    }
    expect(h2.parentHash).toBe(h1.hash)
    // the exact envelope: no id
    const raw = c.rawNotifications(sub)[0]!
    expect(raw).toBe(
      JSON.stringify({ jsonrpc: '2.0', method: 'eth_subscription', params: { subscription: sub, result: h1 } }),
    )
    const msg = JSON.parse(raw)
    expect(Object.keys(msg)).toEqual(['jsonrpc', 'method', 'params'])
    expect(Object.keys(msg.params)).toEqual(['subscription', 'result'])
  })

  it('two subscriptions on one connection get distinct ids and both receive', async () => {
    const c = await client()
    const a = await c.call<string>('eth_subscribe', ['newHeads'])
    const b = await c.call<string>('eth_subscribe', ['newHeads'])
    expect(a).not.toBe(b)
    const r = await valueTransfer()
    expect((await c.waitResults(a, 1))[0].hash).toBe(r.blockHash)
    expect((await c.waitResults(b, 1))[0].hash).toBe(r.blockHash)
  })

  it('logs with an address and topic filter: only matching logs, as log objects with removed false', async () => {
    const c = await client()
    const filtered = await c.call<string>('eth_subscribe', ['logs', { address: probeA, topics: [VALUE_CHANGED] }])
    const byCow1 = await c.call<string>('eth_subscribe', [
      'logs',
      { address: [probeA, probeB], topics: [null, addrWord(COW1.address)] },
    ])
    const either = await c.call<string>('eth_subscribe', ['logs', { topics: [[VALUE_CHANGED, TICK]] }])
    const all = await c.call<string>('eth_subscribe', ['logs'])
    const ticks = await c.call<string>('eth_subscribe', ['logs', { address: probeA, topics: [TICK, word(1)] }])

    const s1 = await setValue(probeA, 5) // matches filtered, either, all
    const s2 = await setValue(probeB, 6, COW1.address) // byCow1, either, all
    const t = await sendTx(url, { to: probeA, data: probe.encodeFunctionData('emitMany', [2]) }) // either, all, ticks (index 1)
    const tr = await transfer(COW1.address, 1n) // all
    const marker = await setValue(probeA, 7) // last: once it arrives, everything before has arrived
    await c.waitResults(filtered, 2)
    await c.waitResults(all, 6)

    const [log] = c.results(filtered)
    expectKeys(log, LOG_FIELDS)
    expect(log).toEqual({ ...s1.logs[0], removed: false })
    const ids = (sub: string) => c.results(sub).map((l) => `${l.transactionHash}:${l.logIndex}:${l.removed}`)
    const at = (r: any, i = 0) => `${r.transactionHash}:0x${i.toString(16)}:false`
    expect(ids(filtered)).toEqual([at(s1), at(marker)])
    expect(ids(byCow1)).toEqual([at(s2)])
    expect(ids(either)).toEqual([at(s1), at(s2), at(t, 0), at(t, 1), at(marker)])
    expect(ids(all)).toEqual([at(s1), at(s2), at(t, 0), at(t, 1), at(tr), at(marker)])
    expect(ids(ticks)).toEqual([at(t, 1)])
  })

  it('newPendingTransactions: the hash of each transaction entering the pool', async () => {
    const c = await client()
    const sub = await c.call<string>('eth_subscribe', ['newPendingTransactions'])
    const mined = await rpc<string>(url, 'eth_sendTransaction', [{ from: COW.address, to: COW1.address, value: '0x1' }])
    const sender = node.accounts[8]!.address
    const nonce = BigInt(await rpc(url, 'eth_getTransactionCount', [sender, 'latest']))
    const queued = await rpc<string>(url, 'eth_sendTransaction', [
      { from: sender, to: COW1.address, value: '0x1', nonce: '0x' + (nonce + 2n).toString(16) },
    ])
    expect(await c.waitResults(sub, 2)).toEqual([mined, queued])
    expect(c.rawNotifications(sub)[0]).toBe(
      JSON.stringify({ jsonrpc: '2.0', method: 'eth_subscription', params: { subscription: sub, result: mined } }),
    )
  })

  it('newPendingTransactions: only transactions signed with a key the node holds (spec §6)', async () => {
    const c = await client()
    const sub = await c.call<string>('eth_subscribe', ['newPendingTransactions'])
    const outsider = Wallet.createRandom()
    await rpc(url, 'anvil_setBalance', [outsider.address, '0xde0b6b3a7640000'])
    const raw = await outsider.signTransaction({
      to: COW1.address,
      value: 1n,
      gasLimit: 21000n,
      gasPrice: 0n,
      nonce: 0,
      chainId: 33n,
      type: 0,
    })
    const foreign = await rpc<string>(url, 'eth_sendRawTransaction', [raw])
    const own = await rpc<string>(url, 'eth_sendTransaction', [{ from: COW.address, to: COW1.address, value: '0x1' }])
    expect(await c.waitResults(sub, 1)).toEqual([own])
    expect(c.results(sub)).not.toContain(foreign)
  })

  it('syncing: returns an id and emits nothing (a local node never syncs)', async () => {
    const c = await client()
    const sub = await c.call<string>('eth_subscribe', ['syncing'])
    expect(sub).toMatch(SUB_ID)
    const heads = await c.call<string>('eth_subscribe', ['newHeads'])
    await valueTransfer()
    await c.waitResults(heads, 1)
    expect(c.results(sub)).toEqual([])
  })

  it('an unknown subscription type → -32602; a bad logs filter → -32602', async () => {
    const c = await client()
    expect((await c.request('eth_subscribe', ['newBlocks'])).error.code).toBe(-32602)
    expect((await c.request('eth_subscribe', ['logs', { address: '0x12' }])).error.code).toBe(-32602)
    expect((await c.request('eth_subscribe', [])).error.code).toBe(-32602)
  })

  it('over HTTP → -32601', async () => {
    const e = await rpcError(url, 'eth_subscribe', ['newHeads'])
    expect(e.code).toBe(-32601)
    expect(e.message).toMatch(/WebSocket/)
  })
})

describe('eth_unsubscribe', () => {
  it('true once, then false; false for an unknown id; notifications stop', async () => {
    const c = await client()
    const sub = await c.call<string>('eth_subscribe', ['newHeads'])
    const keep = await c.call<string>('eth_subscribe', ['newHeads'])
    expect(await c.call('eth_unsubscribe', [sub])).toBe(true)
    expect(await c.call('eth_unsubscribe', [sub])).toBe(false)
    expect(await c.call('eth_unsubscribe', ['0x' + '00'.repeat(16)])).toBe(false)
    await valueTransfer()
    await c.waitResults(keep, 1)
    expect(c.results(sub)).toEqual([])
  })

  it("another connection's id → false, and that subscription stays active", async () => {
    const a = await client()
    const b = await client()
    const sub = await a.call<string>('eth_subscribe', ['newHeads'])
    expect(await b.call('eth_unsubscribe', [sub])).toBe(false)
    const r = await valueTransfer()
    expect((await a.waitResults(sub, 1))[0].hash).toBe(r.blockHash)
  })

  it('closing the socket drops its subscriptions; the node and other connections carry on', async () => {
    const a = await client()
    const subs = [
      await a.call<string>('eth_subscribe', ['newHeads']),
      await a.call<string>('eth_subscribe', ['logs']),
      await a.call<string>('eth_subscribe', ['newPendingTransactions']),
    ]
    await a.close()
    // events after the close: nothing to deliver, nothing fails
    await setValue(probeA, 99)
    await valueTransfer()
    const b = await client()
    for (const s of subs) expect(await b.call('eth_unsubscribe', [s])).toBe(false)
    const sub = await b.call<string>('eth_subscribe', ['newHeads'])
    const r = await valueTransfer()
    expect((await b.waitResults(sub, 1))[0].hash).toBe(r.blockHash)
    expect(internalErrors).toEqual([])
  })
})

describe('ethers WebSocketProvider', () => {
  const network = () => Network.from({ chainId: 33, name: 'rsk-regtest' })

  it("provider.on('block') and contract.on('Transfer') (eth_subscribe newHeads and logs)", async () => {
    const provider = new WebSocketProvider(node.wsUrl, network(), { staticNetwork: network() })
    try {
      const blocks: number[] = []
      const subscribed = count('eth_subscribe')
      await provider.on('block', (n: number) => blocks.push(n))
      const contract = new Contract(tokenAddress, Token.abi, provider)
      const transfers: { from: string; to: string; value: bigint; tx: string }[] = []
      await contract.on('Transfer', (from: string, to: string, value: bigint, ev: any) => {
        transfers.push({ from, to, value, tx: ev.log.transactionHash })
      })
      await until(() => (count('eth_subscribe') >= subscribed + 2 ? true : undefined), 'ethers subscriptions')

      const r = await transfer(COW1.address, 42n)
      await valueTransfer() // no Transfer event
      const head = Number(await rpc(url, 'eth_blockNumber'))
      await until(() => (blocks.includes(head) ? true : undefined), `ethers block ${head}`)
      expect(blocks).toContain(Number(r.blockNumber))
      await until(() => (transfers.length >= 1 ? true : undefined), 'ethers Transfer event')
      expect(transfers).toEqual([
        { from: getAddress(COW.address), to: getAddress(COW1.address), value: 42n, tx: r.transactionHash },
      ])
    } finally {
      await provider.destroy()
    }
  })
})

describe('viem watchers', () => {
  const chain = () => ({
    id: 33,
    name: 'RSK regtest',
    nativeCurrency: { name: 'RBTC', symbol: 'RBTC', decimals: 18 },
    rpcUrls: { default: { http: [node.url], webSocket: [node.wsUrl] } },
  })

  /** Runs watchBlocks, watchBlockNumber and watchContractEvent on one client; checks a transfer reaches all. */
  async function watchAll(
    client: ReturnType<typeof createPublicClient>,
    settle: (emitted: { blocks: unknown[]; numbers: unknown[] }) => Promise<void>,
  ) {
    const blocks: { number: bigint; hash: Hex }[] = []
    const numbers: bigint[] = []
    const events: { args: unknown; tx: Hex }[] = []
    const errors: Error[] = []
    const unwatch = [
      client.watchBlocks({
        onBlock: (b) => blocks.push({ number: b.number!, hash: b.hash! }),
        onError: (e) => errors.push(e),
      }),
      client.watchBlockNumber({ onBlockNumber: (n) => numbers.push(n), onError: (e) => errors.push(e) }),
      client.watchContractEvent({
        address: tokenAddress as Address,
        abi: Token.abi,
        eventName: 'Transfer',
        onLogs: (logs: any[]) => {
          for (const l of logs) events.push({ args: l.args, tx: l.transactionHash })
        },
        onError: (e) => errors.push(e),
      }),
    ]
    try {
      await settle({ blocks, numbers })
      const r = await transfer(COW1.address, 7n)
      const n = BigInt(r.blockNumber)
      await until(() => (blocks.some((b) => b.number === n) ? true : undefined), `viem block ${n}`)
      await until(() => (numbers.includes(n) ? true : undefined), `viem block number ${n}`)
      await until(() => (events.length >= 1 ? true : undefined), 'viem Transfer event')
      expect(blocks.find((b) => b.number === n)!.hash).toBe(r.blockHash)
      expect(events).toEqual([
        { args: { from: getAddress(COW.address), to: getAddress(COW1.address), value: 7n }, tx: r.transactionHash },
      ])
      expect(errors).toEqual([])
    } finally {
      for (const u of unwatch) u()
    }
  }

  it('over webSocket (eth_subscribe newHeads and logs)', async () => {
    const transport = webSocket(node.wsUrl)
    const client = createPublicClient({ chain: chain(), transport })
    const before = count('eth_subscribe')
    await watchAll(client as any, async () => {
      await until(() => (count('eth_subscribe') >= before + 3 ? true : undefined), 'viem subscriptions')
    })
    const rpcClient = await (client.transport as any).getRpcClient?.()
    rpcClient?.close?.()
  })

  it('over http (polling: eth_newFilter + eth_getFilterChanges for the events)', async () => {
    const client = createPublicClient({ chain: chain(), transport: http(node.url), pollingInterval: 40 })
    const filters = count('eth_newFilter')
    await watchAll(client as any, async ({ blocks, numbers }) => {
      await until(() => (count('eth_newFilter') > filters ? true : undefined), 'viem eth_newFilter')
      // the block watchers have their starting point: each emitted what its first poll found
      await until(() => (blocks.length > 0 && numbers.length > 0 ? true : undefined), 'viem first polls')
    })
    expect(count('eth_getFilterChanges')).toBeGreaterThan(0)
    expect(seen.filter((s) => s.method === 'eth_getFilterChanges' && s.code !== undefined)).toEqual([])
  })
})
