/**
 * The on-demand store of tries read from the chain's database (src/db/trie-node-stores.ts): nodes not written
 * yet come from the pending writes, stored ones are read once and then kept at hand, written ones too (a bounded
 * packed cache of two generations), and every answer is the stored bytes.
 */
import { describe, expect, it } from 'vitest'
import { keccak256 } from '../../src/crypto/keccak.js'
import { nodeKey, onDemandStore, WriteBackTrieStore } from '../../src/db/trie-node-stores.js'

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex')

describe('onDemandStore', () => {
  it('reads a stored node once, answers pending writes first, stays correct when its cache empties', () => {
    const stored = new Map<string, Uint8Array>()
    const nodes = Array.from({ length: 20 }, (_, i) => {
      const value = Uint8Array.from({ length: 40 + i }, (_, k) => (i * 7 + k) & 0xff)
      const hash = keccak256(value)
      stored.set(hex(nodeKey(hash)), value)
      return { hash, value }
    })
    const reads: string[] = []
    const pending = new WriteBackTrieStore()
    // room for about 5 of the records: the cache empties several times below
    const store = onDemandStore(
      pending,
      (key) => {
        reads.push(hex(key))
        return stored.get(hex(key))
      },
      5 * 80,
    )
    expect(store.get(nodes[0]!.hash)).toEqual(nodes[0]!.value)
    // from the cache, a copy: changing it changes nothing kept
    store.get(nodes[0]!.hash)!.fill(0)
    expect(store.get(nodes[0]!.hash)).toEqual(nodes[0]!.value)
    expect(reads.length).toBe(1)
    for (let round = 0; round < 3; round++) for (const n of nodes) expect(store.get(n.hash)).toEqual(n.value)
    // bounded: the cache could not hold all 20, so some were read again, but never all of them every time
    expect(reads.length).toBeGreaterThan(20)
    expect(reads.length).toBeLessThan(1 + 3 * 20)
    // an unknown node is not found (and not cached)
    const unknown = keccak256(Uint8Array.of(1))
    expect(store.get(unknown)).toBeUndefined()
    expect(store.get(unknown)).toBeUndefined()
    expect(reads.filter((k) => k === hex(nodeKey(unknown))).length).toBe(2)
    // a node not written yet comes from the pending writes, without a read
    const fresh = Uint8Array.of(9, 9, 9)
    const freshHash = keccak256(fresh)
    store.put(freshHash, fresh)
    const before = reads.length
    expect(store.get(freshHash)).toEqual(fresh)
    expect(reads.length).toBe(before)
    // once written to the database (taken from the pending writes) it is still at hand
    expect(pending.take().length).toBe(1)
    stored.set(hex(nodeKey(freshHash)), fresh)
    expect(store.get(freshHash)).toEqual(fresh)
    expect(reads.length).toBe(before)
  })

  it('nodes in use survive the turnover of the generations', () => {
    const values = Array.from({ length: 200 }, (_, i) => Uint8Array.from({ length: 60 }, (_, k) => (i + k) & 0xff))
    const stored = new Map(values.map((v) => [hex(nodeKey(keccak256(v))), v]))
    let reads = 0
    // a generation holds about 10 records of ~100 bytes
    const store = onDemandStore(new WriteBackTrieStore(), (key) => (reads++, stored.get(hex(key))), 1000)
    const hot = keccak256(values[0]!)
    for (const v of values) {
      // the hot node is read between every other read: it is never read from the database again
      expect(store.get(hot)).toEqual(values[0])
      expect(store.get(keccak256(v))).toEqual(v)
    }
    expect(reads).toBe(200)
  })

  it('a node read twice in a row is read from the database once', () => {
    const value = new Uint8Array(64).fill(5)
    const hash = keccak256(value)
    let reads = 0
    const store = onDemandStore(new WriteBackTrieStore(), () => (reads++, value))
    for (let i = 0; i < 5; i++) expect(store.get(hash)).toEqual(value)
    expect(reads).toBe(1)
  })
})
