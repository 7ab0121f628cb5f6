/**
 * Chain persistence with --db (docs/architecture.md#storage; src/db/chain-storage.ts): a node reopened on the same
 * directory serves the same blocks, transactions, receipts, logs and states (also states older than
 * --state-history), keeps mining from its head exactly as a node that never stopped, forgets blocks undone by
 * evm_revert / evm_reset, refuses a directory holding another chain, and writes each block in one batch.
 */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { dbNodes, FIXED_CLOCK } from '../helpers/db-nodes.js'
import { ChainStorage, storageKeys } from '../../src/db/chain-storage.js'
import { COW, COW1, internals, rpc, rpcError } from '../helpers/node.js'
import { buildChain, observe, probe, STRANGER } from '../helpers/chain-fixture.js'
import { q, sendTx } from '../rpc/shapes.js'

const { tempDir, open, close } = dbNodes('node-cli-db-', { clock: FIXED_CLOCK })

describe('--db: restart', () => {
  const dir = tempDir()
  let before: Awaited<ReturnType<typeof observe>>
  let probeAddress: string

  it('serves the same chain after a restart: blocks, transactions, receipts, logs, states at latest and old blocks', async () => {
    const a = await open({ db: dir, stateHistory: 3 })
    ;({ probeAddress } = await buildChain(a.url))
    // states of old blocks are no longer in memory …
    const db = internals(a).chain.executor.stateManager.db
    for (const n of [2n, 5n])
      expect(db.lookup((await internals(a).chain.reads.blockByNumber(n))!.header.stateRoot)).toBeUndefined()
    before = await observe(a.url, probeAddress)
    expect(before.head).toBe(36)
    expect(before.logs.length).toBeGreaterThan(5)
    // with --db, states older than --state-history are read back from the database
    expect(before.atBlock2!.storage[0]).toBe('0x' + '00'.repeat(31) + '05')
    expect(before.latest!.storage[0]).toBe('0x' + '00'.repeat(31) + '2a')
    await close(a)

    const b = await open({ db: dir, stateHistory: 3 })
    const after = await observe(b.url, probeAddress)
    expect(after).toEqual(before)
    expect(await rpc(b.url, 'txpool_content')).toEqual({ pending: {}, queued: {} })
    await close(b)
  })

  it('keeps mining from the head: the new blocks equal those of a node that never stopped', async () => {
    const b = await open({ db: dir, stateHistory: 3 })
    // the reference run, in memory without a restart
    const ref = await open({})
    const { probeAddress: refProbe } = await buildChain(ref.url)
    expect(refProbe).toBe(probeAddress)
    expect(await rpc(ref.url, 'eth_getBlockByNumber', ['latest', false])).toEqual(before.blocks.at(-4)) // the head by hash (five entries per block)

    for (const url of [b.url, ref.url]) {
      await sendTx(url, { to: probeAddress, data: probe.encodeFunctionData('setValue', [77]) })
      await sendTx(url, { from: COW1.address, to: COW.address, value: '0x5', gas: '0x5208' })
      await rpc(url, 'anvil_mine', ['0x3'])
    }
    const head = Number(await rpc<string>(b.url, 'eth_blockNumber'))
    expect(head).toBe(41)
    for (let n = 35; n <= head; n++) {
      const mine = await rpc(b.url, 'eth_getBlockByNumber', [q(n), true])
      expect(mine).toEqual(await rpc(ref.url, 'eth_getBlockByNumber', [q(n), true]))
    }
    expect(await rpc(b.url, 'eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest' }])).toEqual(
      await rpc(ref.url, 'eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest' }]),
    )
    await close(ref)
    await close(b)

    // and those blocks are kept too
    const c = await open({ db: dir })
    expect(await rpc(c.url, 'eth_blockNumber')).toBe(q(41))
    expect(await rpc(c.url, 'eth_getStorageAt', [probeAddress, '0x0', 'latest'])).toBe('0x' + '00'.repeat(31) + '4d')
    expect(await rpc(c.url, 'eth_getStorageAt', [probeAddress, '0x0', '0x2'])).toBe('0x' + '00'.repeat(31) + '05')
    await close(c)
  })

  it('refuses a directory that holds another chain (different network or genesis, chain id, or in use)', async () => {
    const err31 = await open({ db: dir, network: 31 }).catch((e: Error) => e)
    expect(err31).toBeInstanceOf(Error)
    expect((err31 as Error).message).toMatch(
      new RegExp(`^--db ${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} holds a chain with a different genesis`),
    )
    const errGas = await open({ db: dir, gasLimit: 9_000_000n }).catch((e: Error) => e)
    expect((errGas as Error).message).toContain('holds a chain with a different genesis')
    const errChainId = await open({ db: dir, chainId: 100 }).catch((e: Error) => e)
    expect((errChainId as Error).message).toContain('holds a chain with chain id 33')
    // a directory written by another storage format
    const storage = await ChainStorage.openDirectory(path.join(dir, 'chain'))
    const meta = JSON.parse(Buffer.from((await storage.db.get(storageKeys.meta))!).toString('utf8'))
    await storage.db.put(storageKeys.meta, Buffer.from(JSON.stringify({ ...meta, format: 99 })))
    await storage.close()
    const errFormat = await open({ db: dir }).catch((e: Error) => e)
    expect((errFormat as Error).message).toContain('storage format 99')
    const restore = await ChainStorage.openDirectory(path.join(dir, 'chain'))
    await restore.db.put(storageKeys.meta, Buffer.from(JSON.stringify(meta)))
    await restore.close()
    // the failed attempts released the directory
    const c = await open({ db: dir })
    const locked = await open({ db: dir }).catch((e: Error) => e)
    expect((locked as Error).message).toContain('in use by another process')
    await close(c)
  })

  it('the CLI exits with code 1 and the error', async () => {
    const bin = fileURLToPath(new URL('../../bin/node-cli.js', import.meta.url))
    const child = spawn(process.execPath, [bin, '--db', dir, '--network', '31', '--port', '0'], {
      env: { ...process.env, FORCE_COLOR: '0' },
    })
    let out = ''
    child.stdout.on('data', (d: Buffer) => (out += d.toString()))
    child.stderr.on('data', (d: Buffer) => (out += d.toString()))
    const [code] = await once(child, 'exit')
    expect(code).toBe(1)
    expect(out).toContain(`error: --db ${dir} holds a chain with a different genesis`)
  })
})

