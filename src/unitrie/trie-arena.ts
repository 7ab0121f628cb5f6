/**
 * A packed, in-memory {@link TrieNodeStore}: node messages and long values are appended to large byte chunks,
 * each record as hash (32 B) ‖ uint32 length ‖ bytes, and found again through an open-addressing hash table of
 * record locations (8 B per slot, at most half full). A trie built into it (src/unitrie/unitrie-bulk.ts) costs about
 * its serialized size plus ~50 B per stored node, instead of one object graph per node with a typed array per field;
 * nodes are decoded into objects only when a read or a write reaches them (src/unitrie/unitrie-node.ts HashRef).
 *
 * Keys are Keccak-256 hashes (node hashes, value hashes: docs/reference-rules.md#rule-unitrie-node), so their first
 * 30 bits (src/util/hash-prefix.ts) index the table directly. The chunks are src/util/chunked-bytes.ts; the table
 * stays this file's own (not src/blocks/hash-prefix-index.ts): its keys are the 32-byte hashes inside the records,
 * compared in place after a 16-bit tag, and it has no delete.
 */
import type { TrieNodeStore } from './unitrie-store.js'
import { ChunkedBytes } from '../util/chunked-bytes.js'
import { hashPrefix } from '../util/hash-prefix.js'

/** Bytes per chunk (a record larger than this gets a chunk of its own). */
const CHUNK_SIZE = 8 * 1024 * 1024
/**
 * A location is chunk × LOC_SPAN + offset; records never start past 2^26 within a chunk (chunks are at most that
 * large; a record larger than a chunk gets a chunk of its own, starting at 0).
 */
const LOC_SPAN = 2 ** 26
const HEADER = 36

/** A 16-bit tag of a hash (bytes 4 and 5) kept beside its table slot: most probes need not read the record. */
function tagOf(hash: Uint8Array, at = 0): number {
  return hash[at + 4]! | (hash[at + 5]! << 8)
}

/** A {@link TrieNodeStore} holding its records in packed chunks (see the module comment). */
export class ArenaTrieStore implements TrieNodeStore {
  /** The records, appended (src/util/chunked-bytes.ts; the record layout and locations are this file's). */
  private readonly bytes: ChunkedBytes
  /** `bytes.chunks` (read in the probe loop). */
  private readonly chunks: Uint8Array[]
  /**
   * Open-addressing table (linear probing, at most half full), a slot being two adjacent integers (8 bytes, one
   * cache line read per probe): the record's offset in its chunk + 1 (0 = free), then its chunk (low 16 bits)
   * and the hash's tag (high 16 bits).
   */
  private slots: Uint32Array
  private count = 0
  private records = 0

  /**
   * @param expected how many records are about to be stored (sizes the table once)
   * @param chunkBytes bytes per chunk, at most 64 MiB (default 8 MiB; a record larger than this gets a chunk of its
   *   own)
   */
  constructor(expected = 0, chunkBytes = CHUNK_SIZE) {
    if (!(chunkBytes > 0 && chunkBytes <= LOC_SPAN)) throw new RangeError(`ArenaTrieStore: chunk size ${chunkBytes}`)
    this.bytes = new ChunkedBytes(chunkBytes, 0xffff, 'ArenaTrieStore')
    this.chunks = this.bytes.chunks
    let size = 1 << 12
    while (size < expected * 2) size *= 2
    this.slots = new Uint32Array(size * 2)
  }

  /** Number of records (nodes and long values). */
  get size(): number {
    return this.count
  }

  /** Bytes of the records stored (hash, length and bytes of each), not counting unused chunk space or the table. */
  get recordBytes(): number {
    return this.records
  }

  /** Bytes held by the chunks and the table (for measurements). */
  get byteSize(): number {
    return this.slots.byteLength + this.bytes.byteSize
  }

  get(hash: Uint8Array): Uint8Array | undefined {
    if (hash.length !== 32) return undefined
    const slot = this.probe(hash, 0)
    const off = this.slots[slot]!
    if (off === 0) return undefined
    const c = this.chunks[this.slots[slot + 1]! & 0xffff]!
    const at = off - 1
    const len = c[at + 32]! | (c[at + 33]! << 8) | (c[at + 34]! << 16) | (c[at + 35]! << 24)
    return c.subarray(at + HEADER, at + HEADER + len)
  }

