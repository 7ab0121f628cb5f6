/**
 * The address index (src/blocks/address-index.ts and its postings and pages): checked against a simple model (a Map
 * of arrays per address) through random appends, truncations, re-appends and clears; Otterscan's page rules
 * (whole blocks, flags, a floor of pruned blocks) on hand-made cases; the creator and sender+nonce lookups; the
 * block records (AddressIndex.blockRecords through the record codec) rebuild the same index. Its memory and speed are measured
 * by bench/address-index.mjs, not here.
 */
import { describe, expect, it } from 'vitest'
import { AddressIndex, type IndexedTx, type SearchPage } from '../../src/blocks/address-index.js'
import { PAGE, Postings } from '../../src/blocks/address-index-postings.js'
import { decodeBlockAddresses, encodeBlockAddresses } from '../../src/blocks/address-index-record.js'
import { txPositionKey, txPositionNumber } from '../../src/blocks/tx-position-key.js'
import { toHex } from '../../src/util/bytes.js'
import { seededRandom } from '../helpers/seeded.js'

/** Address `i`: half random-looking, half sharing their first 16 bytes (like the native contracts). */
function address(i: number): Uint8Array {
  const a = new Uint8Array(20)
  if (i % 2 === 0) {
    new DataView(a.buffer).setUint32(16, 0x01000000 + i)
  } else {
    const v = new DataView(a.buffer)
    for (let w = 0; w < 5; w++) v.setUint32(w * 4, Math.imul(i ^ (w << 28), 0x9e3779b1) ^ Math.imul(i, 0x85ebca77 + w))
  }
  return a
}

/** The page rules restated over a plain ascending array (blocks grouped first, then taken whole). */
function modelPage(list: number[], block: number, pageSize: number, dir: 'before' | 'after'): SearchPage {
  const eligible = list.filter((p) =>
    dir === 'before' ? block === 0 || txPositionNumber(p) < block : block === 0 || txPositionNumber(p) > block,
  )
  const byBlock = new Map<number, number[]>()
  for (const p of eligible) byBlock.set(txPositionNumber(p), [...(byBlock.get(txPositionNumber(p)) ?? []), p])
  const blocks = [...byBlock.keys()].sort((a, b) => (dir === 'before' ? b - a : a - b))
  const taken: number[] = []
  let used = 0
  for (const b of blocks) {
    if (taken.length >= Math.max(pageSize, 1)) break
    taken.push(...byBlock.get(b)!)
    used++
  }
  const more = used < blocks.length
  const positions = taken.sort((a, b) => b - a)
  return dir === 'before'
    ? { positions, firstPage: block === 0, lastPage: !more }
    : { positions, firstPage: !more, lastPage: block === 0 }
}

interface Model {
  touched: Map<string, number[]>
  sent: Map<string, number[]>
  created: Map<string, { position: number; creator: string }[]>
  nonce: Map<number, bigint>
}

function file(map: Map<string, number[]>, key: Uint8Array, p: number): void {
  const list = map.get(toHex(key)) ?? []
  if (list[list.length - 1] !== p) list.push(p)
  map.set(toHex(key), list)
}

function truncateModel(m: Model, n: number): void {
  for (const map of [m.touched, m.sent]) {
    for (const [k, list] of map)
      map.set(
        k,
        list.filter((p) => txPositionNumber(p) <= n),
      )
  }
  for (const [k, list] of m.created)
    m.created.set(
      k,
      list.filter((c) => txPositionNumber(c.position) <= n),
    )
}

function list(reader: { count: number; at: (i: number) => number }): number[] {
  return Array.from({ length: reader.count }, (_, i) => reader.at(i))
}

/**
 * Rebuilds an index from `index.blockRecords()` passed through the record codec (as `--db` and state files carry
 * them) and checks every list and creation of addresses 0 … count − 1 is the same.
 */
function expectSameAfterRebuild(index: AddressIndex, count: number): void {
  const rebuilt = new AddressIndex()
  const records = [...index.blockRecords()].sort(([a], [b]) => a - b)
  for (const [n, txs] of records) rebuilt.append(n, decodeBlockAddresses(encodeBlockAddresses(txs)))
  expect(rebuilt.size).toBe(index.size)
  for (let a = 0; a < count; a++) {
    const addr = address(a)
    expect(list(rebuilt.touchedBy(addr))).toEqual(list(index.touchedBy(addr)))
    expect(list(rebuilt.sentBy(addr))).toEqual(list(index.sentBy(addr)))
    expect(rebuilt.creation(addr)).toEqual(index.creation(addr))
  }
}

