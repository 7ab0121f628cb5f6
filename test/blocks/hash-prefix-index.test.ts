/**
 * The in-memory backend's hash indexes (src/blocks/hash-prefix-index.ts): a typed-array multimap with linear
 * probing and backward-shift deletion, checked against a Map-based model through adds, deletes and growth, with
 * keys that collide on purpose.
 */
import { describe, expect, it } from 'vitest'
import { HashPrefixIndex } from '../../src/blocks/hash-prefix-index.js'
import { seededRandom } from '../helpers/seeded.js'

function modelGet(model: Map<number, number[]>, key: number): number[] {
  return [...(model.get(key) ?? [])].sort((a, b) => a - b)
}

describe('HashPrefixIndex', () => {
  it('answers like a multimap through 20 000 adds and deletes, growth and colliding keys', () => {
    const index = new HashPrefixIndex()
    const model = new Map<number, number[]>()
    const r = seededRandom(12345)
    // keys of three families: ones that probe the first slot first and ones that probe one of the last three
    // (for every table size up to 2^20 slots: their runs collide and wrap around the table's end), and random ones
    const keyOf = () => {
      const family = r(4)
      if (family === 0) return r(8) << 20
      if (family === 1) return (r(8) << 20) | (0xfffff - r(3))
      return r(2 ** 30)
    }
    const live: [number, number][] = []
    for (let step = 0; step < 20_000; step++) {
      if (live.length > 0 && r(3) === 0) {
        const [k, v] = live.splice(r(live.length), 1)[0]!
        expect(index.delete(k, v)).toBe(true)
        const vs = model.get(k)!
        vs.splice(vs.indexOf(v), 1)
        if (vs.length === 0) model.delete(k)
      } else {
        const k = keyOf()
        const v = r(3) === 0 ? -(r(2 ** 20) * 2 ** 20) - 1 : r(2 ** 26)
        index.add(k, v)
        live.push([k, v])
        model.set(k, [...(model.get(k) ?? []), v])
      }
      if (step % 500 === 0) {
        for (const k of model.keys()) expect(index.get(k)).toEqual(modelGet(model, k))
      }
    }
    expect(index.size).toBe(live.length)
    for (const [k] of live) expect(index.get(k)).toEqual(modelGet(model, k))
    // every entry removed leaves an empty index that still answers
    for (const [k, v] of live) expect(index.delete(k, v)).toBe(true)
    expect(index.size).toBe(0)
    for (const [k] of live) expect(index.get(k)).toEqual([])
  })

  it('keeps a key and value stored twice as two entries, and removes one at a time', () => {
    const index = new HashPrefixIndex()
    index.add(7, 100)
    index.add(7, 100)
    index.add(7, 5)
    expect(index.get(7)).toEqual([5, 100, 100])
    expect(index.delete(7, 100)).toBe(true)
    expect(index.get(7)).toEqual([5, 100])
    expect(index.delete(7, 42)).toBe(false)
    expect(index.delete(8, 5)).toBe(false)
    expect(index.size).toBe(2)
  })

  it('answers an empty list for a key never added', () => {
    expect(new HashPrefixIndex().get(123)).toEqual([])
  })

  it('refuses keys outside 0 … 2^30 − 1', () => {
    const index = new HashPrefixIndex()
    for (const bad of [-1, 2 ** 30, 1.5, Number.NaN]) expect(() => index.add(bad, 1)).toThrow(RangeError)
    expect(index.size).toBe(0)
  })
})

describe('HashPrefixIndex.has', () => {
  it('answers like the model through adds and deletes of colliding entries', () => {
    const index = new HashPrefixIndex()
    const model: [number, number][] = []
    const r = seededRandom(777)
    for (let step = 0; step < 5_000; step++) {
      // few keys and values: many collisions, entries stored twice, deletes of entries held and not held
      const k = r(16) << 20
      const v = r(8)
      if (r(2) === 0) {
        index.add(k, v)
        model.push([k, v])
      } else {
        const at = model.findIndex(([mk, mv]) => mk === k && mv === v)
        expect(index.delete(k, v)).toBe(at >= 0)
        if (at >= 0) model.splice(at, 1)
      }
      const probeKey = r(16) << 20
      const probeValue = r(8)
      expect(index.has(probeKey, probeValue)).toBe(model.some(([mk, mv]) => mk === probeKey && mv === probeValue))
    }
  })
})
