/**
 * Otterscan's address pages over real HTTP (docs/otterscan.md#address-history): ots_searchTransactionsBefore /
 * After (Erigon's page rules: newest first, whole blocks, firstPage / lastPage; receipts with timestamp and logs),
 * ots_getContractCreator (the direct creator) and ots_getTransactionBySenderAndNonce, answered from the address
 * index; internal touches, self-destruct beneficiaries and reverted transactions count; errors and empty answers;
 * the index follows evm_revert and anvil_reset.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { getCreateAddress, Interface, Wallet } from 'ethers'
import type { Node } from '../../src/index.js'
import { OtsChild, OtsProbe, OtsTarget, Probe } from '../../fixtures/index.js'
import { COW, COW1, rpc, rpcError, startNode } from '../helpers/node.js'
import { deploy, q, sendMined, sendTx } from './shapes.js'

const probe = new Interface(OtsProbe.abi)
const emitter = new Interface(Probe.abi)
const REMASC = '0x0000000000000000000000000000000001000008'
const lower = (a: string): string => a.toLowerCase()

let node: Node
let url: string
let probeAddr: string
let targetAddr: string

/** A fresh funded account (its history starts empty). */
async function freshAccount(): Promise<string> {
  const a = lower(Wallet.createRandom().address)
  await rpc(url, 'anvil_setBalance', [a, q(10n ** 20n)])
  await rpc(url, 'anvil_impersonateAccount', [a])
  return a
}

/** The page's transaction hashes, and checks its txs and receipts line up. */
function hashes(page: any): string[] {
  expect(page.receipts.map((r: any) => r.transactionHash)).toEqual(page.txs.map((t: any) => t.hash))
  return page.txs.map((t: any) => t.hash)
}

beforeAll(async () => {
  node = await startNode()
  url = node.url
  probeAddr = (await deploy(url, OtsProbe.bytecode)).address
  targetAddr = (await deploy(url, OtsTarget.bytecode)).address
})
afterAll(() => node?.close())

