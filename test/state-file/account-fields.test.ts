/**
 * Accounts of a state file become the reference's Unitrie entries (src/state-file/account-entries.ts): hex of
 * either case and short slots or words give the same trie as the trie-key functions put one by one; zero cells
 * add nothing (a repeated slot: the last value counts); a bad field stops the load with an error naming the
 * account and the field (odd-length code, a character that is not a hex digit, a word of more than 64 digits,
 * a bad address).
 */
import { describe, expect, it } from 'vitest'
import { intoState, loadState, stateBytes } from '../../src/state-file/load.js'
import { Unitrie } from '../../src/unitrie/unitrie.js'
import {
  accountKey,
  codeKey,
  encodeAccountState,
  storageKey,
  storagePrefixKey,
  STORAGE_MARKER_VALUE,
} from '../../src/rsk/trie-keys.js'
import { fromHex } from '../../src/util/bytes.js'

const A = '0x00000000000000000000000000000000000000a1'
const B = '0x00000000000000000000000000000000000000B2'

async function rootOf(accounts: Record<string, unknown>): Promise<string> {
  const text = JSON.stringify({ block: {}, accounts })
  const loaded = await loadState(stateBytes(Buffer.from(text)), 'the state')
  return Buffer.from(intoState(loaded, Unitrie.empty(), true).hash()).toString('hex')
}

/** The trie built the slow way: the trie-key functions, one put per entry. */
function expectedRoot(
  accounts: { address: string; nonce: bigint; balance: bigint; code?: string; cells?: [bigint, string][] }[],
): string {
  let t = Unitrie.empty()
  for (const a of accounts) {
    const address = fromHex(a.address)
    t = t.put(accountKey(address), encodeAccountState({ nonce: a.nonce, balance: a.balance }))
    if (a.code) t = t.put(codeKey(address), fromHex(a.code))
    if (a.cells?.length) t = t.put(storagePrefixKey(address), STORAGE_MARKER_VALUE)
    for (const [slot, stored] of a.cells ?? []) t = t.put(storageKey(address, slot), fromHex(stored))
  }
  return Buffer.from(t.hash()).toString('hex')
}

async function refused(accounts: Record<string, unknown>, message: RegExp): Promise<void> {
  await expect(rootOf(accounts)).rejects.toThrow(message)
}

describe('state-file accounts → Unitrie entries', () => {
  it('either case, short slots and words: the same trie as the trie-key functions give', async () => {
    const root = await rootOf({
      [A]: {
        nonce: 7,
        balance: '0xDE0B6B3A7640000',
        code: '0x6001AbCd',
        storage: {
          '0x0': '0x' + '0'.repeat(63) + '1',
          '0x00000000000000000000000000000000000000000000000000000000000000Ff': '0xAbC',
          ['0x' + 'f'.repeat(64)]: '0x' + 'E'.repeat(64),
          '0x5': '0x0',
        },
      },
      [B]: { nonce: '0x0', balance: '0', code: '0x', storage: {} },
    })
    expect(root).toBe(
      expectedRoot([
        {
          address: A,
          nonce: 7n,
          balance: 10n ** 18n,
          code: '0x6001abcd',
          cells: [
            [0n, '0x01'],
            [255n, '0x0abc'],
            [2n ** 256n - 1n, '0x' + 'e'.repeat(64)],
          ],
        },
        { address: B.toLowerCase(), nonce: 0n, balance: 0n },
      ]),
    )
  })

  it('a repeated slot: the last value counts, a last zero clears it', async () => {
    const text = `{"accounts":{"${A}":{"nonce":1,"storage":{"0x1":"0x5","0x2":"0x6","0x1":"0x7","0x2":"0x0"}}}}`
    const loaded = await loadState(stateBytes(Buffer.from(text)), 'the state')
    const root = Buffer.from(intoState(loaded, Unitrie.empty(), true).hash()).toString('hex')
    expect(root).toBe(expectedRoot([{ address: A, nonce: 1n, balance: 0n, cells: [[1n, '0x07']] }]))
  })

  it('bad fields name the account and the field', async () => {
    await refused({ [A]: { code: '0x600' } }, new RegExp(`account ${A}: code: expected 0x-hex bytes, got "0x600"`))
    await refused({ [A]: { code: '0x60zz' } }, new RegExp(`account ${A}: code: expected 0x-hex bytes`))
    await refused({ [A]: { code: 6001 } }, new RegExp(`account ${A}: code: expected 0x-hex bytes, got "6001"`))
    await refused(
      { [A]: { storage: { '0x1': '0xzz' } } },
      new RegExp(`account ${A}: storage 0x1: expected a 32-byte hex word, got "0xzz"`),
    )
    await refused(
      { [A]: { storage: { '0x1': '0x' + '1'.repeat(65) } } },
      new RegExp(`account ${A}: storage 0x1: expected a 32-byte hex word`),
    )
    await refused(
      { [A]: { storage: { '0xq1': '0x1' } } },
      new RegExp(`account ${A}: storage slot: expected a 32-byte hex word, got "0xq1"`),
    )
    await refused({ [A]: { storage: [] } }, new RegExp(`account ${A}: storage: expected an object`))
    await refused({ [A]: 5 }, new RegExp(`account ${A}: expected an object`))
    await refused({ '0x12': {} }, /the state: "0x12" is not an address/)
    await refused({ ['0x' + 'g'.repeat(40)]: {} }, /is not an address/)
    // accounts as an array: refused as a whole (more wrong shapes: ./shapes.test.ts)
    const text = `{"accounts":[{"nonce":1}]}`
    await expect(loadState(stateBytes(Buffer.from(text)), 'the state')).rejects.toThrow(
      /the state: "accounts" must be an object \(address → account\), got an array/,
    )
  })
})
