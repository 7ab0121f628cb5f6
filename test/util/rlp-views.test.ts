/**
 * RLP read in place (src/util/rlp-views.ts): the same items as @ethereumjs/rlp's decode, as views into the input,
 * and shape errors for input that is cut, runs past its list or has bytes after the item.
 */
import { RLP } from '@ethereumjs/rlp'
import { describe, expect, it } from 'vitest'
import { decodeViews, itemBounds, listItems, type RlpView } from '../../src/util/rlp-views.js'

const bytes = (n: number, fill: number): Uint8Array => new Uint8Array(n).fill(fill)

/** Every byte string of a decoded item. */
function leaves(x: RlpView): Uint8Array[] {
  return x instanceof Uint8Array ? [x] : x.flatMap(leaves)
}

describe('decodeViews', () => {
  const samples: Array<[string, unknown]> = [
    ['a single byte below 0x80', Uint8Array.of(0x7f)],
    ['the empty string', new Uint8Array(0)],
    ['a short string', bytes(32, 0xab)],
    ['a long string (> 55 bytes)', bytes(300, 0x01)],
    ['the empty list', []],
    ['nested lists', [bytes(20, 1), [Uint8Array.of(0), [], [bytes(3, 2)]], new Uint8Array(0)]],
    ['a long list (> 55 bytes of payload)', Array.from({ length: 40 }, (_, i) => bytes(i, i))],
    ['a string of 70 000 bytes (three length bytes)', bytes(70_000, 7)],
  ]
  for (const [what, value] of samples) {
    it(`reads ${what} as @ethereumjs/rlp does, with views into the input`, () => {
      const encoded = RLP.encode(value as never)
      const views = decodeViews(encoded)
      expect(views).toEqual(RLP.decode(encoded))
      for (const leaf of leaves(views)) expect(leaf.buffer).toBe(encoded.buffer)
    })
  }

  it('list items carry their bounds: start, payload, end, list or string', () => {
    const encoded = RLP.encode([bytes(2, 9), [Uint8Array.of(1)]])
    const items = listItems(encoded, itemBounds(encoded, 0))
    expect(items).toEqual([
      { start: 1, data: 2, end: 4, list: false },
      { start: 4, data: 5, end: 6, list: true },
    ])
    expect(() => listItems(encoded, items[0]!)).toThrow('expected a list')
  })

  it('rejects cut input, an item running past its list, bytes after the item, and empty input', () => {
    const encoded = RLP.encode([bytes(40, 1), bytes(40, 2)])
    expect(() => decodeViews(encoded.subarray(0, encoded.length - 1))).toThrow('RLP')
    // the list claims 3 bytes; its one string item claims 5
    expect(() => decodeViews(Uint8Array.of(0xc3, 0x85, 1, 2))).toThrow('runs past')
    expect(() => decodeViews(Uint8Array.of(0x80, 0x80))).toThrow('bytes after')
    // inside a list, a long string whose two length bytes are cut off by the list's end
    expect(() => decodeViews(Uint8Array.of(0xc2, 0xb9, 0x01))).toThrow('runs past')
    expect(() => decodeViews(new Uint8Array(0))).toThrow('too short')
  })
})
