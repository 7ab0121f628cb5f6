/**
 * Building a whole Unitrie from its entries in one pass: sorted keys, each node serialized bottom-up once, straight
 * from the keys' bytes, and its message stored in a packed {@link ArenaTrieStore} — no node object is made. The
 * trie's shape depends only on its key set, so the result (and its root hash) is the one that putting the same
 * entries one by one gives; its nodes are decoded into objects only when a later read or write reaches them.
 * Loading a state file of a million cells this way costs about the state's serialized size in memory, instead of
 * an object graph of ~1.4 KB per entry. Node layout: docs/reference-rules.md#rule-unitrie-node (RSKIP107).
 */
import { keccak256 } from '../crypto/keccak.js'
import { EntryBatch, type SortedEntries } from './entry-batch.js'
import { ArenaTrieStore } from './trie-arena.js'
import {
  FLAG_LEFT,
  FLAG_LEFT_EMBEDDED,
  FLAG_LONG_VALUE,
  FLAG_RIGHT,
  FLAG_RIGHT_EMBEDDED,
  FLAG_SHARED_PATH,
  FLAG_VERSION,
  EMBEDDED_LENGTH_SIZE,
  FLAGS_SIZE,
  HASH_SIZE,
  LONG_VALUE_SIZE,
  MAX_EMBEDDED_NODE_SIZE,
  MAX_SHORT_VALUE_LENGTH,
  MAX_VALUE_LENGTH,
  PATH_LONG_MAX_BITS,
  PATH_LONG_MIN_BITS,
  PATH_LONG_OFFSET,
  PATH_SHORT_MAX_BITS,
  PATH_VARINT_MARKER,
  sharedPathSerializedLength,
  varIntSize,
  writeVarInt,
} from './unitrie-codec.js'
import { Unitrie } from './unitrie.js'
import { throttleProgress, type ProgressListener } from '../util/progress.js'

/** Entries built between two progress reports of {@link unitrieFromBatch} (each costs a clock read). */
const ENTRIES_PER_REPORT = 4096

/**
 * The trie holding `entries` (a later entry wins over an earlier one with the same key; an empty value means no
 * entry), as {@link Unitrie.fromEntries} would give it.
 * @param entries [key, value] pairs (copied)
 */
export function unitrieFromEntries(entries: Iterable<readonly [Uint8Array, Uint8Array]>): Unitrie {
  const batch = new EntryBatch()
  for (const [k, v] of entries) batch.add(k, v)
  return unitrieFromBatch(batch)
}

/**
 * The trie holding a batch's winning entries (see {@link EntryBatch}), its nodes in a new {@link ArenaTrieStore}
 * (the returned trie's store).
 * @param onProgress receives the steps (throttled): `sorting entries` (the batch's entry count as `total`), then
 *   `building the state trie` (entries built of the distinct entries, every {@link ENTRIES_PER_REPORT} entries)
 * @throws Error when a value is longer than 16 777 215 bytes
 */
export function unitrieFromBatch(batch: EntryBatch, onProgress?: ProgressListener): Unitrie {
  const report = onProgress && throttleProgress(onProgress)
  report?.({ phase: 'sorting entries', total: batch.length, unit: 'entries' })
  const sorted = batch.sortedUnique()
  const arena = new ArenaTrieStore(sorted.order.length)
  if (sorted.order.length === 0) return Unitrie.empty(arena)
  const total = sorted.order.length
  const built = report && ((done: number) => report({ phase: 'building the state trie', done, total, unit: 'entries' }))
  built?.(0)
  const root = new Builder(sorted, arena, built).build(0, total, 0, true)
  return Unitrie.fromRootHash(root.hash!, arena)
}

/** What a parent needs of a built child: its message when embedded, else its hash, and its reference size. */
interface Built {
  embedded: Uint8Array | undefined
  hash: Uint8Array | undefined
  /** NodeReference.referenceSize: children size + external long value length + message length. */
  size: number
}

