/**
 * The packed bulk build (src/unitrie/unitrie-bulk.ts into src/unitrie/trie-arena.ts, entries from src/unitrie/entry-batch.ts)
 * and the entry walk (src/unitrie/unitrie-walk.ts, behind Unitrie.entries): roots byte-exact with one-by-one puts on random key sets
 * (shared prefixes, keys that are prefixes of others, long values > 32 B, embedded leaves), reads, later puts and
 * deletes on an arena-backed trie, saving it to another store, and the arena (also with the packed states' chunks
 * of over 32 MiB) and batch themselves.
 */
import { describe, expect, it } from 'vitest'
import { keccak256 } from '../../src/crypto/keccak.js'
import { EntryBatch } from '../../src/unitrie/entry-batch.js'
import { ArenaTrieStore } from '../../src/unitrie/trie-arena.js'
import { MMAP_CHUNK_BYTES } from '../../src/util/mmap-chunk.js'
import { MemoryTrieNodeStore, Unitrie } from '../../src/unitrie/unitrie.js'
import { unitrieFromBatch, unitrieFromEntries } from '../../src/unitrie/unitrie-bulk.js'
import { copyReachable, ReachableCopy } from '../../src/unitrie/trie-arena-copy.js'
import { seededRandom } from '../helpers/seeded.js'

function bytes(r: (n: number) => number, n: number): Uint8Array {
  return Uint8Array.from({ length: n }, () => r(256))
}

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex')

/** Random entries: shared prefixes, prefix keys, values from 1 B (embedded leaves) to 100 B (long values). */
function randomEntries(seed: number, count: number): [Uint8Array, Uint8Array][] {
  const r = seededRandom(seed)
  const prefix = bytes(r, 40)
  const out: [Uint8Array, Uint8Array][] = []
  for (let i = 0; i < count; i++) {
    const shared = prefix.subarray(0, r(41))
    const key = Uint8Array.from([...shared, ...bytes(r, 1 + r(12))])
    const size = r(2) < 1 ? 1 + r(4) : 1 + r(100)
    out.push([key, bytes(r, size)])
    if (r(10) < 1) out.push([key.subarray(0, Math.max(1, key.length - 3)), bytes(r, 33 + r(40))])
  }
  return out
}

/** What a walk must give for `entries`, worked out without a trie: the last value per key, in key order. */
function referenceEntries(entries: [Uint8Array, Uint8Array][]): [Uint8Array, Uint8Array][] {
  const last = new Map<string, [Uint8Array, Uint8Array]>()
  for (const [k, v] of entries) last.set(hex(k), [k.slice(), v.slice()])
  return [...last.values()].filter(([, v]) => v.length > 0).sort(([a], [b]) => Buffer.compare(a, b))
}

/** Entries as `key:value` hex lines (cheap to compare). */
function lines(entries: Iterable<[Uint8Array, Uint8Array]>): string[] {
  return [...entries].map(([k, v]) => `${hex(k)}:${hex(v)}`)
}

