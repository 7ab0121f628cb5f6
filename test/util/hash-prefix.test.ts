/**
 * The hash prefix the node's hash tables use (src/util/hash-prefix.ts): the first 30 bits, big-endian, at an
 * offset; and the packed transaction positions of the transaction indexes (src/blocks/tx-position-key.ts).
 */
import { describe, expect, it } from 'vitest'
import { HASH_PREFIX_BITS, hashPrefix } from '../../src/util/hash-prefix.js'
import { txPositionIndex, txPositionKey, txPositionNumber } from '../../src/blocks/tx-position-key.js'
import { seededRandom } from '../helpers/seeded.js'

describe('hashPrefix', () => {
  it('is the first 30 bits, big-endian, a non-negative int32 (a small integer)', () => {
    expect(HASH_PREFIX_BITS).toBe(30)
    expect(hashPrefix(Uint8Array.of(0xff, 0xff, 0xff, 0xff, 0xff))).toBe(2 ** 30 - 1)
    expect(hashPrefix(Uint8Array.of(0x80, 0, 0, 0))).toBe(2 ** 29)
    expect(hashPrefix(Uint8Array.of(0, 0, 0, 3))).toBe(0)
    expect(hashPrefix(Uint8Array.of(0, 0, 0, 4))).toBe(1)
    expect(hashPrefix(Uint8Array.of(0x12, 0x34, 0x56, 0x78))).toBe(0x12345678 >>> 2)
    const r = seededRandom(99)
    for (let i = 0; i < 1000; i++) {
      const h = Uint8Array.from({ length: 32 }, () => r(256))
      const want = Math.floor(Buffer.from(h).readUInt32BE(0) / 4)
      expect(hashPrefix(h)).toBe(want)
      expect(hashPrefix(h) | 0).toBe(want)
    }
  })

  it('reads at an offset', () => {
    const bytes = Uint8Array.of(1, 2, 3, 0xab, 0xcd, 0xef, 0x01, 9)
    expect(hashPrefix(bytes, 3)).toBe(0xabcdef01 >>> 2)
  })
})

describe('txPositionKey', () => {
  it('round-trips block numbers up to 2^33 − 1 and indexes up to 2^20 − 1, ordered by (number, index)', () => {
    const cases: [number, number][] = [
      [0, 0],
      [0, 15],
      [0, 16],
      [2 ** 26 - 1, 15],
      [2 ** 26, 0],
      [2 ** 33 - 1, 2 ** 20 - 1],
      [123_456, 999],
    ]
    for (const [n, i] of cases) {
      const key = txPositionKey(n, i)
      expect([txPositionNumber(key), txPositionIndex(key)]).toEqual([n, i])
    }
    expect(txPositionKey(1, 0)).toBeGreaterThan(txPositionKey(0, 2 ** 20 - 1))
    expect(txPositionKey(5, 3)).toBeGreaterThan(txPositionKey(5, 2))
  })
})
