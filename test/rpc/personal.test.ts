/**
 * personal_* over real HTTP (docs/reference-rules.md#rule-dev-accounts, docs/reference-rules.md#rule-personal;
 * reference PersonalModuleWalletEnabled / Wallet): account creation and import, listing order, lock/unlock with
 * expiry on the node's injected clock, dumpRawKey, personal_sendTransaction with a passphrase, and the errors
 * (unknown account -32602, locked account -32602, wrong passphrase -32000, bad key -32602) — each of which
 * changes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { keccak256, toUtf8Bytes, Wallet } from 'ethers'
import type { Node } from '../../src/index.js'
import { COW, COW1, rpc, rpcError, rpcRaw, startNode } from '../helpers/node.js'

const MINER = '0xec4ddeb4380ad69b3e509baad9f158cdf4e4681d'
const COWS = [
  COW.address,
  COW1.address,
  '0x0a3aa774752ec2042c46548456c094a76c7f3a79',
  '0xcf7cdbbb5f7ba79d3ffe74a0bba13fc0295f6036',
  '0x39b12c05e8503356e3a7df0b7b33efa4c054c409',
  '0xc354d97642faa06781b76ffb6786f72cd7746c97',
  '0xdebe71e1de41fc77c44df4b6db940026e31b0e71',
  '0x7857288e171c6159c5576d1bd9ac40c0c48a771c',
  '0xa4dea4d5c954f5fd9e87f0e9752911e83a3d18b3',
  '0x09a1eda29f664ac8f68106f6567276df0c65d859',
]
const UNKNOWN = '0x' + '11'.repeat(20)
const MSG = '0x68656c6c6f'
const MINUTE = 60_000

/** The injected wall clock (ms): unlock expiry is measured on it. */
let clockMs = 1_750_000_000_000
let node: Node
let url: string

beforeAll(async () => {
  node = await startNode({ clock: () => clockMs })
  url = node.url
})
afterAll(() => node?.close())

const accounts = () => rpc<string[]>(url, 'eth_accounts')
/** Whether the node signs for `address` right now (eth_sign succeeds). */
async function canSign(address: string): Promise<boolean> {
  const { body } = await rpcRaw(url, 'eth_sign', [address, MSG])
  return body.error === undefined
}
const locked = (address: string) => ({
  code: -32602,
  message: `account ${address} is locked; unlock it with personal_unlockAccount`,
  status: 400,
})
const unknown = (address: string) => ({
  code: -32602,
  message: `Could not find account for address: ${address}`,
  status: 400,
})
const wrongPass = (address: string) => ({
  code: -32000,
  message: `wrong passphrase for account ${address}`,
  status: 200,
})

describe('listing', () => {
  it('personal_listAccounts = eth_accounts: the ten cow accounts in order, then the miner account', async () => {
    const list = await rpc<string[]>(url, 'personal_listAccounts')
    expect(list).toEqual(await accounts())
    expect(list.slice(0, 11)).toEqual([...COWS, MINER])
  })
})

describe('personal_newAccount', () => {
  it('creates an account encrypted with the passphrase, listed last and unlocked for 30 minutes', async () => {
    const before = await accounts()
    const address = await rpc<string>(url, 'personal_newAccount', ['secret'])
    expect(address).toMatch(/^0x[0-9a-f]{40}$/)
    expect(await accounts()).toEqual([...before, address])
    expect(await canSign(address)).toBe(true)
    const key = await rpc<string>(url, 'personal_dumpRawKey', [address])
    expect(new Wallet(key).address.toLowerCase()).toBe(address)

    clockMs += 30 * MINUTE
    expect(await canSign(address)).toBe(true)
    clockMs += 1
    expect(await canSign(address)).toBe(false)
    expect(await rpcError(url, 'eth_sign', [address, MSG])).toEqual(locked(address))
    expect(await accounts()).toContain(address) // still listed, just locked
  })

  it('accepts the empty passphrase; rejects a missing or non-string one (-32602)', async () => {
    const address = await rpc<string>(url, 'personal_newAccount', [''])
    await rpc(url, 'personal_lockAccount', [address])
    expect(await rpc(url, 'personal_unlockAccount', [address, ''])).toBe(true)
    const before = await accounts()
    expect((await rpcError(url, 'personal_newAccount', [])).code).toBe(-32602)
    expect((await rpcError(url, 'personal_newAccount', [42])).code).toBe(-32602)
    expect(await accounts()).toEqual(before)
  })
})

