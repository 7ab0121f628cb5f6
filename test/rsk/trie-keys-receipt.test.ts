import { describe, it, expect } from 'vitest'
import { bytesToHex, hexToBytes } from '@ethereumjs/util'
import { keccak256 } from '../../src/crypto/keccak.js'
import {
  EMPTY_ACCOUNT_STATE,
  accountKey,
  addressFromAccountKey,
  codeKey,
  decodeAccountState,
  encodeAccountState,
  slotFromStorageKey,
  storageKey,
  storageKeySuffix,
  storagePrefixKey,
  storageValueBytes,
  storageValueWord,
} from '../../src/rsk/trie-keys.js'
import {
  decodeReceipt,
  encodeReceipt,
  indexKey,
  logsBloom,
  receiptNodes,
  receiptsRoot,
  transactionsRoot,
  type RskReceipt,
} from '../../src/rsk/receipt-rlp.js'
import { EMPTY_TRIE_HASH } from '../../src/crypto/keccak.js'

const cow = hexToBytes('0xcd2a3d9f938e13cd947ec05abc7fe734df8dd826')

describe('state trie keys (TrieKeyMapper)', () => {
  it('account key = 00 ‖ keccak(addr)[0..10] ‖ addr', () => {
    const k = accountKey(cow)
    expect(k.length).toBe(31)
    expect(k[0]).toBe(0)
    expect(k.subarray(1, 11)).toEqual(keccak256(cow).subarray(0, 10))
    expect(k.subarray(11)).toEqual(cow)
    expect(addressFromAccountKey(k)).toEqual(cow)
  })

  it('storage marker and code keys append 00 / 80', () => {
    expect(bytesToHex(storagePrefixKey(cow))).toBe(bytesToHex(accountKey(cow)) + '00')
    expect(bytesToHex(codeKey(cow))).toBe(bytesToHex(accountKey(cow)) + '80')
  })

  it('storage key hashes the full 32-byte slot and appends it without leading zeros', () => {
    const slot = 0x1234n
    const word = new Uint8Array(32)
    word[30] = 0x12
    word[31] = 0x34
    const k = storageKey(cow, slot)
    expect(k.length).toBe(32 + 10 + 2)
    expect(k.subarray(32, 42)).toEqual(keccak256(word).subarray(0, 10))
    expect(bytesToHex(k.subarray(42))).toBe('0x1234')
    expect(storageKey(cow, word)).toEqual(k)
    expect(slotFromStorageKey(k)).toEqual(word)
  })

  it('slot 0 keeps a single 00 byte (stripLeadingZeroes default)', () => {
    const k = storageKey(cow, 0n)
    expect(k.length).toBe(43)
    expect(k[42]).toBe(0)
    expect(k.subarray(32, 42)).toEqual(keccak256(new Uint8Array(32)).subarray(0, 10))
  })

  it('a storage key is its account prefix joined with the slot suffix (bulk keying)', () => {
    for (const slot of [0n, 1n, 0xdeadn, (1n << 255n) + 3n]) {
      expect(Uint8Array.from([...storagePrefixKey(cow), ...storageKeySuffix(slot)])).toEqual(storageKey(cow, slot))
    }
  })

  it('account values: RLP[nonce (0 → 80), balance (0 → raw 00, toByteArray)]', () => {
    expect(bytesToHex(EMPTY_ACCOUNT_STATE)).toBe('0xc28000')
    expect(bytesToHex(encodeAccountState({ nonce: 1n, balance: 0x80n }))).toBe('0xc401820080')
    expect(bytesToHex(encodeAccountState({ nonce: 0n, balance: 10n ** 30n }))).toBe(
      '0xcf808d0c9f2c9cd04674edea40000000',
    )
    for (const a of [
      { nonce: 0n, balance: 0n },
      { nonce: 5n, balance: 0xffn },
      { nonce: 300n, balance: 21000000000000000000000000n },
    ]) {
      expect(decodeAccountState(encodeAccountState(a))).toEqual(a)
    }
  })

  it('storage values are stored without leading zeros; zero deletes', () => {
    expect(storageValueBytes(0n)).toBeUndefined()
    expect(bytesToHex(storageValueBytes(0x0100n)!)).toBe('0x0100')
    expect(storageValueWord(hexToBytes('0x0100'))[31]).toBe(0)
    expect(storageValueWord(hexToBytes('0x0100'))[30]).toBe(1)
    expect(storageValueWord(undefined)).toEqual(new Uint8Array(32))
  })
})

