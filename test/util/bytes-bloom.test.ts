/**
 * Byte helpers and bloom sharing that the chain's memory per mined transaction depends on
 * (docs/architecture.md#performance-rules):
 * fromHex results own their memory (no view into Node's shared Buffer pool), and orBlooms shares its
 * input when it can while still ORing correctly.
 */
import { describe, expect, it } from 'vitest'
import { fromHex, heapBytes, tempBytes, toHex, toKey } from '../../src/util/bytes.js'
import { keccak256 } from '../../src/crypto/keccak.js'
import { keccak_256 } from '@noble/hashes/sha3'
import { encodeReceipt, isZeroBloom, logsBloom, orBlooms, ZERO_BLOOM } from '../../src/rsk/receipt-rlp.js'

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

describe('toKey / keccak256 on short arrays and views (scratch-buffer paths)', () => {
  it('hex of every length around the 64-byte scratch limit, and of views with an offset', () => {
    const big = Uint8Array.from({ length: 200 }, (_, i) => (i * 37 + 11) & 0xff)
    for (const n of [0, 1, 20, 32, 63, 64, 65, 130]) {
      const view = big.subarray(5, 5 + n)
      expect(toKey(view)).toBe(Buffer.from(view).toString('hex'))
      expect(toHex(view)).toBe('0x' + Buffer.from(view).toString('hex'))
    }
  })

  it('keccak256 equals the reference implementation for views, Buffers and inputs past the scratch size', () => {
    const big = Uint8Array.from({ length: 5000 }, (_, i) => (i * 13 + 7) & 0xff)
    for (const input of [
      big.subarray(3, 3),
      big.subarray(1, 33),
      big.subarray(100, 4196),
      big,
      Buffer.from(big.subarray(0, 77)),
    ]) {
      const h = keccak256(input)
      expect(h.length).toBe(32)
      expect(toHex(h)).toBe(toHex(keccak_256(input)))
    }
    // consecutive results are independent arrays (the scratch buffer is not shared with callers)
    const a = keccak256(Uint8Array.of(1))
    const b = keccak256(Uint8Array.of(2))
    expect(toHex(a)).toBe(toHex(keccak_256(Uint8Array.of(1))))
    expect(toHex(b)).not.toBe(toHex(a))
  })
})

describe('orBlooms', () => {
  const a = logsBloom([
    { address: new Uint8Array(20).fill(1), topics: [new Uint8Array(32).fill(2)], data: new Uint8Array(0) },
  ])
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

describe('tempBytes (short-lived encodings)', () => {
  it("gives plain Uint8Arrays of the asked length; 65 B to 4 KB share Node's pool, the rest own their memory", () => {
    for (const n of [0, 1, 64, 65, 500, 4095, 4096, 10_000]) {
      const b = tempBytes(n)
      expect(b.length).toBe(n)
      expect(Buffer.isBuffer(b)).toBe(false)
      expect(b.buffer.byteLength > n).toBe(n > 64 && n < 4096)
    }
  })

  it('receipt and header encodings are the same bytes either way', () => {
    const log = {
      address: new Uint8Array(20).fill(7),
      topics: [new Uint8Array(32).fill(1), new Uint8Array(32).fill(2)],
      data: new Uint8Array(100).fill(9),
    }
    const r = { status: true, cumulativeGasUsed: 70_000n, gasUsed: 35_000n, logs: [log, log] }
    expect(toHex(encodeReceipt(r, tempBytes))).toBe(toHex(encodeReceipt(r, heapBytes)))
    expect(toHex(encodeReceipt({ ...r, status: false, logs: [] }, tempBytes))).toBe(
      toHex(encodeReceipt({ ...r, status: false, logs: [] })),
    )
  })
})
