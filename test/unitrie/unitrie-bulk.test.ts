/**
 * unitrieFromEntries (src/unitrie/unitrie-bulk.ts) builds the same trie as putting the entries one by one: same root
 * hash, same entries, for random key sets with shared prefixes, keys that are prefixes of others, duplicates
 * (the later wins) and empty values (no entry).
 */
import { describe, expect, it } from 'vitest'
import { Unitrie } from '../../src/unitrie/unitrie.js'
import { unitrieFromEntries } from '../../src/unitrie/unitrie-bulk.js'
import { seededRandom } from '../helpers/seeded.js'

function bytes(r: (n: number) => number, n: number): Uint8Array {
  return Uint8Array.from({ length: n }, () => r(256))
}

describe('unitrieFromEntries', () => {
  it.each([1, 7, 42, 1234, 99999])('matches one-by-one puts (seed %i)', (seed) => {
    const r = seededRandom(seed)
    const prefix = bytes(r, 10)
    const entries: [Uint8Array, Uint8Array][] = []
    for (let i = 0; i < 400; i++) {
      const shared = prefix.subarray(0, r(11))
      const key = Uint8Array.from([...shared, ...bytes(r, 1 + r(6))])
      const value = r(100) < 5 ? new Uint8Array(0) : bytes(r, 1 + r(70))
      entries.push([key, value])
      if (r(10) < 1) entries.push([key, bytes(r, 3)])
      if (r(10) < 1) entries.push([key.subarray(0, Math.max(1, key.length - 2)), bytes(r, 40)])
    }
    const expected = Unitrie.fromEntries(entries)
    const built = unitrieFromEntries(entries.slice())
    expect(Buffer.from(built.hash()).toString('hex')).toBe(Buffer.from(expected.hash()).toString('hex'))
    expect([...built.entries()]).toEqual([...expected.entries()])
  })

  it('the empty set is the empty trie', () => {
    expect(unitrieFromEntries([]).hash()).toEqual(Unitrie.empty().hash())
    expect(unitrieFromEntries([[Uint8Array.of(1), new Uint8Array(0)]]).hash()).toEqual(Unitrie.empty().hash())
  })
})
