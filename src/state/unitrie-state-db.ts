/**
 * The root registry shared by a {@link UnitrieStateManager} (src/state/unitrie-state-manager.ts) and its shallow
 * copies: every committed root kept readable (with `maxRoots` and pins), the optional node store, the optional
 * asynchronous root loader and, in fork mode, the remote state source.
 */
import { EMPTY_TRIE_HASH } from '../crypto/keccak.js'
import { Unitrie, type TrieNodeStore } from '../unitrie/unitrie.js'
import { bytesEqual, toKey } from '../util/bytes.js'
import type { ForkStateSource } from './fork-source.js'
import { PackedStates } from './packed-states.js'

/**
 * How many preview roots stay readable (the newest ones): the current `pending` block's, and the one before it for a
 * read that began just before the head moved on.
 */
export const MAX_PREVIEW_ROOTS = 2

/**
 * State shared by a manager and its shallow copies: every committed root produced so far (persistent
 * tries share structure, so keeping them is cheap) and an optional node store for roots that are not
 * in memory.
 */
export class UnitrieStateDB {
  /** root hex (no 0x) → trie. */
  readonly roots = new Map<string, Unitrie>()

  constructor(
    /** Optional content-addressed node store (rskj TrieStore) for persisted / lazily loaded roots. */
    readonly store?: TrieNodeStore,
    /**
     * Fork mode (docs/architecture.md#forking): the remote state at the fork block, read for every key the local
     * trie neither holds nor marks as local. Shared by the manager's shallow copies.
     */
    public fork?: ForkStateSource,
  ) {}

  /**
   * How many roots are kept readable (oldest unpinned ones are forgotten first, so their nodes can be
   * garbage-collected). Infinity = all. The chain sets it from `--state-history`.
   */
  maxRoots = Number.POSITIVE_INFINITY
  /** Pinned roots (hex → pin count): never forgotten (genesis, snapshot roots). */
  private readonly pins = new Map<string, number>()
  /**
   * Roots of previews (the `pending` block, src/execution/block-application.ts), oldest first, at most
   * {@link MAX_PREVIEW_ROOTS}: readable like registered roots but outside {@link maxRoots}, so that a preview per
   * block neither halves the blocks whose states stay readable nor keeps hundreds of superseded previews' nodes.
   */
  private readonly previews = new Map<string, Unitrie>()

  /** Remember `trie` as a readable root; returns its hash. Forgets the oldest unpinned roots past {@link maxRoots}. */
  register(trie: Unitrie): Uint8Array {
    const h = trie.hash()
    const hex = toKey(h)
    this.roots.delete(hex)
    this.roots.set(hex, trie)
    if (this.roots.size > this.maxRoots) {
      for (const key of this.roots.keys()) {
        if (this.roots.size <= this.maxRoots) break
        if (key !== hex && !this.pins.has(key)) this.roots.delete(key)
      }
    }
    return h
  }

  /**
   * Keeps the root of a preview readable (the `pending` block's state, built inside a checkpoint that is then
   * reverted) until {@link MAX_PREVIEW_ROOTS} newer previews replace it; it takes no place among the
   * {@link maxRoots} block states. A root registered as a block state stays readable as such. @returns its hash
   */
  registerPreview(trie: Unitrie): Uint8Array {
    const h = trie.hash()
    const hex = toKey(h)
    if (this.roots.has(hex)) return h
    this.previews.delete(hex)
    this.previews.set(hex, trie)
    for (const key of this.previews.keys()) {
      if (this.previews.size <= MAX_PREVIEW_ROOTS) break
      this.previews.delete(key)
    }
    return h
  }

  /** How many preview roots are readable now (at most {@link MAX_PREVIEW_ROOTS}). */
  get previewCount(): number {
    return this.previews.size
  }

  /** Keeps `root` readable regardless of {@link maxRoots} until as many {@link unpin} calls. */
  pin(root: Uint8Array): void {
    const hex = toKey(root)
    this.pins.set(hex, (this.pins.get(hex) ?? 0) + 1)
  }

  /** Releases one {@link pin} of `root`. */
  unpin(root: Uint8Array): void {
    const hex = toKey(root)
    const n = this.pins.get(hex) ?? 0
    if (n <= 1) this.pins.delete(hex)
    else this.pins.set(hex, n - 1)
  }