class Builder {
  private scratch = new Uint8Array(256)
  /** Entries (nodes with a value) built so far, counted only when {@link onBuilt} is set. */
  private built = 0

  constructor(
    private readonly s: SortedEntries,
    private readonly arena: ArenaTrieStore,
    /** Told the number of entries built, every {@link ENTRIES_PER_REPORT}. */
    private readonly onBuilt?: (entries: number) => void,
  ) {}

  /** Bit `d` of entry `e`'s key (0 = most significant bit of its first byte). */
  private bit(e: number, d: number): number {
    const s = this.s
    return (s.chunks[s.chunkOf[e]!]![s.keyAt[e]! + (d >> 3)]! >> (7 - (d & 7))) & 1
  }

  /** The first bit at or after `d` (below `end`) where the keys of entries e and f differ, or `end`. */
  private divergence(e: number, f: number, d: number, end: number): number {
    const s = this.s
    const a = s.chunks[s.chunkOf[e]!]!
    const b = s.chunks[s.chunkOf[f]!]!
    const p = s.keyAt[e]!
    const q = s.keyAt[f]!
    while (d < end && (d & 7) !== 0) {
      if (this.bit(e, d) !== this.bit(f, d)) return d
      d++
    }
    while (d + 8 <= end && a[p + (d >> 3)] === b[q + (d >> 3)]) d += 8
    while (d < end && this.bit(e, d) === this.bit(f, d)) d++
    return d
  }

  /** Builds the node of the sorted entries [lo, hi), whose keys share their first `depth` bits. */
  build(lo: number, hi: number, depth: number, isRoot: boolean): Built {
    const s = this.s
    const first = s.order[lo]!
    const last = s.order[hi - 1]!
    const end = Math.min(s.keyLength[first]!, s.keyLength[last]!) * 8
    const d = this.divergence(first, last, depth, end)
    let start = lo
    const hasValue = s.keyLength[first]! * 8 === d
    if (hasValue) {
      start++ // a key ending here: sorted first, it is a prefix of the others
      if (this.onBuilt !== undefined && ++this.built % ENTRIES_PER_REPORT === 0) this.onBuilt(this.built)
    }
    let left: Built | undefined
    let right: Built | undefined
    if (start < hi) {
      // the keys with bit d = 1 follow those with 0: find the first of them
      let a = start
      let b = hi
      while (a < b) {
        const m = (a + b) >> 1
        if (this.bit(s.order[m]!, d) === 0) a = m + 1
        else b = m
      }
      if (a > start) left = this.build(start, a, d + 1, false)
      if (a < hi) right = this.build(a, hi, d + 1, false)
    }
    return this.node(first, depth, d, hasValue, left, right, isRoot)
  }