describe('ots_searchTransactionsBefore / After', () => {
  it('an account with a few transactions: one page, newest first, receipts with timestamp and logs', async () => {
    const a = await freshAccount()
    const { address: p } = await deploy(url, Probe.bytecode, a)
    const sent = [
      (await sendTx(url, { from: a, to: p, data: emitter.encodeFunctionData('emitMany', [2n]) })).transactionHash,
    ]
    sent.push((await sendTx(url, { from: a, to: COW1.address, value: '0x1' })).transactionHash)
    const page = await rpc(url, 'ots_searchTransactionsBefore', [a, 0, 25])
    expect(page.firstPage).toBe(true)
    expect(page.lastPage).toBe(true)
    expect(hashes(page)).toHaveLength(3)
    expect(hashes(page).slice(0, 2)).toEqual([sent[1], sent[0]])
    const byHash = await rpc(url, 'eth_getTransactionByHash', [sent[0]])
    expect(page.txs[1]).toEqual(byHash)
    const receipt = await rpc(url, 'eth_getTransactionReceipt', [sent[0]])
    const block = await rpc(url, 'eth_getBlockByNumber', [receipt.blockNumber, false])
    expect(page.receipts[1]).toEqual({ ...receipt, timestamp: block.timestamp })
    expect(page.receipts[1].logs).toHaveLength(2)
    const after = await rpc(url, 'ots_searchTransactionsAfter', [a, 0, 25])
    expect(after).toEqual(page)
  })

  it('pages of whole blocks, walked both ways with the block of the last page', async () => {
    const a = await freshAccount()
    // 7 blocks: two with 2 transactions of the account, five with 1
    const blocks: string[][] = []
    for (let b = 0; b < 7; b++) {
      const n = b < 2 ? 2 : 1
      await rpc(url, 'evm_setAutomine', [false])
      const txs: string[] = []
      try {
        for (let i = 0; i < n; i++)
          txs.push(await rpc(url, 'eth_sendTransaction', [{ from: a, to: COW1.address, value: q(1 + i) }]))
        await rpc(url, 'evm_mine')
      } finally {
        await rpc(url, 'evm_setAutomine', [true])
      }
      blocks.push(txs)
    }
    const newestFirst = blocks.flat().reverse()
    const numberOf = async (h: string): Promise<number> =>
      Number((await rpc(url, 'eth_getTransactionByHash', [h])).blockNumber)
    // before: 3 wanted, the page finishes its block
    const seen: string[] = []
    let block = 0
    let page: any
    do {
      page = await rpc(url, 'ots_searchTransactionsBefore', [a, block, 3])
      expect(page.firstPage).toBe(block === 0)
      seen.push(...hashes(page))
      block = await numberOf(page.txs[page.txs.length - 1].hash)
    } while (!page.lastPage)
    expect(seen).toEqual(newestFirst)
    // after: from the oldest; each page newest first
    const pages: string[][] = []
    block = 0
    do {
      page = await rpc(url, 'ots_searchTransactionsAfter', [a, block, 3])
      expect(page.lastPage).toBe(block === 0)
      pages.push(hashes(page))
      block = await numberOf(page.txs[0].hash)
    } while (!page.firstPage)
    expect(pages.reverse().flat()).toEqual(newestFirst)
    expect(pages.every((p) => p.length >= 3 || p === pages[0])).toBe(true)
  })

  it('internal touches, created contracts, self-destruct beneficiaries and reverted transactions count', async () => {
    const nested = await sendTx(url, {
      to: probeAddr,
      value: q(100),
      data: probe.encodeFunctionData('nested', [targetAddr]),
    })
    const target = hashes(await rpc(url, 'ots_searchTransactionsBefore', [targetAddr, 0, 25]))
    expect(target[0]).toBe(nested.transactionHash)
    const beneficiary = '0x00000000000000000000000000000000000b0b0b'
    const nonce = Number(await rpc(url, 'eth_getTransactionCount', [probeAddr, 'latest']))
    const child = getCreateAddress({ from: probeAddr, nonce })
    const destroy = await sendTx(url, {
      to: probeAddr,
      value: q(9),
      data: probe.encodeFunctionData('destroy', [beneficiary]),
    })
    expect(hashes(await rpc(url, 'ots_searchTransactionsBefore', [beneficiary, 0, 25]))).toEqual([
      destroy.transactionHash,
    ])
    expect(hashes(await rpc(url, 'ots_searchTransactionsBefore', [child, 0, 25]))).toEqual([destroy.transactionHash])
    const failed = await sendMined(url, { to: probeAddr, data: probe.encodeFunctionData('fail') })
    const mine = hashes(await rpc(url, 'ots_searchTransactionsBefore', [COW.address, 0, 1]))
    expect(mine).toEqual([failed])
  })

  it('the Remasc transaction pages like any other', async () => {
    const r = await sendTx(url, { to: COW1.address, value: '0x1' })
    const page = await rpc(url, 'ots_searchTransactionsBefore', [REMASC, 0, 1])
    expect(page.txs).toHaveLength(1)
    expect(page.txs[0]).toMatchObject({ blockNumber: r.blockNumber, to: REMASC })
    expect(page.receipts[0].status).toBe('0x1')
  })

  it('an address without transactions: an empty first and last page', async () => {
    const empty = { txs: [], receipts: [], firstPage: true, lastPage: true }
    const nobody = '0x00000000000000000000000000000000000d0d0d'
    expect(await rpc(url, 'ots_searchTransactionsBefore', [nobody, 0, 25])).toEqual(empty)
    expect(await rpc(url, 'ots_searchTransactionsAfter', [nobody, 0, 25])).toEqual({ ...empty })
  })

  it('bad parameters are -32602', async () => {
    for (const m of ['ots_searchTransactionsBefore', 'ots_searchTransactionsAfter']) {
      const tooBig = await rpcError(url, m, [COW.address, 0, 1001])
      expect(tooBig.code).toBe(-32602)
      expect(tooBig.message).toContain('pageSize must be at most 1000')
      expect((await rpcError(url, m, ['0x1234', 0, 25])).code).toBe(-32602)
      expect((await rpcError(url, m, [COW.address, 0])).code).toBe(-32602)
      expect((await rpcError(url, m, [COW.address, -1, 25])).code).toBe(-32602)
    }
  })
})

describe('ots_getContractCreator', () => {
  it('a deployment: the deploying transaction and its sender', async () => {
    const { address, receipt } = await deploy(url, OtsTarget.bytecode)
    expect(await rpc(url, 'ots_getContractCreator', [address])).toEqual({
      hash: receipt.transactionHash,
      creator: lower(COW.address),
    })
  })

  it('a contract made by a factory: the factory is the creator', async () => {
    const nonce = Number(await rpc(url, 'eth_getTransactionCount', [probeAddr, 'latest']))
    const r = await sendTx(url, { to: probeAddr, value: q(3), data: probe.encodeFunctionData('create', [77n]) })
    const child = getCreateAddress({ from: probeAddr, nonce })
    expect(await rpc(url, 'eth_getCode', [child, 'latest'])).not.toBe('0x')
    expect(await rpc(url, 'ots_getContractCreator', [child])).toEqual({
      hash: r.transactionHash,
      creator: lower(probeAddr),
    })
  })

  it('null for an account without code: an EOA, an unknown address, a self-destructed contract', async () => {
    expect(await rpc(url, 'ots_getContractCreator', [COW1.address])).toBeNull()
    expect(await rpc(url, 'ots_getContractCreator', ['0x00000000000000000000000000000000000e0e0e'])).toBeNull()
    const { address } = await deploy(url, OtsChild.bytecode)
    await sendTx(url, { to: address, data: new Interface(OtsChild.abi).encodeFunctionData('kill', [COW1.address]) })
    expect(await rpc(url, 'eth_getCode', [address, 'latest'])).toBe('0x')
    expect(await rpc(url, 'ots_getContractCreator', [address])).toBeNull()
  })

  it('a native contract has no creating transaction: null', async () => {
    expect(await rpc(url, 'ots_getContractCreator', [REMASC])).toBeNull()
  })

  it('a bad address is -32602', async () => {
    expect((await rpcError(url, 'ots_getContractCreator', ['0xzz'])).code).toBe(-32602)
    expect((await rpcError(url, 'ots_getContractCreator', [])).code).toBe(-32602)
  })
})

