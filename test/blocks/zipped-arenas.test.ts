/**
 * The arenas compressed block chunks are packed into (src/blocks/zipped-arenas.ts): bytes read back as stored,
 * released bytes leave holes, an arena holding more holes than bytes is emptied into the one being filled and
 * dropped, and bytes larger than an arena get a buffer of their own.
 */
import { describe, expect, it } from 'vitest'
import { ZippedArenas, type ZippedHolder } from '../../src/blocks/zipped-arenas.js'

/** `length` bytes, each its index plus `seed` (mod 256). */
function bytesOf(length: number, seed: number): Uint8Array {
  return Uint8Array.from({ length }, (_, i) => (i + seed) & 0xff)
}

describe('ZippedArenas', () => {
  it('packs bytes back to back, opening an arena when they do not fit; reads them back', () => {
    const arenas = new ZippedArenas(1000)
    const holders: ZippedHolder[] = []
    for (let i = 0; i < 7; i++) {
      const h: ZippedHolder = { zipped: undefined }
      arenas.store(h, bytesOf(300, i))
      holders.push(h)
    }
    // three per arena of 1000 bytes
    expect(arenas.stats()).toEqual({ arenas: 3, usedBytes: 2100, liveBytes: 2100, compactions: 0 })
    for (const [i, h] of holders.entries()) expect(h.zipped).toEqual(bytesOf(300, i))
    // views share their arena's buffer
    expect(holders[0]!.zipped!.buffer).toBe(holders[2]!.zipped!.buffer)
    expect(holders[0]!.zipped!.buffer).not.toBe(holders[3]!.zipped!.buffer)
  })

  it('an arena with more holes than bytes moves its chunks to the one being filled and is dropped', () => {
    const arenas = new ZippedArenas(1000)
    const holders = Array.from({ length: 5 }, (_, i) => {
      const h: ZippedHolder = { zipped: undefined }
      arenas.store(h, bytesOf(300, i))
      return h
    })
    // arena 1: holders 0-2; arena 2 (being filled): holders 3-4
    arenas.release(holders[0]!)
    expect(holders[0]!.zipped).toBeUndefined()
    expect(arenas.stats()).toMatchObject({ arenas: 2, usedBytes: 1500, liveBytes: 1200, compactions: 0 })
    arenas.release(holders[1]!)
    // 300 live of 900 written: holder 2 moves after holders 3 and 4
    expect(arenas.stats()).toEqual({ arenas: 1, usedBytes: 900, liveBytes: 900, compactions: 1 })
    expect(holders[2]!.zipped).toEqual(bytesOf(300, 2))
    expect(holders[2]!.zipped!.buffer).toBe(holders[3]!.zipped!.buffer)
    for (const i of [3, 4]) expect(holders[i]!.zipped).toEqual(bytesOf(300, i))
  })

  it('holes in the arena being filled stay until it is full; storing again releases first', () => {
    const arenas = new ZippedArenas(1000)
    const a: ZippedHolder = { zipped: undefined }
    const b: ZippedHolder = { zipped: undefined }
    arenas.store(a, bytesOf(400, 1))
    arenas.store(b, bytesOf(400, 2))
    arenas.release(a)
    expect(arenas.stats()).toMatchObject({ arenas: 1, usedBytes: 800, liveBytes: 400 })
    arenas.store(b, bytesOf(100, 3))
    expect(b.zipped).toEqual(bytesOf(100, 3))
    expect(arenas.stats()).toMatchObject({ arenas: 1, usedBytes: 900, liveBytes: 100 })
    // the next store does not fit: a new arena; the full one, mostly holes, is emptied into it
    const c: ZippedHolder = { zipped: undefined }
    arenas.store(c, bytesOf(200, 4))
    arenas.release(c)
    expect(arenas.stats()).toEqual({ arenas: 1, usedBytes: 300, liveBytes: 100, compactions: 1 })
    expect(b.zipped).toEqual(bytesOf(100, 3))
  })

  it('bytes larger than an arena get a buffer of their own, outside the arenas', () => {
    const arenas = new ZippedArenas(1000)
    const big: ZippedHolder = { zipped: undefined }
    const src = bytesOf(1500, 9)
    arenas.store(big, src)
    expect(big.zipped).toEqual(src)
    expect(big.zipped).not.toBe(src)
    expect(arenas.stats()).toMatchObject({ arenas: 0, usedBytes: 0 })
    arenas.release(big)
    expect(big.zipped).toBeUndefined()
  })
})
