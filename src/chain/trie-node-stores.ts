/**
 * The synchronous Unitrie node stores in front of the chain's database (src/chain/storage.ts, whose header lists
 * the key layout): the write-back store that collects a block's new nodes for its batch, and the on-demand store
 * that also reads stored nodes with the database's synchronous `getSync` (docs/architecture.md#storage).
 */
import { ArenaTrieStore } from '../rsk/trie-arena.js'
import type { TrieNodeStore } from '../rsk/unitrie.js'
import { toKey } from '../util/bytes.js'

/** Key prefix of the Unitrie node records ('n' ‖ keccak256 of the node). */
const NODE = 0x6e // 'n'

/** A put of a database batch. */
export type PutOp = { type: 'put'; key: Uint8Array; value: Uint8Array }

/** The database key of the Unitrie node (or long value) whose keccak256 is `hash`. */
export function nodeKey(hash: Uint8Array): Uint8Array {
  const k = new Uint8Array(1 + hash.length)
  k[0] = NODE
  k.set(hash, 1)
  return k
}

/**
 * The synchronous {@link TrieNodeStore} in front of the database: `put` collects the nodes of the state being
 * saved until the chain storage writes them with the block; `get` answers from those and, while a root is being
 * loaded whole (`ChainStorage.loadRoot` on a database without synchronous reads), from the nodes fetched for it.
 * Stored nodes are read through {@link onDemandStore}.
 */
export class WriteBackTrieStore implements TrieNodeStore {
  private pending = new Map<string, PutOp>()
  /** Nodes fetched for the root being loaded whole (hex → bytes); set only while `ChainStorage.loadRoot` runs. */
  loading: Map<string, Uint8Array> | undefined

  get(hash: Uint8Array): Uint8Array | undefined {
    const k = toKey(hash)
    return this.pending.get(k)?.value ?? this.loading?.get(k)
  }

  put(hash: Uint8Array, data: Uint8Array): void {
    const k = toKey(hash)
    if (!this.pending.has(k)) this.pending.set(k, { type: 'put', key: nodeKey(hash), value: data })
  }

  /** The collected writes as batch operations; the store starts collecting anew. */
  take(): PutOp[] {
    const ops = [...this.pending.values()]
    this.pending = new Map()
    return ops
  }
}

/**
 * Record bytes of the stored nodes {@link onDemandStore} keeps at hand (one arena chunk, with its table about
 * 9 MiB; ~60k nodes of a token's storage): enough to hold every node a load reads back between two unloads of the
 * tries (src/chain/block-commit.ts), however long the chain is, until the state itself outgrows it.
 */
export const STORED_NODE_CACHE_BYTES = 8 * 1024 * 1024 - 64 * 1024

/**
 * The store of tries read on demand: `get` answers from `pending` (nodes not written yet), then from the nodes
 * read before, then reads the database synchronously; `put` collects into `pending`.
 *
 * The nodes read are kept, as bytes, in a packed arena of at most `cacheBytes` record bytes, emptied whenever it
 * is full. The tries drop their decoded nodes every UNLOAD_STATE_EVERY_BLOCKS blocks and then read back what the
 * next requests reach, which for random reads of a growing state (a token's balances) is most of its upper nodes:
 * from the database that cost grew with the state (measured: ~50 µs a read on a loaded machine, 0.6 → 1.5 s of CPU
 * per minute over a 10-minute load), from the arena about a microsecond. Content-addressed records never change,
 * so the cache is never stale.
 * @param readStored the database's synchronous read of a key (undefined when absent or the database is closed)
 */
export function onDemandStore(
  pending: WriteBackTrieStore,
  readStored: (key: Uint8Array) => Uint8Array | undefined,
  cacheBytes = STORED_NODE_CACHE_BYTES,
): TrieNodeStore {
  let cache = new ArenaTrieStore()
  return {
    get: (hash) => {
      const fresh = pending.get(hash)
      if (fresh !== undefined) return fresh
      // a copy: a view would keep the whole chunk alive once the cache is emptied
      const cached = cache.get(hash)
      if (cached !== undefined) return cached.slice()
      const stored = readStored(nodeKey(hash))
      if (stored !== undefined && hash.length === 32) {
        if (cache.recordBytes + 36 + stored.length > cacheBytes) cache = new ArenaTrieStore()
        cache.put(hash, stored)
      }
      return stored
    },
    put: (hash, data) => pending.put(hash, data),
  }
}
