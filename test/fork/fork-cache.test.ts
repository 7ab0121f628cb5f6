/**
 * The fork cache on a real disk (level) and in memory: what is put comes back after a reopen, a locked
 * directory falls back to memory, and the default directory follows XDG and the platform.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Level } from 'level'
import { afterAll, describe, expect, it } from 'vitest'
import { defaultForkCacheDir, ForkCache, forkCachePath } from '../../src/fork/fork-cache.js'

const dirs: string[] = []
async function tempDir(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'node-cli-fork-cache-'))
  dirs.push(d)
  return d
}
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true })
})

const HASH = Uint8Array.from({ length: 32 }, (_, i) => i + 1)
const ADDR = Uint8Array.from({ length: 20 }, (_, i) => 0xa0 + i)
const SLOT = Uint8Array.from({ length: 32 }, (_, i) => (i === 31 ? 7 : 0))
const ACCOUNT = { nonce: 5n, balance: 10n ** 24n, code: Uint8Array.of(0x60, 0x00, 0x56) }
const LONG_CELL = Uint8Array.from({ length: 70 }, (_, i) => i)

describe('ForkCache', () => {
  it('keeps accounts, cells and history in memory when it has no directory', async () => {
    const cache = await ForkCache.open({ chainId: 31n, forkBlockHash: HASH })
    expect(cache.persistent).toBe(false)
    expect(cache.path).toBeUndefined()
    expect(cache.warning).toBeUndefined()
    expect(cache.peekAccount(ADDR)).toBeUndefined()
    expect(await cache.loadAccount(ADDR)).toBeUndefined()
    cache.putAccount(ADDR, ACCOUNT)
    cache.putCell(ADDR, SLOT, new Uint8Array(0))
    cache.putHistory('eth_getBlockByNumber', ['0x5', false], { number: '0x5' })
    expect(cache.peekAccount(ADDR)).toEqual(ACCOUNT)
    expect(cache.peekCell(ADDR, SLOT)).toEqual(new Uint8Array(0))
    expect(await cache.loadHistory('eth_getBlockByNumber', ['0x5', false])).toEqual({ json: { number: '0x5' } })
    expect(await cache.loadHistory('eth_getBlockByNumber', ['0x5', true])).toBeUndefined()
    await cache.close()
  })

  it('finds everything again on disk after a reopen, under <dir>/<chain id>/<fork block hash>', async () => {
    const dir = await tempDir()
    const first = await ForkCache.open({ dir, chainId: 30n, forkBlockHash: HASH })
    expect(first.persistent).toBe(true)
    expect(first.path).toBe(join(dir, '30', Buffer.from(HASH).toString('hex')))
    expect(first.path).toBe(forkCachePath(dir, 30n, HASH))
    first.putAccount(ADDR, ACCOUNT)
    first.putCell(ADDR, SLOT, LONG_CELL)
    first.putCell(ADDR, new Uint8Array(32), new Uint8Array(0))
    first.putHistory('eth_getTransactionReceipt', ['0xab'], null)
    await first.close()
    expect(first.stats.diskWrites).toBe(4)

    const second = await ForkCache.open({ dir, chainId: 30n, forkBlockHash: HASH })
    expect(second.peekAccount(ADDR)).toBeUndefined()
    expect(await second.loadAccount(ADDR)).toEqual(ACCOUNT)
    expect(second.peekAccount(ADDR)).toEqual(ACCOUNT)
    expect(await second.loadCell(ADDR, SLOT)).toEqual(LONG_CELL)
    expect(await second.loadCell(ADDR, new Uint8Array(32))).toEqual(new Uint8Array(0))
    expect(await second.loadHistory('eth_getTransactionReceipt', ['0xab'])).toEqual({ json: null })
    expect(second.stats.diskHits).toBe(4)
    await second.close()

    const otherBlock = await ForkCache.open({ dir, chainId: 30n, forkBlockHash: new Uint8Array(32) })
    expect(await otherBlock.loadAccount(ADDR)).toBeUndefined()
    await otherBlock.close()
  })

  it('reads entries not yet written to disk', async () => {
    const dir = await tempDir()
    const cache = await ForkCache.open({ dir, chainId: 31n, forkBlockHash: HASH, memory: { accounts: 1 } })
    cache.putAccount(ADDR, ACCOUNT)
    cache.putAccount(new Uint8Array(20), { nonce: 0n, balance: 1n, code: new Uint8Array(0) }) // evicts ADDR from memory
    expect(cache.peekAccount(ADDR)).toBeUndefined()
    expect(await cache.loadAccount(ADDR)).toEqual(ACCOUNT)
    await cache.close()
  })

  it('falls back to memory only when another holder has the directory locked', async () => {
    const dir = await tempDir()
    const holder = await ForkCache.open({ dir, chainId: 31n, forkBlockHash: HASH })
    const second = await ForkCache.open({ dir, chainId: 31n, forkBlockHash: HASH })
    expect(holder.persistent).toBe(true)
    expect(second.persistent).toBe(false)
    expect(second.warning).toMatch(/not used \(.+\); caching in memory only/)
    second.putAccount(ADDR, ACCOUNT)
    expect(await second.loadAccount(ADDR)).toEqual(ACCOUNT)
    await second.close()
    await holder.close()
  })

  it('clears a directory written by another layout', async () => {
    const dir = await tempDir()
    const path = forkCachePath(dir, 31n, HASH)
    const cache = await ForkCache.open({ dir, chainId: 31n, forkBlockHash: HASH })
    cache.putAccount(ADDR, ACCOUNT)
    await cache.close()
    const raw = new Level<string, string>(path)
    await raw.put('meta', '{"version":0}')
    await raw.close()
    const reopened = await ForkCache.open({ dir, chainId: 31n, forkBlockHash: HASH })
    expect(await reopened.loadAccount(ADDR)).toBeUndefined()
    await reopened.close()
  })
})

describe('defaultForkCacheDir', () => {
  it('uses XDG_CACHE_HOME first, then the platform convention', () => {
    expect(defaultForkCacheDir({ XDG_CACHE_HOME: '/x/cache' }, 'linux', '/home/u')).toBe(
      join('/x/cache', 'node-cli', 'fork'),
    )
    expect(defaultForkCacheDir({}, 'linux', '/home/u')).toBe(join('/home/u', '.cache', 'node-cli', 'fork'))
    expect(defaultForkCacheDir({}, 'darwin', '/Users/u')).toBe(
      join('/Users/u', 'Library', 'Caches', 'node-cli', 'fork'),
    )
    expect(defaultForkCacheDir({ LOCALAPPDATA: 'C:\\Users\\u\\AppData\\Local' }, 'win32', 'C:\\Users\\u')).toBe(
      join('C:\\Users\\u\\AppData\\Local', 'node-cli', 'cache', 'fork'),
    )
  })
})
