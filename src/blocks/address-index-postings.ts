/**
 * Postings lists: a fixed-length byte key (a 20-byte address, or a 32-byte topic for a later log index) → the
 * ascending numbers filed under it (packed transaction positions, src/blocks/tx-position-key.ts), appended in
 * nondecreasing group order (a group is a block number) and rolled back group by group. The storage of the address
 * index (src/blocks/address-index.ts), generic over the key length at no cost.
 *
 * Layout, all in typed arrays (nothing per key or per entry that the GC traces):
 * - keys get dense ids in the order they first appear; key `id`'s bytes are `keyBytes[id × K, (id + 1) × K)`, and a
 *   table (src/blocks/hash-prefix-index.ts) maps a 30-bit mix of the bytes to ids (addresses are not all hashes:
 *   the native contracts and precompiles share their first 16 bytes, so the mix reads every byte);
 * - numbers live in float64 slots of a pool of chunks of up to 1 MiB ({@link CHUNK_SLOTS} slots). A key's first
 *   {@link PAGE} numbers sit in one segment of 1, 2, 4 … 64 slots that moves to the next size when full; past
 *   {@link PAGE} they sit in pages of {@link PAGE} slots that never move, found through a directory (a segment of
 *   page addresses, growing the same way). A freed segment goes to the free list of its size and is reused by the
 *   next segment of that size (free room is at most the small segments a key outgrew: < 64 slots a key);
 * - a journal of the key id of every number added (in chunks of up to 256 KiB), and per group its first journal entry
 *   and the key count then: rolling back a group pops its numbers off their keys' ends and forgets the keys it created.
 *
 * A chunk (of the pool or of the journal) starts small and doubles, by a copy, until it reaches its full size; only
 * then does the next one open. An address (chunk × {@link CHUNK_SLOTS} + slot) stays valid through a copy. So a node
 * that has mined little holds little: with full-size chunks from the first number, a node's five postings (three in
 * the address index, two in the log index) allocated 6.25 MiB from its first block on (~1.5 MiB of it resident);
 * after the main bench's 2 000 transfers they now hold 0.6 MiB (heap snapshots).
 *
 * Memory (measured by bench/address-index.mjs): a number costs 8 B in its page plus 4 B of journal (a
 * short list: up to 2× slots); a key costs K bytes + 13 B of metadata + 16-32 B of table (and the arrays' doubling).
 */
import { HashPrefixIndex } from './hash-prefix-index.js'

/** Float64 slots of a full pool chunk (1 MiB). */
const CHUNK_SLOTS = 2 ** 17
/** Float64 slots of a new pool chunk (8 KiB); it doubles up to {@link CHUNK_SLOTS}. */
const FIRST_CHUNK_SLOTS = 2 ** 10
/** Size class of a page: a key holds its numbers past the first page in pages of 2^PAGE_CLASS slots. */
const PAGE_CLASS = 6
/** Slots of a page. */
export const PAGE = 2 ** PAGE_CLASS
/** Flag of a key's size class: its segment is a directory of pages (the low bits are the directory's class). */
const PAGED = 0x80
/** No free segment of a size class. */
const NONE = -1
/** Journal entries of a full journal chunk (256 KiB). */
const JOURNAL_CHUNK = 2 ** 16
/** Journal entries of a new journal chunk (4 KiB); it doubles up to {@link JOURNAL_CHUNK}. */
const FIRST_JOURNAL_CHUNK = 2 ** 10

/** `array` with room for at least `n` elements (itself when it has it, else a copy of at least twice its size). */
function grown<T extends Float64Array | Int32Array | Uint8Array>(array: T, n: number): T {
  if (n <= array.length) return array
  const copy = new (array.constructor as new (n: number) => T)(Math.max(n, array.length * 2, 16))
  copy.set(array)
  return copy
}

/**
 * A 30-bit mix of the bytes of `key` (FNV-1a over 32-bit words, then a final avalanche).
 * @param key the key bytes
 */
function mix(key: Uint8Array): number {
  let h = 0x811c9dc5 | 0
  let i = 0
  for (; i + 4 <= key.length; i += 4) {
    h = Math.imul(h ^ ((key[i]! << 24) | (key[i + 1]! << 16) | (key[i + 2]! << 8) | key[i + 3]!), 0x01000193)
  }
  for (; i < key.length; i++) h = Math.imul(h ^ key[i]!, 0x01000193)
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  return h & 0x3fffffff
}

