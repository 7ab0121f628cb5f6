/**
 * Compressed block chunks cut into segments inflatable on their own (src/blocks/chunk-segments.ts,
 * block-chunks.ts): every byte range reads back as written, before and after compression, within a segment and
 * across segments; a read of one block inflates its segment and the chunk's first block only; a change, a compaction
 * or a truncation of a compressed chunk reads the new bytes.
 */
import { describe, expect, it } from 'vitest'
import { ChunkStore } from '../../src/blocks/block-chunks.js'
import { cutsOf, deflateSegments, inflateSegment, segmentStarts } from '../../src/blocks/chunk-segments.js'

/** A block of `length` bytes much like its neighbours (a counter, a repeated pattern, zeros), seeded by `n`. */
function blockBytes(n: number, length: number): Uint8Array {
  const out = new Uint8Array(length)
  for (let i = 0; i < length; i++) out[i] = i % 7 === 0 ? (n * 31 + i) & 0xff : i % 3 === 0 ? 0 : (i * 13) & 0xff
  return out
}

/** Appends blocks of the given lengths; @returns each block's chunk, offset and bytes */
function writeBlocks(store: ChunkStore, lengths: number[]): { index: number; at: number; bytes: Uint8Array }[] {
  return lengths.map((length, n) => {
    const bytes = blockBytes(n, length)
    const { index, bytes: chunk, at } = store.reserve(length)
    chunk.set(bytes, at)
    store.commit(length)
    return { index, at, bytes }
  })
}

function readBack(store: ChunkStore, b: { index: number; at: number; bytes: Uint8Array }): Uint8Array {
  const { bytes, at } = store.read(b.index, b.at, b.at + b.bytes.length)
  return bytes.subarray(at, at + b.bytes.length)
}

/** 120 blocks of 150-450 bytes: chunks of 8 KB hold ~30, segments of 1 KB ~4. */
const LENGTHS = Array.from({ length: 120 }, (_, n) => 150 + ((n * 97) % 300))

describe('segments of a compressed chunk', () => {
  it('cut at the first block, then at the first block ending a segment size past the last cut', () => {
    expect(cutsOf([300, 700, 1100, 1500, 1900], 1000)).toEqual([300, 1500])
    expect(segmentStarts([300, 1500], 1900)).toEqual([300, 1500])
    // one segment when there is no cut past the first block below the size
    expect(segmentStarts([300], 1900)).toEqual([])
    expect(segmentStarts([300, 1900], 1900)).toEqual([])
  })

  it('deflate and inflate back, later segments with the first as dictionary', async () => {
    const raw = new Uint8Array(5000)
    raw.set(blockBytes(1, 5000))
    const starts = [400, 2000, 3500]
    const z = await deflateSegments(raw, starts, 1, () => true)
    expect(z!.ends).toHaveLength(4)
    const bounds = [0, ...starts, raw.length]
    const first = inflateSegment(z!.bytes, z!.ends, 0, 400)
    for (let k = 0; k < 4; k++) {
      const seg = inflateSegment(z!.bytes, z!.ends, k, bounds[k + 1]! - bounds[k]!, first)
      expect(Buffer.from(seg).equals(Buffer.from(raw.subarray(bounds[k], bounds[k + 1])))).toBe(true)
    }
    expect(() => inflateSegment(z!.bytes, z!.ends, 2, 10, first)).toThrow(/inflated to 1500 bytes/)
    // stopped when the bytes changed meanwhile
    expect(await deflateSegments(raw, starts, 1, () => false)).toBeUndefined()
  })

  it('every block and every range reads back as written, before and after compression', async () => {
    const store = new ChunkStore(8 * 1024, 2, undefined, 1024)
    const blocks = writeBlocks(store, LENGTHS)
    const check = (): void => {
      for (const b of blocks) expect(Buffer.from(readBack(store, b)).equals(Buffer.from(b.bytes))).toBe(true)
    }
    check()
    await store.settled()
    const stats = store.stats()
    expect(stats.compressed).toBe(stats.chunks - 1)
    expect(stats.segments).toBeGreaterThan(3 * stats.compressed)
    check()
    // ranges across segments and blocks: copied out of the segments
    const whole = store.bytes(0)
    for (const [start, end] of [
      [0, 8000],
      [100, 5000],
      [1234, 1235],
      [3000, 7000],
    ] as const) {
      const { bytes, at } = store.read(0, start, end)
      expect(Buffer.from(bytes.subarray(at, at + end - start)).equals(Buffer.from(whole.subarray(start, end)))).toBe(
        true,
      )
    }
  })

  it('a block read inflates its segment and the chunk’s first block, and then reads from the cache', async () => {
    const store = new ChunkStore(8 * 1024, 2, undefined, 1024)
    const blocks = writeBlocks(store, LENGTHS)
    await store.settled()
    const inChunk0 = blocks.filter((b) => b.index === 0)
    const last = inChunk0[inChunk0.length - 1]!
    const before = store.stats().inflates
    readBack(store, last)
    expect(store.stats().inflates - before).toBe(2)
    readBack(store, last)
    expect(store.stats().inflates - before).toBe(2)
    // the first block is segment 0: one inflate
    const other = blocks.find((b) => b.index === 1)!
    readBack(store, other)
    expect(store.stats().inflates - before).toBe(3)
  })

  it('a change, a compaction and a truncation of a compressed chunk read the new bytes', async () => {
    const store = new ChunkStore(8 * 1024, 2, undefined, 1024)
    const blocks = writeBlocks(store, LENGTHS)
    await store.settled()
    const inChunk1 = blocks.filter((b) => b.index === 1)
    const b = inChunk1[5]!
    // read (cached), then changed in place
    readBack(store, b)
    const writable = store.writable(1)
    writable.fill(0xee, b.at, b.at + b.bytes.length)
    expect(readBack(store, b).every((x) => x === 0xee)).toBe(true)
    // compacted: its blocks moved back to back, compressed again
    const compact = new Uint8Array(inChunk1.reduce((n, x) => n + x.bytes.length, 0))
    const ends: number[] = []
    let at = 0
    for (const x of inChunk1) {
      compact.set(x === b ? new Uint8Array(x.bytes.length).fill(0xdd) : x.bytes, at)
      x.at = at
      at += x.bytes.length
      ends.push(at)
    }
    store.replace(1, compact, ends)
    await store.settled()
    expect(store.isCompressed(1)).toBe(true)
    for (const x of inChunk1) {
      const want = x === b ? new Uint8Array(x.bytes.length).fill(0xdd) : x.bytes
      expect(Buffer.from(readBack(store, x)).equals(Buffer.from(want))).toBe(true)
    }
    // truncated after its third block: the chunks after go, it opens again and takes new blocks
    const keep = inChunk1[2]!
    store.truncate(1, keep.at + keep.bytes.length)
    expect(store.length).toBe(2)
    const added = writeBlocks(store, [500, 600, 700])
    expect(added[0]!.index).toBe(1)
    expect(added[0]!.at).toBe(keep.at + keep.bytes.length)
    for (const x of [...inChunk1.slice(0, 3), ...added])
      expect(Buffer.from(readBack(store, x)).equals(Buffer.from(x.bytes))).toBe(true)
  })
})
