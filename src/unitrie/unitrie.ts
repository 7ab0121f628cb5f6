/**
 * The RSK Unitrie: a binary (arity 2) Patricia trie with RSKIP107 node serialization.
 *
 * It is used by the reference node (rskj) for the world state, the transactions root and the
 * receipts root. This module is a pure, in-memory, persistent implementation:
 *
 * - nodes are immutable; `put`/`delete` return a NEW {@link Unitrie} that shares every untouched
 *   subtree with the old one, so old roots stay readable;
 * - each node caches its serialized message, its hash and its subtree size, so hashing after N
 *   puts only re-serializes the nodes on the N modified paths (a put is O(key bits));
 * - nodes can be written to / lazily read back from a synchronous content-addressed key-value
 *   store ({@link TrieNodeStore}) keyed by node hash (and long values keyed by value hash).
 *
 * Keys are byte strings; they are expanded to bit strings MSB-first (bit 0 = left child,
 * bit 1 = right child). Values are byte strings of 1..16 777 215 bytes; storing an empty value
 * is the same as deleting the key (as in the reference).
 *
 * Its parts: byte-level codec pieces (src/unitrie/unitrie-codec.ts), the node and its message codec
 * (src/unitrie/unitrie-node.ts), put/delete/find on nodes (src/unitrie/unitrie-put.ts), the store interface
 * (src/unitrie/unitrie-store.ts), saving into it (src/unitrie/unitrie-save.ts) and the entry walk
 * (src/unitrie/unitrie-walk.ts); this file holds the {@link Unitrie} root and re-exports what importers use.
 *
 * Reference sources (rskj master, paths under rskj-core/src/main/java/):
 * - co/rsk/trie/Trie.java            node model, put/split/delete-coalesce, toMessage, getNodes
 * - co/rsk/trie/NodeReference.java   embedded vs hashed children, referenceSize
 * - co/rsk/trie/SharedPathSerializer.java  shared-path length prefix
 * - co/rsk/trie/PathEncoder.java     bit packing (first bit = most significant)
 * - co/rsk/trie/TrieKeySlice.java    bit-string slices
 * - co/rsk/trie/TrieStoreImpl.java   what gets persisted under which key
 */
import { EMPTY_TRIE_HASH } from '../crypto/keccak.js'
import { bytesEqual } from '../util/bytes.js'
import { bytesToBits, commonPrefixLength, FLAG_VERSION } from './unitrie-codec.js'
import { HashRef, type TrieNode } from './unitrie-node.js'
import { find, put, putIntoEmpty } from './unitrie-put.js'
import { saveNode } from './unitrie-save.js'
import { unitrieEntryViews } from './unitrie-walk.js'
import type { TrieNodeStore } from './unitrie-store.js'

export { bitsToBytes, bytesToBits, encodeVarInt } from './unitrie-codec.js'
export { decodeNode, TrieNode } from './unitrie-node.js'
export { nodeReferences } from './unitrie-save.js'
export { MemoryTrieNodeStore, type TrieNodeStore } from './unitrie-store.js'

// ---------------------------------------------------------------------------------------------
// Public trie wrapper
// ---------------------------------------------------------------------------------------------

/** One entry yielded by {@link Unitrie.entries}. */
export type UnitrieEntry = [key: Uint8Array, value: Uint8Array]

/**
 * An immutable Unitrie root. All mutators return a new instance; the receiver is unchanged.
 *
 * Reference: co/rsk/trie/Trie.java (put, delete, deleteRecursive, get, find, getHash,
 * toMessage, getNodes).
 */
export class Unitrie {
  private constructor(
    /** The root node, or undefined for the empty trie. */
    readonly root: TrieNode | undefined,
    /** Store used to resolve lazily-loaded nodes (optional). */
    readonly store: TrieNodeStore | undefined,
  ) {}

  /** The empty trie (hash = EMPTY_TRIE_HASH). */
  static empty(store?: TrieNodeStore): Unitrie {
    return new Unitrie(undefined, store)
  }

  /**
   * A trie whose root is read lazily from `store` (only the root node is fetched now; other nodes
   * are fetched on access). `EMPTY_TRIE_HASH` yields the empty trie.
   *
   * @throws if the root node is not in the store
   */
  static fromRootHash(rootHash: Uint8Array, store: TrieNodeStore): Unitrie {
    if (rootHash.length !== 32) throw new Error('Unitrie: root hash must be 32 bytes')
    if (bytesEqual(rootHash, EMPTY_TRIE_HASH)) return new Unitrie(undefined, store)
    const ref = new HashRef(rootHash.slice(), store)
    return new Unitrie(ref.node, store)
  }

  /**
   * A trie over an already built root node (src/unitrie/unitrie-bulk.ts builds whole tries bottom-up).
   * @param root the root node, or undefined for the empty trie
   */
  static fromRootNode(root: TrieNode | undefined, store?: TrieNodeStore): Unitrie {
    return new Unitrie(root, store)
  }

  /** Build a trie from key/value pairs (later duplicates win; empty values delete). */
  static fromEntries(entries: Iterable<readonly [Uint8Array, Uint8Array]>, store?: TrieNodeStore): Unitrie {
    let t = Unitrie.empty(store)
    for (const [k, v] of entries) t = t.put(k, v)
    return t
  }

  /** True when the trie has no keys. */
  get isEmpty(): boolean {
    return this.root === undefined
  }

  /** The value stored at `key`, or undefined (Trie.get). Do not mutate the returned array. */
  get(key: Uint8Array): Uint8Array | undefined {
    return find(this.root, bytesToBits(key))?.getValue()
  }

  /** True when `key` has a value. */
  has(key: Uint8Array): boolean {
    return (find(this.root, bytesToBits(key))?.valueLength ?? 0) > 0
  }