/** A reader of one key's numbers, ascending: `at(i)` for i in 0 … count − 1. */
export interface PostingList {
  count: number
  at: (i: number) => number
}

const EMPTY_LIST: PostingList = { count: 0, at: () => Number.NaN }

/** See the module documentation. */
export class Postings {
  private readonly ids = new HashPrefixIndex()
  private keyBytes = new Uint8Array(0)
  /** Per key id: its segment (chunk × CHUNK_SLOTS + slot), numbers held, size class (with PAGED). */
  private segment = new Float64Array(0)
  private count = new Int32Array(0)
  private sizeClass = new Uint8Array(0)
  private keys = 0
  /** The pool's chunks; the last one is being filled (and may still grow). */
  private readonly views: Float64Array[] = []
  /** Slots taken in the last chunk. */
  private used = 0
  /** Per size class, the first free segment (its slot 0 holds the next one), or NONE. */
  private readonly free: number[] = []
  private readonly journal: Int32Array[] = []
  private entries = 0
  /** Per group added: its number, its first journal entry, the key count before it. */
  private groupNumber = new Float64Array(0)
  private groupStart = new Float64Array(0)
  private groupKeys = new Float64Array(0)
  private groups = 0

  /** @param keyLength bytes per key (20 for addresses, 32 for topics) */
  constructor(readonly keyLength: number) {
    if (!(Number.isInteger(keyLength) && keyLength > 0)) throw new RangeError(`key length ${keyLength}`)
  }

  /** Keys held. */
  get keyCount(): number {
    return this.keys
  }

  /** Numbers held, all keys together. */
  get size(): number {
    return this.entries
  }

  /** The group of the last number added (−1 when empty). */
  get lastGroup(): number {
    return this.groups === 0 ? -1 : this.groupNumber[this.groups - 1]!
  }

  /** Bytes held by its typed arrays (allocated, used or not), for memory reports. */
  get byteSize(): number {
    return (
      this.views.reduce((n, v) => n + v.byteLength, 0) +
      this.ids.byteSize +
      this.keyBytes.byteLength +
      this.segment.byteLength +
      this.count.byteLength +
      this.sizeClass.byteLength +
      this.journal.reduce((n, j) => n + j.byteLength, 0) +
      this.groupNumber.byteLength * 3
    )
  }

  /**
   * Files `value` under `key` in group `group`. A value equal to the key's last one is not filed twice.
   * @param key K bytes (copied when new)
   * @param value a number above the key's last one (or equal to it: ignored)
   * @param group the group (block number) it belongs to, at least the last one added
   * @returns whether it was filed
   * @throws RangeError for a key of another length, a value below the key's last one, or a group below the last
   */
  add(key: Uint8Array, value: number, group: number): boolean {
    if (key.length !== this.keyLength) throw new RangeError(`key of ${key.length} bytes, expected ${this.keyLength}`)
    if (group < this.lastGroup) throw new RangeError(`group ${group} after group ${this.lastGroup}`)
    let id = this.idOf(key)
    if (id >= 0 && this.count[id]! > 0) {
      const last = this.at(id, this.count[id]! - 1)
      if (value === last) return false
      if (!(value > last)) throw new RangeError(`value ${value} below the key's last value ${last}`)
    }
    if (group !== this.lastGroup) this.openGroup(group)
    if (id < 0) id = this.newKey(key)
    this.push(id, value)
    const e = this.entries++
    const j = Math.floor(e / JOURNAL_CHUNK)
    const at = e % JOURNAL_CHUNK
    let chunk = this.journal[j]
    if (chunk === undefined) this.journal.push((chunk = new Int32Array(FIRST_JOURNAL_CHUNK)))
    else if (at >= chunk.length) this.journal[j] = chunk = grown(chunk, Math.min(chunk.length * 2, JOURNAL_CHUNK))
    chunk[at] = id
    return true
  }

  /** Numbers filed under `key` (0 for an unknown key). */
  countOf(key: Uint8Array): number {
    const id = this.idOf(key)
    return id < 0 ? 0 : this.count[id]!
  }