  put(hash: Uint8Array, data: Uint8Array): void {
    if (hash.length !== 32) throw new Error('ArenaTrieStore: keys are 32-byte hashes')
    if ((this.count + 1) * 4 > this.slots.length) this.grow()
    const slot = this.probe(hash, 0)
    if (this.slots[slot] !== 0) return
    const need = HEADER + data.length
    const at = this.bytes.reserve(need)
    const c = this.bytes.chunk
    for (let k = 0; k < 32; k++) c[at + k] = hash[k]!
    const length = data.length
    c[at + 32] = length & 0xff
    c[at + 33] = (length >>> 8) & 0xff
    c[at + 34] = (length >>> 16) & 0xff
    c[at + 35] = (length >>> 24) & 0xff
    // (a loop beats TypedArray#set on the short messages most records are)
    if (length <= 128) for (let k = 0; k < length; k++) c[at + HEADER + k] = data[k]!
    else c.set(data, at + HEADER)
    this.records += need
    this.slots[slot] = at + 1
    this.slots[slot + 1] = this.bytes.last | (tagOf(hash) << 16)
    this.count++
  }

  /**
   * Forgets every record and keeps the memory for the next ones: the table at its grown size and the first chunk
   * (when it is of the regular size), so a store emptied and refilled over and over allocates nothing after its
   * first fill. Views returned by {@link get} before the call must no longer be read (their bytes get overwritten).
   */
  clear(): void {
    this.slots.fill(0)
    this.bytes.clear()
    this.count = 0
    this.records = 0
  }

  /**
   * The location of the record whose hash is bytes [at, at + 32) of `bytes`, or −1: a lookup that makes no view
   * (read the record with {@link chunkOf}, {@link startOf}, {@link endOf}).
   */
  locate(bytes: Uint8Array, at: number): number {
    const slot = this.probe(bytes, at)
    const off = this.slots[slot]!
    return off === 0 ? -1 : (this.slots[slot + 1]! & 0xffff) * LOC_SPAN + off - 1
  }

  /** The chunk holding the record at `loc` (from {@link locate}). */
  chunkOf(loc: number): Uint8Array {
    return this.chunks[Math.floor(loc / LOC_SPAN)]!
  }

  /** Where the record's bytes start in its chunk. */
  startOf(loc: number): number {
    return (loc % LOC_SPAN) + HEADER
  }

  /** Where the record's bytes end in its chunk. */
  endOf(loc: number): number {
    const c = this.chunkOf(loc)
    const at = loc % LOC_SPAN
    return at + HEADER + (c[at + 32]! | (c[at + 33]! << 8) | (c[at + 34]! << 16) | (c[at + 35]! << 24))
  }

  /**
   * The slot (the index of its first integer) holding the hash at bytes [from, from + 32) of `hash`, or the
   * free slot where it would go.
   */
  private probe(hash: Uint8Array, from: number): number {
    const slots = this.slots
    const mask = slots.length - 2
    const tag = tagOf(hash, from)
    let i = (hashPrefix(hash, from) << 1) & mask
    for (;;) {
      const off = slots[i]!
      if (off === 0) return i
      const info = slots[i + 1]!
      if (info >>> 16 === tag) {
        const c = this.chunks[info & 0xffff]!
        const at = off - 1
        let k = 0
        while (k < 32 && c[at + k] === hash[from + k]) k++
        if (k === 32) return i
      }
      i = (i + 2) & mask
    }
  }

  private grow(): void {
    const old = this.slots
    const slots = (this.slots = new Uint32Array(old.length * 2))
    const mask = slots.length - 2
    for (let i = 0; i < old.length; i += 2) {
      const off = old[i]!
      if (off === 0) continue
      let j = (hashPrefix(this.chunks[old[i + 1]! & 0xffff]!, off - 1) << 1) & mask
      while (slots[j] !== 0) j = (j + 2) & mask
      slots[j] = off
      slots[j + 1] = old[i + 1]!
    }
  }
}
