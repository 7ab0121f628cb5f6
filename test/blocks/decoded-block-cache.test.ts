/**
 * The decoded-block cache (src/blocks/decoded-block-cache.ts; docs/architecture.md#storage): the window of recent
 * block numbers and, apart from it, an LRU of older blocks read — reads of older blocks never push recent ones out,
 * and every block that leaves is reported once (the --db transaction index removes its hashes then).
 */
import { describe, expect, it } from 'vitest'
import { DecodedBlockCache, OLDER_DECODED_BLOCKS, RECENT_DECODED_BLOCKS } from '../../src/blocks/decoded-block-cache.js'
import type { BlockRecord } from '../../src/types/records.js'

/** The cache holds records as they are: a distinct object per number is all it needs to tell them apart. */
const record = (n: number): BlockRecord => ({ n }) as unknown as BlockRecord

function cache(recent = 8, older = 3) {
  const dropped: number[] = []
  const c = new DecodedBlockCache(
    (n, b) => {
      expect((b as unknown as { n: number }).n).toBe(n)
      dropped.push(n)
    },
    recent,
    older,
  )
  return { c, dropped }
}

describe('decoded-block cache', () => {
  it('keeps the newest RECENT_DECODED_BLOCKS numbers by default and drops each older one as blocks are added', () => {
    const { c, dropped } = cache(RECENT_DECODED_BLOCKS, OLDER_DECODED_BLOCKS)
    for (let n = 1; n <= RECENT_DECODED_BLOCKS + 10; n++) c.set(n, record(n))
    expect(dropped).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
    expect(c.get(10)).toBeUndefined()
    expect(c.get(11)).toEqual(record(11))
    expect(c.peek(RECENT_DECODED_BLOCKS + 10)).toEqual(record(RECENT_DECODED_BLOCKS + 10))
  })

  it('puts a block read below the window among the older ones, which never push recent blocks out', () => {
    const { c, dropped } = cache()
    for (let n = 1; n <= 20; n++) c.set(n, record(n)) // window 13 … 20
    dropped.length = 0
    for (const n of [1, 2, 3, 4, 5]) c.set(n, record(n)) // older: 3 at most, least recently used out
    expect(dropped).toEqual([1, 2])
    for (let n = 13; n <= 20; n++) expect(c.peek(n)).toEqual(record(n))
    expect(c.get(3)).toEqual(record(3))
    c.set(6, record(6)) // 4 is now the least recently used
    expect(c.get(4)).toBeUndefined()
    expect(c.get(3)).toEqual(record(3))
    expect(c.get(5)).toEqual(record(5))
  })

  it('peek does not change the order of the older blocks; get does', () => {
    const { c } = cache(4, 2)
    for (let n = 1; n <= 10; n++) c.set(n, record(n))
    c.set(1, record(1))
    c.set(2, record(2))
    c.peek(1)
    c.set(3, record(3)) // 1 was not used: out
    expect(c.peek(1)).toBeUndefined()
    c.get(2)
    c.set(4, record(4)) // 3 out, 2 stays
    expect(c.peek(2)).toEqual(record(2))
    expect(c.peek(3)).toBeUndefined()
  })

  it('moves the window by a jump (a state file, a fork) and drops what it leaves', () => {
    const { c, dropped } = cache(4, 2)
    for (let n = 1; n <= 4; n++) c.set(n, record(n))
    c.set(100, record(100))
    expect(dropped.sort((a, b) => a - b)).toEqual([1, 2, 3, 4])
    expect(c.get(100)).toEqual(record(100))
  })

  it('endWindowAt places the window before any block is set (a chain read back from the database)', () => {
    const { c, dropped } = cache(4, 2)
    c.endWindowAt(100)
    for (const n of [5, 7, 9]) c.set(n, record(n)) // older blocks: the last two read stay
    expect(dropped).toEqual([5])
    c.set(98, record(98))
    expect(c.get(98)).toEqual(record(98))
    c.endWindowAt(50) // never moves it down
    c.set(97, record(97))
    expect(c.get(97)).toEqual(record(97))
    expect(c.get(9)).toEqual(record(9))
  })

  it('truncateAbove drops the blocks above (recent and older) and ends the window there', () => {
    const { c, dropped } = cache(4, 4)
    for (let n = 1; n <= 12; n++) c.set(n, record(n)) // window 9 … 12
    c.set(5, record(5))
    c.set(6, record(6))
    dropped.length = 0
    c.truncateAbove(5)
    expect(dropped.sort((a, b) => a - b)).toEqual([6, 9, 10, 11, 12])
    expect(c.get(5)).toEqual(record(5))
    // the window now ends at 5; mining block 6 again moves it to 3 … 6: block 3 read now is a recent one and
    // leaves with the window, block 5 stays among the older ones
    c.set(6, record(6))
    c.set(3, record(3))
    for (let n = 7; n <= 9; n++) c.set(n, record(n))
    expect(c.get(3)).toBeUndefined()
    expect(c.get(5)).toEqual(record(5))
    expect(c.get(6)).toEqual(record(6))
  })

  it('reports a replaced record, delete and clear drop each block once', () => {
    const { c, dropped } = cache(4, 2)
    c.set(1, record(1))
    c.set(1, record(1))
    expect(dropped).toEqual([1])
    for (let n = 2; n <= 8; n++) c.set(n, record(n))
    c.set(2, record(2))
    dropped.length = 0
    c.delete(8)
    c.delete(2)
    c.delete(2)
    expect(dropped).toEqual([8, 2])
    dropped.length = 0
    c.clear()
    expect(dropped.sort((a, b) => a - b)).toEqual([5, 6, 7])
    for (const n of [2, 5, 6, 7, 8]) expect(c.get(n)).toBeUndefined()
  })
})
