/**
 * The cache of what a fork fetched from its remote: accounts, storage cells and history (blocks, transactions,
 * receipts, logs, raw headers), in memory and — unless switched off — on disk in a `level` database under
 * `<cache dir>/<chain id>/<fork block hash>/`, so a second run at the same fork block asks the remote nothing
 * (docs/architecture.md#forking).
 *
 * Everything cached is a fact about the remote at the fork block, so entries never go stale for that directory.
 * Disk writes are batched in the background (a failure to write only costs the next run a fetch); {@link close}
 * writes what is left. When another process holds the directory's lock (two forks of the same block at once),
 * the cache falls back to memory only and says why in {@link ForkCache.warning}.
 *
 * Keys: `a:<address hex>` → RLP[nonce, balance, code]; `s:<address hex>:<slot hex>` → the cell's raw bytes
 * (empty when unset); `h:<method>:<params JSON>` → the result's JSON text; `meta` → JSON of the layout version,
 * chain id and fork block hash.
 */
import { existsSync, mkdirSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { RLP } from '@ethereumjs/rlp'
import type { Level } from 'level'
import { LRUCache } from 'lru-cache'
import type { ForkAccount } from '../state/fork-source.js'
import { bigIntToBytes, bytesToBigInt, toHex, toKey } from '../util/bytes.js'

/** Layout version of the disk cache; a directory of another version is cleared on open. */
const LAYOUT_VERSION = 1
const META = 'meta'
const WRITE_DELAY_MS = 50
const WRITE_BATCH = 1_000

type Database = Level<string, Uint8Array>

/** Where and how much to cache. */
export interface ForkCacheOptions {
  /** Root of the disk cache (see {@link defaultForkCacheDir}); undefined keeps everything in memory only. */
  dir?: string
  /** The remote's chain id and fork block hash: together they name the cache's directory. */
  chainId: bigint
  forkBlockHash: Uint8Array
  /** Entries kept in memory per kind: accounts (default 100 000), storage cells (1 000 000), history (20 000). */
  memory?: { accounts?: number; cells?: number; history?: number }
}

/**
 * The default root of the fork cache: `$XDG_CACHE_HOME/node-cli/fork`, else per platform
 * `%LOCALAPPDATA%\node-cli\cache\fork` (Windows), `~/Library/Caches/node-cli/fork` (macOS),
 * `~/.cache/node-cli/fork` (others).
 */
export function defaultForkCacheDir(
  env: Readonly<Record<string, string | undefined>> = process.env,
  platform: NodeJS.Platform = process.platform,
  home: string = homedir(),
): string {
  if (env.XDG_CACHE_HOME) return join(env.XDG_CACHE_HOME, 'node-cli', 'fork')
  if (platform === 'win32' && env.LOCALAPPDATA) return join(env.LOCALAPPDATA, 'node-cli', 'cache', 'fork')
  if (platform === 'darwin') return join(home, 'Library', 'Caches', 'node-cli', 'fork')
  return join(home, '.cache', 'node-cli', 'fork')
}

/** The directory of one fork's disk cache under `root`: `<root>/<chain id>/<fork block hash hex>`. */
export function forkCachePath(root: string, chainId: bigint, forkBlockHash: Uint8Array): string {
  return join(root, chainId.toString(), toKey(forkBlockHash))
}

/** Two layers: bounded maps in memory, then (optionally) the disk. */
export class ForkCache {
  private readonly accounts: LRUCache<string, ForkAccount>
  private readonly cells: LRUCache<string, Uint8Array>
  private readonly history: LRUCache<string, { json: unknown }>
  /** Disk writes not yet flushed, and the batch being written (both read by {@link load}). */
  private pending = new Map<string, Uint8Array>()
  private inflight: Map<string, Uint8Array> | undefined
  private timer: NodeJS.Timeout | undefined
  private writing: Promise<void> = Promise.resolve()
  /** Disk reads, writes and the counts of entries served from each layer. */
  readonly stats = { memoryHits: 0, diskHits: 0, misses: 0, diskWrites: 0 }

  private db: Database | undefined
  private dir: string | undefined
  private why: string | undefined
  /** While the database opens: reads wait for it (unless {@link fresh}), writes wait in {@link pending}. */
  private opening = false
  /** The directory did not exist before this cache: the database holds nothing this cache did not write. */
  private fresh = false
  /** Resolves once the database is open, or given up for memory only (see {@link warning}); never rejects. */
  readonly ready: Promise<void>

  private constructor(opts: ForkCacheOptions) {
    this.accounts = growingLru(opts.memory?.accounts ?? 100_000)
    this.cells = growingLru(opts.memory?.cells ?? 1_000_000)
    this.history = growingLru(opts.memory?.history ?? 20_000)
    this.ready = opts.dir === undefined ? Promise.resolve() : this.openDisk(opts, opts.dir)
  }

  /**
   * Opens the cache: with `dir`, its level database (created when missing; cleared when of another layout);
   * memory only when `dir` is undefined or the database cannot be opened (see {@link warning}).
   */
  static async open(opts: ForkCacheOptions): Promise<ForkCache> {
    const cache = ForkCache.opening(opts)
    await cache.ready
    return cache
  }

  /**
   * Starts opening the cache as {@link open} does and answers it at once: the memory layer serves from the start,
   * disk reads wait for the database (those of a directory created now miss at once: it holds nothing yet), and
   * writes are kept until it is open. A fork's start asks its remote meanwhile (src/fork/fork-setup.ts).
   */
  static opening(opts: ForkCacheOptions): ForkCache {
    return new ForkCache(opts)
  }

  /** The directory of the disk cache; undefined when memory only (or not known to be usable before {@link ready}). */
  get path(): string | undefined {
    return this.db === undefined ? undefined : this.dir
  }

  /** Why the disk cache is not used although a directory was given (locked, unwritable); else undefined. */
  get warning(): string | undefined {
    return this.why
  }

  private async openDisk(opts: ForkCacheOptions, root: string): Promise<void> {
    const path = forkCachePath(root, opts.chainId, opts.forkBlockHash)
    this.opening = true
    let db: Database | undefined
    try {
      this.fresh = !existsSync(path)
      mkdirSync(path, { recursive: true }) // a thread-pool round trip less at a fork's start
      // loaded on demand: forks without a disk cache do not pay for the native binding
      const { Level: LevelDb } = await import('level')
      const opened: Database = new LevelDb<string, Uint8Array>(path, { keyEncoding: 'utf8', valueEncoding: 'view' })
      db = opened
      await opened.open()
      const meta = JSON.stringify({
        version: LAYOUT_VERSION,
        chainId: opts.chainId.toString(),
        forkBlockHash: toHex(opts.forkBlockHash),
      })
      const stored = await opened.get(META)
      if (stored === undefined || new TextDecoder().decode(stored) !== meta) {
        await opened.clear()
        await opened.put(META, new TextEncoder().encode(meta))
      }
      this.db = opened
      this.dir = path
    } catch (err) {
      await db?.close().catch(() => undefined)
      const cause = (err as { cause?: { code?: string } }).cause
      const why = cause?.code === 'LEVEL_LOCKED' ? 'it is in use by another process' : (err as Error).message
      this.why = `fork cache ${path} not used (${why}); caching in memory only`
      this.pending.clear()
    } finally {
      this.opening = false
    }
    this.scheduleFlush()
  }

  /** Whether entries are written to disk. */
  get persistent(): boolean {
    return this.db !== undefined
  }

  // ---- accounts -----------------------------------------------------------------------------------------------

  /** The cached account of `address` from memory, or undefined (then try {@link loadAccount}). */
  peekAccount(address: Uint8Array): ForkAccount | undefined {
    const a = this.accounts.get(toKey(address))
    if (a !== undefined) this.stats.memoryHits++
    return a
  }

  /** The cached account of `address` from memory or disk, or undefined when it was never fetched. */
  async loadAccount(address: Uint8Array): Promise<ForkAccount | undefined> {
    const key = toKey(address)
    const hit = this.accounts.get(key)
    if (hit !== undefined) return hit
    const raw = await this.load(`a:${key}`)
    if (raw === undefined) return undefined
    const [nonce, balance, code] = RLP.decode(raw) as Uint8Array[]
    const a: ForkAccount = { nonce: bytesToBigInt(nonce!), balance: bytesToBigInt(balance!), code: code! }
    this.accounts.set(key, a)
    return a
  }

  /** Caches the account of `address` (memory now, disk soon). */
  putAccount(address: Uint8Array, account: ForkAccount): void {
    const key = toKey(address)
    this.accounts.set(key, account)
    this.store(`a:${key}`, RLP.encode([bigIntToBytes(account.nonce), bigIntToBytes(account.balance), account.code]))
  }

  // ---- storage cells ------------------------------------------------------------------------------------------

  /** The cached raw bytes of a storage cell from memory (empty = unset), or undefined (then {@link loadCell}). */
  peekCell(address: Uint8Array, slot: Uint8Array): Uint8Array | undefined {
    const v = this.cells.get(cellKey(address, slot))
    if (v !== undefined) this.stats.memoryHits++
    return v
  }

  /** The cached raw bytes of a storage cell from memory or disk, or undefined when never fetched. */
  async loadCell(address: Uint8Array, slot: Uint8Array): Promise<Uint8Array | undefined> {
    const key = cellKey(address, slot)
    const hit = this.cells.get(key)
    if (hit !== undefined) return hit
    const raw = await this.load(`s:${key}`)
    if (raw !== undefined) this.cells.set(key, raw)
    return raw
  }

  /** Caches the raw bytes of a storage cell (empty = unset). */
  putCell(address: Uint8Array, slot: Uint8Array, value: Uint8Array): void {
    const key = cellKey(address, slot)
    this.cells.set(key, value)
    this.store(`s:${key}`, value)
  }

  // ---- history ------------------------------------------------------------------------------------------------

  /**
   * The cached result of a history call (`method` with `params`), as `{ json }`, or undefined when never cached.
   * Only answers that cannot change for the fork block belong here (blocks and logs at or below it).
   */
  async loadHistory(method: string, params: readonly unknown[]): Promise<{ json: unknown } | undefined> {
    const key = historyKey(method, params)
    const hit = this.history.get(key)
    if (hit !== undefined) return hit
    const raw = await this.load(key)
    if (raw === undefined) return undefined
    const entry = { json: JSON.parse(new TextDecoder().decode(raw)) as unknown }
    this.history.set(key, entry)
    return entry
  }

  /** Caches the JSON result of a history call. */
  putHistory(method: string, params: readonly unknown[], json: unknown): void {
    const key = historyKey(method, params)
    this.history.set(key, { json })
    this.store(key, new TextEncoder().encode(JSON.stringify(json)))
  }

  // ---- disk ---------------------------------------------------------------------------------------------------

  private async load(key: string): Promise<Uint8Array | undefined> {
    const p = this.pending.get(key) ?? this.inflight?.get(key)
    if (p !== undefined) return p
    if (this.opening && !this.fresh) {
      await this.ready
      return this.load(key)
    }
    if (this.db === undefined) {
      this.stats.misses++
      return undefined
    }
    const v = await this.db.get(key).catch(() => undefined)
    if (v === undefined) {
      this.stats.misses++
      return undefined
    }
    this.stats.diskHits++
    return new Uint8Array(v) // an owned plain copy (the binding hands out Buffers)
  }

  /** Queues a disk write (kept while the database opens). */
  private store(key: string, value: Uint8Array): void {
    if (this.db === undefined && !this.opening) return
    this.pending.set(key, value)
    this.scheduleFlush()
  }

  /** Flushes soon, or at once when a batch is full; nothing while there is no open database. */
  private scheduleFlush(): void {
    if (this.db === undefined || this.pending.size === 0) return
    if (this.pending.size >= WRITE_BATCH) void this.flush()
    else this.timer ??= setTimeout(() => void this.flush(), WRITE_DELAY_MS)
  }

  /** Writes the pending entries to disk (one batch). A failed write is dropped: the next run fetches again. */
  flush(): Promise<void> {
    if (this.timer !== undefined) clearTimeout(this.timer)
    this.timer = undefined
    const db = this.db
    if (db === undefined || this.pending.size === 0) return this.writing
    const batch = this.pending
    this.pending = new Map()
    this.writing = this.writing.then(async () => {
      this.inflight = batch
      try {
        await db.batch([...batch].map(([key, value]) => ({ type: 'put' as const, key, value })))
        this.stats.diskWrites += batch.size
      } catch {
        // not fatal: what was not written is fetched again by a later run
      } finally {
        this.inflight = undefined
      }
    })
    return this.writing
  }

  /** Writes what is pending and closes the database (the memory layer stays readable). */
  async close(): Promise<void> {
    await this.ready
    await this.flush()
    const db = this.db
    this.db = undefined
    await db?.close()
  }
}

/**
 * An LRU map of at most `entries` entries that allocates as it fills: lru-cache given `max` allocates storage for
 * all of them up front (for the default bounds above, some 60 ms and 20 MiB at every fork's start); a `maxSize` of
 * unit-sized entries bounds it the same way without that.
 */
function growingLru<V extends NonNullable<unknown>>(entries: number): LRUCache<string, V> {
  return new LRUCache<string, V>({ maxSize: entries, sizeCalculation: () => 1 })
}

function cellKey(address: Uint8Array, slot: Uint8Array): string {
  return `${toKey(address)}:${toKey(slot)}`
}

function historyKey(method: string, params: readonly unknown[]): string {
  return `h:${method}:${JSON.stringify(params)}`
}
