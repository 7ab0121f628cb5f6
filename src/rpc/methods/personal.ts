/**
 * personal_* (reference co/rsk/rpc/modules/personal/PersonalModuleWalletEnabled.java;
 * docs/reference-rules.md#rule-personal) and the signing methods of the eth module: eth_sign (reference
 * EthModuleWalletEnabled.sign), eth_signTransaction, eth_signTypedData_v4 (with the aliases eth_signTypedData and
 * eth_signTypedData_v3) and personal_sign — the last three beyond the reference, for wallets and libraries (ethers'
 * JsonRpcSigner, viem's JSON-RPC accounts).
 *
 * Addresses and keys are 0x-hex. Account errors (unknown -32602, locked -32602, wrong passphrase -32000) are
 * described in ../../accounts/wallet.ts.
 */
import { invalidParams } from '../rpc-error.js'
import { DEFAULT_UNLOCK_MS } from '../../accounts/wallet.js'
import { signLegacyTransaction } from '../../accounts/dev-accounts.js'
import { decodeTypedData, signDigest, signPersonalMessage, typedDataDigest } from '../../accounts/signing.js'
import { fromHex, toHex } from '../../util/bytes.js'
import { method, type MethodSpec } from '../method-table.js'
import { optional, P, param, type Param } from '../params.js'
import type { Services } from '../services.js'
import { sendFrom, txDataFrom } from './eth.js'

/**
 * The unlock duration parameter (reference HexDurationParam), decoded to milliseconds:
 * - omitted, null or "" → 30 minutes (reference default);
 * - a 0x-hex string → that many milliseconds (reference);
 * - a JSON number → that many **seconds** (what geth and web3.js send; the reference misreads numbers);
 * - zero either way → no expiry (until personal_lockAccount or restart), as geth — the reference would
 *   unlock for 0 ms.
 * @returns milliseconds, or undefined for no expiry
 * @throws RpcError -32602 for anything else
 */
export const durationParam: Param<number | undefined> = {
  name: 'duration',
  optional: true,
  decode(value, index) {
    if (value === undefined || value === null || value === '') return DEFAULT_UNLOCK_MS
    let ms: number
    if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) ms = value * 1000
    else if (typeof value === 'string' && /^0x[0-9a-fA-F]+$/.test(value)) ms = Number(BigInt(value))
    else
      throw invalidParams(
        `invalid argument ${index}: duration must be a 0x-hex string of milliseconds (or a number of seconds)`,
      )
    return ms === 0 ? undefined : Math.min(ms, Number.MAX_SAFE_INTEGER)
  },
}

/**
 * A raw private key: 64 hex digits, with or without 0x (reference HexKeyParam). The error never repeats
 * the value.
 */
export const privateKeyParam: Param<Uint8Array> = param('key', (value, index) => {
  if (typeof value !== 'string' || !/^(0x)?[0-9a-fA-F]{64}$/.test(value)) {
    throw invalidParams(`invalid argument ${index}: a private key must be 32 bytes as 64 hex digits (0x optional)`)
  }
  return fromHex(value.startsWith('0x') ? value : '0x' + value)
})

/** A message for personal_sign: 0x-hex bytes, or any other string as its UTF-8 bytes (as MetaMask). */
const messageParam: Param<Uint8Array> = param('message', (value, index) => {
  if (typeof value !== 'string') throw invalidParams(`invalid argument ${index}: message must be a string`)
  if (/^0x([0-9a-fA-F]{2})*$/.test(value)) return fromHex(value)
  return new TextEncoder().encode(value)
})

/** The personal_* methods. */
export function personalMethods(s: Services): MethodSpec[] {
  const { wallet } = s
  return [
    method(
      'personal_newAccount',
      'personal',
      'new random account, encrypted with the passphrase, unlocked 30 min',
      [P.string('passphrase')],
      async (_c, pass) => toHex(await wallet.newAccount(pass)),
    ),
    method(
      'personal_newAccountWithSeed',
      'personal',
      'account with key keccak256(seed), always unlocked',
      [P.string('seed')],
      (_c, seed) => toHex(wallet.newAccountWithSeed(seed)),
    ),
    method(
      'personal_importRawKey',
      'personal',
      'imports a private key, encrypted with the passphrase, unlocked 30 min',
      [privateKeyParam, P.string('passphrase')],
      async (_c, key, pass) => toHex(await wallet.importRawKey(key, pass)),
    ),
    method('personal_dumpRawKey', 'personal', 'private key of an unlocked account', [P.address()], (_c, address) =>
      toHex(wallet.requireUnlocked(address).privateKey),
    ),
    method('personal_listAccounts', 'personal', 'accounts the node holds keys for (as eth_accounts)', [], () =>
      s.accounts.all().map((a) => toHex(a.address)),
    ),
    method(
      'personal_lockAccount',
      'personal',
      'locks an account (false for the never-locked dev accounts)',
      [P.address()],
      (_c, address) => wallet.lock(address),
    ),
    method(
      'personal_unlockAccount',
      'personal',
      'unlocks an account for a duration (0x-hex ms, default 30 min)',
      [P.address(), P.string('passphrase'), durationParam],
      (_c, address, pass, ms) => wallet.unlock(address, pass, ms),
    ),
    method(
      'personal_sendTransaction',
      'personal',
      'signs with the passphrase (no unlock needed) and submits',
      [P.tx(), P.string('passphrase')],
      async (_c, obj, pass) => {
        if (!obj.from) throw invalidParams('from is null')
        const signer = await wallet.withPassphrase(obj.from, pass)
        return toHex(await sendFrom(s, obj, false, signer))
      },
    ),
    method(
      'personal_sign',
      'personal',
      'EIP-191 personal-message signature (params: message, address[, passphrase])',
      [messageParam, P.address(), optional(P.string('passphrase'), undefined)],
      async (_c, message, address, pass) => {
        const account =
          pass === undefined ? wallet.requireUnlocked(address) : await wallet.withPassphrase(address, pass)
        return signPersonalMessage(message, account.privateKey)
      },
    ),
  ]
}

/** eth_sign, eth_signTransaction and eth_signTypedData_v4 (module eth). */
export function signingMethods(s: Services): MethodSpec[] {
  const { wallet, chain } = s
  return [
    method(
      'eth_sign',
      'eth',
      'signature of "\\x19Ethereum Signed Message:\\n" + len + data by an unlocked account',
      [P.address(), P.data('message')],
      (_c, address, data) => signPersonalMessage(data, wallet.requireUnlocked(address).privateKey),
    ),
    method(
      'eth_signTransaction',
      'eth',
      'signed raw legacy transaction (hex) with eth_sendTransaction defaults; not submitted',
      [P.tx()],
      async (_c, obj) => {
        if (!obj.from) throw invalidParams('from is null')
        const account = wallet.requireUnlocked(obj.from)
        const tx = signLegacyTransaction(
          account.privateKey,
          await txDataFrom(s, { ...obj, from: obj.from }),
          chain.reads.common,
          obj.from,
        )
        return toHex(tx.serialize())
      },
    ),
    method(
      'eth_signTypedData_v4',
      'eth',
      'EIP-712 typed-data signature by an unlocked account',
      [P.address(), param('typedData', decodeTypedData)],
      async (_c, address, data) => {
        const account = wallet.requireUnlocked(address)
        return signDigest(await typedDataDigest(data), account.privateKey)
      },
      ['eth_signTypedData', 'eth_signTypedData_v3'],
    ),
  ]
}
