import { describe, expect, it } from 'vitest'
import { bytesToHex } from '@ethereumjs/util'
import { bigToBytes, bytesToBig, payeeTopic, paymentData } from '../../src/rsk/remasc-payment-log.js'
import { rlpBytes, rlpList, unsignedBytes } from '../../src/rsk/rlp-encoding.js'
import { padLeft } from '../../src/util/bytes.js'

/** Values around every byte and 6-byte chunk boundary, up to 2^256 − 1. */
function values(): bigint[] {
  const out = [0n, 1n, 0x7fn, 0x80n, 0xffn, 0x100n]
  for (let bits = 8n; bits <= 256n; bits += 8n) out.push((1n << bits) - 1n, 1n << bits, (1n << bits) + 0x1234n)
  let x = 0x9e3779b97f4a7c15n
  for (let i = 0; i < 200; i++) {
    x = (x * 6364136223846793005n + 1442695040888963407n) & ((1n << 256n) - 1n)
    out.push(x >> BigInt(i % 256))
  }
  return out.filter((v) => v < 1n << 256n)
}

describe('Remasc payment log pieces', () => {
  it('bigToBytes and bytesToBig are unsignedBytes and its inverse', () => {
    for (const v of values()) {
      const b = bigToBytes(v)
      expect(bytesToHex(b)).toBe(bytesToHex(unsignedBytes(v)))
      expect(bytesToBig(b)).toBe(v)
      // a cell read back with leading zero bytes (the reference stores minimal bytes; still read as the number)
      expect(bytesToBig(padLeft(b, b.length + 3))).toBe(v)
    }
    expect(bytesToBig(new Uint8Array(0))).toBe(0n)
    expect(() => bigToBytes(-1n)).toThrow()
  })

  it('paymentData is RLP[RLP(blockHash), RLP.encodeCoin(value)]', () => {
    const hash = Uint8Array.from({ length: 32 }, (_, i) => (i * 37 + 5) & 0xff)
    for (const v of values()) {
      expect(bytesToHex(paymentData(hash, v))).toBe(bytesToHex(rlpList([rlpBytes(hash), rlpBytes(unsignedBytes(v))])))
    }
  })

  it('payee topics are the address padded to 32 bytes, the same array for the same payee', () => {
    const a = Uint8Array.from({ length: 20 }, (_, i) => i + 1)
    const t = payeeTopic(a)
    expect(bytesToHex(t)).toBe(bytesToHex(padLeft(a, 32)))
    expect(payeeTopic(Uint8Array.from(a))).toBe(t)
    // many other payees later, the topic is still the right bytes
    for (let i = 0; i < 100; i++) payeeTopic(Uint8Array.from({ length: 20 }, (_, k) => (k === 0 ? i : 0xee)))
    expect(bytesToHex(payeeTopic(a))).toBe(bytesToHex(padLeft(a, 32)))
  })
})
