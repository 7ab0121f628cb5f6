import { describe, expect, it } from 'vitest'
import { bytesToHex } from '@ethereumjs/util'
import { encodeReceipt, indexedTrie, logsBloom, type RskLog, type RskReceipt } from '../../src/rsk/receipt-rlp.js'
import { smallIndexedRoot } from '../../src/rsk/small-indexed-root.js'
import { encodeReceipt as encodeReceiptRecord, receiptsTrieRoot } from '../../src/rsk/block-encoding.js'
import { remascTransactionHash, remascTransactionRlp } from '../../src/rsk/remasc.js'
import { rlpBytes, rlpList, unsignedBytes } from '../../src/rsk/rlp-encoding.js'
import { keccak256 } from '../../src/crypto/keccak.js'
import type { ReceiptRecord } from '../../src/types/records.js'

/** A deterministic byte generator (xorshift), so failures reproduce. */
function bytesGen(seed: number): (n: number) => Uint8Array {
  let x = seed
  return (n) => {
    const out = new Uint8Array(n)
    for (let i = 0; i < n; i++) {
      x ^= x << 13
      x ^= x >>> 17
      x ^= x << 5
      out[i] = x & 0xff
    }
    return out
  }
}

/** TransactionReceipt.getEncoded composed item by item from the RLP primitives (the encoder's former shape). */
function referenceEncoding(r: RskReceipt): Uint8Array {
  const ok = r.status ? Uint8Array.of(1) : new Uint8Array(0)
  const log = (l: RskLog) => rlpList([rlpBytes(l.address), rlpList(l.topics.map((t) => rlpBytes(t))), rlpBytes(l.data)])
  return rlpList([
    rlpBytes(ok),
    rlpBytes(unsignedBytes(r.cumulativeGasUsed)),
    rlpBytes(r.logsBloom ?? logsBloom(r.logs)),
    rlpList(r.logs.map(log)),
    rlpBytes(unsignedBytes(r.gasUsed)),
    rlpBytes(ok),
  ])
}

describe('receipt encoding in one pass', () => {
  it('gives the bytes of the item-by-item RLP for receipts of every shape', () => {
    const rnd = bytesGen(7)
    // data lengths around the RLP boundaries: empty, one byte below/above 0x80, 55/56 bytes, long lists
    const dataLengths = [0, 1, 2, 31, 55, 56, 57, 300, 70_000]
    const gases = [0n, 1n, 0x7fn, 0x80n, 21_000n, 6_800_000n, 2n ** 60n]
    let count = 0
    for (const logCount of [0, 1, 2, 5, 40]) {
      for (const dataLength of dataLengths) {
        if (logCount > 2 && dataLength > 1000) continue // (a 3-byte length prefix is covered by the small counts)
        const logs: RskLog[] = Array.from({ length: logCount }, (_, i) => {
          const data = rnd(dataLength)
          if (dataLength === 1) data[0] = i % 2 === 0 ? 0x05 : 0x85
          return { address: rnd(20), topics: Array.from({ length: i % 5 }, () => rnd(32)), data }
        })
        for (const status of [true, false]) {
          const gas = gases[count++ % gases.length]!
          const r: RskReceipt = { status, cumulativeGasUsed: gas, gasUsed: gases[count % gases.length]!, logs }
          expect(bytesToHex(encodeReceipt(r))).toBe(bytesToHex(referenceEncoding(r)))
          const withBloom = { ...r, logsBloom: rnd(256) }
          expect(bytesToHex(encodeReceipt(withBloom))).toBe(bytesToHex(referenceEncoding(withBloom)))
        }
      }
    }
  })
})

describe('roots of blocks of one or two items', () => {
  it('equal the root of the trie built item by item, for values of every length class', () => {
    const rnd = bytesGen(11)
    // short values (≤ 32 bytes, in the node) and long ones (hash ‖ length), single bytes below and above 0x80
    const lengths = [1, 2, 31, 32, 33, 34, 100, 700, 5000]
    for (const a of lengths) {
      for (const b of lengths) {
        const items = [rnd(a), rnd(b)]
        if (a === 1) items[0]![0] = 0x01
        if (b === 1) items[1]![0] = 0x90
        expect(bytesToHex(smallIndexedRoot(items)!)).toBe(bytesToHex(indexedTrie(items).hash()))
        expect(bytesToHex(smallIndexedRoot([items[1]!])!)).toBe(bytesToHex(indexedTrie([items[1]!]).hash()))
      }
    }
  })

  it('leave other counts and empty items to the trie', () => {
    const item = Uint8Array.of(1, 2, 3)
    expect(smallIndexedRoot([])).toBeUndefined()
    expect(smallIndexedRoot([item, item, item])).toBeUndefined()
    expect(smallIndexedRoot([item, new Uint8Array(0)])).toBeUndefined()
  })
})

describe('receipts encoded once per block', () => {
  const rnd = bytesGen(3)
  const receipt = (gas: bigint): ReceiptRecord => {
    const logs = [{ address: rnd(20), topics: [rnd(32), rnd(32)], data: rnd(64), logIndex: 0 }]
    return { status: 1, cumulativeGasUsed: gas, gasUsed: gas, logs, logsBloom: logsBloom(logs) }
  }
  const fresh = (r: ReceiptRecord) =>
    encodeReceipt({
      status: r.status === 1,
      cumulativeGasUsed: r.cumulativeGasUsed,
      gasUsed: r.gasUsed,
      logsBloom: r.logsBloom,
      logs: r.logs,
    })

  it("a block's receipts are the encodings its root hashed; older ones are encoded again, to the same bytes", () => {
    const blocks = Array.from({ length: 4 }, (_, i) => [receipt(21_000n + BigInt(i)), receipt(BigInt(i))])
    const roots = blocks.map((b) => receiptsTrieRoot(b))
    for (let i = 0; i < blocks.length; i++) {
      const encoded = blocks[i]!.map((r) => encodeReceiptRecord(r))
      expect(encoded.map((e) => bytesToHex(e))).toEqual(blocks[i]!.map((r) => bytesToHex(fresh(r))))
      expect(bytesToHex(indexedTrie(encoded).hash())).toBe(bytesToHex(roots[i]!))
    }
  })
})

describe('the Remasc transaction kept for its block', () => {
  it('gives the RLP and hash of its own number, whatever was asked before', () => {
    for (const n of [5n, 5n, 6n, 5n, 1000n, 6n]) {
      const rlp = remascTransactionRlp(n)
      const nonce = rlpBytes(unsignedBytes(n - 1n))
      expect(bytesToHex(rlp.subarray(1, 1 + nonce.length))).toBe(bytesToHex(nonce))
      expect(bytesToHex(remascTransactionHash(n))).toBe(bytesToHex(keccak256(rlp)))
      expect(remascTransactionRlp(n)).toBe(rlp)
    }
  })
})