describe('the packed bulk build', () => {
  it.each([3, 17, 2024])('gives the root and entries of one-by-one puts (seed %i)', (seed) => {
    const entries = randomEntries(seed, 600)
    const expected = Unitrie.fromEntries(entries)
    const built = unitrieFromEntries(entries)
    expect(built.store).toBeInstanceOf(ArenaTrieStore)
    expect(hex(built.hash())).toBe(hex(expected.hash()))
    const want = referenceEntries(entries)
    // the walk over stored messages (built) and over node objects (expected), whole and under prefixes
    expect([...built.entries()]).toEqual(want)
    expect([...expected.entries()]).toEqual(want)
    const all = lines(want)
    for (const [k] of want.slice(0, 12)) {
      for (const prefix of [k.subarray(0, 1), k.subarray(0, Math.ceil(k.length / 2)), k]) {
        const p = hex(prefix)
        const wanted = all.filter((line) => line.indexOf(':') >= p.length && line.startsWith(p))
        expect(lines(built.entries(prefix))).toEqual(wanted)
        expect(lines(expected.entries(prefix))).toEqual(wanted)
      }
    }
    for (const [k, v] of want) {
      expect(built.get(k)).toEqual(v)
      expect(built.getValueLength(k)).toBe(v.length)
      expect(hex(built.getValueHash(k)!)).toBe(hex(keccak256(v)))
    }
  })

  it('an arena trie takes puts and deletes like an in-memory one (same roots, walks mixed tries)', () => {
    const entries = randomEntries(77, 500)
    let a = unitrieFromEntries(entries)
    let b = Unitrie.fromEntries(entries)
    const r = seededRandom(78)
    for (let i = 0; i < 200; i++) {
      const [k] = entries[r(entries.length)]!
      if (r(10) < 4) {
        a = a.delete(k)
        b = b.delete(k)
      } else {
        const v = bytes(r, 1 + r(60))
        a = a.put(k, v)
        b = b.put(k, v)
      }
      if (i % 50 === 0) expect(hex(a.hash())).toBe(hex(b.hash()))
    }
    expect(hex(a.hash())).toBe(hex(b.hash()))
    expect([...a.entries()]).toEqual([...b.entries()])
  })

  it('saving an arena trie to another store copies every node and long value', () => {
    const entries = randomEntries(5, 300)
    const built = unitrieFromEntries(entries).put(entries[0]![0], bytes(seededRandom(6), 50))
    const store = new MemoryTrieNodeStore()
    const root = built.save(store)
    const reread = Unitrie.fromRootHash(root, store)
    expect(hex(reread.hash())).toBe(hex(built.hash()))
    expect([...reread.entries()]).toEqual([...built.entries()])
  })

  it('a single entry, the empty set, a long value at the root', () => {
    expect(hex(unitrieFromEntries([]).hash())).toBe(hex(Unitrie.empty().hash()))
    for (const v of [Uint8Array.of(7), bytes(seededRandom(1), 33), bytes(seededRandom(2), 70_000)]) {
      const e: [Uint8Array, Uint8Array][] = [[Uint8Array.of(1, 2, 3), v]]
      const built = unitrieFromEntries(e)
      expect(hex(built.hash())).toBe(hex(Unitrie.fromEntries(e).hash()))
      expect(built.get(Uint8Array.of(1, 2, 3))).toEqual(v)
      expect([...built.entries()]).toEqual([[Uint8Array.of(1, 2, 3), v]])
    }
  })

  it('a batch entry of lower rank loses to a file entry even when added later; empty values delete', () => {
    const batch = new EntryBatch()
    batch.add(Uint8Array.of(1), Uint8Array.of(0xaa))
    batch.add(Uint8Array.of(2), Uint8Array.of(0xbb))
    batch.add(Uint8Array.of(2), new Uint8Array(0))
    batch.add(Uint8Array.of(1), Uint8Array.of(0xcc), 0)
    batch.add(Uint8Array.of(3), Uint8Array.of(0xdd), 0)
    expect(batch.length).toBe(5)
    expect([...batch.entries()].map(([k, v]) => [k[0], v[0]])).toEqual([
      [1, 0xaa],
      [2, 0xbb],
      [2, undefined],
      [1, 0xcc],
      [3, 0xdd],
    ])
    const t = unitrieFromBatch(batch)
    expect([...t.entries()]).toEqual([
      [Uint8Array.of(1), Uint8Array.of(0xaa)],
      [Uint8Array.of(3), Uint8Array.of(0xdd)],
    ])
  })
})

describe('ArenaTrieStore', () => {
  it('stores and finds many records (the table grows), once per hash, large records too', () => {
    const store = new ArenaTrieStore()
    const r = seededRandom(9)
    const records: [Uint8Array, Uint8Array][] = []
    for (let i = 0; i < 6000; i++) {
      const data = bytes(r, 1 + r(90))
      const h = keccak256(data)
      records.push([h, data])
      store.put(h, data)
    }
    const big = new Uint8Array(9 * 1024 * 1024).map((_, i) => i * 7)
    const bigHash = keccak256(big)
    store.put(bigHash, big)
    store.put(records[0]![0], records[0]![1])
    expect(store.size).toBe(new Set(records.map(([h]) => hex(h))).size + 1)
    for (const [h, data] of records) expect(store.get(h)).toEqual(data)
    expect(Buffer.from(store.get(bigHash)!).equals(Buffer.from(big))).toBe(true)
    expect(store.get(keccak256(Uint8Array.of(1, 2, 3, 4)))).toBeUndefined()
    expect(store.get(Uint8Array.of(1))).toBeUndefined()
  })

  it("chunks of the packed states' size (over 32 MiB): records past 32 MiB into a chunk and in later chunks", () => {
    const store = new ArenaTrieStore(0, MMAP_CHUNK_BYTES)
    expect(MMAP_CHUNK_BYTES).toBeGreaterThan(32 * 1024 * 1024)
    const records: [Uint8Array, Uint8Array][] = []
    // 100 KB records: ~340 in the first chunk, the last ones starting past 32 MiB, then a second chunk
    for (let i = 0; store.byteSize < 2 * MMAP_CHUNK_BYTES; i++) {
      const data = new Uint8Array(100_000).fill(i & 0xff)
      data[0] = i >> 8
      const h = keccak256(data)
      records.push([h, data])
      store.put(h, data)
    }
    expect(records.length * 100_036).toBeGreaterThan(MMAP_CHUNK_BYTES)
    for (const [h, data] of records) expect(Buffer.from(store.get(h)!).equals(Buffer.from(data))).toBe(true)
    for (const [h, data] of records.slice(320, 350)) {
      const loc = store.locate(h, 0)
      expect(store.endOf(loc) - store.startOf(loc)).toBe(data.length)
      expect(store.chunkOf(loc)[store.startOf(loc)]).toBe(data[0])
    }
    expect(() => new ArenaTrieStore(0, 2 ** 26 + 1)).toThrow(RangeError)
  })
})

