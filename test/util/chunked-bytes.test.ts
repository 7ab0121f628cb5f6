/**
 * The chunked byte store the large in-memory stores share (src/util/chunked-bytes.ts), checked against a simple
 * model (a list of the byte strings written, each at the chunk and offset the model's own rule gives) with tiny
 * chunks: writes that fill a chunk exactly, that just miss, that are empty, that are larger than a chunk; clearing
 * with and without keeping the first chunk; the chunk limit.
 */
import { describe, expect, it } from 'vitest'
import { ChunkedBytes } from '../../src/util/chunked-bytes.js'
import { seededRandom } from '../helpers/seeded.js'

/** The model: where each write goes if chunks are filled in order and a write never straddles two. */
class Model {
  sizes: number[] = []
  used = 0
  writes: { chunk: number; at: number; bytes: number[] }[] = []
  constructor(readonly chunkBytes: number) {}
  write(bytes: number[]): { chunk: number; at: number } {
    const last = this.sizes.length - 1
    if (last < 0 || this.used + bytes.length > this.sizes[last]!) {
      this.sizes.push(Math.max(this.chunkBytes, bytes.length))
      this.used = 0
    }
    const w = { chunk: this.sizes.length - 1, at: this.used, bytes }
    this.used += bytes.length
    this.writes.push(w)
    return w
  }
}

describe('ChunkedBytes', () => {
  it('places writes as the model does through 5 000 random writes (tiny chunks, empty and oversized writes)', () => {
    for (const chunkBytes of [1, 2, 3, 7, 16]) {
      const r = seededRandom(chunkBytes * 7919 + 1)
      const store = new ChunkedBytes(chunkBytes)
      const model = new Model(chunkBytes)
      for (let step = 0; step < 1000; step++) {
        // sizes around the chunk size: 0, just under, exactly, just over, twice
        const n = [0, chunkBytes - 1, chunkBytes, chunkBytes + 1, 2 * chunkBytes, r(chunkBytes + 1)][r(6)]!
        const bytes = Array.from({ length: Math.max(0, n) }, () => r(256))
        const want = model.write(bytes)
        const source = Uint8Array.from([9, ...bytes, 9])
        const at = step % 2 === 0 ? store.append(source, 1, source.length - 1) : store.reserve(bytes.length)
        if (step % 2 === 1) store.chunk.set(bytes, at)
        expect({ chunk: store.last, at }).toEqual({ chunk: want.chunk, at: want.at })
        expect(store.used).toBe(model.used)
      }
      expect(store.chunks.map((c) => c.length)).toEqual(model.sizes)
      expect(store.byteSize).toBe(model.sizes.reduce((a, b) => a + b, 0))
      // every write still reads back (chunks never move)
      for (const w of model.writes) expect([...store.view(w.chunk, w.at, w.at + w.bytes.length)]).toEqual(w.bytes)
    }
  })

  it('opens no chunk before the first write, and fills a chunk exactly before opening the next', () => {
    const store = new ChunkedBytes(4)
    expect(store.last).toBe(-1)
    expect(store.byteSize).toBe(0)
    expect(store.reserve(4)).toBe(0)
    expect(store.last).toBe(0)
    expect(store.reserve(0)).toBe(4)
    expect(store.last).toBe(0)
    expect(store.reserve(1)).toBe(0)
    expect(store.last).toBe(1)
    // a write larger than a chunk gets one of its own size; the rest of the chunk before stays unused
    expect(store.reserve(9)).toBe(0)
    expect(store.chunks.map((c) => c.length)).toEqual([4, 4, 9])
    expect(store.reserve(1)).toBe(0)
    expect(store.chunks.map((c) => c.length)).toEqual([4, 4, 9, 4])
  })

  it('clear keeps the first chunk when it is of the regular size, and writes start over in it', () => {
    const store = new ChunkedBytes(4)
    store.append(Uint8Array.of(1, 2, 3))
    store.append(Uint8Array.of(4, 5))
    const first = store.chunks[0]
    store.clear()
    expect(store.chunks).toEqual([first])
    expect(store.last).toBe(0)
    expect(store.used).toBe(0)
    expect(store.append(Uint8Array.of(7))).toBe(0)
    expect(store.chunks[0]).toBe(first)
    expect([...store.view(0, 0, 1)]).toEqual([7])
  })

  it('clear drops a first chunk of another size', () => {
    const store = new ChunkedBytes(4)
    store.append(new Uint8Array(6))
    store.clear()
    expect(store.chunks).toEqual([])
    expect(store.last).toBe(-1)
    expect(store.append(Uint8Array.of(1, 2))).toBe(0)
    expect(store.chunks.map((c) => c.length)).toEqual([4])
  })

  it('refuses a chunk past its limit, naming its owner, and a chunk size that is not a positive integer', () => {
    const store = new ChunkedBytes(2, 2, 'Test store')
    store.reserve(2)
    store.reserve(2)
    expect(store.reserve(0)).toBe(2)
    expect(() => store.reserve(1)).toThrow('Test store: full')
    for (const bad of [0, -1, 1.5, Number.NaN]) expect(() => new ChunkedBytes(bad)).toThrow(RangeError)
  })
})
