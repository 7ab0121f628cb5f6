/**
 * A packed, in-memory {@link TrieNodeStore}: node messages and long values are appended to large byte chunks,
 * each record as hash (32 B) ‖ uint32 length ‖ bytes, and found again through an open-addressing hash table of
 * record locations (one float64 per slot). A trie built into it (src/rsk/unitrie-bulk.ts) costs about its
 * serialized size plus ~50 B per stored node, instead of one object graph per node with a typed array per field;
 * nodes are decoded into objects only when a read or a write reaches them (src/rsk/unitrie.ts HashRef).
 *
 * Keys are Keccak-256 hashes (node hashes, value hashes: docs/reference-rules.md#rule-unitrie), so their first
 * four bytes index the table directly.
 */
import type { TrieNodeStore } from './unitrie.js'

/** Bytes per chunk (a record larger than this gets a chunk of its own). */
const CHUNK_SIZE = 8 * 1024 * 1024
/** A location is chunk × LOC_SPAN + offset; records never start past 2^25 within a chunk (values ≤ 16 MiB). */
const LOC_SPAN = 2 ** 25
const HEADER = 36

/** A {@link TrieNodeStore} holding its records in packed chunks (see the module comment). */
export class ArenaTrieStore implements TrieNodeStore {
  private readonly chunks: Uint8Array[] = []
  private chunk: Uint8Array = new Uint8Array(0)
  private used = 0
  /** Open-addressing table: record location + 1, 0 = free. */
  private table = new Float64Array(1 << 12)
  private count = 0

  /** Number of records (nodes and long values). */
  get size(): number {
    return this.count
  }

  /** Bytes held by the chunks and the table (for measurements). */
  get byteSize(): number {
    let n = this.table.byteLength
    for (const c of this.chunks) n += c.byteLength
    return n
  }

  get(hash: Uint8Array): Uint8Array | undefined {
    const loc = this.find(hash)
    if (loc < 0) return undefined
    const c = this.chunks[Math.floor(loc / LOC_SPAN)]!
    const at = loc % LOC_SPAN
    const len = c[at + 32]! | (c[at + 33]! << 8) | (c[at + 34]! << 16) | (c[at + 35]! << 24)
    return c.subarray(at + HEADER, at + HEADER + len)
  }

  put(hash: Uint8Array, data: Uint8Array): void {
    if (this.find(hash) >= 0) return
    const at = this.reserve(hash, data.length)
    this.chunk.set(data, at + HEADER)
  }

  private reserve(hash: Uint8Array, length: number): number {
    const need = HEADER + length
    if (this.used + need > this.chunk.length) {
      this.chunk = new Uint8Array(Math.max(CHUNK_SIZE, need))
      this.chunks.push(this.chunk)
      this.used = 0
    }
    const at = this.used
    const c = this.chunk
    c.set(hash.subarray(0, 32), at)
    c[at + 32] = length & 0xff
    c[at + 33] = (length >>> 8) & 0xff
    c[at + 34] = (length >>> 16) & 0xff
    c[at + 35] = (length >>> 24) & 0xff
    this.used += need
    if ((this.count + 1) * 2 > this.table.length) this.grow()
    this.insert(hash, (this.chunks.length - 1) * LOC_SPAN + at)
    this.count++
    return at
  }

  private slotOf(hash: Uint8Array, mask: number): number {
    return (hash[0]! | (hash[1]! << 8) | (hash[2]! << 16) | (hash[3]! << 24)) & mask
  }

  private insert(hash: Uint8Array, loc: number): void {
    const t = this.table
    const mask = t.length - 1
    let i = this.slotOf(hash, mask)
    while (t[i] !== 0) i = (i + 1) & mask
    t[i] = loc + 1
  }

  private grow(): void {
    const old = this.table
    this.table = new Float64Array(old.length * 2)
    for (let i = 0; i < old.length; i++) {
      const v = old[i]!
      if (v === 0) continue
      const loc = v - 1
      const c = this.chunks[Math.floor(loc / LOC_SPAN)]!
      const at = loc % LOC_SPAN
      this.insert(c.subarray(at, at + 32), loc)
    }
  }

  /** The record location of `hash`, or -1. */
  private find(hash: Uint8Array): number {
    if (hash.length !== 32) return -1
    const t = this.table
    const mask = t.length - 1
    let i = this.slotOf(hash, mask)
    for (;;) {
      const v = t[i]!
      if (v === 0) return -1
      const loc = v - 1
      const c = this.chunks[Math.floor(loc / LOC_SPAN)]!
      const at = loc % LOC_SPAN
      let k = 0
      while (k < 32 && c[at + k] === hash[k]) k++
      if (k === 32) return loc
      i = (i + 1) & mask
    }
  }
}
