/**
 * Where Unitrie nodes are persisted: the synchronous content-addressed store interface that tries read lazily from
 * and save into, and its in-memory Map implementation (src/unitrie/trie-arena.ts is the packed one).
 */
import { toKey } from '../util/bytes.js'

/**
 * A synchronous content-addressed key-value store for trie data (rskj `TrieStore` over a
 * `KeyValueDataSource`).
 *
 * - node messages are stored under keccak256(message) (the node hash, 32 B);
 * - long values (> 32 B) are stored under keccak256(value) (the value hash, 32 B).
 *
 * Both key spaces share one store, exactly like the reference `TrieStoreImpl.save`.
 */
export interface TrieNodeStore {
  /** The bytes stored under `hash`, or undefined. */
  get(hash: Uint8Array): Uint8Array | undefined
  /** Store `data` under `hash` (idempotent: the data for a given hash never changes). */
  put(hash: Uint8Array, data: Uint8Array): void
}

/** A {@link TrieNodeStore} backed by a `Map<hexHash, bytes>`. */
export class MemoryTrieNodeStore implements TrieNodeStore {
  /** The backing map; keys are lowercase hex without 0x. */
  readonly map = new Map<string, Uint8Array>()
  get(hash: Uint8Array): Uint8Array | undefined {
    return this.map.get(hexKey(hash))
  }
  put(hash: Uint8Array, data: Uint8Array): void {
    this.map.set(hexKey(hash), data)
  }
  /** Number of stored entries (nodes + long values). */
  get size(): number {
    return this.map.size
  }
}

function hexKey(b: Uint8Array): string {
  return toKey(b)
}
