/**
 * The one-pass header and block encoders (src/rsk/header.ts encodeHeader / encodeBlock over src/rsk/rlp-encoding.ts
 * RlpItemWriter) against the item-by-item encoding they replaced (one RLP item per field, then the list), on headers
 * covering every optional field, every header version and the number encodings' boundaries. The consensus vectors
 * of test/rsk/header.test.ts pin the bytes themselves; this pins that nothing in between changed.
 */
import { describe, expect, it } from 'vitest'
import {
  encodeBlock,
  encodeEdges,
  encodeHeader,
  extensionData,
  extensionHash,
  fullEncodedHeader,
  hasMiningFields,
  type EncodeHeaderOptions,
  type HeaderVersion,
  type RskHeader,
} from '../../src/rsk/header.js'
import {
  javaBigIntegerBytes,
  rlpBytes,
  rlpList,
  rlpSignedCoin,
  rlpUnsigned,
  RlpItemWriter,
} from '../../src/rsk/rlp-encoding.js'

/** BlockHeader.getEncoded the way it was written before: one RLP item per field, then the list. */
function itemByItem(h: RskHeader, opts: EncodeHeaderOptions): Uint8Array {
  const nullCoinbase = h.coinbase.length === 20 && h.coinbase.every((b) => b === 0)
  const f: Uint8Array[] = [
    rlpBytes(h.parentHash),
    rlpBytes(h.unclesHash),
    rlpBytes(nullCoinbase ? null : h.coinbase),
    rlpBytes(h.stateRoot),
    rlpBytes(h.txTrieRoot),
    rlpBytes(h.receiptTrieRoot),
    rlpBytes(opts.compressed ? extensionData(h) : h.logsBloom),
    rlpBytes(typeof h.difficulty === 'bigint' ? javaBigIntegerBytes(h.difficulty) : h.difficulty),
    rlpUnsigned(h.number),
    rlpBytes(h.gasLimit),
    rlpUnsigned(h.gasUsed),
    rlpUnsigned(h.timestamp),
    rlpBytes(h.extraData),
    rlpUnsigned(h.paidFees),
    rlpSignedCoin(h.minimumGasPrice),
    rlpUnsigned(h.uncleCount),
  ]
  if (h.ummRoot !== null) f.push(rlpBytes(h.ummRoot))
  if (h.version === 0) {
    if (h.edges !== null) f.push(encodeEdges(h.edges))
    if (h.baseEvent !== null) f.push(rlpBytes(h.baseEvent))
  } else if (!opts.compressed) {
    f.push(rlpBytes(Uint8Array.of(h.version)))
    if (h.edges !== null) f.push(encodeEdges(h.edges))
    if (h.version === 2) f.push(rlpBytes(h.baseEvent ?? new Uint8Array(0)))
  }
  if (opts.mm && hasMiningFields(h)) {
    f.push(rlpBytes(h.bitcoinMergedMiningHeader))
    if (opts.proof) {
      f.push(rlpBytes(h.bitcoinMergedMiningMerkleProof))
      f.push(rlpBytes(h.bitcoinMergedMiningCoinbaseTransaction))
    }
  }
  return rlpList(f)
}

