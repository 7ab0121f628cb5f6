/**
 * What a lookup or a write keeps of a lazy trie (src/unitrie/unitrie-put.ts KEPT_DEPTH, KEEP_AT_VISIT): the nodes it
 * loads in the top levels stay decoded in the trie, deeper ones only once reached KEEP_AT_VISIT times (decoded for
 * the operation alone before), so reads of random keys in a large state do not keep it decoded while a key read
 * over and over is kept whole; answers and roots are unchanged.
 */
import { describe, expect, it } from 'vitest'
import { keccak256 } from '../../src/crypto/keccak.js'
import { MemoryTrieNodeStore, Unitrie } from '../../src/unitrie/unitrie.js'
import { countingStore } from '../helpers/counting-store.js'
import { KEEP_AT_VISIT, KEPT_DEPTH } from '../../src/unitrie/unitrie-put.js'

/** 32-byte keys spread like hashed storage keys, with 40-byte values (stored apart from their node). */
const keyOf = (i: number): Uint8Array => keccak256(Uint8Array.of(i >> 16, i >> 8, i))
const valueOf = (i: number): Uint8Array => new Uint8Array(40).fill((i % 250) + 1)

describe('KEPT_DEPTH', () => {
  const N = 1 << 15 // a binary trie ~15 levels deep: deeper than KEPT_DEPTH
  const store = new MemoryTrieNodeStore()
  const root = Unitrie.fromEntries(Array.from({ length: N }, (_, i) => [keyOf(i), valueOf(i)])).save(store)

  it('a second lookup of a key reads again only the nodes below the kept levels', () => {
    expect(KEPT_DEPTH).toBeGreaterThan(4)
    let deep = 0
    for (let i = 0; i < 64; i++) {
      // a fresh lazy trie each time: the first lookup reads the whole path below the root, and the long value
      const reads = countingStore(store)
      const trie = Unitrie.fromRootHash(root, reads)
      const before = reads.gets
      expect(trie.get(keyOf(i))).toEqual(valueOf(i))
      const first = reads.gets - before
      expect(trie.get(keyOf(i))).toEqual(valueOf(i))
      const second = reads.gets - before - first
      const depth = first - 1 // nodes below the root on the path
      if (depth >= KEPT_DEPTH) {
        // levels 1 … KEPT_DEPTH − 1 stayed; the deeper nodes and the value are read again
        expect(second).toBe(depth - (KEPT_DEPTH - 1) + 1)
        deep++
      } else expect(second).toBeLessThanOrEqual(1)
    }
    // most paths of this trie go deeper than the kept levels
    expect(deep).toBeGreaterThan(32)
  })

  it('lookups of random keys keep the top levels decoded and hardly anything below', () => {
    const keys = Array.from({ length: N / 16 }, (_, j) => keyOf(j * 16 + 5))
    const reads = countingStore(store)
    const trie = Unitrie.fromRootHash(root, reads)
    for (const k of keys) trie.get(k)
    const cold = reads.gets
    const before = reads.gets
    for (const k of keys) trie.get(k)
    const warm = reads.gets - before
    // every lookup still reads its deep part: the nodes below the kept levels were not kept
    expect(warm).toBeGreaterThan(keys.length)
    // what the first pass kept (reads the second pass saved): the top levels, at most 2^KEPT_DEPTH nodes
    expect(cold - warm).toBeGreaterThan(0)
    expect(cold - warm).toBeLessThanOrEqual(2 ** KEPT_DEPTH)
  })

  it('a key read over and over ends up kept whole, level by level', () => {
    const reads = countingStore(store)
    const trie = Unitrie.fromRootHash(root, reads)
    const key = keyOf(12345)
    const perLookup: number[] = []
    for (let i = 0; i < 40 * KEEP_AT_VISIT; i++) {
      const before = reads.gets
      expect(trie.get(key)).toEqual(valueOf(12345))
      perLookup.push(reads.gets - before)
    }
    const depth = perLookup[0]! - 1
    expect(depth).toBeGreaterThanOrEqual(KEPT_DEPTH)
    // each KEEP_AT_VISIT lookups keep one more level, until the path and its value are all in memory
    expect(perLookup[1]).toBe(depth - (KEPT_DEPTH - 1) + 1)
    expect(perLookup.at(-1)).toBe(0)
    expect(perLookup.indexOf(0)).toBeLessThanOrEqual(KEEP_AT_VISIT * (depth - KEPT_DEPTH + 2))
  })

  it('writes below the kept levels give the same roots as on a trie in memory', () => {
    const lazy = Unitrie.fromRootHash(root, store)
    let a = lazy
    let b = Unitrie.fromEntries(Array.from({ length: N }, (_, i) => [keyOf(i), valueOf(i)]))
    for (let i = 0; i < 200; i++) {
      const k = i % 3 === 0 ? keyOf(i * 7) : keyOf(N + i)
      const v = i % 5 === 0 ? new Uint8Array(0) : Uint8Array.of(i & 0xff, 1)
      a = a.put(k, v)
      b = b.put(k, v)
    }
    expect(a.hash()).toEqual(b.hash())
    for (let i = 0; i < 200; i++) expect(a.get(keyOf(N + i))).toEqual(b.get(keyOf(N + i)))
    // the lazy trie it started from is unchanged
    expect(lazy.hash()).toEqual(root)
    expect(lazy.get(keyOf(7))).toEqual(valueOf(7))
  })
})
