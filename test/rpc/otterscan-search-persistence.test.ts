/**
 * The address index behind Otterscan's address pages across everything that rewrites or carries history
 * (docs/otterscan.md#address-history): a `--db` restart (records written in the block's batch, read back on first
 * use), evm_revert with `--db` then a restart, a node-cli state file round trip (and an older file without address
 * records), `--transaction-block-keeper` (searches leave out pruned blocks) and a fork (local blocks only).
 */
import { readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { getCreateAddress, Interface } from 'ethers'
import { OtsProbe, OtsTarget } from '../../fixtures/index.js'
import { createNode } from '../../src/index.js'
import { dbNodes, FIXED_CLOCK } from '../helpers/db-nodes.js'
import { COW, COW1, rpc, startNode } from '../helpers/node.js'
import { deploy, q, sendTx } from './shapes.js'

const probe = new Interface(OtsProbe.abi)
const nodes = dbNodes('node-cli-ots-', { clock: FIXED_CLOCK })

/** What the address pages answer for the accounts of {@link mineHistory}. */
async function pages(url: string, h: History): Promise<unknown> {
  return {
    cow: await rpc(url, 'ots_searchTransactionsBefore', [COW.address, 0, 25]),
    cowAfter: await rpc(url, 'ots_searchTransactionsAfter', [COW.address, 0, 3]),
    target: await rpc(url, 'ots_searchTransactionsBefore', [h.target, 0, 25]),
    child: await rpc(url, 'ots_searchTransactionsBefore', [h.child, 0, 25]),
    creatorOfChild: await rpc(url, 'ots_getContractCreator', [h.child]),
    creatorOfTarget: await rpc(url, 'ots_getContractCreator', [h.target]),
    nonces: await Promise.all(
      [0, 1, 2, 3, 4, 5].map((n) => rpc(url, 'ots_getTransactionBySenderAndNonce', [COW.address, n])),
    ),
  }
}

interface History {
  target: string
  probe: string
  child: string
  hashes: string[]
}

/** Deploys OtsProbe and OtsTarget, makes an inner CREATE and a nested call, and a transfer. */
async function mineHistory(url: string): Promise<History> {
  const p = await deploy(url, OtsProbe.bytecode)
  const t = await deploy(url, OtsTarget.bytecode)
  const nonce = Number(await rpc(url, 'eth_getTransactionCount', [p.address, 'latest']))
  const c = await sendTx(url, { to: p.address, value: q(3), data: probe.encodeFunctionData('create', [9n]) })
  const n = await sendTx(url, { to: p.address, value: q(10), data: probe.encodeFunctionData('nested', [t.address]) })
  const x = await sendTx(url, { to: COW1.address, value: '0x5' })
  return {
    target: t.address,
    probe: p.address,
    child: getCreateAddress({ from: p.address, nonce }),
    hashes: [p, t].map((d) => d.receipt.transactionHash).concat([c, n, x].map((r) => r.transactionHash)),
  }
}

describe('--db', () => {
  it('the index survives a restart: the same pages, creators and nonces', async () => {
    const db = nodes.tempDir()
    const first = await nodes.open({ db })
    const h = await mineHistory(first.url)
    const before = await pages(first.url, h)
    expect((before as { cow: { txs: unknown[] } }).cow.txs).toHaveLength(5)
    await nodes.close(first)
    const second = await nodes.open({ db })
    expect(await pages(second.url, h)).toEqual(before)
    // new blocks after the restart join the loaded index
    const more = await sendTx(second.url, { to: COW1.address, value: '0x6' })
    const page = await rpc(second.url, 'ots_searchTransactionsBefore', [COW.address, 0, 1])
    expect(page.txs[0].hash).toBe(more.transactionHash)
    await nodes.close(second)
  })

  it('a revert is written too: after a restart the reverted transactions are gone', async () => {
    const db = nodes.tempDir()
    const first = await nodes.open({ db })
    const kept = await sendTx(first.url, { to: COW1.address, value: '0x1' })
    const snap = await rpc(first.url, 'evm_snapshot')
    // the index is not loaded yet with --db: the revert deletes the stored records
    await sendTx(first.url, { to: COW1.address, value: '0x2' })
    await rpc(first.url, 'evm_revert', [snap])
    await nodes.close(first)
    const second = await nodes.open({ db })
    const page = await rpc(second.url, 'ots_searchTransactionsBefore', [COW.address, 0, 25])
    expect(page.txs.map((t: { hash: string }) => t.hash)).toEqual([kept.transactionHash])
    // loaded now: a revert cuts the loaded index
    const snap2 = await rpc(second.url, 'evm_snapshot')
    await sendTx(second.url, { to: COW1.address, value: '0x3' })
    await rpc(second.url, 'evm_revert', [snap2])
    expect(await rpc(second.url, 'ots_searchTransactionsBefore', [COW.address, 0, 25])).toEqual(page)
    await nodes.close(second)
  })
})

describe('state files', () => {
  it('a dumped chain loads with its index: the same pages', async () => {
    const source = await startNode({ clock: FIXED_CLOCK })
    const file = path.join(nodes.tempDir(), 'chain.json')
    try {
      const h = await mineHistory(source.url)
      const before = await pages(source.url, h)
      await source.dumpState(file)
      const loaded = await createNode({ port: 0, loadState: file })
      try {
        expect(await pages(loaded.url, h)).toEqual(before)
      } finally {
        await loaded.close()
      }
      // a file written before the index existed ([block, derived] pairs): it loads, its blocks are not indexed
      const json = JSON.parse(readFileSync(file, 'utf8'))
      expect(json.node_cli.blocks[0]).toHaveLength(3)
      json.node_cli.blocks = json.node_cli.blocks.map((b: string[]) => b.slice(0, 2))
      writeFileSync(file, JSON.stringify(json))
      const old = await createNode({ port: 0, loadState: file })
      try {
        expect((await rpc(old.url, 'ots_searchTransactionsBefore', [COW.address, 0, 25])).txs).toEqual([])
        const r = await sendTx(old.url, { to: COW1.address, value: '0x7' })
        const page = await rpc(old.url, 'ots_searchTransactionsBefore', [COW.address, 0, 25])
        expect(page.txs.map((t: { hash: string }) => t.hash)).toEqual([r.transactionHash])
      } finally {
        await old.close()
      }
    } finally {
      await source.close()
    }
  })
})

describe('--transaction-block-keeper', () => {
  it('searches leave out the blocks whose receipts were dropped; lookups by creator and nonce still find them', async () => {
    const node = await startNode({ transactionBlockKeeper: 2 })
    try {
      const { address, receipt } = await deploy(node.url, OtsTarget.bytecode)
      const sent: string[] = []
      for (let i = 0; i < 5; i++)
        sent.push((await sendTx(node.url, { to: COW1.address, value: q(i + 1) })).transactionHash)
      const page = await rpc(node.url, 'ots_searchTransactionsBefore', [COW.address, 0, 25])
      expect(page.lastPage).toBe(true)
      expect(page.txs.map((t: { hash: string }) => t.hash)).toEqual(sent.slice(-2).reverse())
      for (const r of page.receipts) expect(r.status).toBe('0x1')
      const after = await rpc(node.url, 'ots_searchTransactionsAfter', [COW.address, 0, 25])
      expect(after.txs).toEqual(page.txs)
      expect(await rpc(node.url, 'ots_getContractCreator', [address])).toEqual({
        hash: receipt.transactionHash,
        creator: COW.address,
      })
      expect(await rpc(node.url, 'ots_getTransactionBySenderAndNonce', [COW.address, 1])).toBe(sent[0])
    } finally {
      await node.close()
    }
  })
})

describe('a fork', () => {
  it('indexes its local blocks only', async () => {
    const remote = await startNode()
    try {
      const old = await sendTx(remote.url, { to: COW1.address, value: '0x1' })
      const forkBlock = Number(old.blockNumber)
      const fork = await startNode({ fork: { url: remote.url, blockNumber: forkBlock, cache: false, retries: 0 } })
      try {
        expect(await rpc(fork.url, 'ots_getTransactionBySenderAndNonce', [COW.address, 0])).toBeNull()
        const local = await sendTx(fork.url, { to: COW1.address, value: '0x2' })
        const page = await rpc(fork.url, 'ots_searchTransactionsBefore', [COW.address, 0, 25])
        expect(page.txs.map((t: { hash: string }) => t.hash)).toEqual([local.transactionHash])
        expect(page.txs.map((t: { hash: string }) => t.hash)).not.toContain(old.transactionHash)
        expect(await rpc(fork.url, 'ots_getTransactionBySenderAndNonce', [COW.address, 1])).toBe(local.transactionHash)
      } finally {
        await fork.close()
      }
    } finally {
      await remote.close()
    }
  })
})
