/**
 * The byte chunks the in-memory block backend writes its encodings into (docs/architecture.md#storage).
 *
 * Bytes are appended to the open chunk; once it is full the next one opens and the full one is closed: it is
 * deflated by node:zlib's asynchronous API, so on the libuv thread pool and not on the thread that serves requests
 * and mines, and once the compressed copy is in place the uncompressed bytes are no longer read (a transfer
 * block's ~1.25 KB of zero-run packed encodings become ~0.35 KB: consecutive blocks repeat addresses, Remasc logs
 * and zero runs). Until then every read uses the uncompressed bytes, so a read racing a compression answers the
 * same. A read in a compressed chunk inflates the whole chunk into a small LRU cache of inflated chunks
 * ({@link INFLATED_CHUNKS}, lru-cache), so a scan over consecutive old blocks inflates each chunk once.
 *
 * Each chunk has a version, which changes whenever bytes already written change (receipts pruned in place, a
 * compaction, a truncation that reopens it) and when its compressed copy takes over (its uncompressed buffer is
 * then reused for a later chunk): a compression of an older version is dropped, and a reader holding the bytes of
 * an older version reads again. Compressed copies are kept in large arenas (src/blocks/zipped-arenas.ts).
 *
 * The chunks are this file's own rather than src/util/chunked-bytes.ts (the append-only chunk list the trie store
 * and the state-file entries share): each chunk here has a state of its own — uncompressed, being compressed,
 * compressed into an arena, inflated again to be changed — and is replaced (a compaction) or cut (a truncation)
 * on its own; the writer reserves a bound and commits what it wrote (the zero-run packed size is known only after
 * writing); and a new chunk reuses a spare buffer of a compressed one. Only the "open a chunk when the write
 * does not fit" rule is the same.
 */
import { deflateRaw, inflateRawSync } from 'node:zlib'
import { LRUCache } from 'lru-cache'
import { ZippedArenas, type ZippedArenaStats, type ZippedHolder } from './zipped-arenas.js'

/**
 * Size of a chunk, bytes: ~210 blocks with a transfer. A cold read inflates its whole chunk: ~0.4-0.9 ms for
 * 256 KB against ~1.6-13 ms for 1 MB (the output no longer fits the core's cache), for a ratio 1% lower (3.64× vs
 * 3.67×; 128 KB: 3.61×, 64 KB: 3.53×; measured on a chunk of transfer blocks, 2-core VM under load).
 */
export const CHUNK_BYTES = 256 * 1024

/** Inflated chunks kept for reads (at most this many chunk sizes of memory, ~1 MB; ~840 blocks with a transfer). */
export const INFLATED_CHUNKS = 4

/**
 * Deflate level of closed chunks: 1 compresses a chunk of transfer blocks ~3.7× in ~15-20 ms of pool-thread CPU
 * (~20 µs per block); levels 6-9 gain under 1% for 3-5× the time, brotli ~8% for over 10× (measured).
 */
const DEFLATE_LEVEL = 1

/**
 * Chunk buffers kept for reuse once their chunk is compressed: the next chunk opens in one of them instead of a
 * new 256 KB malloc block (freed blocks of that size are what raise glibc's mmap threshold and leave holes in its
 * main heap, src/blocks/zipped-arenas.ts).
 */
const SPARE_CHUNKS = 2

/**
 * Zero-run packing: a zero byte followed by a count (1-255) stands for that many zeros; other bytes are
 * themselves. Blooms, padded topics and leading-zero fields make a third to a half of a block's encodings zeros.
 * @returns the number of bytes written to `out` at `at` (at most `src.length` + 1 per 255 zeros)
 */
export function packZeros(src: Uint8Array, out: Uint8Array, at: number): number {
  let o = at
  for (let i = 0; i < src.length;) {
    const b = src[i]!
    if (b !== 0) {
      out[o++] = b
      i++
      continue
    }
    let run = 1
    while (run < 255 && i + run < src.length && src[i + run] === 0) run++
    out[o++] = 0
    out[o++] = run
    i += run
  }
  return o - at
}

/**
 * Reverses {@link packZeros}.
 * @param length the unpacked length
 */
export function unpackZeros(packed: Uint8Array, length: number): Uint8Array {
  const out = new Uint8Array(length)
  let o = 0
  for (let i = 0; i < packed.length;) {
    const b = packed[i++]!
    if (b !== 0) out[o++] = b
    else o += packed[i++]!
  }
  return out
}