describe('personal_unlockAccount / personal_lockAccount', () => {
  let address: string
  beforeAll(async () => {
    address = await rpc<string>(url, 'personal_newAccount', ['pw'])
  })

  it('lockAccount locks (true); every signing method then answers the locked error', async () => {
    expect(await rpc(url, 'personal_lockAccount', [address])).toBe(true)
    expect(await rpcError(url, 'eth_sign', [address, MSG])).toEqual(locked(address))
    expect(await rpcError(url, 'personal_sign', [MSG, address])).toEqual(locked(address))
    expect(await rpcError(url, 'personal_dumpRawKey', [address])).toEqual(locked(address))
    expect(await rpcError(url, 'eth_sendTransaction', [{ from: address, to: COW.address }])).toEqual(locked(address))
    expect(await rpcError(url, 'eth_signTransaction', [{ from: address, to: COW.address }])).toEqual(locked(address))
    const typed = { types: { M: [{ name: 'a', type: 'uint256' }] }, primaryType: 'M', domain: {}, message: { a: 1 } }
    expect(await rpcError(url, 'eth_signTypedData_v4', [address, typed])).toEqual(locked(address))
    // Locking again is fine.
    expect(await rpc(url, 'personal_lockAccount', [address])).toBe(true)
  })

  it('a wrong passphrase is -32000 and leaves the account locked', async () => {
    expect(await rpcError(url, 'personal_unlockAccount', [address, 'wrong', '0x3e8'])).toEqual(wrongPass(address))
    expect(await canSign(address)).toBe(false)
  })

  it('unlocks for a 0x-hex duration in milliseconds, measured on the node clock', async () => {
    expect(await rpc(url, 'personal_unlockAccount', [address, 'pw', '0x3e8'])).toBe(true)
    expect(await canSign(address)).toBe(true)
    clockMs += 1000
    expect(await canSign(address)).toBe(true)
    clockMs += 1
    expect(await canSign(address)).toBe(false)
  })

  it('defaults to 30 minutes when the duration is omitted, null or ""', async () => {
    for (const dur of [undefined, null, '']) {
      const params = dur === undefined ? [address, 'pw'] : [address, 'pw', dur]
      expect(await rpc(url, 'personal_unlockAccount', params)).toBe(true)
      clockMs += 30 * MINUTE - 1
      expect(await canSign(address)).toBe(true)
      clockMs += 2
      expect(await canSign(address)).toBe(false)
    }
  })

  it('a JSON number is seconds (geth / web3.js); zero means no expiry', async () => {
    expect(await rpc(url, 'personal_unlockAccount', [address, 'pw', 60])).toBe(true)
    clockMs += 60_000
    expect(await canSign(address)).toBe(true)
    clockMs += 1
    expect(await canSign(address)).toBe(false)

    expect(await rpc(url, 'personal_unlockAccount', [address, 'pw', '0x0'])).toBe(true)
    clockMs += 365 * 24 * 60 * MINUTE
    expect(await canSign(address)).toBe(true)
    expect(await rpc(url, 'personal_lockAccount', [address])).toBe(true)
    expect(await canSign(address)).toBe(false)
  })

  it('rejects a malformed duration with -32602 without unlocking', async () => {
    for (const dur of ['1000', '0xzz', -1, 1.5, true]) {
      const e = await rpcError(url, 'personal_unlockAccount', [address, 'pw', dur])
      expect(e.code).toBe(-32602)
      expect(e.message).toMatch(/duration/)
    }
    expect(await canSign(address)).toBe(false)
  })

  it('the cow and miner accounts are always unlocked: lockAccount answers false, unlock answers true', async () => {
    for (const a of [COW.address, MINER]) {
      expect(await rpc(url, 'personal_lockAccount', [a])).toBe(false)
      expect(await canSign(a)).toBe(true)
      expect(await rpc(url, 'personal_unlockAccount', [a, 'anything'])).toBe(true)
    }
    clockMs += 365 * 24 * 60 * MINUTE
    expect(await canSign(COW1.address)).toBe(true)
  })

  it('an unknown account is -32602 "Could not find account…" for every personal method', async () => {
    const before = await accounts()
    expect(await rpcError(url, 'personal_unlockAccount', [UNKNOWN, 'pw'])).toEqual(unknown(UNKNOWN))
    expect(await rpcError(url, 'personal_lockAccount', [UNKNOWN])).toEqual(unknown(UNKNOWN))
    expect(await rpcError(url, 'personal_dumpRawKey', [UNKNOWN])).toEqual(unknown(UNKNOWN))
    expect(await rpcError(url, 'personal_sendTransaction', [{ from: UNKNOWN, to: COW.address }, 'pw'])).toEqual(
      unknown(UNKNOWN),
    )
    expect(await rpcError(url, 'personal_sign', [MSG, UNKNOWN])).toEqual(unknown(UNKNOWN))
    expect(await rpcError(url, 'eth_sign', [UNKNOWN, MSG])).toEqual(unknown(UNKNOWN))
    expect(await rpcError(url, 'eth_sendTransaction', [{ from: UNKNOWN, to: COW.address }])).toEqual(unknown(UNKNOWN))
    expect(await accounts()).toEqual(before)
  })
})

