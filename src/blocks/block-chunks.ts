/**
 * The byte chunks the in-memory block backend writes its encodings into (docs/architecture.md#storage).
 *
 * Bytes are appended to the open chunk; once it is full the next one opens and the full one is closed: it is
 * deflated by node:zlib's asynchronous API, so on the libuv thread pool and not on the thread that serves requests
 * and mines, and once the compressed copy is in place the uncompressed bytes are no longer read (a transfer
 * block's ~1.25 KB of zero-run packed encodings become ~0.35 KB: consecutive blocks repeat addresses, Remasc logs
 * and zero runs). Until then every read uses the uncompressed bytes, so a read racing a compression answers the
 * same. A chunk is compressed as segments of ~32 KB cut at block boundaries, each inflatable on its own
 * (src/blocks/chunk-segments.ts): a read in a compressed chunk inflates only the segment holding its bytes (and the
 * chunk's first block, the segments' dictionary) into a small LRU cache of inflated segments ({@link INFLATED_CHUNKS}
 * chunks' worth of bytes, lru-cache), so a scan over consecutive old blocks inflates each segment once and a query
 * reading a few blocks here and there (a sparse eth_getLogs) inflates an eighth of a chunk per block.
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
import { LRUCache } from 'lru-cache'
import { ZippedArenas, type ZippedArenaStats, type ZippedHolder } from './zipped-arenas.js'
import { SEGMENT_BYTES, cutsOf, deflateSegments, inflateSegment, isCut, segmentStarts } from './chunk-segments.js'

/**
 * Size of a chunk, bytes: ~210 blocks with a transfer. Compressing it whole inflated ~0.4-0.9 ms per cold read for
 * 256 KB against ~1.6-13 ms for 1 MB, for a ratio 1% lower (3.64× vs 3.67×; 128 KB: 3.61×, 64 KB: 3.53×; measured
 * on a chunk of transfer blocks, 2-core VM under load); a read now inflates one segment of it
 * (src/blocks/chunk-segments.ts).
 */
export const CHUNK_BYTES = 256 * 1024

/**
 * Inflated bytes kept for reads, in chunk sizes (~768 KB: ~23 inflated segments, ~630 blocks with a transfer); with
 * the in-memory backend's recently read blocks (src/blocks/memory-block-backend.ts, 256 KB) as much as the 4
 * whole chunks kept before segments.
 */
export const INFLATED_CHUNKS = 3

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

interface Chunk extends ZippedHolder {
  /** The bytes, uncompressed: the open chunk, a closed one not compressed yet, or one thawed to be changed. */
  raw: Uint8Array | undefined
  /**
   * The deflated segments of bytes 0 … size of a closed chunk, back to back, once `raw` is dropped (a view into the
   * zipped arenas; src/blocks/chunk-segments.ts).
   */
  zipped: Uint8Array | undefined
  /** Where each segment ends in `zipped` (while compressed). */
  zipEnds: number[]
  /**
   * Block boundaries chosen as segment starts (src/blocks/chunk-segments.ts isCut), as blocks are committed; while
   * compressed, exactly the starts of segments 1, 2, … (segmentStarts).
   */
  cuts: number[]
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
  /** Segments of the compressed chunks (src/blocks/chunk-segments.ts). */
  segments: number
  /** Bytes in use in all chunks, uncompressed. */
  usedBytes: number
  /** Bytes held: the compressed chunks' deflated sizes plus the other chunks' buffer sizes. */
  heldBytes: number
  /** Inflated segments in the read cache. */
  inflated: number
  /** Segments inflated so far (reads and changes of compressed chunks; a chunk of one segment counts once). */
  inflates: number
  /** The arenas the compressed chunks are stored in. */
  arenas: ZippedArenaStats
}

/** Bytes appended back to back in chunks, closed chunks compressed (see the module documentation). */
export class ChunkStore {
  private readonly chunks: Chunk[] = []
  private nextVersion = 1
  /**
   * Inflated segments of compressed chunks by {@link segmentKey}, the least recently read evicted first (bounded
   * by bytes). A chunk's version changes whenever its compressed bytes do, so a key never names other bytes.
   */
  private readonly inflatedCache: LRUCache<number, Uint8Array>
  /** Buffers of compressed chunks, of {@link chunkBytes}, to open chunks in ({@link SPARE_CHUNKS}). */
  private readonly spare: Uint8Array[] = []
  private readonly compressions = new Set<Promise<void>>()
  private inflates = 0