/** A seeded generator (mulberry32), so a failure names a header that can be made again. */
function generator(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** Numbers around every boundary the encodings have: 0, one byte, 0x80, 55/56-byte strings, 48 bits, 64 bits. */
const NUMBERS = [
  0n,
  1n,
  0x7fn,
  0x80n,
  0xffn,
  0x100n,
  0x7fffffn,
  0x800000n,
  10_000_000n,
  2n ** 47n,
  2n ** 48n - 1n,
  2n ** 48n,
  2n ** 48n + 1n,
  2n ** 63n,
  2n ** 64n + 5n,
  2n ** 255n,
  2n ** 440n - 1n,
  2n ** 440n,
]

function makeHeader(next: () => number, version: HeaderVersion): RskHeader {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!
  const bytes = (n: number): Uint8Array => Uint8Array.from({ length: n }, () => Math.floor(next() * 256))
  const maybe = (n: number): Uint8Array | null => pick([null, new Uint8Array(0), bytes(n)])
  return {
    parentHash: bytes(32),
    unclesHash: bytes(32),
    coinbase: pick([new Uint8Array(20), bytes(20), bytes(0), Uint8Array.of(0)]),
    stateRoot: bytes(32),
    txTrieRoot: bytes(32),
    receiptTrieRoot: bytes(32),
    logsBloom: pick([new Uint8Array(256), bytes(256)]),
    difficulty: next() < 0.7 ? pick(NUMBERS) : pick([bytes(5), Uint8Array.of(0), new Uint8Array(0), bytes(1)]),
    number: pick(NUMBERS),
    gasLimit: pick([javaBigIntegerBytes(10_000_000n), bytes(3), Uint8Array.of(0x7f), new Uint8Array(0)]),
    gasUsed: pick(NUMBERS),
    timestamp: pick(NUMBERS),
    extraData: bytes(pick([0, 1, 20, 54, 55, 56, 57, 200])),
    paidFees: pick(NUMBERS),
    minimumGasPrice: next() < 0.2 ? null : pick(NUMBERS),
    uncleCount: pick([0, 1, 0x7f, 0x80, 300]),
    ummRoot: next() < 0.3 ? null : pick([new Uint8Array(0), bytes(20)]),
    version,
    edges: pick([null, [], [1], [1, -2, 300, 32767, -32768]]),
    baseEvent: version === 2 ? maybe(pick([1, 40, 60])) : version === 0 ? maybe(3) : null,
    bitcoinMergedMiningHeader: maybe(80),
    bitcoinMergedMiningMerkleProof: maybe(pick([1, 33, 64])),
    bitcoinMergedMiningCoinbaseTransaction: maybe(pick([1, 60, 300])),
    useRskip92Encoding: next() < 0.8,
  }
}

const OPTIONS: EncodeHeaderOptions[] = []
for (const mm of [false, true])
  for (const proof of [false, true]) for (const compressed of [false, true]) OPTIONS.push({ mm, proof, compressed })

describe('one-pass header encoding', () => {
  it('writes the same bytes as the item-by-item encoding for 1500 headers × 8 options', () => {
    const next = generator(20261205)
    let compared = 0
    for (let i = 0; i < 1500; i++) {
      const h = makeHeader(next, ([0, 1, 2] as const)[i % 3]!)
      for (const opts of OPTIONS) {
        const want = Buffer.from(itemByItem(h, opts)).toString('hex')
        expect(Buffer.from(encodeHeader(h, opts)).toString('hex'), `header ${i} ${JSON.stringify(opts)}`).toBe(want)
        expect(Buffer.from(encodeHeader(h, { ...opts, temp: true })).toString('hex')).toBe(want)
        compared++
      }
    }
    expect(compared).toBe(1500 * 8)
  })

  it('writes the block RLP as [full header, txs, uncles] for any transaction and uncle lists', () => {
    const next = generator(7)
    for (let i = 0; i < 300; i++) {
      const h = makeHeader(next, 2)
      const txs = Array.from({ length: i % 5 }, (_, k) => rlpBytes(new Uint8Array(k * 17 + (i % 60)).fill(i)))
      const uncles = i % 7 === 0 ? [makeHeader(next, 2), makeHeader(next, 0)] : []
      const want = rlpList([fullEncodedHeader(h), rlpList(txs), rlpList(uncles.map(fullEncodedHeader))])
      expect(Buffer.from(encodeBlock(h, txs, uncles)).toString('hex'), `block ${i}`).toBe(
        Buffer.from(want).toString('hex'),
      )
      expect(Buffer.from(fullEncodedHeader(h)).toString('hex')).toBe(
        Buffer.from(itemByItem(h, { mm: true, proof: true, compressed: false })).toString('hex'),
      )
    }
  })
})

describe('extension data kept by content', () => {
  /** RLP[version, RLP(extension hash)] computed afresh. */
  const fresh = (h: RskHeader) =>
    Buffer.from(rlpList([rlpBytes(Uint8Array.of(h.version)), rlpBytes(extensionHash(h))])).toString('hex')

  it('equals the extension data computed afresh, whatever was asked before', () => {
    const next = generator(99)
    const headers = Array.from({ length: 40 }, (_, i) => makeHeader(next, ([1, 2] as const)[i % 2]!))
    // asked in an order that makes the kept entries hit and miss (repeats, alternations, copies of the bloom)
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < headers.length; i++) {
        const h = headers[(i * (round + 1)) % headers.length]!
        expect(Buffer.from(extensionData(h)).toString('hex')).toBe(fresh(h))
        const copy = { ...h, logsBloom: h.logsBloom.slice(), edges: h.edges && [...h.edges] }
        expect(Buffer.from(extensionData(copy)).toString('hex')).toBe(fresh(h))
      }
    }
  })

  it('does not depend on the caller keeping its arrays unchanged', () => {
    const h = makeHeader(generator(3), 2)
    h.logsBloom = new Uint8Array(256)
    h.edges = [1]
    const before = Buffer.from(extensionData(h)).toString('hex')
    h.logsBloom[10] = 0xff
    h.edges[0] = 2
    expect(Buffer.from(extensionData(h)).toString('hex')).toBe(fresh(h))
    expect(fresh(h)).not.toBe(before)
    h.logsBloom[10] = 0
    h.edges[0] = 1
    expect(Buffer.from(extensionData(h)).toString('hex')).toBe(before)
  })
})

