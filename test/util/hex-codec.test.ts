/**
 * The hex codec for bulk work (src/util/hex-codec.ts): decoding into preallocated buffers checks every character
 * and reports bad input by its result (odd length, a missing 0x, a character that is not a hex digit, a word of
 * more than 64 digits); encoding writes lowercase ASCII.
 */
import { describe, expect, it } from 'vitest'
import { decodeHexInto, decodeHexWordInto, encodeHexInto, hasHexPrefix } from '../../src/util/hex-codec.js'

const word = (hex: string): number[] => [...Buffer.from(hex.padStart(64, '0'), 'hex')]

describe('decodeHexInto', () => {
  it('decodes even-length hex of either case at an offset', () => {
    const out = new Uint8Array(6).fill(0xee)
    expect(decodeHexInto('0x01aBFf', out, 2)).toBe(3)
    expect([...out]).toEqual([0xee, 0xee, 0x01, 0xab, 0xff, 0xee])
    expect(decodeHexInto('0XDEAD', out, 0)).toBe(2)
    expect([...out.subarray(0, 2)]).toEqual([0xde, 0xad])
  })

  it('0x alone is no bytes', () => {
    expect(decodeHexInto('0x', new Uint8Array(0), 0)).toBe(0)
  })

  it('refuses odd length, a missing prefix and characters that are not hex digits', () => {
    const out = new Uint8Array(8)
    for (const bad of [
      '0x1',
      '0x123',
      '',
      '0',
      'x0',
      '00ab',
      '0xg0',
      '0x0g',
      '0x 1',
      '0x-1',
      '0x\u00e9a',
      '0x\u0130a',
      '0x:0',
      '0x@0',
      '0x`0',
    ])
      expect(decodeHexInto(bad, out, 0), bad).toBe(-1)
  })
})

describe('decodeHexWordInto', () => {
  it('left-pads 1 to 64 digits (odd counts too) to a 32-byte word', () => {
    const out = new Uint8Array(34).fill(0xee)
    expect(decodeHexWordInto('0x1', out, 1)).toBe(true)
    expect([...out.subarray(1, 33)]).toEqual(word('1'))
    expect([out[0], out[33]]).toEqual([0xee, 0xee])
    for (const digits of ['abc', 'ABCD', '0', '00', 'f'.repeat(63), 'F'.repeat(64), '1' + '0'.repeat(62)]) {
      expect(decodeHexWordInto('0x' + digits, out, 0), digits).toBe(true)
      expect([...out.subarray(0, 32)]).toEqual(word(digits.toLowerCase()))
    }
  })

  it('refuses no digits, more than 64, a missing prefix and non-hex characters', () => {
    const out = new Uint8Array(32)
    for (const bad of ['0x', '0x' + '1'.repeat(65), '12', 'xx12', '0x1z', '0xz', '0x' + '0'.repeat(63) + 'G', '0x12 '])
      expect(decodeHexWordInto(bad, out, 0), bad).toBe(false)
  })
})

describe('encodeHexInto / hasHexPrefix', () => {
  it('writes lowercase hex of a byte range and returns the end', () => {
    const bytes = Uint8Array.from({ length: 256 }, (_, i) => i)
    const out = new Uint8Array(520)
    expect(encodeHexInto(bytes, 0, 256, out, 4)).toBe(516)
    expect(Buffer.from(out.subarray(4, 516)).toString('latin1')).toBe(Buffer.from(bytes).toString('hex'))
    expect(encodeHexInto(bytes, 10, 10, out, 0)).toBe(0)
  })

  it('knows the 0x prefix', () => {
    expect([hasHexPrefix('0x'), hasHexPrefix('0X1'), hasHexPrefix('x0'), hasHexPrefix('0'), hasHexPrefix('')]).toEqual([
      true,
      true,
      false,
      false,
      false,
    ])
  })
})
