/**
 * Bytes appended into fixed-size chunks, addressed by chunk index and offset: the allocation rule that the node's
 * large in-memory byte stores share — the entries of a state file waiting to be sorted (src/unitrie/entry-batch.ts)
 * and the packed trie store's records (src/unitrie/trie-arena.ts).
 *
 * A write reserves room at the end of the chunk being filled; when it does not fit, a new chunk opens (of the
 * regular size, or of the write's own size when that is larger) and the rest of the full one stays unused, so a
 * write never straddles two chunks and a reserved range is one contiguous view. Chunks are never moved or grown,
 * so offsets stay valid until {@link ChunkedBytes.clear}. Why chunks and not one buffer grown by doubling: a copy
 * of everything on each doubling, twice the memory during it, and a single ArrayBuffer is capped (2-4 GiB); large
 * chunks are also mapped on their own by glibc (src/state/packed-states.ts explains the size that needs).
 *
 * The stores that keep their own chunk handling say why in their docstrings: the block chunks compress, replace and
 * truncate single chunks (src/blocks/block-chunks.ts), the compressed-chunk arenas drop arenas from the middle
 * (src/blocks/zipped-arenas.ts), and a state file's JSON output hands its buffer away whole
 * (src/state-file/json-bytes.ts).
 *
 * Hot loops read {@link ChunkedBytes.chunk} and {@link ChunkedBytes.chunks} directly (fields, not methods): the
 * trie store writes and reads millions of short records through them.
 */

const EMPTY = new Uint8Array(0)

/** See the module documentation. */
export class ChunkedBytes {
  /** The chunks in the order they opened; chunk `i` is `chunks[i]`, the last one is being filled. */
  readonly chunks: Uint8Array[] = []
  /** The chunk being filled (the last of {@link chunks}; an empty array before the first write). */
  chunk: Uint8Array = EMPTY
  /** Bytes reserved in {@link chunk}. */
  used = 0

  /**
   * @param chunkBytes size of a regular chunk, bytes (a larger write gets a chunk of its own size)
   * @param maxChunks the most chunks it may hold (an address format with a fixed number of chunk bits)
   * @param owner the store's name, in the error raised when it is full
   * @throws RangeError when `chunkBytes` is not a positive integer
   */
  constructor(
    readonly chunkBytes: number,
    private readonly maxChunks = Number.POSITIVE_INFINITY,
    private readonly owner = 'ChunkedBytes',
  ) {
    if (!(Number.isInteger(chunkBytes) && chunkBytes > 0)) throw new RangeError(`chunk size ${chunkBytes}`)
  }

  /** The index of the chunk being filled (−1 before the first write). */
  get last(): number {
    return this.chunks.length - 1
  }

  /**
   * Reserves `n` bytes at the end of the chunk being filled, opening a new chunk when they do not fit; the caller
   * writes them into {@link chunk} (whose index is then {@link last}).
   * @param n bytes to reserve (0 or more)
   * @returns the offset of the reserved bytes in {@link chunk}
   * @throws Error `<owner>: full` when a new chunk is needed and `maxChunks` are held
   */
  reserve(n: number): number {
    // (an empty write before the first chunk opens one too: its address must name a chunk)
    if (this.used + n > this.chunk.length || this.chunks.length === 0) this.open(n)
    const at = this.used
    this.used += n
    return at
  }

  /**
   * Copies bytes [from, to) of `source` to the end (as {@link reserve} plus a copy).
   * @returns the offset of the copy in chunk {@link last}
   */
  append(source: Uint8Array, from = 0, to = source.length): number {
    const at = this.reserve(to - from)
    this.chunk.set(source.subarray(from, to), at)
    return at
  }

  /** A view of bytes [from, to) of chunk `index` (not a copy: it changes only after {@link clear}). */
  view(index: number, from: number, to: number): Uint8Array {
    return this.chunks[index]!.subarray(from, to)
  }

  /** Bytes held by the chunks (used or not). */
  get byteSize(): number {
    let n = 0
    for (const c of this.chunks) n += c.byteLength
    return n
  }

  /**
   * Forgets every byte written. The first chunk is kept for the next writes when it is of the regular size (a store
   * emptied and refilled over and over allocates nothing after its first fill); views of it made before are
   * overwritten by those writes.
   */
  clear(): void {
    const first = this.chunks[0]
    this.chunks.length = 0
    this.chunk = EMPTY
    if (first !== undefined && first.length === this.chunkBytes) this.chunks.push((this.chunk = first))
    this.used = 0
  }

  private open(n: number): void {
    if (this.chunks.length >= this.maxChunks) throw new Error(`${this.owner}: full`)
    this.chunk = new Uint8Array(Math.max(this.chunkBytes, n))
    this.chunks.push(this.chunk)
    this.used = 0
  }
}
