/**
 * Key/value entries packed into large byte chunks (key ‖ value per entry) with a few numbers per entry beside them
 * (chunk, offset, lengths, rank), instead of two typed arrays and a pair per entry: the
 * entries of a large state file (a million storage cells) take about their own size in memory while they wait to
 * be sorted and built into a trie (src/unitrie/unitrie-bulk.ts).
 */

import { ChunkedBytes } from '../util/chunked-bytes.js'

/** Bytes per chunk (a larger entry gets a chunk of its own). */
const CHUNK_SIZE = 4 * 1024 * 1024
const EMPTY = new Uint8Array(0)

/** The sorted view of a batch that {@link EntryBatch.sortedUnique} gives (arrays indexed by entry number). */
export interface SortedEntries {
  /** Entry numbers in ascending key order, one per distinct key, without entries whose value is empty. */
  order: Uint32Array
  /** The chunks the keys and values are in. */
  chunks: readonly Uint8Array[]
  /** Per entry: its chunk, the offset of its key there, its key length; the value follows the key. */
  chunkOf: Uint32Array
  keyAt: Uint32Array
  keyLength: Uint32Array
  valueLength: Uint32Array
}

/** Entries in insertion order; a later entry with the same key wins, unless added with a lower rank. */
export class EntryBatch {
  /** The keys and values, appended (src/util/chunked-bytes.ts). */
  private readonly bytes: ChunkedBytes
  /** `bytes.chunks`, read by the sort's loops. */
  private readonly chunks: Uint8Array[]
  private n = 0
  private chunkOf = new Uint32Array(1024)
  private keyAt = new Uint32Array(1024)
  private keyLength = new Uint32Array(1024)
  private valueLength = new Uint32Array(1024)
  private rank = new Uint8Array(1024)

  /**
   * @param chunkBytes bytes per chunk (default 4 MiB; an entry larger than this gets a chunk of its own size)
   * @throws RangeError when `chunkBytes` is not a positive integer
   */
  constructor(chunkBytes = CHUNK_SIZE) {
    this.bytes = new ChunkedBytes(chunkBytes)
    this.chunks = this.bytes.chunks
  }

  /** Number of entries added. */
  get length(): number {
    return this.n
  }

  /**
   * Adds an entry (the bytes are copied).
   * @param rank 0..255: of two entries with the same key the one of higher rank wins, then the later one
   */
  add(key: Uint8Array, value: Uint8Array, rank = 1): void {
    this.addJoined(key, EMPTY, value, rank)
  }

  /** {@link add} of the key `head ‖ tail` (without making it first). */
  addJoined(head: Uint8Array, tail: Uint8Array, value: Uint8Array, rank = 1): void {
    this.addSlice(head, tail, value, 0, value.length, rank)
  }

  /** {@link addJoined} of the value bytes [from, to) of `source` (without making a view of them). */
  addSlice(head: Uint8Array, tail: Uint8Array, source: Uint8Array, from: number, to: number, rank = 1): void {
    const keyLength = head.length + tail.length
    const valueLength = to - from
    const need = keyLength + valueLength
    if (this.n === this.keyAt.length) this.grow()
    const at = this.bytes.reserve(need)
    const c = this.bytes.chunk
    // (loops: TypedArray#set costs more on the short keys and values entries have)
    let p = at
    for (let k = 0; k < head.length; k++) c[p++] = head[k]!
    for (let k = 0; k < tail.length; k++) c[p++] = tail[k]!
    if (valueLength > 64) c.set(source.subarray(from, to), p)
    else for (let k = from; k < to; k++) c[p++] = source[k]!
    const i = this.n++
    this.chunkOf[i] = this.bytes.last
    this.keyAt[i] = at
    this.keyLength[i] = keyLength
    this.valueLength[i] = valueLength
    this.rank[i] = rank
  }

  /** Entry `i`'s key (a view: do not mutate or keep beyond the batch). */
  key(i: number): Uint8Array {
    const at = this.keyAt[i]!
    return this.chunks[this.chunkOf[i]!]!.subarray(at, at + this.keyLength[i]!)
  }

  /** Entry `i`'s value (a view, as {@link key}). */
  value(i: number): Uint8Array {
    const at = this.keyAt[i]! + this.keyLength[i]!
    return this.chunks[this.chunkOf[i]!]!.subarray(at, at + this.valueLength[i]!)
  }

  /** The entries in insertion order, as copies (rank ignored). */
  *entries(): Generator<[Uint8Array, Uint8Array]> {
    for (let i = 0; i < this.n; i++) yield [this.key(i).slice(), this.value(i).slice()]
  }