  /** Serializes a node (TrieNode.message's layout) and stores it unless a parent embeds it. */
  private node(
    e: number,
    from: number,
    to: number,
    hasValue: boolean,
    left: Built | undefined,
    right: Built | undefined,
    isRoot: boolean,
  ): Built {
    const s = this.s
    const valueLength = hasValue ? s.valueLength[e]! : 0
    if (valueLength > MAX_VALUE_LENGTH) throw new Error(`Unitrie: value too long (${valueLength} bytes)`)
    const long = valueLength > MAX_SHORT_VALUE_LENGTH
    const terminal = !left && !right
    const childrenSize = (left?.size ?? 0) + (right?.size ?? 0)
    const bits = to - from
    const length =
      FLAGS_SIZE +
      sharedPathSerializedLength(bits) +
      childLength(left) +
      childLength(right) +
      (terminal ? 0 : varIntSize(childrenSize)) +
      (long ? LONG_VALUE_SIZE : valueLength)
    if (this.scratch.length < length) this.scratch = new Uint8Array(length * 2)
    const out = this.scratch // every byte up to `length` is written below
    let flags = FLAG_VERSION
    if (long) flags |= FLAG_LONG_VALUE
    if (bits > 0) flags |= FLAG_SHARED_PATH
    if (left) flags |= FLAG_LEFT | (left.embedded ? FLAG_LEFT_EMBEDDED : 0)
    if (right) flags |= FLAG_RIGHT | (right.embedded ? FLAG_RIGHT_EMBEDDED : 0)
    out[0] = flags
    let pos = FLAGS_SIZE
    if (bits > 0) pos = this.writePath(out, pos, e, from, bits)
    pos = writeChild(out, pos, left)
    pos = writeChild(out, pos, right)
    if (!terminal) pos = writeVarInt(out, pos, childrenSize)
    const chunk = s.chunks[s.chunkOf[e]!]!
    const valueAt = s.keyAt[e]! + s.keyLength[e]!
    if (long) {
      const value = chunk.subarray(valueAt, valueAt + valueLength)
      const valueHash = keccak256(value)
      this.arena.put(valueHash, value)
      out.set(valueHash, pos)
      out[pos + HASH_SIZE] = (valueLength >>> 16) & 0xff
      out[pos + HASH_SIZE + 1] = (valueLength >>> 8) & 0xff
      out[pos + HASH_SIZE + 2] = valueLength & 0xff
      pos += LONG_VALUE_SIZE
    } else {
      // (a loop, not a view and TypedArray#set: values here are at most 32 bytes)
      for (let k = valueAt; k < valueAt + valueLength; k++) out[pos++] = chunk[k]!
    }
    if (pos !== length) throw new Error('Unitrie: internal size mismatch')
    const message = out.subarray(0, length)
    const size = childrenSize + (long ? valueLength : 0) + length
    // Trie.isEmbeddable: a terminal node of at most 44 bytes is embedded in its parent (the root never is)
    if (terminal && length <= MAX_EMBEDDED_NODE_SIZE && !isRoot)
      return { embedded: message.slice(), hash: undefined, size }
    const hash = keccak256(message)
    this.arena.put(hash, message)
    return { embedded: undefined, hash, size }
  }

  /** Writes the shared path: bits [from, from + bits) of entry `e`'s key (SharedPathSerializer layout). */
  private writePath(out: Uint8Array, pos: number, e: number, from: number, bits: number): number {
    if (bits <= PATH_SHORT_MAX_BITS) out[pos++] = bits - 1
    else if (bits >= PATH_LONG_MIN_BITS && bits <= PATH_LONG_MAX_BITS) out[pos++] = bits - PATH_LONG_OFFSET
    else {
      out[pos++] = PATH_VARINT_MARKER
      pos = writeVarInt(out, pos, bits)
    }
    const key = this.s.chunks[this.s.chunkOf[e]!]!
    const base = this.s.keyAt[e]! + (from >> 3)
    const shift = from & 7
    const bytes = (bits + 7) >> 3
    for (let j = 0; j < bytes; j++) {
      const hi = key[base + j]! << shift
      const lo = shift === 0 ? 0 : (key[base + j + 1] ?? 0) >> (8 - shift)
      out[pos + j] = (hi | lo) & 0xff
    }
    const rest = bits & 7
    if (rest !== 0) out[pos + bytes - 1]! &= (0xff << (8 - rest)) & 0xff
    return pos + bytes
  }
}

function childLength(c: Built | undefined): number {
  return c === undefined ? 0 : c.embedded ? EMBEDDED_LENGTH_SIZE + c.embedded.length : HASH_SIZE
}

function writeChild(out: Uint8Array, pos: number, c: Built | undefined): number {
  if (c === undefined) return pos
  if (c.embedded) {
    out[pos++] = c.embedded.length
    out.set(c.embedded, pos)
    return pos + c.embedded.length
  }
  out.set(c.hash!, pos)
  return pos + HASH_SIZE
}
