/**
 * The node's keyring, in the order `eth_accounts` lists it (reference-node-facts.md §3): the seeded dev
 * accounts (regtest "cow" seeds, reference J/co/rsk/rpc/modules/personal/PersonalModuleWalletEnabled.java),
 * the `--mnemonic` accounts, the miner coinbase account, then the accounts added at run time
 * (personal_newAccount, personal_importRawKey, personal_newAccountWithSeed, and keystores found under `--db`).
 *
 * Two kinds of account:
 * - permanent: seeded, mnemonic, miner and personal_newAccountWithSeed accounts. Their key is always held;
 *   they are never locked (the reference seeds them unlocked) and have no passphrase.
 * - keystore-backed: personal_newAccount / personal_importRawKey accounts. The key is held only while
 *   unlocked (until the unlock expires by the node's clock, or personal_lockAccount); the encrypted keystore
 *   is kept by the Wallet (./wallet.ts).
 */
import { createLegacyTx, type LegacyTx, type LegacyTxData } from '@ethereumjs/tx'
import type { Common } from '@ethereumjs/common'
import { privateKeyToAddress } from '../execution/crypto.js'
import { seedToPrivateKey } from '../rsk/networks.js'
import { toHex, toKey } from '../util/bytes.js'

/** An account whose key the node holds (right now). */
export interface LocalAccount {
  /** 20-byte address. */
  address: Uint8Array
  /** 32-byte secp256k1 private key. Never logged except in the startup banner and personal_dumpRawKey. */
  privateKey: Uint8Array
  /** Where it came from: a seed ("cow3"), "miner", "mnemonic", "keystore" or "seed". */
  origin: string
}

/** An account of the keyring as listed (no key material). */
export interface AccountInfo {
  /** 20-byte address. */
  readonly address: Uint8Array
  /** See {@link LocalAccount.origin}. */
  readonly origin: string
  /** True for seeded/mnemonic/miner/seed accounts, which are never locked. */
  readonly permanent: boolean
}

interface Entry extends AccountInfo {
  /** The key while usable: always for permanent accounts, while unlocked for keystore-backed ones. */
  privateKey?: Uint8Array
  /** Clock time (ms) after which the unlock expires; undefined = no expiry. */
  unlockedUntil?: number
}

/** The keyring, in listing order, with lock state. */
export class AccountStore {
  private readonly list: Entry[] = []
  private readonly byAddress = new Map<string, Entry>()

  /**
   * @param clock wall clock in ms (config.clock) for unlock expiry
   */
  constructor(private readonly clock: () => number = Date.now) {}

  /** Adds a permanent (always unlocked) account; no-op when the address is already present. */
  add(account: LocalAccount): void {
    const key = toKey(account.address)
    if (this.byAddress.has(key)) return
    const entry: Entry = { address: account.address, origin: account.origin, permanent: true, privateKey: account.privateKey }
    this.list.push(entry)
    this.byAddress.set(key, entry)
  }

  /**
   * Adds a keystore-backed account, locked; no-op when the address is already present.
   * @param origin "keystore"
   */
  addLocked(address: Uint8Array, origin = 'keystore'): void {
    const key = toKey(address)
    if (this.byAddress.has(key)) return
    const entry: Entry = { address, origin, permanent: false }
    this.list.push(entry)
    this.byAddress.set(key, entry)
  }

  /** All accounts (locked ones included) in listing order. */
  all(): readonly AccountInfo[] {
    return this.list
  }

  /** Whether the node knows `address` (locked or not) — eth_accounts membership. */
  has(address: Uint8Array): boolean {
    return this.byAddress.has(toKey(address))
  }

  /** The account entry of `address` (no key material), or undefined. */
  info(address: Uint8Array): AccountInfo | undefined {
    return this.byAddress.get(toKey(address))
  }

  /**
   * The account holding `address`'s key when it is usable now: permanent, or unlocked and not expired.
   * An expired unlock is dropped here (the key is forgotten).
   * @returns undefined for unknown or locked accounts
   */
  get(address: Uint8Array): LocalAccount | undefined {
    const e = this.byAddress.get(toKey(address))
    if (!e?.privateKey) return undefined
    if (e.unlockedUntil !== undefined && this.clock() > e.unlockedUntil) {
      e.privateKey = undefined
      e.unlockedUntil = undefined
      return undefined
    }
    return { address: e.address, privateKey: e.privateKey, origin: e.origin }
  }

