/**
 * Transactions that wait too long leave the pool (docs/reference-rules.md#rule-pool-outdated; reference
 * TransactionPoolImpl.removeObsoleteTransactions): more than 10 blocks past the head they entered at, or 650 whole
 * seconds of wall-clock time later (the node's injected clock), pending or queued; reported as dropped; kept by
 * the tool profiles. Over real HTTP, one node per profile.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Node } from '../../src/index.js'
import { rpc, startNode } from '../helpers/node.js'
import { q } from './shapes.js'

const RECIPIENT = '0x00000000000000000000000000000000000000aa'
/** The injected wall clock (ms), on a whole second so that the 650 s edge is exact. */
let now = 1_800_000_000_000
const dropped: [string, string][] = []

let node: Node
let hardhat: Node

beforeAll(async () => {
  ;[node, hardhat] = await Promise.all([
    startNode({
      clock: () => now,
      onDroppedTransaction: (hash, reason) => dropped.push([hash, reason]),
    }),
    startNode({ clock: () => now, compat: 'hardhat' }),
  ])
})
afterAll(async () => {
  await Promise.all([node?.close(), hardhat?.close()])
})

const nonceOf = async (url: string, a: string) => BigInt(await rpc(url, 'eth_getTransactionCount', [a, 'latest']))
const status = (url: string) => rpc<{ pending: number; queued: number }>(url, 'txpool_status')
const byHash = (url: string, hash: string) => rpc(url, 'eth_getTransactionByHash', [hash])
/** Sends from `from` with a nonce `ahead` past its account nonce (1: queued behind a gap). @returns the hash */
async function sendAhead(n: Node, from: string, ahead: bigint): Promise<string> {
  const nonce = (await nonceOf(n.url, from)) + ahead
  const tx = { from, to: RECIPIENT, value: '0x1', gas: '0x5208', gasPrice: '0x0', nonce: q(nonce) }
  return rpc<string>(n.url, 'eth_sendTransaction', [tx])
}
/** Mines `count` empty blocks (other senders' traffic, as far as the pool is concerned). */
const mine = (url: string, count: number) => rpc(url, 'anvil_mine', [q(BigInt(count))])

describe('reference: a transaction leaves the pool when it has waited too long', () => {
  it('a queued transaction stays for 10 blocks past the head it entered at and is dropped at the 11th', async () => {
    const from = node.accounts[1]!.address
    const hash = await sendAhead(node, from, 1n)
    expect(await status(node.url)).toEqual({ pending: 0, queued: 1 })
    await mine(node.url, 10)
    expect(await status(node.url)).toEqual({ pending: 0, queued: 1 })
    expect(await byHash(node.url, hash)).not.toBeNull()

    await mine(node.url, 1)
    expect(await byHash(node.url, hash)).toBeNull()
    expect(await status(node.url)).toEqual({ pending: 0, queued: 0 })
    expect(dropped.map(([h]) => h)).toEqual([hash])
    expect(dropped[0]![1]).toMatch(/^outdated/)

    // filling the gap now mines only the gap's transaction: the dropped one is gone for good
    const n = await nonceOf(node.url, from)
    await rpc(node.url, 'eth_sendTransaction', [{ from, to: RECIPIENT, value: '0x1', gas: '0x5208', nonce: q(n) }])
    expect(await nonceOf(node.url, from)).toBe(n + 1n)
    expect(await status(node.url)).toEqual({ pending: 0, queued: 0 })
  })

  it('a transaction is dropped 650 whole seconds after it entered, pending ones too (automine off)', async () => {
    const from = node.accounts[2]!.address
    await rpc(node.url, 'evm_setAutomine', [false])
    try {
      const pending = await sendAhead(node, from, 0n)
      const queued = await sendAhead(node, from, 2n)
      expect(await status(node.url)).toEqual({ pending: 1, queued: 1 })
      const pendingBlock = await rpc(node.url, 'eth_getBlockByNumber', ['pending', false])
      expect(pendingBlock.transactions).toContain(pending)

      now += 649_999
      expect(await status(node.url)).toEqual({ pending: 1, queued: 1 })
      now += 1
      // a read outside the chain's queue already sees it gone; the pool's reads drop it
      expect(await byHash(node.url, pending)).toBeNull()
      expect(await byHash(node.url, queued)).toBeNull()
      expect((await rpc(node.url, 'eth_getBlockByNumber', ['pending', false])).transactions).not.toContain(pending)
      expect(await status(node.url)).toEqual({ pending: 0, queued: 0 })
      expect(dropped.map(([h]) => h)).toEqual(expect.arrayContaining([pending, queued]))

      // a block mined now has nothing of the sender's
      const before = await nonceOf(node.url, from)
      await rpc(node.url, 'evm_mine')
      expect(await nonceOf(node.url, from)).toBe(before)
    } finally {
      await rpc(node.url, 'evm_setAutomine', [true])
    }
  })
})

describe('--compat hardhat: pool transactions stay until mined', () => {
  it('a queued transaction survives 11 blocks and 651 s, and is mined when its gap fills', async () => {
    const from = hardhat.accounts[1]!.address
    const hash = await sendAhead(hardhat, from, 1n)
    await mine(hardhat.url, 11)
    now += 651_000
    expect(await status(hardhat.url)).toEqual({ pending: 0, queued: 1 })
    expect(await byHash(hardhat.url, hash)).not.toBeNull()
    const n = await nonceOf(hardhat.url, from)
    await rpc(hardhat.url, 'eth_sendTransaction', [{ from, to: RECIPIENT, value: '0x1', gas: '0x5208', nonce: q(n) }])
    expect(await nonceOf(hardhat.url, from)).toBe(n + 2n)
  })
})