describe('receipts (TransactionReceipt.getEncoded)', () => {
  const remasc: RskReceipt = { status: true, cumulativeGasUsed: 0n, gasUsed: 0n, logs: [] }

  it('the Remasc receipt encodes as [01, 80, bloom, c0, 80, 01]', () => {
    const r = encodeReceipt(remasc)
    expect(bytesToHex(r)).toBe('0xf9010801' + '80' + 'b90100' + '00'.repeat(256) + 'c0' + '80' + '01')
  })

  it('a lone Remasc receipt gives the real regtest block-1 receiptsRoot 66cfdb73…b0f6', () => {
    expect(bytesToHex(receiptsRoot([encodeReceipt(remasc)]))).toBe(
      '0x66cfdb731f620cd96e2c2cb0f7d3c3a2879c29b40014aa27efbbf3cf9cd3b0f6',
    )
  })

  it('empty block roots are the empty trie hash', () => {
    expect(receiptsRoot([])).toEqual(EMPTY_TRIE_HASH)
    expect(transactionsRoot([])).toEqual(EMPTY_TRIE_HASH)
  })

  it('failed receipts have empty postTxState and status; logs and bloom round-trip', () => {
    const log = {
      address: hexToBytes('0x0000000000000000000000000000000001000008'),
      topics: [new Uint8Array(32).fill(1), new Uint8Array(32).fill(2)],
      data: hexToBytes('0xdeadbeef'),
    }
    const r: RskReceipt = { status: false, cumulativeGasUsed: 21000n, gasUsed: 21000n, logs: [log] }
    const enc = encodeReceipt(r)
    expect(enc[3]).toBe(0x80) // postTxState
    expect(enc[enc.length - 1]).toBe(0x80) // status
    const dec = decodeReceipt(enc)
    expect(dec.status).toBe(false)
    expect(dec.gasUsed).toBe(21000n)
    expect(dec.logs).toEqual([log])
    expect(dec.logsBloom).toEqual(logsBloom([log]))
    // standard 2048-bit bloom: 3 bits per item (at most 9 bits here)
    const bits = [...logsBloom([log])].reduce((n, x) => n + x.toString(2).replaceAll('0', '').length, 0)
    expect(bits).toBeGreaterThan(0)
    expect(bits).toBeLessThanOrEqual(9)
  })

  it('trie keys are RLP.encodeInt(i)', () => {
    expect(bytesToHex(indexKey(0))).toBe('0x80')
    expect(bytesToHex(indexKey(1))).toBe('0x01')
    expect(bytesToHex(indexKey(127))).toBe('0x7f')
    expect(bytesToHex(indexKey(128))).toBe('0x8180')
    expect(bytesToHex(indexKey(256))).toBe('0x820100')
  })

  it('receiptNodes returns the proof path leaf first, root last', () => {
    const receipts = Array.from({ length: 5 }, (_, i) =>
      encodeReceipt({ status: true, cumulativeGasUsed: BigInt(21000 * (i + 1)), gasUsed: 21000n, logs: [] }),
    )
    const root = receiptsRoot(receipts)
    for (let i = 0; i < 5; i++) {
      const nodes = receiptNodes(receipts, i)!
      expect(keccak256(nodes[nodes.length - 1]!)).toEqual(root)
    }
    expect(receiptNodes(receipts, 9)).toBeUndefined()
  })
})