  private grow(): void {
    const size = this.keyAt.length * 2
    const more = <T extends Uint32Array | Uint8Array>(a: T, make: (n: number) => T): T => {
      const b = make(size)
      b.set(a)
      return b
    }
    const u32 = (n: number) => new Uint32Array(n)
    this.chunkOf = more(this.chunkOf, u32)
    this.keyAt = more(this.keyAt, u32)
    this.keyLength = more(this.keyLength, u32)
    this.valueLength = more(this.valueLength, u32)
    this.rank = more(this.rank, (n) => new Uint8Array(n))
  }

  /**
   * Compares the keys of entries i and j (bytewise, a prefix first), from byte `from` on (the bytes before are
   * known to be equal, a missing byte counting as 0).
   */
  private compareKeys(i: number, j: number, from = 0): number {
    const a = this.chunks[this.chunkOf[i]!]!
    const b = this.chunks[this.chunkOf[j]!]!
    const li = this.keyLength[i]!
    const lj = this.keyLength[j]!
    let p = this.keyAt[i]! + from
    let q = this.keyAt[j]! + from
    const end = this.keyAt[i]! + Math.min(li, lj)
    for (; p < end; p++, q++) {
      const d = a[p]! - b[q]!
      if (d !== 0) return d
    }
    return li - lj
  }

  /** The first byte at or after `from` where the keys of entries i and j differ (or the shorter one ends). */
  private commonPrefix(i: number, j: number, from: number): number {
    const a = this.chunks[this.chunkOf[i]!]!
    const b = this.chunks[this.chunkOf[j]!]!
    const p = this.keyAt[i]!
    const q = this.keyAt[j]!
    const end = Math.min(this.keyLength[i]!, this.keyLength[j]!)
    let k = from
    while (k < end && a[p + k] === b[q + k]) k++
    return k
  }

  /** The entries sorted by key, the winner of each key only (see {@link SortedEntries}). */
  sortedUnique(): SortedEntries {
    const n = this.n
    // Radix sort (stable, three 16-bit digits) on the first six key bytes, then a comparison sort of each run of
    // equal heads only (the cells of one account): a comparison sort of a million keys cost seconds.
    const head = new Float64Array(n)
    const digits = [new Uint16Array(n), new Uint16Array(n), new Uint16Array(n)] as const
    for (let i = 0; i < n; i++) {
      const c = this.chunks[this.chunkOf[i]!]!
      const at = this.keyAt[i]!
      const len = this.keyLength[i]!
      const byte = (k: number): number => (k < len ? c[at + k]! : 0)
      digits[2][i] = (byte(0) << 8) | byte(1)
      digits[1][i] = (byte(2) << 8) | byte(3)
      digits[0][i] = (byte(4) << 8) | byte(5)
      head[i] = digits[2][i]! * 2 ** 32 + digits[1][i]! * 65536 + digits[0][i]!
    }
    let all = new Uint32Array(n)
    for (let i = 0; i < n; i++) all[i] = i
    let spare = new Uint32Array(n)
    const count = new Uint32Array(65537)
    for (const digit of digits) {
      count.fill(0)
      for (let i = 0; i < n; i++) count[digit[i]! + 1]!++
      for (let k = 0; k < 65536; k++) count[k + 1]! += count[k]!
      for (let k = 0; k < n; k++) {
        const e = all[k]!
        spare[count[digit[e]!]!++] = e
      }
      ;[all, spare] = [spare, all]
    }
    // (within a run the first six bytes are equal)
    // a run's keys share more than their six bytes (an account's key): compared from where they can differ
    let from = 6
    const compare = (i: number, j: number): number =>
      this.compareKeys(i, j, from) || this.rank[i]! - this.rank[j]! || i - j
    for (let a = 0; a < n;) {
      let b = a + 1
      while (b < n && head[all[b]!] === head[all[a]!]) b++
      from = 6
      if (b - a > 1) {
        from = Number.MAX_SAFE_INTEGER
        for (let k = a + 1; k < b; k++) from = Math.min(from, this.commonPrefix(all[a]!, all[k]!, 6))
      }
      if (b - a > 32) all.subarray(a, b).sort(compare)
      else {
        // insertion sort: the runs are short (an account's entries), a library sort call costs more
        for (let k = a + 1; k < b; k++) {
          const e = all[k]!
          let p = k - 1
          while (p >= a && compare(all[p]!, e) > 0) {
            all[p + 1] = all[p]!
            p--
          }
          all[p + 1] = e
        }
      }
      a = b
    }
    const order = new Uint32Array(this.n)
    let m = 0
    for (let k = 0; k < all.length; k++) {
      const i = all[k]!
      const next = all[k + 1]
      if (next !== undefined && head[i] === head[next] && this.compareKeys(i, next, 6) === 0) continue
      if (this.valueLength[i] === 0) continue
      order[m++] = i
    }
    return {
      order: order.subarray(0, m),
      chunks: this.chunks,
      chunkOf: this.chunkOf,
      keyAt: this.keyAt,
      keyLength: this.keyLength,
      valueLength: this.valueLength,
    }
  }
}