describe('RlpItemWriter number encodings', () => {
  /** The writer's bytes for one item written by `write` (after a sizing pass that must agree). */
  function written(write: (w: RlpItemWriter) => void): string {
    const w = new RlpItemWriter()
    write(w.size())
    const out = new Uint8Array(w.pos)
    write(w.into(out, 0))
    expect(w.pos).toBe(out.length)
    return Buffer.from(out).toString('hex')
  }
  const hex = (b: Uint8Array) => Buffer.from(b).toString('hex')
  const values = [...NUMBERS]
  for (let bits = 1; bits <= 300; bits++) values.push(2n ** BigInt(bits) - 1n, 2n ** BigInt(bits))

  it('unsigned, Java BigInteger and signed-coin items equal rlpUnsigned, javaBigIntegerBytes and rlpSignedCoin', () => {
    for (const v of values) {
      expect(
        written((w) => w.unsigned(v)),
        `unsigned ${v}`,
      ).toBe(hex(rlpUnsigned(v)))
      expect(
        written((w) => w.javaBigInteger(v)),
        `java ${v}`,
      ).toBe(hex(rlpBytes(javaBigIntegerBytes(v))))
      expect(
        written((w) => w.signedCoin(v)),
        `coin ${v}`,
      ).toBe(hex(rlpSignedCoin(v)))
    }
    expect(written((w) => w.unsigned(300))).toBe(hex(rlpUnsigned(300)))
    expect(written((w) => w.signedCoin(null))).toBe('80')
    expect(written((w) => w.bytes(null))).toBe('80')
    expect(written((w) => w.int16LE([1, 258, -1]))).toBe(hex(encodeEdges([1, 258, -1])))
  })

  it('rejects negative numbers as the item encoders do', () => {
    expect(() => new RlpItemWriter().size().unsigned(-1n)).toThrow('negative')
    expect(() => new RlpItemWriter().size().javaBigInteger(-1n)).toThrow('negative')
    expect(() => rlpUnsigned(-1n)).toThrow('negative')
  })
})