describe('--db: evm_revert, evm_reset and in-place changes', () => {
  it('blocks undone by evm_revert are gone after a restart; the snapshot state is the head state', async () => {
    const dir = tempDir()
    const a = await open({ db: dir })
    await sendTx(a.url, { to: COW1.address, value: '0x1', gas: '0x5208' })
    const id = await rpc<string>(a.url, 'evm_snapshot')
    const kept = await rpc(a.url, 'eth_getBlockByNumber', ['latest', true])
    const balance = await rpc(a.url, 'eth_getBalance', [COW1.address, 'latest'])
    const undone = await sendTx(a.url, { to: COW1.address, value: '0x2', gas: '0x5208' })
    await rpc(a.url, 'anvil_mine', ['0x2'])
    expect(await rpc(a.url, 'eth_blockNumber')).toBe('0x4')
    expect(await rpc(a.url, 'evm_revert', [id])).toBe(true)
    await close(a)

    const b = await open({ db: dir })
    expect(await rpc(b.url, 'eth_blockNumber')).toBe('0x1')
    expect(await rpc(b.url, 'eth_getBlockByNumber', ['latest', true])).toEqual(kept)
    expect(await rpc(b.url, 'eth_getBlockByNumber', ['0x2', false])).toBeNull()
    expect(await rpc(b.url, 'eth_getTransactionByHash', [undone.transactionHash])).toBeNull()
    expect(await rpc(b.url, 'eth_getBalance', [COW1.address, 'latest'])).toBe(balance)
    // snapshots live in memory only
    expect(await rpc(b.url, 'evm_revert', [id])).toBe(false)
    // mining goes on from block 1
    const r = await sendTx(b.url, { to: COW1.address, value: '0x4', gas: '0x5208' })
    expect(r.blockNumber).toBe('0x2')
    expect((await rpc(b.url, 'eth_getBlockByNumber', ['0x2', false])).parentHash).toBe(kept.hash)
    await close(b)
    const storage = await ChainStorage.openDirectory(path.join(dir, 'chain'))
    try {
      // the removed blocks' records are deleted, not just hidden
      expect(await storage.db.get(storageKeys.block(3n))).toBeUndefined()
      expect(await storage.db.get(storageKeys.derived(4n))).toBeUndefined()
    } finally {
      await storage.close()
    }
  })

  it('evm_reset / anvil_reset: back to genesis after a restart', async () => {
    const dir = tempDir()
    const a = await open({ db: dir })
    await sendTx(a.url, { to: COW1.address, value: '0x1', gas: '0x5208' })
    const genesisBalance = await rpc(a.url, 'eth_getBalance', [COW1.address, '0x0'])
    await rpc(a.url, 'anvil_reset')
    await close(a)
    const b = await open({ db: dir })
    expect(await rpc(b.url, 'eth_blockNumber')).toBe('0x0')
    expect(await rpc(b.url, 'eth_getBalance', [COW1.address, 'latest'])).toBe(genesisBalance)
    await sendTx(b.url, { to: COW1.address, value: '0x1', gas: '0x5208' })
    expect(await rpc(b.url, 'eth_blockNumber')).toBe('0x1')
    await close(b)
  })

  it('in-place state changes (anvil_setBalance, setCode, setNonce) survive a restart', async () => {
    const dir = tempDir()
    const a = await open({ db: dir })
    await rpc(a.url, 'anvil_setBalance', [STRANGER, '0x1234'])
    await rpc(a.url, 'anvil_setNonce', [STRANGER, '0x7'])
    await rpc(a.url, 'anvil_setCode', [STRANGER, '0x6001600101'])
    await close(a)
    const b = await open({ db: dir })
    expect(await rpc(b.url, 'eth_blockNumber')).toBe('0x0')
    expect(await rpc(b.url, 'eth_getBalance', [STRANGER, 'latest'])).toBe('0x1234')
    expect(await rpc(b.url, 'eth_getTransactionCount', [STRANGER, 'latest'])).toBe('0x7')
    expect(await rpc(b.url, 'eth_getCode', [STRANGER, 'latest'])).toBe('0x6001600101')
    await close(b)
  })
})