describe('ArenaTrieStore.clear', () => {
  it('forgets every record, then refills into the memory it kept (no growth over many rounds)', () => {
    const store = new ArenaTrieStore(0, 64 * 1024)
    const r = seededRandom(5)
    const fill = (n: number): [Uint8Array, Uint8Array][] =>
      Array.from({ length: n }, () => {
        const data = bytes(r, 20 + r(100))
        const h = keccak256(data)
        store.put(h, data)
        return [h, data]
      })
    // ~6 000 records: several 64 KiB chunks, the table grown past its first size
    const first = fill(6000)
    const filled = store.byteSize
    expect(filled).toBeGreaterThan(4 * 64 * 1024)
    store.clear()
    expect(store.size).toBe(0)
    expect(store.recordBytes).toBe(0)
    for (const [h] of first.slice(0, 200)) expect(store.get(h)).toBeUndefined()
    let kept = 0
    for (let round = 0; round < 5; round++) {
      store.clear()
      // what fits in the kept chunk and table takes no new memory
      const some = fill(300)
      kept = store.byteSize
      expect(store.size).toBe(300)
      for (const [h, data] of some) expect(store.get(h)).toEqual(data)
    }
    expect(kept).toBeLessThan(filled)
    // a refill as large as the first takes about what the first took, not more
    store.clear()
    const again = fill(6000)
    for (const [h, data] of again) expect(store.get(h)).toEqual(data)
    expect(store.byteSize).toBeLessThanOrEqual(filled + 64 * 1024)
  })
})

describe('copyReachable', () => {
  it('copies exactly what a root reaches (nodes, long values, embedded leaves), from its stored messages', () => {
    const entries = randomEntries(21, 400)
    const built = unitrieFromEntries(entries)
    const from = built.store as ArenaTrieStore
    // a second version in the same arena: its superseded nodes must not be copied
    const next = Unitrie.fromRootHash(built.put(entries[5]![0], new Uint8Array(50).fill(9)).save(from), from)
    const to = new ArenaTrieStore()
    copyReachable(from, to, built.hash())
    // the same records as the object walk saves (Unitrie.save: root, non-embedded nodes, long values)
    const saved = new MemoryTrieNodeStore()
    unitrieFromEntries(entries).save(saved)
    expect(to.size).toBe(saved.size)
    for (const [k, v] of saved.map) expect(to.get(Uint8Array.from(Buffer.from(k, 'hex')))).toEqual(v)
    expect(to.get(next.hash())).toBeUndefined()
    const copied = Unitrie.fromRootHash(built.hash(), to)
    for (const [k] of entries) expect(copied.get(k)).toEqual(built.get(k))
    // a second root: only what is not there yet is added
    copyReachable(from, to, next.hash())
    expect(to.get(next.hash())).toBeDefined()
    expect(Unitrie.fromRootHash(next.hash(), to).get(entries[5]![0])).toEqual(new Uint8Array(50).fill(9))
    expect(() => copyReachable(from, new ArenaTrieStore(), keccak256(Uint8Array.of(1)))).toThrow(/missing node/)
  })
})

describe('ReachableCopy', () => {
  it('copies in slices, roots added on the way (also after `from` grew), the same records as at once', () => {
    const entries = randomEntries(33, 400)
    const built = unitrieFromEntries(entries)
    const from = built.store as ArenaTrieStore
    const copy = new ReachableCopy(from, new ArenaTrieStore())
    const to = (copy as unknown as { to: ArenaTrieStore }).to
    copy.add(built.hash())
    let steps = 0
    expect(copy.step(5)).toBe(false)
    // a later version saved into `from` after the copy began, queued midway
    const next = Unitrie.fromRootHash(built.put(entries[9]![0], new Uint8Array(60).fill(3)).save(from), from)
    copy.add(next.hash())
    while (!copy.step(5)) steps++
    expect(steps).toBeGreaterThan(10)
    const atOnce = new ArenaTrieStore()
    copyReachable(from, atOnce, built.hash())
    copyReachable(from, atOnce, next.hash())
    expect(to.size).toBe(atOnce.size)
    expect(to.recordBytes).toBe(atOnce.recordBytes)
    for (const [k] of entries) expect(Unitrie.fromRootHash(built.hash(), to).get(k)).toEqual(built.get(k))
    expect(Unitrie.fromRootHash(next.hash(), to).get(entries[9]![0])).toEqual(new Uint8Array(60).fill(3))
  })
})