  /**
   * Optional asynchronous source of roots that are neither registered nor in the synchronous store (the
   * chain's database, src/db/chain-storage.ts): returns the root's trie with every node in memory, or undefined.
   */
  loadRoot: ((root: Uint8Array) => Promise<Unitrie | undefined>) | undefined

  /** {@link lookup}, then the {@link loadRoot} source; a loaded root is registered as the newest one. */
  async load(root: Uint8Array): Promise<Unitrie | undefined> {
    const t = this.lookup(root)
    if (t !== undefined || this.loadRoot === undefined || root.length !== 32) return t
    const loaded = await this.loadRoot(root)
    if (loaded !== undefined) this.register(loaded)
    return loaded
  }

  /**
   * Drops the nodes in memory of every registered root `store` holds: each such trie is replaced by a lazy
   * one over `store`, which reads its nodes back as they are reached (persistent tries share nodes, so what
   * they had loaded is freed once no other holder keeps it). Roots `store` lacks (not yet saved) keep their
   * tries. For a store that reads a database on demand (src/db/chain-storage.ts, `nodeStore`): this is
   * what keeps the state's memory bounded with `--db` as the state grows. The caller re-reads its own tries
   * (the live state manager: `setStateRoot`).
   * @returns how many roots were replaced
   */
  unloadStored(store: TrieNodeStore): number {
    let replaced = 0
    for (const [hex, trie] of this.roots) {
      if (trie.root === undefined) continue
      const root = trie.hash()
      if (store.get(root) === undefined) continue
      this.roots.set(hex, Unitrie.fromRootHash(root, store))
      replaced++
    }
    return replaced
  }

  /**
   * Without a node store (in memory): moves the nodes of every kept root — block states, pins and previews — into
   * a packed arena and makes each a lazy trie over it (src/state/packed-states.ts), which keeps the state's memory
   * near its serialized size as it grows. The caller re-reads its own tries (the live state manager:
   * `setStateRoot`). @param live the live state @returns the packed states (their arena, rebuild count)
   */
  pack(live: Unitrie): PackedStates {
    const packed = (this.packed ??= new PackedStates())
    packed.pack((swap) => this.swapTries(swap), live)
    return packed
  }

  /**
   * Without a node store (in memory), after each committed block: saves the live state's new nodes into the packed
   * arena and advances a rebuild of it (src/state/packed-states.ts `afterBlock`), so that {@link pack} never has
   * much to do at once.
   * @param live the state after the block
   * @param blocksToPack how many blocks until the next {@link pack}: a state {@link maxRoots} forgets before then is
   *   not saved
   * @returns true when the kept tries were moved to a rebuilt arena: the caller re-reads its own tries (as after
   *   {@link pack})
   */
  packBlock(live: Unitrie, blocksToPack: number): boolean {
    const packed = (this.packed ??= new PackedStates())
    return packed.afterBlock((swap) => this.swapTries(swap), live, blocksToPack < this.maxRoots)
  }

  /** The packed states of {@link pack} and {@link packBlock} (undefined before the first one). */
  packed: PackedStates | undefined

  /** Replaces every registered and preview trie by `swap(trie)` (a trie of the same root). */
  private swapTries(swap: (trie: Unitrie) => Unitrie): void {
    for (const [hex, trie] of this.roots) this.roots.set(hex, swap(trie))
    for (const [hex, trie] of this.previews) this.previews.set(hex, swap(trie))
  }

  /** The trie for `root`, or undefined when unknown (neither registered nor in the store). */
  lookup(root: Uint8Array): Unitrie | undefined {
    if (root.length !== 32) return undefined
    const hex = toKey(root)
    const t = this.roots.get(hex) ?? this.previews.get(hex)
    if (t) return t
    if (bytesEqual(root, EMPTY_TRIE_HASH)) return Unitrie.empty(this.store)
    if (this.store && this.store.get(root) !== undefined) {
      const loaded = Unitrie.fromRootHash(root, this.store)
      this.roots.set(hex, loaded)
      return loaded
    }
    return undefined
  }
}