describe('AddressIndex', () => {
  it('matches a Map-of-arrays model through random appends, truncates, re-appends and clears', () => {
    const r = seededRandom(20261205)
    const index = new AddressIndex()
    const m: Model = { touched: new Map(), sent: new Map(), created: new Map(), nonce: new Map() }
    const nextNonce = new Map<string, bigint>()
    const ADDRS = 16
    let block = 0
    let longest = 0
    for (let step = 0; step < 800; step++) {
      const op = r(20)
      if (op === 0 && block > 0) {
        // mostly a revert of the last few blocks (a test suite's snapshots), sometimes a deep one
        const n = r(8) === 0 ? r(block + 1) - 1 : block - 1 - r(Math.min(block, 6))
        index.truncateAbove(n)
        truncateModel(m, n)
        block = Math.max(n, 0)
        expect(index.lastBlock).toBeLessThanOrEqual(n)
      } else if (op === 1 && r(40) === 0) {
        index.clear()
        m.touched.clear()
        m.sent.clear()
        m.created.clear()
        block = 0
      } else {
        block += 1 + r(3)
        const txs: IndexedTx[] = []
        const count = r(4) === 0 ? 0 : 1 + r(6)
        for (let i = 0; i < count; i++) {
          const from = address(r(ADDRS))
          const touched = Array.from({ length: r(4) }, () => address(r(ADDRS)))
          const created =
            r(4) === 0 ? [{ address: address(ADDRS + r(20)), creator: r(2) === 0 ? from : address(r(ADDRS)) }] : []
          txs.push({ from, touched, created })
          const p = txPositionKey(block, i)
          const k = toHex(from)
          const nonce = (nextNonce.get(k) ?? 0n) + (r(8) === 0 ? BigInt(1 + r(5)) : 0n)
          nextNonce.set(k, nonce + 1n)
          m.nonce.set(p, nonce)
          for (const a of [from, ...touched, ...created.flatMap((c) => [c.address, c.creator])]) {
            file(m.touched, a, p)
          }
          file(m.sent, from, p)
          for (const c of created) {
            const cs = m.created.get(toHex(c.address)) ?? []
            cs.push({ position: p, creator: toHex(c.creator) })
            m.created.set(toHex(c.address), cs)
          }
        }
        index.append(block, txs)
      }
      for (let a = 0; a < ADDRS + 20; a++) {
        const addr = address(a)
        const want = m.touched.get(toHex(addr)) ?? []
        longest = Math.max(longest, want.length)
        expect(list(index.touchedBy(addr))).toEqual(want)
        expect(list(index.sentBy(addr))).toEqual(m.sent.get(toHex(addr)) ?? [])
        const cs = m.created.get(toHex(addr)) ?? []
        const c = index.creation(addr)
        const last = cs[cs.length - 1]
        expect(c && { position: c.position, creator: toHex(c.creator) }).toEqual(last)
        if (step % 5 === 0) {
          for (const b of [0, 1, r(block + 3), r(block + 3)]) {
            const size = r(6)
            expect(index.before(addr, b, size)).toEqual(modelPage(want, b, size, 'before'))
            expect(index.after(addr, b, size)).toEqual(modelPage(want, b, size, 'after'))
            // blocks at or below a floor (pruned receipts) count as absent
            const floor = r(block + 2) - 1
            const above = want.filter((p) => txPositionNumber(p) > floor)
            expect(index.before(addr, b, size, floor)).toEqual(modelPage(above, b, size, 'before'))
            expect(index.after(addr, b, size, floor)).toEqual(modelPage(above, b, size, 'after'))
          }
        }
      }
      if (step % 97 === 0) expectSameAfterRebuild(index, ADDRS + 20)
    }
    expect(longest).toBeGreaterThan(2 * PAGE) // lists went through their paged form
  })

  it('cuts pages of whole blocks with Otterscan’s flags', () => {
    const index = new AddressIndex()
    const me = address(1)
    const other = address(2)
    const tx = (touches: boolean): IndexedTx => ({ from: other, touched: touches ? [me] : [] })
    // block 2: 2 txs of `me`; block 3: none; block 5: 3 of `me` (between others); block 7: 1; block 9: 2
    index.append(2, [tx(true), tx(true)])
    index.append(3, [tx(false)])
    index.append(5, [tx(true), tx(false), tx(true), tx(true)])
    index.append(7, [tx(true)])
    index.append(9, [tx(false), tx(true), tx(true)])
    const P = txPositionKey
    // first page from the newest, exact fit of two blocks
    expect(index.before(me, 0, 3)).toEqual({ positions: [P(9, 2), P(9, 1), P(7, 0)], firstPage: true, lastPage: false })
    // a block bigger than what is left of the page is finished: 4 asked, 6 returned
    expect(index.before(me, 0, 4).positions).toEqual([P(9, 2), P(9, 1), P(7, 0), P(5, 3), P(5, 2), P(5, 0)])
    // the next page, and the last one
    expect(index.before(me, 5, 3)).toEqual({ positions: [P(2, 1), P(2, 0)], firstPage: false, lastPage: true })
    expect(index.before(me, 2, 3)).toEqual({ positions: [], firstPage: false, lastPage: true })
    // a block bigger than the whole page
    expect(index.before(me, 7, 1)).toEqual({
      positions: [P(5, 3), P(5, 2), P(5, 0)],
      firstPage: false,
      lastPage: false,
    })
    // after: from the oldest (block 0 = last page), newest first within the page
    expect(index.after(me, 0, 2)).toEqual({ positions: [P(2, 1), P(2, 0)], firstPage: false, lastPage: true })
    expect(index.after(me, 2, 2)).toEqual({ positions: [P(5, 3), P(5, 2), P(5, 0)], firstPage: false, lastPage: false })
    expect(index.after(me, 5, 3)).toEqual({ positions: [P(9, 2), P(9, 1), P(7, 0)], firstPage: true, lastPage: false })
    expect(index.after(me, 9, 3)).toEqual({ positions: [], firstPage: true, lastPage: false })
    // an address with nothing
    expect(index.before(address(3), 0, 25)).toEqual({ positions: [], firstPage: true, lastPage: true })
    expect(index.after(address(3), 0, 25)).toEqual({ positions: [], firstPage: true, lastPage: true })
    // the sender is filed once per transaction
    expect(index.touchedBy(other).count).toBe(11)
  })

  it('finds a sent transaction by nonce through jumps, and a contract’s latest creator after a truncate', async () => {
    const index = new AddressIndex()
    const sender = address(5)
    const nonces = new Map<number, bigint>()
    let nonce = 0n
    for (let b = 1; b <= 200; b++) {
      if (b % 37 === 0) nonce += 10n // anvil_setNonce
      const p = txPositionKey(b, 0)
      nonces.set(p, nonce++)
      index.append(b, [{ from: sender, touched: [] }])
    }
    const nonceOf = async (p: number) => nonces.get(p)!
    for (const [p, n] of nonces) expect(await index.findSentByNonce(sender, n, nonceOf)).toBe(p)
    expect(await index.findSentByNonce(sender, 40n, nonceOf)).toBeUndefined() // skipped by the jump at block 37
    expect(await index.findSentByNonce(sender, 10_000n, nonceOf)).toBeUndefined()
    expect(await index.findSentByNonce(address(6), 0n, nonceOf)).toBeUndefined()

    const contract = address(99)
    index.append(201, [{ from: sender, touched: [], created: [{ address: contract, creator: sender }] }])
    index.append(202, [{ from: sender, touched: [], created: [{ address: contract, creator: address(7) }] }])
    expect(index.creation(contract)).toEqual({ position: txPositionKey(202, 0), creator: address(7) })
    index.truncateAbove(201)
    expect(index.creation(contract)).toEqual({ position: txPositionKey(201, 0), creator: sender })
    index.truncateAbove(200)
    expect(index.creation(contract)).toBeUndefined()
    expect(index.touchedBy(contract).count).toBe(0)
    index.append(201, [{ from: address(8), touched: [contract] }])
    expect(list(index.touchedBy(contract))).toEqual([txPositionKey(201, 0)])
    expect(() => index.append(201, [])).toThrow(RangeError)
  })

  it('moves lists between segments and pages and back through truncations at page boundaries', () => {
    const postings = new Postings(20)
    const a = address(1)
    const b = address(2)
    const r = seededRandom(99)
    const model: number[] = []
    let group = 0
    for (const cut of [PAGE * 5 + 3, PAGE * 2, PAGE + 1, PAGE, PAGE - 1, 1, 0, PAGE * 3, PAGE * 2 - 1, PAGE + 1]) {
      // grow past the cut (interleaving a second key so segments and pages alternate in the pool), then cut back
      while (model.length < cut + PAGE * 2) {
        group++
        postings.add(a, group * 10, group)
        model.push(group * 10)
        if (r(3) === 0) postings.add(b, group * 10, group)
      }
      expect(list(postings.list(a))).toEqual(model)
      const g = model[cut - 1] === undefined ? 0 : model[cut - 1]! / 10
      postings.truncateAbove(g)
      model.length = cut
      group = g
      expect(list(postings.list(a))).toEqual(model)
      expect(postings.countOf(a)).toBe(cut)
      expect(postings.list(b).count).toBeLessThanOrEqual(cut)
    }
  })

  it('starts small and grows its chunks across the journal and pool boundaries, truncating back over them', () => {
    const postings = new Postings(20)
    const keys = Array.from({ length: 40 }, (_, i) => address(i))
    const model = keys.map(() => [] as number[])
    const groupsOf: number[] = [] // the group of every entry, in order
    for (let group = 0; group < 3; group++) postings.add(keys[group]!, group, group)
    keys.slice(0, 3).forEach((_, i) => model[i]!.push(i))
    groupsOf.push(0, 1, 2)
    // a few numbers hold a few KB, not the full 1 MiB pool chunk and 256 KiB journal chunk
    expect(postings.byteSize).toBeLessThan(64 * 1024)
    const r = seededRandom(7)
    let group = 2
    // past 2^16 journal entries and 2^17 pool slots (a key's pages and directory included), with cuts on the way
    for (const [target, cut] of [
      [70_000, 65_000],
      [140_000, 131_000],
      [150_000, 60_000],
      [150_000, 149_990],
    ] as const) {
      while (groupsOf.length < target) {
        group++
        for (let k = 0, n = 1 + r(3); k < n; k++) {
          const i = r(keys.length)
          if (postings.add(keys[i]!, group * 4 + k, group)) {
            model[i]!.push(group * 4 + k)
            groupsOf.push(group)
          }
        }
      }
      keys.forEach((key, i) => expect(list(postings.list(key))).toEqual(model[i]))
      // cut back to the group of entry `cut` (whole groups: everything above that group goes)
      const g = groupsOf[cut]!
      postings.truncateAbove(g)
      for (const m of model) while (m.length > 0 && Math.floor(m.at(-1)! / 4) > g) m.pop()
      while (groupsOf.length > 0 && groupsOf.at(-1)! > g) groupsOf.pop()
      group = g
      expect(postings.size).toBe(groupsOf.length)
      keys.forEach((key, i) => expect(list(postings.list(key))).toEqual(model[i]))
    }
  })

  it('keeps postings generic over the key length (32-byte topics)', () => {
    const topics = new Postings(32)
    const t = new Uint8Array(32).fill(7)
    expect(topics.add(t, 5, 0)).toBe(true)
    expect(topics.add(t, 5, 0)).toBe(false)
    expect(topics.add(t, 9, 1)).toBe(true)
    expect(() => topics.add(t, 8, 1)).toThrow(RangeError)
    expect(() => topics.add(new Uint8Array(20), 1, 1)).toThrow(RangeError)
    expect(list(topics.list(t))).toEqual([5, 9])
  })
})

describe('address records (src/blocks/address-index-record.ts)', () => {
  it('round-trips a block and refuses what is not a record', () => {
    const txs: IndexedTx[] = [
      { from: address(1), touched: [address(1), address(2)], created: [{ address: address(3), creator: address(2) }] },
      { from: address(0), touched: [address(0), address(4)], created: [] },
    ]
    expect(decodeBlockAddresses(encodeBlockAddresses(txs))).toEqual(txs)
    expect(decodeBlockAddresses(encodeBlockAddresses([]))).toEqual([])
    expect(() => decodeBlockAddresses(Uint8Array.of(0x80))).toThrow(/not a list/)
    const short = encodeBlockAddresses([{ from: address(1).subarray(0, 19), touched: [] }])
    expect(() => decodeBlockAddresses(short)).toThrow(/20 bytes/)
  })
})
