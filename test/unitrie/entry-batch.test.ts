/**
 * EntryBatch (src/unitrie/entry-batch.ts) against a simple model, an array of the entries added: with chunks of a
 * few bytes, so that entries fill chunks exactly, spill into new ones and outgrow them (an entry larger than a chunk
 * gets one of its own size); every entry read back by number, in insertion order, and sortedUnique's winners (the
 * highest rank, then the latest) in key order, over more entries than the first index arrays hold, with runs of
 * keys sharing their first six bytes (the radix sort's digits), keys shorter than six bytes and keys that are
 * prefixes of others.
 */
import { describe, expect, it } from 'vitest'
import { EntryBatch } from '../../src/unitrie/entry-batch.js'
import { seededRandom } from '../helpers/seeded.js'

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex')

interface Entry {
  key: Uint8Array
  value: Uint8Array
  rank: number
}

/** Adds `e` to `batch` one of the three ways (whole key, key in two parts, value as a slice of a larger buffer). */
function addTo(batch: EntryBatch, e: Entry, how: number): void {
  if (how === 0) batch.add(e.key, e.value, e.rank)
  else if (how === 1) {
    const cut = Math.floor(e.key.length / 2)
    batch.addJoined(e.key.subarray(0, cut), e.key.subarray(cut), e.value, e.rank)
  } else {
    const source = Uint8Array.from([0xee, 0xee, ...e.value, 0xee])
    batch.addSlice(e.key, new Uint8Array(0), source, 2, 2 + e.value.length, e.rank)
  }
}

/** The model's sortedUnique: the winner per key (highest rank, then latest), without empty values, in key order. */
function modelSorted(entries: Entry[]): string[] {
  const winners = new Map<string, number>()
  entries.forEach((e, i) => {
    const k = hex(e.key)
    const w = winners.get(k)
    if (w === undefined || e.rank >= entries[w]!.rank) winners.set(k, i)
  })
  return [...winners.values()]
    .filter((i) => entries[i]!.value.length > 0)
    .sort((i, j) => Buffer.compare(entries[i]!.key, entries[j]!.key))
    .map((i) => `${i}:${hex(entries[i]!.key)}:${hex(entries[i]!.value)}`)
}

/** Where the model puts each entry: its chunk and offset, and each chunk's size (entries never straddle chunks). */
function modelLayout(entries: Entry[], chunkBytes: number): { at: [number, number][]; sizes: number[] } {
  const sizes: number[] = []
  const at: [number, number][] = []
  let used = 0
  for (const e of entries) {
    const need = e.key.length + e.value.length
    if (sizes.length === 0 || used + need > sizes[sizes.length - 1]!) {
      sizes.push(Math.max(chunkBytes, need))
      used = 0
    }
    at.push([sizes.length - 1, used])
    used += need
  }
  return { at, sizes }
}

/** Checks `batch` (built from `entries` with chunks of `chunkBytes`) against the model. */
function expectMatchesModel(batch: EntryBatch, entries: Entry[], chunkBytes: number): void {
  expect(batch.length).toBe(entries.length)
  const got = entries.map((_, i) => `${hex(batch.key(i))}:${hex(batch.value(i))}`)
  expect(got).toEqual(entries.map((e) => `${hex(e.key)}:${hex(e.value)}`))
  expect([...batch.entries()].map(([k, v]) => `${hex(k)}:${hex(v)}`)).toEqual(got)
  const sorted = batch.sortedUnique()
  const order = [...sorted.order].map((i) => `${i}:${hex(batch.key(i))}:${hex(batch.value(i))}`)
  expect(order).toEqual(modelSorted(entries))
  const { at, sizes } = modelLayout(entries, chunkBytes)
  expect(sorted.chunks.map((c) => c.length)).toEqual(sizes)
  expect(entries.map((_, i) => [sorted.chunkOf[i], sorted.keyAt[i]])).toEqual(at)
  entries.forEach((e, i) => {
    expect([sorted.keyLength[i], sorted.valueLength[i]]).toEqual([e.key.length, e.value.length])
    const chunk = sorted.chunks[sorted.chunkOf[i]!]!
    const from = sorted.keyAt[i]!
    expect(hex(chunk.subarray(from, from + e.key.length + e.value.length))).toBe(hex(e.key) + hex(e.value))
  })
}

