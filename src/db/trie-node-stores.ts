/**
 * The synchronous Unitrie node stores in front of the chain's database (src/db/chain-storage.ts, whose header lists
 * the key layout): the write-back store that collects a block's new nodes for its batch, and the on-demand store
 * that also reads stored nodes with the database's synchronous `getSync` (docs/architecture.md#storage).
 */
import { ArenaTrieStore } from '../unitrie/trie-arena.js'
import type { TrieNodeStore } from '../unitrie/unitrie.js'
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
 * Record bytes of each of the two generations of stored nodes {@link onDemandStore} keeps at hand (with their
 * tables about 17 MiB in all; ~70k nodes of a token's storage per generation). 8 MiB because a growing token
 * state under the bench's `--sustain --db` load outgrows two 4 MiB generations within 10 minutes, and its reads
 * then go back to LevelDB (work per read +1-3% over 10 minutes with 8 MiB, +11-19% with 4 MiB, for +3-4 MiB of
 * median RSS; docs/measurements/2026-11-sustained-memory.md).
 */
export const STORED_NODE_CACHE_BYTES = 8 * 1024 * 1024

/**
 * The store of tries read on demand: `get` answers from `pending` (nodes not written yet), then from the nodes at
 * hand, then reads the database synchronously; `put` collects into `pending`.
 *
 * The nodes read and the nodes written are kept at hand, as bytes, in two generations of packed arenas of at most
 * `cacheBytes` record bytes each: when the current one is full it becomes the old one (the previous old one is
 * dropped), and a node found in the old one is copied into the current one, so the nodes in use stay. The tries
 * drop their decoded nodes every UNLOAD_STATE_EVERY_BLOCKS blocks and then read back what the next requests reach,
 * which for random reads of a growing state (a token's balances) is most of its upper nodes, those written since
 * the last unload included: a read from the database costs ~50 µs, from the arenas about a microsecond.
 * Content-addressed records never change, so nothing kept is ever stale.
 * @param readStored the database's synchronous read of a key (undefined when absent or the database is closed)
 */
export function onDemandStore(
  pending: WriteBackTrieStore,
  readStored: (key: Uint8Array) => Uint8Array | undefined,
  cacheBytes = STORED_NODE_CACHE_BYTES,
): TrieNodeStore {
  let current = new ArenaTrieStore(0, cacheBytes)
  let old: ArenaTrieStore | undefined
  const keep = (hash: Uint8Array, bytes: Uint8Array): void => {
    if (hash.length !== 32) return
    if (current.recordBytes + 36 + bytes.length > cacheBytes) {
      // the dropped generation's memory becomes the new one's: no allocation once both exist (churned large
      // blocks grew the malloc heap: bench/README.md, "--memory")
      const spare = old
      old = current
      current = spare ?? new ArenaTrieStore(0, cacheBytes)
      current.clear()
    }
    current.put(hash, bytes)
  }
  return {
    get: (hash) => {
      const fresh = pending.get(hash)
      if (fresh !== undefined) return fresh
      // copies: a view would keep a whole arena alive once it is dropped
      const kept = current.get(hash)
      if (kept !== undefined) return kept.slice()
      const older = old?.get(hash)
      if (older !== undefined) {
        const bytes = older.slice()
        keep(hash, bytes)
        return bytes
      }
      const stored = readStored(nodeKey(hash))
      if (stored !== undefined) keep(hash, stored)
      return stored
    },
    put: (hash, data) => {
      pending.put(hash, data)
      keep(hash, data)
    },
  }
}
