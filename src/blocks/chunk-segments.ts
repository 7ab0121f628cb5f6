/**
 * The compressed form of a closed block chunk (src/blocks/block-chunks.ts; docs/architecture.md#storage): segments
 * of about {@link SEGMENT_BYTES}, each its own raw deflate stream, so that a read of one block inflates its
 * segment only instead of the whole chunk. Every segment starts and ends at a block boundary.
 *
 * Segment 0 is the chunk's first block; every later segment is deflated with segment 0's bytes as its preset
 * dictionary (zlib's `dictionary` option), so its first blocks still find the addresses, Remasc logs and zero runs
 * that consecutive blocks repeat. Measured on chunks of transfer blocks: a whole 256 KB chunk compresses 3.50×,
 * 32 KB segments with the first block as dictionary 3.39× (3.25× without a dictionary; a larger dictionary gains
 * nothing), 64 KB segments 3.45×; a block read inflates segment 0 (~2-5 µs) and its segment (~30 µs) instead of
 * the chunk (~190-240 µs), and reading every segment of a chunk costs about what the whole chunk did.
 *
 * The compressed bytes are the segments back to back; `ends[k]` is where segment k ends in them.
 */
import { deflateRaw, inflateRawSync, type ZlibOptions } from 'node:zlib'
import { promisify } from 'node:util'

/**
 * Raw bytes of a segment, at least (it ends at the first block boundary past this many bytes after its start).
 * See the module documentation for the measurements behind the size.
 */
export const SEGMENT_BYTES = 32 * 1024

/** zlib keeps a window of this many bytes: a longer dictionary is used by its last 32 KB only. */
const WINDOW = 32 * 1024

/** Node's Buffer.allocUnsafe serves sizes below this from its shared pool (half of Buffer.poolSize). */
const SHARED_POOL_BELOW = Buffer.poolSize >>> 1

/**
 * zlib's deflateRaw as a promise, made on first use: the bundle loads node:zlib (and node:stream with it) only
 * when a property of it is first read (scripts/bundle.mjs LAZY_BUILTINS), and start-up compresses nothing.
 */
let deflateRawPromise: ((buf: Uint8Array, options: ZlibOptions) => Promise<Buffer>) | undefined
const deflateRawAsync = (buf: Uint8Array, options: ZlibOptions): Promise<Buffer> =>
  (deflateRawPromise ??= promisify(deflateRaw) as typeof deflateRawPromise & object)(buf, options)

/**
 * Where the segments of a chunk of `size` bytes start, after the first at 0 (ascending, each below `size`):
 * its cut list's entries below `size` when there are at least two (the first block, then at least one segment
 * more), else none (the chunk is a single segment).
 * @param cuts block boundaries chosen as segment starts ({@link nextCut})
 */
export function segmentStarts(cuts: readonly number[], size: number): number[] {
  const starts = cuts.filter((c) => c > 0 && c < size)
  return starts.length >= 2 ? starts : []
}

/**
 * Whether a block ending at `end` (bytes into its chunk) ends a segment, given the cuts so far: the first block
 * does, and then the first block to end at least `segmentBytes` after the last cut.
 */
export function isCut(cuts: readonly number[], end: number, segmentBytes: number): boolean {
  return cuts.length === 0 || end - cuts[cuts.length - 1]! >= segmentBytes
}

/** The cut list of a chunk whose blocks end at `ends` (ascending; {@link isCut} applied to each). */
export function cutsOf(ends: Iterable<number>, segmentBytes: number): number[] {
  const cuts: number[] = []
  for (const end of ends) if (isCut(cuts, end, segmentBytes)) cuts.push(end)
  return cuts
}

/** The dictionary of the segments after the first: the last {@link WINDOW} bytes of segment 0. */
function dictionaryOf(first: Uint8Array): Uint8Array {
  return first.length > WINDOW ? first.subarray(first.length - WINDOW) : first
}

/** A chunk compressed into segments: their deflated bytes back to back, and where each ends in them. */
export interface Segmented {
  bytes: Uint8Array
  ends: number[]
}

/**
 * Deflates `raw` cut at `starts` (from {@link segmentStarts}) on the thread pool, one segment after the other.
 * @param stillWanted asked after each segment: false stops the work (the bytes changed meanwhile)
 * @returns the segments, or undefined when stopped
 */
export async function deflateSegments(
  raw: Uint8Array,
  starts: readonly number[],
  level: number,
  stillWanted: () => boolean,
): Promise<Segmented | undefined> {
  const bounds = [0, ...starts, raw.length]
  const dictionary = dictionaryOf(raw.subarray(0, bounds[1]))
  const parts: Buffer[] = []
  const ends: number[] = []
  let at = 0
  for (let k = 0; k + 1 < bounds.length; k++) {
    const segment = raw.subarray(bounds[k], bounds[k + 1])
    const part = await deflateRawAsync(segment, k === 0 ? { level } : { level, dictionary })
    if (!stillWanted()) return undefined
    parts.push(part)
    at += part.length
    ends.push(at)
  }
  return { bytes: parts.length === 1 ? parts[0]! : Buffer.concat(parts, at), ends }
}

/**
 * Inflates segment `k` of a segmented chunk on this thread.
 * @param zipped the segments' bytes; @param ends where each ends in them
 * @param length the segment's raw length (bytes)
 * @param first segment 0's raw bytes (needed for k > 0)
 * @throws Error when the segment does not inflate to `length` bytes (the compressed bytes are damaged)
 */
export function inflateSegment(
  zipped: Uint8Array,
  ends: readonly number[],
  k: number,
  length: number,
  first?: Uint8Array,
): Uint8Array {
  const part = zipped.subarray(k === 0 ? 0 : ends[k - 1], ends[k])
  // an output buffer of the exact size: no concatenation of 16 KB pieces, and no larger buffer kept behind a view
  const options: ZlibOptions = { chunkSize: Math.max(64, length + 1) }
  if (k > 0) options.dictionary = dictionaryOf(first!)
  const out = inflateRawSync(part, options)
  if (out.length !== length)
    throw new Error(`a compressed block segment inflated to ${out.length} bytes, not ${length}`)
  // a short output is a view into Node's shared 8 KB buffer pool: copied, so a cached segment does not hold a slab
  return out.length < SHARED_POOL_BELOW ? new Uint8Array(out) : out
}
