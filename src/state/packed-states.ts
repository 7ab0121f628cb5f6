/**
 * The in-memory node's bound on the state's memory (no `--db`, docs/architecture.md#storage): every
 * UNLOAD_STATE_EVERY_BLOCKS blocks (src/chain/block-commit.ts) the registry's tries (src/state/unitrie-state-db.ts)
 * move their nodes into a packed {@link ArenaTrieStore} — each node as its message, about 100 B, instead of a
 * TrieNode object with a typed array per field, about 1 KB — and become lazy tries over it, which decode a node
 * again only when a read or a write reaches it. The arena only grows (it has no delete): superseded nodes stay in
 * it until it is rebuilt, which copies what the kept roots reach into a fresh arena once the superseded part may
 * exceed the live part (amortized: a rebuild copies at most as much as was appended since the last one).
 */
import { ArenaTrieStore } from '../rsk/trie-arena.js'
import { copyReachable } from '../rsk/trie-arena-copy.js'
import { Unitrie } from '../rsk/unitrie.js'

/** The arena is rebuilt only once it may hold at least this many bytes of superseded nodes. */
export const MIN_PACKED_GARBAGE_BYTES = 8 * 1024 * 1024

/** Replaces every kept trie (block states, previews) by `swap(trie)`, a trie of the same root. */
export type SwapTries = (swap: (trie: Unitrie) => Unitrie) => void

/** The packed arena of an in-memory registry and when to rebuild it (see the module comment). */
export class PackedStates {
  private arena: ArenaTrieStore | undefined
  /** Record bytes of the arena right after it was built (the live part then). */
  private liveBytes = 0
  /** How many times the arena was rebuilt (measurements, tests). */
  rebuilds = 0

  /** @param minGarbageBytes the least superseded bytes a rebuild waits for (tests set 0) */
  constructor(private readonly minGarbageBytes = MIN_PACKED_GARBAGE_BYTES) {}

  /** The arena the states are packed into (undefined before the first {@link pack}). */
  get store(): ArenaTrieStore | undefined {
    return this.arena
  }

  /**
   * Saves every kept trie into the arena (only the nodes not saved before) and replaces it by a lazy trie over the
   * arena; then rebuilds the arena when due. The caller re-reads the tries it holds (the live state manager).
   * @param eachTrie runs a swap over every kept trie (UnitrieStateDB.swapTries)
   * @param live the live state: when it was built into an arena (a state file's, src/rsk/unitrie-bulk.ts), that
   *   arena is adopted at the first pack instead of copying the whole state out of it
   */
  pack(eachTrie: SwapTries, live: Unitrie): void {
    let arena = this.arena
    if (arena === undefined) {
      arena = live.store instanceof ArenaTrieStore ? live.store : new ArenaTrieStore()
      this.arena = arena
      this.liveBytes = arena.recordBytes
    }
    const into = arena
    eachTrie((t) => (t.root === undefined ? t : Unitrie.fromRootHash(t.save(into), into)))
    if (into.recordBytes - this.liveBytes < Math.max(this.liveBytes, this.minGarbageBytes)) return
    const fresh = new ArenaTrieStore()
    eachTrie((t) => {
      if (t.root === undefined) return t
      const root = t.hash()
      copyReachable(into, fresh, root)
      return Unitrie.fromRootHash(root, fresh)
    })
    this.arena = fresh
    this.liveBytes = fresh.recordBytes
    this.rebuilds++
  }
}