describe('EntryBatch', () => {
  it('the default chunk size is unchanged (4 MiB); a chunk size that is not a positive integer is refused', () => {
    const batch = new EntryBatch()
    batch.add(Uint8Array.of(1), Uint8Array.of(2))
    expect(batch.sortedUnique().chunks.map((c) => c.length)).toEqual([4 * 1024 * 1024])
    for (const bad of [0, -1, 1.5, Number.NaN]) expect(() => new EntryBatch(bad)).toThrow(RangeError)
  })

  it('chunk boundaries: an entry filling a chunk exactly, one spilling into the next, one larger than a chunk', () => {
    const e = (k: number[], v: number[], rank = 1): Entry => ({
      key: Uint8Array.from(k),
      value: Uint8Array.from(v),
      rank,
    })
    const entries = [
      e([1, 2, 3], [4, 5]), // 5 of 8 bytes
      e([6], [7, 8]), // exactly fills the first chunk
      e([9], [10]), // opens the second
      e([11, 12, 13, 14], [15, 16]), // 2 + 6 = 8: fits exactly
      e([17], [18]), // opens the third
      e([19, 20, 21, 22, 23, 24, 25, 26, 27], [28, 29, 30]), // 12 > 8: a chunk of its own, of 12 bytes
      e([31], [32, 33, 34, 35, 36, 37, 38, 39]), // 9: a chunk of its own too
      e([40], []), // an empty value (a deletion): 1 byte, in a new chunk (the last one is full)
      e([1, 2, 3], [99], 0), // a later entry of lower rank loses
      e([6], [], 1), // a later empty value deletes
      e([9], [100], 2), // a later entry of higher rank wins
    ]
    const batch = new EntryBatch(8)
    entries.forEach((x) => batch.add(x.key, x.value, x.rank))
    expectMatchesModel(batch, entries, 8)
    expect(
      batch
        .sortedUnique()
        .chunks.map((c) => c.length)
        .slice(0, 6),
    ).toEqual([8, 8, 8, 12, 9, 8])
    expect([...batch.sortedUnique().order]).toEqual([0, 10, 3, 4, 5, 6])
  })

  for (const [seed, chunkBytes] of [
    [1, 1],
    [2, 7],
    [3, 16],
    [4, 64],
  ] as const) {
    it(`random entries with ${chunkBytes}-byte chunks (seed ${seed}): reads, insertion order, winners in key order`, () => {
      const r = seededRandom(seed)
      const heads = Array.from({ length: 4 }, () => Uint8Array.from({ length: 6 }, () => r(3)))
      const entries: Entry[] = []
      for (let i = 0; i < 2500; i++) {
        const kind = r(4)
        // a shared six-byte head and a tail (long runs of equal radix digits), a short key (under six bytes: padded
        // with zeros by the sort), or a repeat of an earlier key, or a prefix of one
        let key: Uint8Array
        if (kind === 0 && entries.length > 0) {
          const earlier = entries[r(entries.length)]!.key
          key = r(2) === 0 ? earlier : earlier.subarray(0, 1 + r(earlier.length))
        } else if (kind === 1) key = Uint8Array.from({ length: 1 + r(5) }, () => r(2))
        else key = Uint8Array.from([...heads[r(heads.length)]!, ...Array.from({ length: r(4) }, () => r(3))])
        const value = Uint8Array.from({ length: r(5) === 0 ? 0 : r(3) === 0 ? 65 + r(40) : 1 + r(12) }, () => r(256))
        entries.push({ key, value, rank: r(3) })
      }
      const batch = new EntryBatch(chunkBytes)
      entries.forEach((e, i) => addTo(batch, e, i % 3))
      expectMatchesModel(batch, entries, chunkBytes)
    })
  }
})
