/**
 * The log view of a stored block (src/blocks/block-log-view.ts): what eth_getLogs reads of a block outside the
 * decoded cache, straight from its block RLP and derived RLP (src/blocks/block-codec.ts `blockDerived`). The node-level
 * answers before and after eviction are compared in test/blocks/block-store.test.ts; this file pins the view's own
 * reading of the derived RLP: hash, first log indexes, receipts dropped by --transaction-block-keeper, the receipt
 * filter, and malformed or corrupted encodings.
 */
import { RLP } from '@ethereumjs/rlp'
import { describe, expect, it } from 'vitest'
import { keccak256 } from '../../src/crypto/keccak.js'
import { StorageCorruptError } from '../../src/errors/storage-errors.js'
import { decodeLogView } from '../../src/blocks/block-log-view.js'
import { encodeReceipt } from '../../src/rsk/receipt-rlp.js'
import { bigIntToBytes } from '../../src/util/bytes.js'
import type { LogBlock } from '../../src/types/records.js'
import { seededRandom } from '../helpers/seeded.js'

const bytes = (n: number, fill: number): Uint8Array => new Uint8Array(n).fill(fill)
const HASH = bytes(32, 0xab)
const ADDRESS = bytes(20, 0x11)
const TOPIC = bytes(32, 0x22)
/** Two raw transactions (any RLP items: the view only hashes them). */
const TX_A = RLP.encode([Uint8Array.of(1), bytes(40, 3)])
const TX_B = RLP.encode([Uint8Array.of(2), bytes(70, 4)])

/** A block RLP [[header fields 0-6 (6: the logs bloom)], [tx a, tx b], []]. */
function blockRlp(bloom: Uint8Array): Uint8Array {
  const header = [bytes(32, 1), bytes(32, 2), bytes(20, 3), bytes(32, 4), bytes(32, 5), bytes(32, 6), bloom]
  return RLP.encode([header, [RLP.decode(TX_A), RLP.decode(TX_B)], []] as never)
}

const receiptA = encodeReceipt({
  status: true,
  cumulativeGasUsed: 50_000n,
  gasUsed: 50_000n,
  logs: [
    { address: ADDRESS, topics: [TOPIC], data: Uint8Array.of(7) },
    { address: ADDRESS, topics: [], data: new Uint8Array(0) },
  ],
})
const receiptB = encodeReceipt({
  status: true,
  cumulativeGasUsed: 71_000n,
  gasUsed: 21_000n,
  logs: [{ address: bytes(20, 0x33), topics: [TOPIC, TOPIC], data: bytes(64, 9) }],
})

/**
 * A derived RLP in `blockDerived`'s layout and encodings: [hash, hashForMergedMining, totalDifficulty, [[sender,
 * created contract, receipt, first log index], …]].
 */
function derivedRlp(receipts: Uint8Array[], firstLogIndexes: number[]): Uint8Array {
  return RLP.encode([
    HASH,
    bytes(32, 0xcd),
    Uint8Array.of(5),
    receipts.map((r, i) => [bytes(20, 0x44), new Uint8Array(0), r, bigIntToBytes(BigInt(firstLogIndexes[i]!))]),
  ])
}

