/**
 * The running window of RSKIP110 fork detection data (src/chain/mining/fork-detection-window.ts): on every branch
 * a chain can take — mining in order, reverts shallow and deep, a new branch, another chain through the same window,
 * calls overlapping — it gives the bytes calculateForkDetectionData (the reference calculator over the 449
 * ancestors) gives, and it reads one block per mined block.
 */
import { createHash } from 'node:crypto'
import { beforeEach, describe, expect, it } from 'vitest'
import { ForkDetectionWindow } from '../../../src/chain/mining/fork-detection-window.js'
import { forkDetectionDataFor } from '../../../src/chain/mining/consensus.js'
import { calculateForkDetectionData } from '../../../src/rsk/merged-mining/merged-mining-hash.js'
import type { BlockRecord } from '../../../src/types/records.js'

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex')
const digest = (s: string) => createHash('sha256').update(s).digest()

/** A chain of fake blocks: `prefix` blocks shared with `from`, then blocks of branch `name` up to `length − 1`. */
function chain(name: string, length: number, from?: BlockRecord[], prefix = 0): BlockRecord[] {
  const blocks = from ? from.slice(0, prefix) : []
  for (let n = blocks.length; n < length; n++) {
    const parentHash = n === 0 ? new Uint8Array(32) : blocks[n - 1]!.hash
    blocks.push({
      hash: digest(`${name} block ${n}`),
      header: {
        number: BigInt(n),
        parentHash,
        uncleCount: digest(`${name} uncles ${n}`)[0]! % 3,
        bitcoinMergedMiningHeader: digest(`${name} btc ${n}`),
      },
    } as unknown as BlockRecord)
  }
  return blocks
}

/** The reference calculator over the block's 449 ancestors (newest first). */
function expected(blocks: BlockRecord[], number: number): string {
  const mainchain = []
  for (let n = number - 1; n >= 0 && n >= number - 449; n--) mainchain.push(blocks[n]!.header)
  return hex(calculateForkDetectionData(mainchain))
}

/** A counting lookup of `blocks` as the canonical chain. */
function lookup(blocks: BlockRecord[]) {
  const f = async (n: bigint) => {
    f.reads++
    return blocks[Number(n)]
  }
  f.reads = 0
  return f
}

describe('fork detection window', () => {
  let window: ForkDetectionWindow
  beforeEach(() => (window = new ForkDetectionWindow()))
  const forkDetectionData = (n: bigint, read: Parameters<ForkDetectionWindow['data']>[1], parent?: Uint8Array) =>
    window.data(n, read, parent)

  it('mining in order: the calculator’s bytes, one read per block once the window is full', async () => {
    const a = chain('a', 1200)
    const read = lookup(a)
    for (let number = 449; number <= 1200; number++) {
      const before = read.reads
      const got = await forkDetectionData(BigInt(number), read, a[number - 1]!.hash)
      expect(hex(got)).toBe(expected(a, number))
      if (number > 449) expect(read.reads - before).toBe(1)
    }
  })

  it('without the parent hash (a merged miner’s work): the same bytes', async () => {
    const a = chain('a', 900)
    for (const number of [449, 450, 511, 512, 513, 700, 899, 600, 449])
      expect(hex(await forkDetectionData(BigInt(number), lookup(a)))).toBe(expected(a, number))
  })

  it('after reverts shallow and deep, and on a new branch', async () => {
    const a = chain('a', 1600)
    for (let number = 449; number <= 1500; number += 1)
      await forkDetectionData(BigInt(number), lookup(a), a[number - 1]!.hash)
    // revert to 1480, mine another branch: k + 1 reads
    for (const [at, name] of [
      [1480, 'b'],
      [1300, 'c'],
      [700, 'd'],
      [449, 'e'],
    ] as const) {
      const b = chain(name, at + 100, a, at + 1)
      for (let number = at + 1; number <= at + 100; number++) {
        const read = lookup(b)
        expect(hex(await forkDetectionData(BigInt(number), read, b[number - 1]!.hash))).toBe(expected(b, number))
        if (at > 1400 && number > at + 1) expect(read.reads).toBe(1)
      }
      // back to a (a revert onto the old branch again)
      for (const number of [at + 50, at + 1, at + 99]) {
        expect(hex(await forkDetectionData(BigInt(number), lookup(a), a[number - 1]!.hash))).toBe(expected(a, number))
      }
    }
  })

  it('two chains through one window, one after the other and overlapping', async () => {
    const a = chain('a', 800)
    const b = chain('b', 800)
    for (let number = 449; number < 800; number += 29) {
      for (const c of [a, b]) {
        const read = lookup(c)
        expect(hex(await forkDetectionData(BigInt(number), read, c[number - 1]!.hash))).toBe(expected(c, number))
        expect(hex(await forkDetectionData(BigInt(number), read))).toBe(expected(c, number))
      }
    }
    for (let number = 449; number < 800; number += 37) {
      const [x, y] = await Promise.all([
        forkDetectionData(BigInt(number), lookup(a), a[number - 1]!.hash),
        forkDetectionData(BigInt(number), lookup(b), b[number - 1]!.hash),
      ])
      expect(hex(x)).toBe(expected(a, number))
      expect(hex(y)).toBe(expected(b, number))
    }
  })

  it('a parent hash the chain does not hold: answered from reads; missing ancestors: empty', async () => {
    const a = chain('a', 700)
    expect(hex(await forkDetectionData(600n, lookup(a), digest('elsewhere')))).toBe(expected(a, 600))
    // a fork's chain: the blocks below its fork block are not local
    const forked = async (n: bigint) => (n < 300n ? undefined : a[Number(n)])
    expect(await forkDetectionData(600n, forked, a[599]!.hash)).toHaveLength(0)
    expect(await forkDetectionDataFor(window, 449n, forked)).toHaveLength(0)
    expect(await forkDetectionDataFor(window, 448n, lookup(a))).toHaveLength(0)
  })
})
