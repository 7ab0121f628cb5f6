/**
 * The in-memory node's bound on the state's memory (no `--db`, docs/architecture.md#storage): every
 * UNLOAD_STATE_EVERY_BLOCKS blocks (src/chain/mining/block-commit.ts) the registry's tries
 * (src/state/unitrie-state-db.ts) move their nodes into a packed {@link ArenaTrieStore} — each node as its message,
 * about 100 B, instead of a TrieNode object with a typed array per field, about 1 KB — and become lazy tries over it,
 * which decode a node again only when a read or a write reaches it. The arena only grows (it has no delete): superseded
 * nodes stay in it until it is rebuilt, which copies what the kept roots reach into a fresh arena once the superseded
 * part may exceed the live part (amortized: a rebuild copies at most as much as was appended since the last one).
 *
 * Neither step stops the mining path for long (measured on 2 loaded cores, 30k nodes: a pack took 75-260 ms and a
 * rebuild 300-590 ms when each ran at once): every block's new nodes are saved into the arena as the block is
 * committed ({@link PackedStates.afterBlock}, a few dozen records for a transfer; only the blocks whose states
 * the pack will still find kept), so a pack only turns the kept tries into lazy ones; and a rebuild copies
 * {@link REBUILD_NODES_PER_BLOCK} nodes per block, the tries moving to the fresh arena once everything they reach
 * is in it.
 */
import { ArenaTrieStore } from '../unitrie/trie-arena.js'
import { ReachableCopy } from '../unitrie/trie-arena-copy.js'
import { Unitrie } from '../unitrie/unitrie.js'
import { toKey } from '../util/bytes.js'
import { MMAP_CHUNK_BYTES } from '../util/mmap-chunk.js'

/** Bytes per chunk of the packed arenas: a chunk glibc keeps mapped on its own (src/util/mmap-chunk.ts). */
const PACKED_CHUNK_BYTES = MMAP_CHUNK_BYTES

/** The arena is rebuilt only once it may hold at least this many bytes of superseded nodes. */
export const MIN_PACKED_GARBAGE_BYTES = 8 * 1024 * 1024

/**
 * Nodes a rebuild copies per mined block (about 1 ms; measured ~4 µs a node): a 30k-node state moves in ~120
 * blocks, and a block's own new nodes (a few dozen for a transfer) never outpace it.
 */
export const REBUILD_NODES_PER_BLOCK = 256

/** A rebuild in progress: what the kept roots reach, copied into `fresh` a slice at a time. */
interface Rebuild {
  fresh: ArenaTrieStore
  copy: ReachableCopy
  /** Hex hashes of the roots queued (each tree is complete in `fresh` once the copy is done). */
  roots: Set<string>
}

/** Replaces every kept trie (block states, previews) by `swap(trie)`, a trie of the same root. */
export type SwapTries = (swap: (trie: Unitrie) => Unitrie) => void

/** The packed arena of an in-memory registry and when to rebuild it (see the module comment). */
export class PackedStates {
  private arena: ArenaTrieStore | undefined
  /** Record bytes of the arena right after it was built (the live part then). */
  private liveBytes = 0
  /** How many times the arena was rebuilt (measurements, tests). */
  rebuilds = 0
  private rebuild: Rebuild | undefined

  /** @param minGarbageBytes the least superseded bytes a rebuild waits for (tests set 0) */
  constructor(private readonly minGarbageBytes = MIN_PACKED_GARBAGE_BYTES) {}

  /** The arena the states are packed into (undefined before the first {@link pack}). */
  get store(): ArenaTrieStore | undefined {
    return this.arena
  }

  /**
   * Saves every kept trie into the arena (only the nodes not saved before: with {@link afterBlock} on every block,
   * hardly any) and replaces it by a lazy trie over the arena; then starts a rebuild of the arena when due (it runs
   * in {@link afterBlock}); a rebuild still running is finished first. The caller re-reads the tries it holds (the
   * live state manager).
   * @param eachTrie runs a swap over every kept trie (UnitrieStateDB.swapTries)
   * @param live the live state: when it was built into an arena (a state file's, src/unitrie/unitrie-bulk.ts), that
   *   arena is adopted at the first pack instead of copying the whole state out of it
   */
  pack(eachTrie: SwapTries, live: Unitrie): void {
    if (this.rebuild !== undefined) this.finishRebuild(eachTrie, Number.POSITIVE_INFINITY)
    const into = this.arenaFor(live)
    eachTrie((t) => (t.root === undefined ? t : Unitrie.fromRootHash(t.save(into), into)))
    if (into.recordBytes - this.liveBytes < Math.max(this.liveBytes, this.minGarbageBytes)) return
    const fresh = new ArenaTrieStore(0, PACKED_CHUNK_BYTES)
    const rebuild: Rebuild = { fresh, copy: new ReachableCopy(into, fresh), roots: new Set() }
    eachTrie((t) => {
      if (t.root !== undefined) this.queue(rebuild, t.hash())
      return t
    })
    this.rebuild = rebuild
  }

  /**
   * After each committed block (the live state has no open checkpoint): saves the block's new nodes into the arena
   * when `save` says the block's state is still kept at the next pack (saving the others would only add superseded
   * nodes) or a rebuild runs; while a rebuild runs, queues the new root and copies the next
   * {@link REBUILD_NODES_PER_BLOCK} nodes; once the copy is complete, the tries it covers become lazy tries over
   * the fresh arena, which replaces the old one.
   * @param eachTrie as for {@link pack}
   * @param live the state after the block
   * @returns true when the tries were replaced: the caller re-reads the tries it holds, as after {@link pack}
   */
  afterBlock(eachTrie: SwapTries, live: Unitrie, save: boolean): boolean {
    const rebuild = this.rebuild
    if (live.root === undefined || (!save && rebuild === undefined)) return false
    const root = live.save(this.arenaFor(live))
    if (rebuild === undefined) return false
    this.queue(rebuild, root)
    return this.finishRebuild(eachTrie, REBUILD_NODES_PER_BLOCK)
  }

  /** Whether a rebuild is in progress (tests, measurements). */
  get rebuilding(): boolean {
    return this.rebuild !== undefined
  }

  /** The arena, created at the first use (adopting the live state's own arena when it has one). */
  private arenaFor(live: Unitrie): ArenaTrieStore {
    if (this.arena === undefined) {
      this.arena = live.store instanceof ArenaTrieStore ? live.store : new ArenaTrieStore(0, PACKED_CHUNK_BYTES)
      this.liveBytes = this.arena.recordBytes
    }
    return this.arena
  }

  private queue(rebuild: Rebuild, root: Uint8Array): void {
    const hex = toKey(root)
    if (rebuild.roots.has(hex)) return
    rebuild.roots.add(hex)
    rebuild.copy.add(root.slice())
  }

  /**
   * Copies up to `maxNodes` nodes of the rebuild; when it is complete, moves the tries it covers to the fresh arena.
   * @returns whether the tries were moved
   */
  private finishRebuild(eachTrie: SwapTries, maxNodes: number): boolean {
    const rebuild = this.rebuild!
    if (!rebuild.copy.step(maxNodes)) return false
    const { fresh, roots } = rebuild
    eachTrie((t) => {
      if (t.root === undefined) return t
      const root = t.hash()
      return roots.has(toKey(root)) ? Unitrie.fromRootHash(root, fresh) : t
    })
    this.arena = fresh
    this.liveBytes = fresh.recordBytes
    this.rebuild = undefined
    this.rebuilds++
    return true
  }
}