describe('personal_importRawKey', () => {
  const imported = Wallet.createRandom()

  it('imports a key with or without 0x, unlocked; dumpRawKey gives it back', async () => {
    const address = await rpc<string>(url, 'personal_importRawKey', [imported.privateKey.slice(2), 'pw1'])
    expect(address).toBe(imported.address.toLowerCase())
    expect((await accounts()).at(-1)).toBe(address)
    expect(await rpc(url, 'personal_dumpRawKey', [address])).toBe(imported.privateKey)
    const other = Wallet.createRandom()
    expect(await rpc(url, 'personal_importRawKey', [other.privateKey, 'x'])).toBe(other.address.toLowerCase())
  })

  it('re-importing replaces the passphrase (as the reference overwrites its entry), without listing it twice', async () => {
    const address = imported.address.toLowerCase()
    const count = (await accounts()).length
    expect(await rpc(url, 'personal_importRawKey', [imported.privateKey, 'pw2'])).toBe(address)
    expect(await accounts()).toHaveLength(count)
    await rpc(url, 'personal_lockAccount', [address])
    expect(await rpcError(url, 'personal_unlockAccount', [address, 'pw1'])).toEqual(wrongPass(address))
    expect(await rpc(url, 'personal_unlockAccount', [address, 'pw2'])).toBe(true)
  })

  it('importing a cow key returns its address and changes nothing (still permanent)', async () => {
    const before = await accounts()
    expect(await rpc(url, 'personal_importRawKey', [COW.privateKey, 'pw'])).toBe(COW.address)
    expect(await accounts()).toEqual(before)
    expect(await rpc(url, 'personal_lockAccount', [COW.address])).toBe(false)
  })

  it('rejects bad keys with -32602, never echoing the key, and adds nothing', async () => {
    const before = await accounts()
    const n = 'fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141'
    const bad = ['0x1234', 'zz'.repeat(32), '0x' + 'ab'.repeat(33), '0x' + '00'.repeat(32), '0x' + n, n, 12, null]
    for (const key of bad) {
      const e = await rpcError(url, 'personal_importRawKey', [key, 'pw'])
      expect(e.code, String(key)).toBe(-32602)
      if (typeof key === 'string' && key.length > 6) expect(e.message).not.toContain(key.replace(/^0x/, ''))
    }
    expect(await accounts()).toEqual(before)
  })
})

describe('personal_newAccountWithSeed', () => {
  it('key = keccak256(utf8(seed)), always unlocked, not listed twice', async () => {
    const expected = new Wallet(keccak256(toUtf8Bytes('alice'))).address.toLowerCase()
    const address = await rpc<string>(url, 'personal_newAccountWithSeed', ['alice'])
    expect(address).toBe(expected)
    expect(await rpc(url, 'personal_newAccountWithSeed', ['alice'])).toBe(expected)
    expect(await rpc(url, 'personal_newAccountWithSeed', ['cow'])).toBe(COW.address)
    const list = await accounts()
    expect(list.filter((a) => a === expected)).toHaveLength(1)
    expect(list.filter((a) => a === COW.address)).toHaveLength(1)
    expect(await rpc(url, 'personal_lockAccount', [address])).toBe(false)
    clockMs += 365 * 24 * 60 * MINUTE
    expect(await canSign(address)).toBe(true)
    expect(await rpc(url, 'personal_dumpRawKey', [address])).toBe(keccak256(toUtf8Bytes('alice')))
  })
})

