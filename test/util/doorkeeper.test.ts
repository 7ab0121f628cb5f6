/**
 * The memo's admission filter (src/util/doorkeeper.ts): a key is admitted on its second request, a key whose slot
 * another key took is forgotten, and the table's size must be a power of two.
 */
import { describe, expect, it } from 'vitest'
import { Doorkeeper } from '../../src/util/doorkeeper.js'

describe('Doorkeeper', () => {
  it('admits a key on its second request, and on every later one', () => {
    const d = new Doorkeeper(1024)
    expect(d.seen('c0xabc|1')).toBe(false)
    expect(d.seen('c0xabc|1')).toBe(true)
    expect(d.seen('c0xabc|1')).toBe(true)
  })

  it('keeps keys apart: each new key is a first request', () => {
    const d = new Doorkeeper(1 << 20)
    const keys = Array.from({ length: 1000 }, (_, i) => `e${i.toString(16)}|0xdeadbeef|${i * 7}`)
    expect(keys.filter((k) => d.seen(k))).toEqual([])
    // two keys in one slot forget each other (~0.5 such pairs expected among 1 000 keys in 2^20 slots)
    expect(keys.filter((k) => d.seen(k)).length).toBeGreaterThanOrEqual(996)
  })

  it('forgets a key whose slot a later key took', () => {
    const d = new Doorkeeper(2)
    const a = 'key-a'
    d.seen(a)
    // find a key that lands in a's slot with another hash (2 slots: about every other key)
    let b = ''
    for (let i = 0; b === ''; i++) {
      const probe = new Doorkeeper(2)
      probe.seen(a)
      const k = `key-${i}`
      if (k !== a && !probe.seen(k) && !probe.seen(a)) b = k
    }
    expect(d.seen(b)).toBe(false)
    expect(d.seen(a)).toBe(false) // forgotten: a first request again
    expect(d.seen(a)).toBe(true)
  })

  it('refuses a table size that is not a power of two', () => {
    for (const n of [0, 1, 3, 1000, 2.5, -4]) expect(() => new Doorkeeper(n)).toThrow(RangeError)
  })
})
