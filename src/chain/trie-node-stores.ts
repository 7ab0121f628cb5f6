/**
 * The synchronous Unitrie node stores in front of the chain's database (src/chain/storage.ts, whose header lists
 * the key layout): the write-back store that collects a block's new nodes for its batch, and the on-demand store
 * that also reads stored nodes with the database's synchronous `getSync` (docs/architecture.md#storage).
 */
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
 * The store of tries read on demand: `get` answers from `pending` (nodes not written yet), then reads the
 * database synchronously; `put` collects into `pending`.
 * @param readStored the database's synchronous read of a key (undefined when absent or the database is closed)
 */
export function onDemandStore(
  pending: WriteBackTrieStore,
  readStored: (key: Uint8Array) => Uint8Array | undefined,
): TrieNodeStore {
  return {
    get: (hash) => pending.get(hash) ?? readStored(nodeKey(hash)),
    put: (hash, data) => pending.put(hash, data),
  }
}