describe('sending', () => {
  let address: string
  beforeAll(async () => {
    address = await rpc<string>(url, 'personal_newAccount', ['send-pw'])
    await rpc(url, 'eth_sendTransaction', [{ from: COW.address, to: address, value: '0xde0b6b3a7640000' }])
  })
  const nonce = (a: string) => rpc<string>(url, 'eth_getTransactionCount', [a, 'pending'])

  it('eth_sendTransaction from an unlocked account applies the defaults (gas 90000, gasPrice 0, value 0, next nonce)', async () => {
    const hash = await rpc<string>(url, 'eth_sendTransaction', [{ from: address, to: COW1.address }])
    const tx = await rpc(url, 'eth_getTransactionByHash', [hash])
    expect(tx).toMatchObject({ from: address, to: COW1.address, gas: '0x15f90', nonce: '0x0' })
    expect(BigInt(tx.gasPrice)).toBe(0n)
    expect(BigInt(tx.value)).toBe(0n)
    expect((await rpc(url, 'eth_getTransactionReceipt', [hash])).status).toBe('0x1')
  })

  it('personal_sendTransaction signs with the passphrase while the account stays locked', async () => {
    await rpc(url, 'personal_lockAccount', [address])
    const n0 = await nonce(address)
    const hash = await rpc<string>(url, 'personal_sendTransaction', [
      { from: address, to: COW1.address, value: '0x2a' },
      'send-pw',
    ])
    const tx = await rpc(url, 'eth_getTransactionByHash', [hash])
    expect(tx).toMatchObject({ from: address, to: COW1.address, value: '0x2a', nonce: n0 })
    expect((await rpc(url, 'eth_getTransactionReceipt', [hash])).status).toBe('0x1')
    expect(await canSign(address)).toBe(false)
  })

  it('personal_sendTransaction with a wrong passphrase is -32000 and sends nothing', async () => {
    const n0 = await nonce(address)
    expect(await rpcError(url, 'personal_sendTransaction', [{ from: address, to: COW1.address }, 'nope'])).toEqual(
      wrongPass(address),
    )
    expect(await nonce(address)).toBe(n0)
  })

  it('personal_sendTransaction from a cow account ignores the passphrase (they have none); from is required', async () => {
    const hash = await rpc<string>(url, 'personal_sendTransaction', [{ from: COW1.address, to: COW.address }, ''])
    expect((await rpc(url, 'eth_getTransactionReceipt', [hash])).from).toBe(COW1.address)
    expect(await rpcError(url, 'personal_sendTransaction', [{ to: COW.address }, 'x'])).toEqual({
      code: -32602,
      message: 'from is null',
      status: 400,
    })
  })

  it('eth_sendTransaction from a locked account is refused and sends nothing', async () => {
    const n0 = await nonce(address)
    expect(await rpcError(url, 'eth_sendTransaction', [{ from: address, to: COW1.address }])).toEqual(locked(address))
    expect(await nonce(address)).toBe(n0)
  })
})

describe('eth_pendingTransactions', () => {
  it("lists pool transactions of locked keystore accounts too (they are the node's accounts)", async () => {
    const address = await rpc<string>(url, 'personal_newAccount', ['p'])
    await rpc(url, 'eth_sendTransaction', [{ from: COW.address, to: address, value: '0xde0b6b3a7640000' }])
    await rpc(url, 'evm_stopMining')
    try {
      const hash = await rpc<string>(url, 'eth_sendTransaction', [{ from: address, to: COW.address }])
      await rpc(url, 'personal_lockAccount', [address])
      const pending = await rpc<{ hash: string }[]>(url, 'eth_pendingTransactions')
      expect(pending.map((t) => t.hash)).toContain(hash)
    } finally {
      await rpc(url, 'evm_startMining')
      await rpc(url, 'evm_mine')
    }
  })
})
