/**
 * The decoded blocks' transaction index (src/blocks/cached-tx-index.ts): hash prefix → positions of the
 * transactions of the cached blocks, a block added twice indexed once, a block removed forgotten, hashes whose
 * prefixes collide all answered (the caller checks the full hash).
 */
import { describe, expect, it } from 'vitest'
import { CachedTxIndex } from '../../src/blocks/cached-tx-index.js'

/** A 32-byte hash whose first four bytes are `head` (big-endian) and whose byte 31 is `tail`. */
function hash(head: number, tail: number): Uint8Array {
  const h = new Uint8Array(32)
  new DataView(h.buffer).setUint32(0, head)
  h[31] = tail
  return h
}

describe('CachedTxIndex', () => {
  it('finds each transaction of the blocks added, once however often a block is added', () => {
    const ix = new CachedTxIndex()
    const a = [hash(0x11111111, 1), hash(0x22222222, 2)]
    ix.add(7, a)
    ix.add(7, a)
    expect(ix.size).toBe(2)
    expect(ix.candidates(a[0]!)).toEqual([{ number: 7, index: 0 }])
    expect(ix.candidates(a[1]!)).toEqual([{ number: 7, index: 1 }])
    expect(ix.candidates(hash(0x33333333, 0))).toEqual([])
  })

  it('answers every position whose hash shares the prefix, and forgets a removed block', () => {
    const ix = new CachedTxIndex()
    // the same first 30 bits (the last two bits of byte 3 differ), and another hash with the very same head
    const x = hash(0xabcdef00, 1)
    const y = hash(0xabcdef03, 2)
    const z = hash(0xabcdef00, 3)
    ix.add(2 ** 26 + 5, [x])
    ix.add(9, [hash(0x01020304, 0), y])
    ix.add(12, [z])
    const all = [
      { number: 9, index: 1 },
      { number: 12, index: 0 },
      { number: 2 ** 26 + 5, index: 0 },
    ]
    for (const h of [x, y, z]) expect(ix.candidates(h)).toEqual(all)
    ix.remove(9, [hash(0x01020304, 0), y])
    expect(ix.candidates(x)).toEqual([all[1], all[2]])
    expect(ix.candidates(hash(0x01020304, 0))).toEqual([])
    ix.remove(12, [z])
    ix.remove(2 ** 26 + 5, [x])
    expect(ix.candidates(x)).toEqual([])
    expect(ix.size).toBe(0)
  })
})