describe('ots_getTransactionBySenderAndNonce', () => {
  it('finds each nonce of a sender, also across a nonce jump (anvil_setNonce)', async () => {
    const a = await freshAccount()
    const sent: [number, string][] = []
    for (let i = 0; i < 5; i++)
      sent.push([i, (await sendTx(url, { from: a, to: COW1.address, value: '0x1' })).transactionHash])
    await rpc(url, 'anvil_setNonce', [a, '0x20'])
    sent.push([0x20, (await sendTx(url, { from: a, to: COW1.address, value: '0x1' })).transactionHash])
    for (const [nonce, hash] of sent)
      expect(await rpc(url, 'ots_getTransactionBySenderAndNonce', [a, nonce])).toBe(hash)
    expect(await rpc(url, 'ots_getTransactionBySenderAndNonce', [a, '0x20'])).toBe(sent[5]![1])
    expect(await rpc(url, 'ots_getTransactionBySenderAndNonce', [a, 5])).toBeNull()
    expect(await rpc(url, 'ots_getTransactionBySenderAndNonce', [a, 0x21])).toBeNull()
  })

  it('null for an unknown sender; a pending transaction is not found', async () => {
    expect(
      await rpc(url, 'ots_getTransactionBySenderAndNonce', ['0x00000000000000000000000000000000000f0f0f', 0]),
    ).toBeNull()
    const a = await freshAccount()
    await rpc(url, 'evm_setAutomine', [false])
    try {
      await rpc(url, 'eth_sendTransaction', [{ from: a, to: COW1.address, value: '0x1' }])
      expect(await rpc(url, 'ots_getTransactionBySenderAndNonce', [a, 0])).toBeNull()
      await rpc(url, 'evm_mine')
      expect(await rpc(url, 'ots_getTransactionBySenderAndNonce', [a, 0])).toMatch(/^0x[0-9a-f]{64}$/)
    } finally {
      await rpc(url, 'evm_setAutomine', [true])
    }
  })

  it('bad parameters are -32602', async () => {
    expect((await rpcError(url, 'ots_getTransactionBySenderAndNonce', [COW.address])).code).toBe(-32602)
    expect((await rpcError(url, 'ots_getTransactionBySenderAndNonce', ['0x12', 0])).code).toBe(-32602)
    expect(
      (await rpcError(url, 'ots_getTransactionBySenderAndNonce', [COW.address, '0x1' + '0'.repeat(16)])).code,
    ).toBe(-32602)
  })
})

describe('the index follows the chain back', () => {
  it('evm_revert forgets the reverted transactions; new ones after it are found', async () => {
    const a = await freshAccount()
    const kept = (await sendTx(url, { from: a, to: COW1.address, value: '0x1' })).transactionHash
    const snap = await rpc(url, 'evm_snapshot')
    const { address: c } = await deploy(url, OtsTarget.bytecode, a)
    await sendTx(url, { from: a, to: COW1.address, value: '0x2' })
    expect(hashes(await rpc(url, 'ots_searchTransactionsBefore', [a, 0, 25]))).toHaveLength(3)
    expect(await rpc(url, 'evm_revert', [snap])).toBe(true)
    expect(hashes(await rpc(url, 'ots_searchTransactionsBefore', [a, 0, 25]))).toEqual([kept])
    expect(await rpc(url, 'ots_getContractCreator', [c])).toBeNull()
    expect(await rpc(url, 'ots_getTransactionBySenderAndNonce', [a, 1])).toBeNull()
    const again = (await sendTx(url, { from: a, to: COW1.address, value: '0x3' })).transactionHash
    expect(hashes(await rpc(url, 'ots_searchTransactionsBefore', [a, 0, 25]))).toEqual([again, kept])
    expect(await rpc(url, 'ots_getTransactionBySenderAndNonce', [a, 1])).toBe(again)
  })

  it('anvil_reset empties it', async () => {
    const other = await startNode()
    try {
      const r = await sendTx(other.url, { to: COW1.address, value: '0x1' })
      expect(hashes(await rpc(other.url, 'ots_searchTransactionsBefore', [COW.address, 0, 25]))).toEqual([
        r.transactionHash,
      ])
      await rpc(other.url, 'anvil_reset')
      expect((await rpc(other.url, 'ots_searchTransactionsBefore', [COW.address, 0, 25])).txs).toEqual([])
      expect(await rpc(other.url, 'ots_getTransactionBySenderAndNonce', [COW.address, 0])).toBeNull()
      const again = await sendTx(other.url, { to: COW1.address, value: '0x2' })
      expect(await rpc(other.url, 'ots_getTransactionBySenderAndNonce', [COW.address, 0])).toBe(again.transactionHash)
    } finally {
      await other.close()
    }
  })
})