  /** A reader of the numbers filed under `key`, valid until the next {@link add}, {@link truncateAbove} or clear. */
  list(key: Uint8Array): PostingList {
    const id = this.idOf(key)
    if (id < 0) return EMPTY_LIST
    const views = this.views
    const s = this.segment[id]!
    const view = views[Math.floor(s / CHUNK_SLOTS)]!
    const base = s % CHUNK_SLOTS
    if (this.sizeClass[id]! < PAGED) return { count: this.count[id]!, at: (i) => view[base + i]! }
    return {
      count: this.count[id]!,
      at: (i) => {
        const page = view[base + Math.floor(i / PAGE)]!
        return views[Math.floor(page / CHUNK_SLOTS)]![(page % CHUNK_SLOTS) + (i % PAGE)]!
      },
    }
  }

  /**
   * Forgets every number of the groups above `group` and the keys they introduced. Cost: proportional to the
   * numbers forgotten (plus a binary search over the groups), nothing per number kept.
   */
  truncateAbove(group: number): void {
    let lo = 0
    let hi = this.groups
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (this.groupNumber[mid]! > group) hi = mid
      else lo = mid + 1
    }
    if (lo === this.groups) return
    const start = this.groupStart[lo]!
    for (let e = this.entries - 1; e >= start; e--)
      this.pop(this.journal[Math.floor(e / JOURNAL_CHUNK)]![e % JOURNAL_CHUNK]!)
    const keep = this.groupKeys[lo]!
    for (let id = this.keys - 1; id >= keep; id--) {
      // (a key created in a forgotten group has lost every number: it holds a bare segment)
      this.ids.delete(mix(this.keyBytes.subarray(id * this.keyLength, (id + 1) * this.keyLength)), id)
      this.release(this.segment[id]!, this.sizeClass[id]!)
    }
    this.keys = keep
    this.entries = start
    this.journal.length = Math.ceil(start / JOURNAL_CHUNK)
    this.groups = lo
  }

  /**
   * Calls `visit` for every number held, in the order they were added (group by group), with its group and its
   * key's bytes (a view valid during the call). Cost: linear in the numbers held (a dump of the whole index).
   */
  forEachEntry(visit: (group: number, key: Uint8Array, value: number) => void): void {
    const next = new Int32Array(this.keys)
    const K = this.keyLength
    let g = -1
    for (let e = 0; e < this.entries; e++) {
      while (g + 1 < this.groups && this.groupStart[g + 1]! <= e) g++
      const id = this.journal[Math.floor(e / JOURNAL_CHUNK)]![e % JOURNAL_CHUNK]!
      visit(this.groupNumber[g]!, this.keyBytes.subarray(id * K, (id + 1) * K), this.at(id, next[id]!++))
    }
  }

  /** Forgets everything (all arrays are dropped; the next adds allocate afresh). */
  clear(): void {
    Object.assign(this, new Postings(this.keyLength))
  }

  /** Key `key`'s id, or −1. */
  private idOf(key: Uint8Array): number {
    const K = this.keyLength
    const bytes = this.keyBytes
    return this.ids.find(mix(key), (id) => {
      const at = id * K
      for (let i = 0; i < K; i++) if (bytes[at + i] !== key[i]) return false
      return true
    })
  }

  private newKey(key: Uint8Array): number {
    const id = this.keys++
    this.keyBytes = grown(this.keyBytes, this.keys * this.keyLength)
    this.keyBytes.set(key, id * this.keyLength)
    this.segment = grown(this.segment, this.keys)
    this.count = grown(this.count, this.keys)
    this.sizeClass = grown(this.sizeClass, this.keys)
    this.count[id] = 0
    this.sizeClass[id] = 0
    this.segment[id] = this.allocate(0)
    this.ids.add(mix(key), id)
    return id
  }

  private openGroup(group: number): void {
    const n = this.groups++
    this.groupNumber = grown(this.groupNumber, this.groups)
    this.groupStart = grown(this.groupStart, this.groups)
    this.groupKeys = grown(this.groupKeys, this.groups)
    this.groupNumber[n] = group
    this.groupStart[n] = this.entries
    this.groupKeys[n] = this.keys
  }

  /** Slot `i` of segment `s`. */
  private slot(s: number, i: number): number {
    return this.views[Math.floor(s / CHUNK_SLOTS)]![(s % CHUNK_SLOTS) + i]!
  }

  private setSlot(s: number, i: number, value: number): void {
    this.views[Math.floor(s / CHUNK_SLOTS)]![(s % CHUNK_SLOTS) + i] = value
  }

  /** Number `i` of key `id`. */
  private at(id: number, i: number): number {
    const s = this.segment[id]!
    if (this.sizeClass[id]! < PAGED) return this.slot(s, i)
    return this.slot(this.slot(s, Math.floor(i / PAGE)), i % PAGE)
  }

  /** Appends `value` to key `id`'s numbers. */
  private push(id: number, value: number): void {
    const n = this.count[id]!
    const c = this.sizeClass[id]!
    if (c < PAGED && n === 2 ** c) {
      if (c < PAGE_CLASS) {
        this.segment[id] = this.moved(this.segment[id]!, c, n, c + 1)
        this.sizeClass[id] = c + 1
      } else {
        // the full segment becomes page 0 of a directory of two
        const dir = this.allocate(1)
        this.setSlot(dir, 0, this.segment[id]!)
        this.segment[id] = dir
        this.sizeClass[id] = PAGED | 1
      }
    }
    if (this.sizeClass[id]! < PAGED) {
      this.setSlot(this.segment[id]!, n, value)
    } else {
      const p = Math.floor(n / PAGE)
      if (n % PAGE === 0) {
        const dc = this.sizeClass[id]! & ~PAGED
        if (p === 2 ** dc) {
          this.segment[id] = this.moved(this.segment[id]!, dc, p, dc + 1)
          this.sizeClass[id] = PAGED | (dc + 1)
        }
        this.setSlot(this.segment[id]!, p, this.allocate(PAGE_CLASS))
      }
      this.setSlot(this.slot(this.segment[id]!, p), n % PAGE, value)
    }
    this.count[id] = n + 1
  }

  /** Removes key `id`'s last number, freeing a page it empties (and the directory when one page is left). */
  private pop(id: number): void {
    const n = --this.count[id]!
    const c = this.sizeClass[id]!
    if (c < PAGED || n % PAGE !== 0) return
    const dir = this.segment[id]!
    this.release(this.slot(dir, n / PAGE), PAGE_CLASS)
    if (n === PAGE) {
      this.segment[id] = this.slot(dir, 0)
      this.sizeClass[id] = PAGE_CLASS
      this.release(dir, c & ~PAGED)
    }
  }

  /** A copy of the first `n` slots of segment `s` (class `c`) in a new segment of class `to`; `s` is freed. */
  private moved(s: number, c: number, n: number, to: number): number {
    const t = this.allocate(to)
    const src = this.views[Math.floor(s / CHUNK_SLOTS)]!
    const base = s % CHUNK_SLOTS
    this.views[Math.floor(t / CHUNK_SLOTS)]!.set(src.subarray(base, base + n), t % CHUNK_SLOTS)
    this.release(s, c)
    return t
  }

  /**
   * A segment of 2^c slots: a freed one of that class, else new room in the pool (the last chunk doubled when it
   * lacks room and is not full-size, else a new chunk; a segment never straddles two chunks, whose sizes are powers
   * of two like the segments').
   */
  private allocate(c: number): number {
    const head = this.free[c] ?? NONE
    if (head !== NONE) {
      this.free[c] = this.slot(head, 0)
      return head
    }
    const n = 2 ** c
    let last = this.views.length - 1
    if (last < 0 || this.used + n > CHUNK_SLOTS) {
      this.views.push(new Float64Array(FIRST_CHUNK_SLOTS))
      this.used = 0
      last++
    }
    const view = this.views[last]!
    if (this.used + n > view.length) this.views[last] = grown(view, Math.min(view.length * 2, CHUNK_SLOTS))
    const at = this.used
    this.used += n
    return last * CHUNK_SLOTS + at
  }

  private release(s: number, c: number): void {
    this.setSlot(s, 0, this.free[c] ?? NONE)
    this.free[c] = s
  }
}