interface Chunk extends ZippedHolder {
  /** The bytes, uncompressed: the open chunk, a closed one not compressed yet, or one thawed to be changed. */
  raw: Uint8Array | undefined
  /** The deflated bytes 0 … size of a closed chunk, once `raw` is dropped (a view into the zipped arenas). */
  zipped: Uint8Array | undefined
  /** Bytes in use. */
  size: number
  /** Changes with every change of bytes already written (see the module documentation). */
  version: number
  /** A compression is running. */
  compressing: boolean
  /** Replaced while a compression of an older version ran: compressed again once that one ends. */
  recompress: boolean
}

/** What {@link ChunkStore.stats} reports. */
export interface ChunkStats {
  /** Chunks held (the open one included). */
  chunks: number
  /** Chunks held compressed. */
  compressed: number
  /** Bytes in use in all chunks, uncompressed. */
  usedBytes: number
  /** Bytes held: the compressed chunks' deflated sizes plus the other chunks' buffer sizes. */
  heldBytes: number
  /** Inflated chunks in the read cache. */
  inflated: number
  /** Chunks inflated so far (reads and changes of compressed chunks). */
  inflates: number
  /** The arenas the compressed chunks are stored in. */
  arenas: ZippedArenaStats
}

/** Bytes appended back to back in chunks, closed chunks compressed (see the module documentation). */
export class ChunkStore {
  private readonly chunks: Chunk[] = []
  private nextVersion = 1
  /** Inflated bytes of compressed chunks, the least recently read evicted first. */
  private readonly inflatedCache: LRUCache<Chunk, Uint8Array>
  /** Buffers of compressed chunks, of {@link chunkBytes}, to open chunks in ({@link SPARE_CHUNKS}). */
  private readonly spare: Uint8Array[] = []
  private readonly compressions = new Set<Promise<void>>()
  private inflates = 0

  /**
   * @param chunkBytes size of a new chunk, bytes (a write larger than that gets a chunk of its own size)
   * @param inflatedChunks inflated chunks kept for reads (at least 1)
   * @param arenas where compressed chunks are kept (src/blocks/zipped-arenas.ts)
   */
  constructor(
    readonly chunkBytes = CHUNK_BYTES,
    inflatedChunks = INFLATED_CHUNKS,
    private readonly arenas = new ZippedArenas(),
  ) {
    this.inflatedCache = new LRUCache({ max: inflatedChunks })
  }

  /** Number of chunks (the last is the open one). */
  get length(): number {
    return this.chunks.length
  }

  /**
   * Room for up to `bound` bytes at the end of the open chunk, opening a new one (and closing the full one) when
   * they do not fit; the caller writes into `bytes` at `at` and then calls {@link commit}.
   * @returns the chunk's index, its writable bytes and the write position
   */
  reserve(bound: number): { index: number; bytes: Uint8Array; at: number } {
    let last = this.chunks[this.chunks.length - 1]
    if (last === undefined || last.raw === undefined || last.size + bound > last.raw.length) {
      if (last !== undefined) this.compress(this.chunks.length - 1)
      last = {
        raw: bound <= this.chunkBytes ? (this.spare.pop() ?? new Uint8Array(this.chunkBytes)) : new Uint8Array(bound),
        zipped: undefined,
        size: 0,
        version: this.nextVersion++,
        compressing: false,
        recompress: false,
      }
      this.chunks.push(last)
    }
    return { index: this.chunks.length - 1, bytes: last.raw!, at: last.size }
  }

  /** Takes `length` bytes written after {@link reserve} into the open chunk. */
  commit(length: number): void {
    this.chunks[this.chunks.length - 1]!.size += length
  }

  /** The version of chunk `index` (see the module documentation); 0 when there is no such chunk. */
  version(index: number): number {
    return this.chunks[index]?.version ?? 0
  }

