/**
 * Dev-chain account controls: setting an account's balance, nonce, code and storage (the anvil_ / hardhat_ names,
 * one handler for both prefixes, and the ganache-style evm_setAccount* names viem's test client uses in ganache
 * mode), impersonation, and eth_sendUnsignedTransaction.
 */
import { Account, Address } from '@ethereumjs/util'
import { invalidParams } from '../rpc-error.js'
import { bigIntToBytes, toHex } from '../../util/bytes.js'
import { method, type MethodSpec } from '../method-table.js'
import { decodeQuantity, P, param } from '../params.js'
import type { Services } from '../services.js'
import { BALANCE_LIMIT, NONCE_LIMIT, requireBelow } from '../bounds.js'
import { sendFrom } from './eth.js'

/** The account setters, impersonation and unsigned sends. */
export function devAccountMethods(s: Services): MethodSpec[] {
  const { chain } = s

  const setAccount = (address: Uint8Array, f: (a: Account) => void) =>
    chain.modifyState(async (sm) => {
      const addr = new Address(address)
      const acct = (await sm.getAccount(addr)) ?? new Account()
      f(acct)
      await sm.putAccount(addr, acct)
    })
  const setBalance = async (address: Uint8Array, wei: bigint) => {
    requireBelow(wei, BALANCE_LIMIT, 1, 'balance', '2^256')
    await setAccount(address, (a) => (a.balance = wei))
    return true
  }
  const setNonce = async (address: Uint8Array, nonce: bigint) => {
    requireBelow(nonce, NONCE_LIMIT, 1, 'nonce', '2^64 - 1 (EIP-2681)')
    await setAccount(address, (a) => (a.nonce = nonce))
    return true
  }
  const setCode = async (address: Uint8Array, code: Uint8Array) => {
    await chain.modifyState(async (sm) => {
      const addr = new Address(address)
      if ((await sm.getAccount(addr)) === undefined) await sm.putAccount(addr, new Account())
      await sm.putCode(addr, code)
    })
    return true
  }
  const setStorage = async (address: Uint8Array, slot: Uint8Array, value: Uint8Array) => {
    if (value.length > 32) throw invalidParams('invalid argument 2: storage value longer than 32 bytes')
    await chain.modifyState(async (sm) => {
      const addr = new Address(address)
      if ((await sm.getAccount(addr)) === undefined) await sm.putAccount(addr, new Account())
      let v = value
      while (v.length > 0 && v[0] === 0) v = v.subarray(1)
      await sm.putStorage(addr, slot, v)
    })
    return true
  }
  const storageValue = () =>
    param('value', (v, i) => {
      const q = decodeQuantity(v, i)
      if (q >= 1n << 256n) throw invalidParams(`invalid argument ${i}: storage value larger than 32 bytes`)
      return bigIntToBytes(q)
    })

  return [
    // ganache names (viem testClient mode 'ganache')
    method('evm_setAccountBalance', 'evm', 'sets a balance (wei)', [P.address(), P.quantity('balance')], (_c, a, wei) =>
      setBalance(a, wei),
    ),
    method('evm_setAccountNonce', 'evm', 'sets a nonce', [P.address(), P.quantity('nonce')], (_c, a, n) =>
      setNonce(a, n),
    ),
    method('evm_setAccountCode', 'evm', 'sets code', [P.address(), P.data('code')], (_c, a, code) => setCode(a, code)),
    method(
      'evm_setAccountStorageAt',
      'evm',
      'sets a storage word',
      [P.address(), P.slot('slot'), storageValue()],
      (_c, a, k, v) => setStorage(a, k, v),
    ),

    // ---- anvil_ / hardhat_ ----
    method(
      'anvil_impersonateAccount',
      'anvil',
      'lets eth_sendTransaction send from an address without its key',
      [P.address()],
      (_c, a) => {
        s.impersonation.add(a)
        return null
      },
      ['hardhat_impersonateAccount'],
    ),
    method(
      'anvil_stopImpersonatingAccount',
      'anvil',
      'ends impersonation',
      [P.address()],
      (_c, a) => {
        s.impersonation.remove(a)
        return null
      },
      ['hardhat_stopImpersonatingAccount'],
    ),
    method('anvil_autoImpersonateAccount', 'anvil', 'impersonate every sender', [P.bool('enabled')], (_c, on) => {
      s.impersonation.auto = on
      return null
    }),
    method(
      'anvil_setBalance',
      'anvil',
      'sets a balance (wei)',
      [P.address(), P.quantity('balance')],
      (_c, a, wei) => setBalance(a, wei),
      ['hardhat_setBalance'],
    ),
    method('anvil_setCode', 'anvil', 'sets code', [P.address(), P.data('code')], (_c, a, code) => setCode(a, code), [
      'hardhat_setCode',
    ]),
    method(
      'anvil_setNonce',
      'anvil',
      'sets a nonce',
      [P.address(), P.quantity('nonce')],
      (_c, a, n) => setNonce(a, n),
      ['hardhat_setNonce'],
    ),
    method(
      'anvil_setStorageAt',
      'anvil',
      'sets a storage word',
      [P.address(), P.slot('slot'), storageValue()],
      (_c, a, k, v) => setStorage(a, k, v),
      ['hardhat_setStorageAt'],
    ),
    method(
      'eth_sendUnsignedTransaction',
      'eth',
      'sends from any address without a signature',
      [P.tx()],
      async (_c, obj) => toHex(await sendFrom(s, obj, true)),
    ),
  ]
}
