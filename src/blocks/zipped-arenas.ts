/**
 * Where the in-memory block backend keeps its compressed chunks (src/blocks/block-chunks.ts;
 * docs/architecture.md#storage): stored back to back in a few large arenas instead of one malloc block each.
 *
 * A compressed chunk is ~60-90 KB. Held as a buffer of its own it is served from glibc's main malloc heap (its
 * mmap threshold rises above such sizes once any larger mapped block is freed, as the chunks being written are),
 * where it lands between the short-lived buffers of requests and blocks; the heap then cannot shrink past it and
 * its holes get split by small allocations, so the process's resident memory grows faster than the chunks it
 * holds. Arenas larger than the largest threshold glibc ever sets are mapped on their own, and their pages become
 * resident only as chunks are written into them (src/util/mmap-chunk.ts; measured the same for state nodes).
 *
 * A chunk released (its bytes changed: receipts pruned, a truncation) leaves a hole in its arena; once an arena
 * other than the one being filled holds more holes than chunks, its chunks are copied into the one being filled
 * and it is dropped, so pruning gives memory back.
 *
 * The arenas are not src/util/chunked-bytes.ts (whose chunks are addressed by their index and never move): an
 * arena is dropped from the middle of the list once it is mostly holes and its chunks move, so a compressed chunk
 * is addressed by a view its holder keeps (rewritten when it moves), and each arena counts its live bytes and
 * holders.
 */
import { MMAP_CHUNK_BYTES } from '../util/mmap-chunk.js'

/**
 * Bytes per arena: a chunk glibc keeps mapped on its own (src/util/mmap-chunk.ts: just over 32 MiB, above its largest
 * mmap threshold), ~90 000 blocks with a transfer at ~0.35 KB compressed each. Untouched pages cost no resident memory.
 */
export const ZIPPED_ARENA_BYTES = MMAP_CHUNK_BYTES

/** Something holding compressed bytes in an arena: the arenas move them by rewriting `zipped`. */
export interface ZippedHolder {
  /** A view into an arena (or a buffer of its own, for bytes larger than an arena); undefined once released. */
  zipped: Uint8Array | undefined
}

interface Arena {
  bytes: Uint8Array
  /** Bytes written (live chunks and holes). */
  used: number
  /** Bytes of the live chunks. */
  live: number
  /** The holders whose bytes are in this arena. */
  holders: Set<ZippedHolder>
}

/** What {@link ZippedArenas.stats} reports. */
export interface ZippedArenaStats {
  /** Arenas held. */
  arenas: number
  /** Bytes written into them (live bytes plus holes). */
  usedBytes: number
  /** Bytes of live chunks. */
  liveBytes: number
  /** Arenas dropped after their chunks were moved out. */
  compactions: number
}

/** Compressed byte strings stored back to back in large arenas (see the module documentation). */
export class ZippedArenas {
  private readonly arenas: Arena[] = []
  private compactions = 0

  /** @param arenaBytes bytes per arena (tests use small ones) */
  constructor(readonly arenaBytes = ZIPPED_ARENA_BYTES) {}

  /**
   * Copies `bytes` into the arena being filled (a new one when they do not fit; a buffer of their own when they are
   * larger than an arena) and points `holder.zipped` at the copy. A holder already holding bytes releases them first.
   */
  store(holder: ZippedHolder, bytes: Uint8Array): void {
    this.release(holder)
    if (bytes.length > this.arenaBytes) {
      holder.zipped = bytes.slice()
      return
    }
    holder.zipped = this.copyIn(holder, bytes)
  }

  /** Gives `holder`'s bytes back (its `zipped` becomes undefined); its arena may be compacted. */
  release(holder: ZippedHolder): void {
    const zipped = holder.zipped
    if (zipped === undefined) return
    holder.zipped = undefined
    // a view's buffer is its arena's (bytes larger than an arena have a buffer of their own)
    const arena = this.arenas.find((a) => a.bytes.buffer === zipped.buffer)
    if (arena === undefined) return
    arena.holders.delete(holder)
    arena.live -= zipped.length
    if (arena !== this.arenas[this.arenas.length - 1] && mostlyHoles(arena)) this.compact(arena)
  }

  /** Arena counts and sizes (see {@link ZippedArenaStats}). */
  stats(): ZippedArenaStats {
    let usedBytes = 0
    let liveBytes = 0
    for (const a of this.arenas) {
      usedBytes += a.used
      liveBytes += a.live
    }
    return { arenas: this.arenas.length, usedBytes, liveBytes, compactions: this.compactions }
  }

  /** Copies `bytes` into the arena being filled, for `holder`; @returns the view of the copy */
  private copyIn(holder: ZippedHolder, bytes: Uint8Array): Uint8Array {
    const full = this.arenas[this.arenas.length - 1]
    let arena = full
    if (arena === undefined || arena.used + bytes.length > arena.bytes.length) {
      arena = { bytes: new Uint8Array(this.arenaBytes), used: 0, live: 0, holders: new Set() }
      this.arenas.push(arena)
    }
    const at = arena.used
    arena.bytes.set(bytes, at)
    arena.used += bytes.length
    arena.live += bytes.length
    arena.holders.add(holder)
    const view = arena.bytes.subarray(at, at + bytes.length)
    // the arena that was being filled is full: emptied now if it holds more holes than chunks
    if (full !== undefined && full !== arena && mostlyHoles(full)) this.compact(full)
    return view
  }

  /** Moves the live chunks of `arena` (not the one being filled) into the one being filled, and drops it. */
  private compact(arena: Arena): void {
    this.arenas.splice(this.arenas.indexOf(arena), 1)
    this.compactions++
    for (const holder of arena.holders) holder.zipped = this.copyIn(holder, holder.zipped!)
  }
}

/** Whether more of `arena`'s written bytes are holes than live chunks (it is then emptied and dropped). */
function mostlyHoles(arena: Arena): boolean {
  return arena.live * 2 < arena.used
}