describe('log view of a stored block', () => {
  it('reads the hash, each receipt and its logs with their block-wide indexes, and hashes transactions lazily', () => {
    const view = decodeLogView(9n, blockRlp(bytes(256, 0xff)), derivedRlp([receiptA, receiptB], [0, 2]))
    expect(view.hash).toEqual(HASH)
    expect(view.header.number).toBe(9n)
    expect(view.header.logsBloom).toEqual(bytes(256, 0xff))
    expect(view.transactions.map((t) => t.index)).toEqual([0, 1])
    expect(view.transactions.map((t) => t.hash)).toEqual([keccak256(TX_A), keccak256(TX_B)])
    const [a, b] = view.transactions.map((t) => t.receipt)
    expect(a!.logs.map((l) => l.logIndex)).toEqual([0, 1])
    expect(a!.logs[0]).toEqual({ address: ADDRESS, topics: [TOPIC], data: Uint8Array.of(7), logIndex: 0 })
    expect(b!.logs).toEqual([{ address: bytes(20, 0x33), topics: [TOPIC, TOPIC], data: bytes(64, 9), logIndex: 2 }])
    expect(b!.logsBloom.length).toBe(256)
    expect(b!.logsBloom.some((x) => x !== 0)).toBe(true)
  })

  it('a receipt the filter rules out is not decoded; a dropped receipt has no logs and an empty bloom', () => {
    const seen: number[] = []
    const view = decodeLogView(
      3n,
      blockRlp(new Uint8Array(256)),
      derivedRlp([receiptA, new Uint8Array(0)], [0, 2]),
      (bloom) => {
        seen.push(bloom.length)
        return false
      },
    )
    expect(seen).toEqual([256])
    expect(view.transactions[0]!.receipt.logs).toEqual([])
    expect(view.transactions[0]!.receipt.logsBloom.some((x) => x !== 0)).toBe(true)
    expect(view.transactions[1]!.receipt).toEqual({ logs: [], logsBloom: new Uint8Array(256) })
  })

  it('encodings that do not have the block shape raise StorageCorruptError', () => {
    const rlp = blockRlp(new Uint8Array(256))
    // one receipt for two transactions
    expect(() => decodeLogView(1n, rlp, derivedRlp([receiptA], [0]))).toThrow(StorageCorruptError)
    // a hash that is not 32 bytes
    const shortHash = RLP.encode([bytes(31, 1), bytes(32, 0xcd), Uint8Array.of(5), []])
    expect(() => decodeLogView(1n, rlp, shortHash)).toThrow(StorageCorruptError)
    // a transaction's entry whose receipt runs past the entry: read as whatever followed it before
    const derived = derivedRlp([receiptA, receiptB], [0, 2])
    // [list 3 B][hash 33][hfmm 33][td 1][tx list 3][entry 3][sender 21][contract 1][receipt: 0xb9, 2 length bytes]
    const receiptAt = 98
    expect(derived[receiptAt]).toBe(0xb9)
    const pastEntry = derived.slice()
    pastEntry[receiptAt + 2] = pastEntry[receiptAt + 2]! + 8
    expect(() => decodeLogView(1n, rlp, pastEntry)).toThrow(StorageCorruptError)
    // a log that is a byte string instead of [address, topics, data]
    const byteLog = RLP.encode([Uint8Array.of(1), Uint8Array.of(1), bytes(256, 0), [bytes(20, 1)], Uint8Array.of(1)])
    expect(() => decodeLogView(1n, rlp, derivedRlp([byteLog, receiptB], [0, 1]))).toThrow(StorageCorruptError)
  })

  it('any corruption of either encoding raises StorageCorruptError or reads as a block of the log shape', () => {
    const rlp0 = blockRlp(bytes(256, 0xff))
    const derived0 = derivedRlp([receiptA, receiptB], [0, 2])
    const next = seededRandom(0x5eed1)
    const bytesOf = (x: unknown, n?: number): boolean => x instanceof Uint8Array && (n === undefined || x.length === n)
    const wellShaped = (v: LogBlock): boolean =>
      bytesOf(v.hash, 32) &&
      bytesOf(v.header.logsBloom, 256) &&
      v.transactions.every(
        (t) =>
          bytesOf(t.hash, 32) &&
          bytesOf(t.receipt.logsBloom, 256) &&
          t.receipt.logs.every(
            (l) => bytesOf(l.address) && bytesOf(l.data) && l.topics.every((x) => bytesOf(x)) && l.logIndex >= 0,
          ),
      )
    let corrupt = 0
    let misshapen = 0
    for (let i = 0; i < 3000; i++) {
      const rlp = rlp0.slice()
      const derived = derived0.slice()
      const target = i % 2 === 0 ? rlp : derived
      for (let k = 1 + next(3); k > 0; k--) target[next(target.length)] = next(256)
      try {
        if (!wellShaped(decodeLogView(1n, rlp, derived))) misshapen++
      } catch (err) {
        expect(err).toBeInstanceOf(StorageCorruptError)
        corrupt++
      }
    }
    expect(misshapen).toBe(0)
    // most single-byte changes fall in hashes, blooms or data, which read as they are
    expect(corrupt).toBeGreaterThan(200)
  })
})