  /**
   * The bytes of chunk `index`, uncompressed, or inflated on this thread into the cache of inflated chunks (256 KB:
   * ~0.4-0.9 ms; on the thread pool a cold read took 3-12 ms on a loaded 2-core machine, waiting for a thread, against
   * 1.5-1.7 ms). Bytes of the cache are never written; uncompressed bytes may be, under a new {@link version}.
   * @throws RangeError when there is no such chunk
   */
  bytes(index: number): Uint8Array {
    const c = this.chunks[index]
    if (c === undefined) throw new RangeError(`no chunk ${index}`)
    if (c.raw !== undefined) return c.raw
    let out = this.inflatedCache.get(c)
    if (out === undefined) {
      this.inflates++
      out = inflateRawSync(c.zipped!)
      this.inflatedCache.set(c, out)
    }
    return out
  }

  /**
   * The uncompressed bytes of chunk `index` to change in place, under a new version (a compressed chunk is
   * inflated into a buffer of its own first and stays uncompressed until it is {@link replace}d or closed).
   */
  writable(index: number): Uint8Array {
    const c = this.chunks[index]!
    if (c.raw === undefined) {
      const copy = new Uint8Array(c.size)
      copy.set(this.bytes(index).subarray(0, c.size))
      this.thawed(c, copy)
    }
    c.version = this.nextVersion++
    return c.raw!
  }

  /**
   * Replaces closed chunk `index` by `bytes` (all in use; a compaction), under a new version, and compresses it.
   */
  replace(index: number, bytes: Uint8Array): void {
    const c = this.chunks[index]!
    this.thawed(c, bytes)
    c.size = bytes.length
    c.version = this.nextVersion++
    this.compress(index)
  }

  /**
   * Keeps chunks 0 … `last` and makes `last` the open chunk with `size` bytes in use (the bytes after are
   * written again): a truncation.
   */
  truncate(last: number, size: number): void {
    for (const dropped of this.chunks.splice(last + 1)) {
      this.inflatedCache.delete(dropped)
      this.arenas.release(dropped)
    }
    const c = this.chunks[last]!
    if (c.raw === undefined) {
      const raw = new Uint8Array(Math.max(this.chunkBytes, c.size))
      raw.set(this.bytes(last).subarray(0, size))
      this.thawed(c, raw)
    }
    c.size = size
    c.version = this.nextVersion++
  }

  /** Resolves once no compression is running (tests, measurements). */
  async settled(): Promise<void> {
    while (this.compressions.size > 0) await Promise.all(this.compressions)
  }

  /** Chunk counts and sizes (see {@link ChunkStats}). */
  stats(): ChunkStats {
    let compressed = 0
    let usedBytes = 0
    let heldBytes = 0
    for (const c of this.chunks) {
      usedBytes += c.size
      if (c.raw === undefined) compressed++
      heldBytes += c.raw?.length ?? c.zipped!.length
    }
    return {
      chunks: this.chunks.length,
      compressed,
      usedBytes,
      heldBytes,
      inflated: this.inflatedCache.size,
      inflates: this.inflates,
      arenas: this.arenas.stats(),
    }
  }

  /** Compresses chunk `index` off this thread; the compressed copy replaces the bytes if they did not change. */
  private compress(index: number): void {
    const c = this.chunks[index]!
    if (c.raw === undefined) return
    if (c.compressing) {
      c.recompress = true
      return
    }
    const version = c.version
    c.compressing = true
    const done = new Promise<void>((resolve) => {
      deflateRaw(c.raw!.subarray(0, c.size), { level: DEFLATE_LEVEL }, (err, out) => {
        const again = c.recompress
        c.compressing = false
        c.recompress = false
        this.compressions.delete(done)
        resolve()
        const held = this.chunks[index] === c && index !== this.chunks.length - 1
        if (err !== null || !held || c.version !== version) {
          // changed meanwhile: compressed when replaced or closed (now, if that happened meanwhile)
          if (again && held) this.compress(index)
          return
        }
        this.arenas.store(c, out)
        const raw = c.raw!
        c.raw = undefined
        // a reader holding the uncompressed bytes reads again: they are reused for another chunk
        c.version = this.nextVersion++
        if (raw.length === this.chunkBytes && this.spare.length < SPARE_CHUNKS) this.spare.push(raw)
      })
    })
    this.compressions.add(done)
  }

  /** Chunk `c` holds `raw` uncompressed from now on: its compressed copy and inflated copy, if any, go. */
  private thawed(c: Chunk, raw: Uint8Array): void {
    this.inflatedCache.delete(c)
    this.arenas.release(c)
    c.raw = raw
  }
}