  /**
   * Unlocks a keystore-backed account with its (decrypted) key.
   * @param durationMs how long from now (by the clock); undefined = until locked or restart
   * @throws Error when the account is unknown
   */
  unlock(address: Uint8Array, privateKey: Uint8Array, durationMs: number | undefined): void {
    const e = this.byAddress.get(toKey(address))
    if (!e) throw new Error(`unknown account ${toHex(address)}`)
    if (e.permanent) return
    e.privateKey = privateKey
    e.unlockedUntil = durationMs === undefined ? undefined : this.clock() + durationMs
  }

  /**
   * Locks a keystore-backed account (forgets its key).
   * @returns true when the account is keystore-backed (locked now), false for permanent accounts (never locked)
   * @throws Error when the account is unknown
   */
  lock(address: Uint8Array): boolean {
    const e = this.byAddress.get(toKey(address))
    if (!e) throw new Error(`unknown account ${toHex(address)}`)
    if (e.permanent) return false
    e.privateKey = undefined
    e.unlockedUntil = undefined
    return true
  }

  /**
   * Signs a legacy transaction with the account's key (EIP-155 with the Common's chain id).
   * @throws Error when the node does not hold the key (unknown or locked)
   */
  signTransaction(address: Uint8Array, data: LegacyTxData, common: Common): LegacyTx {
    const account = this.get(address)
    if (!account) throw new Error(`no unlocked key for ${toHex(address)}`)
    return signLegacyTransaction(account.privateKey, data, common)
  }
}

/**
 * Builds and signs a legacy transaction (EIP-155 with the Common's chain id).
 * @param privateKey 32-byte key
 */
export function signLegacyTransaction(privateKey: Uint8Array, data: LegacyTxData, common: Common): LegacyTx {
  return createLegacyTx(data, { common }).sign(privateKey)
}

/**
 * The seeded accounts: private key = keccak256(utf8(seed)).
 * @param seeds e.g. ["cow", "cow1", …]
 */
export function seededAccounts(seeds: readonly string[]): LocalAccount[] {
  return seeds.map((seed) => {
    const privateKey = seedToPrivateKey(seed)
    return { address: privateKeyToAddress(privateKey), privateKey, origin: seed }
  })
}

/** Default BIP-44 derivation prefix for `--mnemonic` accounts; account i is `<prefix>/i`. */
export const DEFAULT_HD_PATH = "m/44'/60'/0'/0"

/**
 * Derives accounts from a BIP-39 mnemonic (English wordlist, checksum verified, no BIP-39 passphrase) along
 * BIP-32/BIP-44 `<hdPath>/i`, i = 0 … count-1 — the same keys as ethers `HDNodeWallet.fromPhrase(phrase,
 * undefined, hdPath + '/' + i)`, MetaMask, Hardhat and Ganache. Uses @scure/bip39 and @scure/bip32, imported
 * on first use.
 * @param mnemonic space-separated words (extra whitespace is normalised)
 * @param count number of accounts
 * @param hdPath derivation prefix, default {@link DEFAULT_HD_PATH}
 * @throws Error "invalid mnemonic …" (bad word or checksum) or "invalid derivation path …"
 */
export async function mnemonicAccounts(mnemonic: string, count: number, hdPath: string = DEFAULT_HD_PATH): Promise<LocalAccount[]> {
  const [{ mnemonicToSeedSync, validateMnemonic }, { wordlist }, { HDKey }] = await Promise.all([
    import('@scure/bip39'),
    import('@scure/bip39/wordlists/english'),
    import('@scure/bip32'),
  ])
  const phrase = mnemonic.trim().split(/\s+/).join(' ')
  if (!validateMnemonic(phrase, wordlist)) throw new Error('invalid mnemonic (unknown word or bad checksum; English BIP-39 words expected)')
  if (!/^m(\/\d+'?)*$/.test(hdPath)) throw new Error(`invalid derivation path "${hdPath}" (expected e.g. ${DEFAULT_HD_PATH})`)
  const root = HDKey.fromMasterSeed(mnemonicToSeedSync(phrase))
  const base = root.derive(hdPath)
  const out: LocalAccount[] = []
  for (let i = 0; i < count; i++) {
    const privateKey = base.deriveChild(i).privateKey
    if (!privateKey) throw new Error('derivation produced no private key')
    out.push({ address: privateKeyToAddress(privateKey), privateKey, origin: 'mnemonic' })
  }
  return out
}