  /** Length in bytes of the value at `key` (0 if absent), without loading long values (Trie.getValueLength). */
  getValueLength(key: Uint8Array): number {
    return find(this.root, bytesToBits(key))?.valueLength ?? 0
  }

  /** keccak256 of the value at `key`, or undefined if absent (Trie.getValueHash). */
  getValueHash(key: Uint8Array): Uint8Array | undefined {
    return find(this.root, bytesToBits(key))?.getValueHash()
  }

  /** The node exactly at `key` (which may have no value), or undefined (Trie.find). */
  findNode(key: Uint8Array): TrieNode | undefined {
    return find(this.root, bytesToBits(key))
  }

  /**
   * Associate `value` with `key`; an empty `value` deletes the key. Returns a new trie.
   * @param value 0..16 777 215 bytes (the array is kept by reference: do not mutate it later)
   */
  put(key: Uint8Array, value: Uint8Array): Unitrie {
    const bits = bytesToBits(key)
    const v = value.length === 0 ? undefined : value
    const root = this.root ? put(this.root, bits, v, false) : putIntoEmpty(bits, v)
    return root === this.root ? this : new Unitrie(root, this.store)
  }

  /** Remove `key` (no-op if absent). Returns a new trie (Trie.delete). */
  delete(key: Uint8Array): Unitrie {
    if (!this.root) return this
    const root = put(this.root, bytesToBits(key), undefined, false)
    return root === this.root ? this : new Unitrie(root, this.store)
  }

  /**
   * Remove the node exactly at `key` together with its whole subtree (every key that has `key` as
   * a prefix), e.g. an account with its code and storage (Trie.deleteRecursive). As in the
   * reference, nothing happens when no node ends exactly at `key` or that node has no value.
   */
  deleteRecursive(key: Uint8Array): Unitrie {
    if (!this.root) return this
    const root = put(this.root, bytesToBits(key), undefined, true)
    return root === this.root ? this : new Unitrie(root, this.store)
  }

  /** Root hash (32 B): keccak256(root message), or EMPTY_TRIE_HASH for the empty trie. */
  hash(): Uint8Array {
    return this.root ? this.root.hash() : EMPTY_TRIE_HASH
  }

  /** Root node message (RSKIP107). The empty trie serializes as the single flags byte 0x40. */
  toMessage(): Uint8Array {
    return this.root ? this.root.message() : Uint8Array.of(FLAG_VERSION)
  }

  /**
   * The serialized messages of the nodes on the path to `key`, LEAF FIRST, ROOT LAST (the node
   * ending exactly at `key` first, even if it has no value), or undefined when no node ends at
   * `key` (Trie.getNodes → findNodes; used by rsk_getTransactionReceiptNodesByHash).
   */
  getNodes(key: Uint8Array): Uint8Array[] | undefined {
    const chain: TrieNode[] = []
    let n = this.root
    let k = bytesToBits(key)
    while (n) {
      if (n.path.length > k.length) return undefined
      const common = commonPrefixLength(k, n.path)
      if (common < n.path.length) return undefined
      chain.push(n)
      if (common === k.length) return chain.reverse().map((x) => x.message())
      n = n.child(k[common]!)
      k = k.subarray(common + 1)
    }
    return undefined
  }

  /**
   * Iterate the (key, value) pairs in ascending key order (a key before its extensions), optionally
   * only those whose key starts with `prefix`, each key and value a fresh copy. Only keys that are whole bytes
   * are yielded (all keys written through this API are). Subtrees known only by hash are read from their stored
   * messages without decoding node objects (src/unitrie/unitrie-walk.ts).
   */
  *entries(prefix: Uint8Array = new Uint8Array(0)): Generator<UnitrieEntry> {
    const want = bytesToBits(prefix)
    let n = this.root
    const consumed: number[] = []
    let rest = want
    // descend to the subtree that contains every key starting with `prefix`
    while (n) {
      const common = commonPrefixLength(rest, n.path)
      if (common === rest.length) break // prefix ends inside (or at the end of) this node's path
      if (common < n.path.length) return // diverges
      for (let i = 0; i < n.path.length; i++) consumed.push(n.path[i]!)
      const bit = rest[common]!
      consumed.push(bit)
      rest = rest.subarray(common + 1)
      n = n.child(bit)
    }
    if (!n) return
    for (const e of unitrieEntryViews(n, consumed))
      yield [e.key.slice(0, e.keyLength), e.value.slice(e.valueStart, e.valueEnd)]
  }

  /** All keys (see {@link entries}). */
  *keys(prefix?: Uint8Array): Generator<Uint8Array> {
    for (const [k] of this.entries(prefix)) yield k
  }

  /**
   * Persist every in-memory node not yet saved to `store` (TrieStoreImpl.save): the root always,
   * other nodes unless embedded in their parent, and every long value under keccak(value).
   * Subtrees already saved to the same store are skipped, so saving after each block only writes
   * the changed paths.
   *
   * @returns the root hash
   */
  save(store: TrieNodeStore | undefined = this.store): Uint8Array {
    if (!store) throw new Error('Unitrie.save: no store')
    if (this.root) saveNode(this.root, store, true)
    return this.hash()
  }
}

/**
 * Brings every node and long value of `trie` into memory (children known only by hash are fetched from
 * the trie's store now), so that later reads never touch the store. @returns the number of nodes visited
 */
export function loadAllNodes(trie: Unitrie): number {
  let count = 0
  const stack: TrieNode[] = trie.root ? [trie.root] : []
  while (stack.length > 0) {
    const n = stack.pop()!
    count++
    if (n.hasLongValue) n.getValue()
    for (const bit of [0, 1]) {
      const c = n.child(bit)
      if (c) stack.push(c)
    }
  }
  return count
}