  /**
   * @param chunkBytes size of a new chunk, bytes (a write larger than that gets a chunk of its own size)
   * @param inflatedChunks inflated bytes kept for reads, in chunk sizes (at least 1)
   * @param arenas where compressed chunks are kept (src/blocks/zipped-arenas.ts)
   * @param segmentBytes least raw bytes of a compressed segment (src/blocks/chunk-segments.ts; tests use small ones)
   */
  constructor(
    readonly chunkBytes = CHUNK_BYTES,
    inflatedChunks = INFLATED_CHUNKS,
    private readonly arenas = new ZippedArenas(),
    private readonly segmentBytes = SEGMENT_BYTES,
  ) {
    this.inflatedCache = new LRUCache({
      maxSize: inflatedChunks * chunkBytes,
      // a segment larger than the whole cache (a chunk of one huge block) is inflated for each read
      sizeCalculation: (bytes) => Math.max(1, bytes.length),
    })
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
        zipEnds: [],
        cuts: [],
        size: 0,
        version: this.nextVersion++,
        compressing: false,
        recompress: false,
      }
      this.chunks.push(last)
    }
    return { index: this.chunks.length - 1, bytes: last.raw!, at: last.size }
  }

  /** Takes `length` bytes written after {@link reserve} into the open chunk: a block (its end may start a segment). */
  commit(length: number): void {
    const c = this.chunks[this.chunks.length - 1]!
    c.size += length
    if (isCut(c.cuts, c.size, this.segmentBytes)) c.cuts.push(c.size)
  }

  /** Whether chunk `index` is held compressed (a read of it may inflate a segment). */
  isCompressed(index: number): boolean {
    return this.chunks[index]?.raw === undefined
  }

  /** The version of chunk `index` (see the module documentation); 0 when there is no such chunk. */
  version(index: number): number {
    return this.chunks[index]?.version ?? 0
  }

  /**
   * Bytes `start` … `end` of chunk `index`: `bytes[at …]`, a view of its uncompressed bytes, or of the segment
   * holding them inflated on this thread into the cache of inflated segments (~30 µs for 32 KB; a whole 256 KB chunk
   * took ~0.2-0.9 ms; on the thread pool a cold read took 3-12 ms on a loaded 2-core machine, waiting for a thread).
   * A range across segments (never a block's: segments start at block boundaries) is copied out of them. Inflated
   * bytes are never written; uncompressed bytes may be, under a new {@link version}.
   * @throws RangeError when there is no such chunk
   */
  read(index: number, start: number, end: number): { bytes: Uint8Array; at: number } {
    const c = this.chunks[index]
    if (c === undefined) throw new RangeError(`no chunk ${index}`)
    if (c.raw !== undefined) return { bytes: c.raw, at: start }
    const cuts = c.cuts
    let k = 0
    while (k < cuts.length && cuts[k]! <= start) k++
    const from = k === 0 ? 0 : cuts[k - 1]!
    if (end <= (k < cuts.length ? cuts[k]! : c.size)) return { bytes: this.segment(c, k), at: start - from }
    const out = new Uint8Array(end - start)
    for (let s = k; s <= cuts.length; s++) {
      const segStart = s === 0 ? 0 : cuts[s - 1]!
      if (segStart >= end) break
      const seg = this.segment(c, s)
      const lo = Math.max(start, segStart)
      out.set(seg.subarray(lo - segStart, Math.min(end, segStart + seg.length) - segStart), lo - start)
    }
    return { bytes: out, at: 0 }
  }

  /**
   * All bytes of chunk `index`: its uncompressed bytes, or its segments inflated (through the cache) and copied into
   * one buffer when there are several (a change of a compressed chunk, a truncation into one).
   * @throws RangeError when there is no such chunk
   */
  bytes(index: number): Uint8Array {
    const c = this.chunks[index]
    if (c === undefined) throw new RangeError(`no chunk ${index}`)
    if (c.raw !== undefined) return c.raw
    const { bytes, at } = this.read(index, 0, c.size)
    return at === 0 && bytes.length === c.size ? bytes : bytes.subarray(at, at + c.size)
  }

  /** Segment `k` of compressed chunk `c`, inflated (from the cache, else inflated into it). */
  private segment(c: Chunk, k: number): Uint8Array {
    const key = segmentKey(c, k)
    let out = this.inflatedCache.get(key)
    if (out === undefined) {
      const cuts = c.cuts
      const length = (k < cuts.length ? cuts[k]! : c.size) - (k === 0 ? 0 : cuts[k - 1]!)
      this.inflates++
      out = inflateSegment(c.zipped!, c.zipEnds, k, length, k === 0 ? undefined : this.segment(c, 0))
      this.inflatedCache.set(key, out)
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
   * @param blockEnds where its blocks end (ascending), to cut its segments at (none: one segment)
   */
  replace(index: number, bytes: Uint8Array, blockEnds: Iterable<number> = []): void {
    const c = this.chunks[index]!
    this.thawed(c, bytes)
    c.cuts = cutsOf(blockEnds, this.segmentBytes)
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
      this.forgetInflated(dropped)
      this.arenas.release(dropped)
    }
    const c = this.chunks[last]!
    if (c.raw === undefined) {
      const raw = new Uint8Array(Math.max(this.chunkBytes, c.size))
      raw.set(this.bytes(last).subarray(0, size))
      this.thawed(c, raw)
    }
    // the blocks kept end where they did; a cut at `size` is where the next block starts
    c.cuts = c.cuts.filter((cut) => cut <= size)
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
    let segments = 0
    let usedBytes = 0
    let heldBytes = 0
    for (const c of this.chunks) {
      usedBytes += c.size
      if (c.raw === undefined) {
        compressed++
        segments += c.zipEnds.length
      }
      heldBytes += c.raw?.length ?? c.zipped!.length
    }
    return {
      chunks: this.chunks.length,
      compressed,
      segments,
      usedBytes,
      heldBytes,
      inflated: this.inflatedCache.size,
      inflates: this.inflates,
      arenas: this.arenas.stats(),
    }
  }

  /**
   * Compresses chunk `index` off this thread, segment after segment (src/blocks/chunk-segments.ts); the compressed
   * copy replaces the bytes if they did not change meanwhile.
   */
  private compress(index: number): void {
    const c = this.chunks[index]!
    if (c.raw === undefined) return
    if (c.compressing) {
      c.recompress = true
      return
    }
    c.compressing = true
    const done: Promise<void> = this.compressSegments(c, index).finally(() => this.compressions.delete(done))
    this.compressions.add(done)
  }

  private async compressSegments(c: Chunk, index: number): Promise<void> {
    const version = c.version
    const starts = segmentStarts(c.cuts, c.size)
    const held = (): boolean => this.chunks[index] === c && index !== this.chunks.length - 1
    const unchanged = (): boolean => held() && c.version === version
    let out: Awaited<ReturnType<typeof deflateSegments>>
    try {
      out = await deflateSegments(c.raw!.subarray(0, c.size), starts, DEFLATE_LEVEL, unchanged)
    } catch {
      out = undefined
    }
    const again = c.recompress
    c.compressing = false
    c.recompress = false
    if (out === undefined || !unchanged()) {
      // changed meanwhile: compressed when replaced or closed (now, if that happened meanwhile)
      if (again && held()) this.compress(index)
      return
    }
    this.arenas.store(c, out.bytes)
    c.zipEnds = out.ends
    c.cuts = starts
    const raw = c.raw!
    c.raw = undefined
    // a reader holding the uncompressed bytes reads again: they are reused for another chunk
    c.version = this.nextVersion++
    if (raw.length === this.chunkBytes && this.spare.length < SPARE_CHUNKS) this.spare.push(raw)
  }

  /** Drops the inflated segments of chunk `c` (its compressed bytes are about to change or go) from the cache. */
  private forgetInflated(c: Chunk): void {
    if (c.raw !== undefined) return
    for (let k = 0; k <= c.cuts.length; k++) this.inflatedCache.delete(segmentKey(c, k))
  }

  /** Chunk `c` holds `raw` uncompressed from now on: its compressed copy and inflated copy, if any, go. */
  private thawed(c: Chunk, raw: Uint8Array): void {
    this.forgetInflated(c)
    this.arenas.release(c)
    c.zipEnds = []
    c.raw = raw
  }
}

/** Segments per chunk the cache keys leave room for (a chunk has at most one per block). */
const SEGMENT_KEY_SPAN = 2 ** 20

/** The cache key of segment `k` of compressed chunk `c` (its version changes whenever its compressed bytes do). */
function segmentKey(c: Chunk, k: number): number {
  return c.version * SEGMENT_KEY_SPAN + k
}