describe('--db: atomic block writes', () => {
  it('writes each mined block as one batch: block, receipts, state nodes, head', async () => {
    const dir = tempDir()
    const a = await open({ db: dir })
    const db = (internals(a).chain as unknown as { assembly: { opts: { storage: ChainStorage } } }).assembly.opts
      .storage.db
    const calls: { type: string; key: Uint8Array }[][] = []
    const batch = db.batch.bind(db)
    const spy = { put: 0, del: 0 }
    const put = db.put.bind(db)
    const del = db.del.bind(db)
    Object.assign(db, {
      batch: (ops: { type: string; key: Uint8Array }[]) => {
        calls.push(ops)
        return batch(ops as never)
      },
      put: (...args: Parameters<typeof put>) => (spy.put++, put(...args)),
      del: (...args: Parameters<typeof del>) => (spy.del++, del(...args)),
    })
    await sendTx(a.url, { to: COW1.address, value: '0x1', gas: '0x5208' })
    expect(calls).toHaveLength(1)
    expect(spy).toEqual({ put: 0, del: 0 })
    const keys = calls[0]!.map((o) => Buffer.from(o.key).toString('hex'))
    const hex = (k: Uint8Array) => Buffer.from(k).toString('hex')
    expect(keys).toEqual(
      expect.arrayContaining([
        hex(storageKeys.block(1n)),
        hex(storageKeys.derived(1n)),
        hex(storageKeys.head),
        hex(storageKeys.live),
      ]),
    )
    expect(keys.filter((k) => k.startsWith('6e')).length).toBeGreaterThan(0) // Unitrie nodes
    expect(calls[0]!.every((o) => o.type === 'put')).toBe(true)
    await close(a)
  })

  it('a failed write mines nothing: the chain and its state stay at the parent, in memory and on disk', async () => {
    const dir = tempDir()
    const internal: unknown[] = []
    const a = await open({ db: dir, onInternalError: (_m, e) => internal.push(e) })
    await sendTx(a.url, { to: COW1.address, value: '0x1', gas: '0x5208' })
    const head = await rpc(a.url, 'eth_getBlockByNumber', ['latest', false])
    const balance = await rpc(a.url, 'eth_getBalance', [COW1.address, 'latest'])
    const db = (internals(a).chain as unknown as { assembly: { opts: { storage: ChainStorage } } }).assembly.opts
      .storage.db
    Object.assign(db, { batch: async () => Promise.reject(new Error('disk full')) })
    const e = await rpcError(a.url, 'eth_sendTransaction', [
      { from: COW.address, to: COW1.address, value: '0x1', gas: '0x5208' },
    ])
    expect(e.message).toMatch(/write failed|disk full|internal/i)
    expect(await rpc(a.url, 'eth_getBlockByNumber', ['latest', false])).toEqual(head)
    expect(await rpc(a.url, 'eth_getBalance', [COW1.address, 'latest'])).toBe(balance)
    await close(a)
    const b = await open({ db: dir })
    expect(await rpc(b.url, 'eth_getBlockByNumber', ['latest', false])).toEqual(head)
    expect(await rpc(b.url, 'eth_getBalance', [COW1.address, 'latest'])).toBe(balance)
    await close(b)
  })
})
