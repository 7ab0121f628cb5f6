/**
 * Byte helpers and bloom sharing that the chain's memory per mined transaction depends on (issue 6):
 * fromHex results own their memory (no view into Node's shared Buffer pool), and orBlooms shares its
 * input when it can while still ORing correctly.
 */
import { describe, expect, it } from 'vitest'
import { fromHex, toHex } from '../../src/util/bytes.js'
import { isZeroBloom, logsBloom, orBlooms, ZERO_BLOOM } from '../../src/rsk/receipt-rlp.js'

describe('fromHex', () => {
  it('decodes with or without 0x, odd length left-padded', () => {
    expect([...fromHex('0x0102ff')]).toEqual([1, 2, 255])
    expect([...fromHex('0102')]).toEqual([1, 2])
    expect([...fromHex('0x102')]).toEqual([1, 2])
    expect(fromHex('0x').length).toBe(0)
  })

  it('returns bytes that own their ArrayBuffer (a kept transaction must not pin an 8 KB pool slab)', () => {
    const b = fromHex('0x' + 'ab'.repeat(110))
    expect(b.byteOffset).toBe(0)
    expect(b.buffer.byteLength).toBe(110)
    expect(toHex(b)).toBe('0x' + 'ab'.repeat(110))
  })
})

describe('orBlooms', () => {
  const a = logsBloom([{ address: new Uint8Array(20).fill(1), topics: [new Uint8Array(32).fill(2)], data: new Uint8Array(0) }])
  const b = logsBloom([{ address: new Uint8Array(20).fill(3), topics: [], data: new Uint8Array(0) }])

  it('no bits set anywhere → the shared empty bloom', () => {
    expect(orBlooms([])).toBe(ZERO_BLOOM)
    expect(orBlooms([new Uint8Array(256), ZERO_BLOOM])).toBe(ZERO_BLOOM)
    expect(isZeroBloom(ZERO_BLOOM)).toBe(true)
  })

  it('one bloom with bits → that bloom itself', () => {
    expect(orBlooms([ZERO_BLOOM, a, new Uint8Array(256)])).toBe(a)
  })

  it('several blooms with bits → a new array with their OR, inputs untouched', () => {
    const aCopy = a.slice()
    const out = orBlooms([a, ZERO_BLOOM, b])
    expect(out).not.toBe(a)
    expect(out).not.toBe(b)
    for (let i = 0; i < 256; i++) expect(out[i]).toBe(a[i]! | b[i]!)
    expect(a).toEqual(aCopy)
    expect(isZeroBloom(ZERO_BLOOM)).toBe(true)
  })
})
