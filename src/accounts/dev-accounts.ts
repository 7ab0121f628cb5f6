/**
 * The node's keyring, in the order `eth_accounts` lists it (docs/reference-rules.md#rule-dev-accounts): the seeded dev
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
import { Address } from '@ethereumjs/util'
import { privateKeyToAddress } from '../crypto/secp256k1.js'
import { pinKnownParts } from '../execution/ethereumjs/transactions.js'
import { seedToPrivateKey } from '../rsk/networks.js'
import { fromHex, toHex, toKey } from '../util/bytes.js'

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
    const entry: Entry = {
      address: account.address,
      origin: account.origin,
      permanent: true,
      privateKey: account.privateKey,
    }
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
    return signLegacyTransaction(account.privateKey, data, common, account.address)
  }
}

/**
 * Builds and signs a legacy transaction (EIP-155 with the Common's chain id). The init code size is not checked
 * here: the pool checks it against the rules of the block the transaction would go in, while the Common holds
 * whatever rules the last execution ran with (docs/reference-rules.md#rule-gas-activations). The sender and the
 * encoding are pinned to the (frozen) result (src/execution/ethereumjs/transactions.ts): the node signed it, so
 * recovering the sender from the signature again (one secp256k1 recovery, ~0.1 ms) would be waste.
 * @param privateKey 32-byte key
 * @param sender the key's 20-byte address when the caller knows it (else derived from the key)
 */
export function signLegacyTransaction(
  privateKey: Uint8Array,
  data: LegacyTxData,
  common: Common,
  sender?: Uint8Array,
): LegacyTx {
  const signed = createLegacyTx(data, { common, allowUnlimitedInitCodeSize: true, freeze: false }).sign(privateKey)
  pinKnownParts(signed, new Address(sender ?? privateKeyToAddress(privateKey)), signed.serialize())
  return signed
}

// The addresses of the keys every start-up derives, in this order: keccak256 of "cow" … "cow9" and of the regtest
// miner secret (checked against ethers' computeAddress). Looking them up spares start-up loading the secp256k1 addon
// (~6 ms of ~150 ms, measured) only to derive eleven constant addresses; any other key is derived.
const KNOWN_ADDRESSES = new Map<string, string>([
  ['0xc85ef7d79691fe79573b1a7064c19c1a9819ebdbd1faaab1a8ec92344438aaf4', '0xcd2a3d9f938e13cd947ec05abc7fe734df8dd826'],
  ['0x0c06818f82e04c564290b32ab86b25676731fc34e9a546108bf109194c8e3aae', '0x7986b3df570230288501eea3d890bd66948c9b79'],
  ['0x88fcad7d65de4bf854b88191df9bf38648545e7e5ea367dff6e025b06a28244d', '0x0a3aa774752ec2042c46548456c094a76c7f3a79'],
  ['0x1786958bf8781c0047f94c9bd7e39402cdadebef6f8faca6b503b991814f5e75', '0xcf7cdbbb5f7ba79d3ffe74a0bba13fc0295f6036'],
  ['0x3927ff59ac5da854e7633682792aae26e8f83b515c3c6dc7520b5733d4588b8a', '0x39b12c05e8503356e3a7df0b7b33efa4c054c409'],
  ['0x20e4a6381bd3826a14f8da63653d94e7102b38eb5f929c7a94652f41fa7ba323', '0xc354d97642faa06781b76ffb6786f72cd7746c97'],
  ['0xc1783a9a8222e47778911c58bb5aac1343eb425159ff140799e0a283bfb8fa16', '0xdebe71e1de41fc77c44df4b6db940026e31b0e71'],
  ['0xe88b7bfb0b3ffe2245e3293e20901022ea01ebc19898dfe468289c9a07672627', '0x7857288e171c6159c5576d1bd9ac40c0c48a771c'],
  ['0xd77b8a342be95c5c31fa85c20450b424663c4fb4a499cfc80c202c592c85c219', '0xa4dea4d5c954f5fd9e87f0e9752911e83a3d18b3'],
  ['0x082f57b8084286a079aeb9f2d0e17e565ced44a2cb9ce4844e6d4b9d89f3f595', '0x09a1eda29f664ac8f68106f6567276df0c65d859'],
  ['0xbcf6db3716f6a1100ac34bc8e102be662e04b1f7f297094a35e9859ab20c4130', '0xec4ddeb4380ad69b3e509baad9f158cdf4e4681d'],
])

/**
 * The address of a private key: looked up for the keys derived at every start-up, derived otherwise.
 * @param privateKey 32-byte secp256k1 private key
 * @returns the 20-byte address
 */
export function addressOfKey(privateKey: Uint8Array): Uint8Array {
  const known = KNOWN_ADDRESSES.get(toHex(privateKey))
  return known === undefined ? privateKeyToAddress(privateKey) : fromHex(known)
}

/**
 * The seeded accounts: private key = keccak256(utf8(seed)).
 * @param seeds e.g. ["cow", "cow1", …]
 */
export function seededAccounts(seeds: readonly string[]): LocalAccount[] {
  return seeds.map((seed) => {
    const privateKey = seedToPrivateKey(seed)
    return { address: addressOfKey(privateKey), privateKey, origin: seed }
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
export async function mnemonicAccounts(
  mnemonic: string,
  count: number,
  hdPath: string = DEFAULT_HD_PATH,
): Promise<LocalAccount[]> {
  const [{ mnemonicToSeedSync, validateMnemonic }, { wordlist }, { HDKey }] = await Promise.all([
    import('@scure/bip39'),
    import('@scure/bip39/wordlists/english'),
    import('@scure/bip32'),
  ])
  const phrase = mnemonic.trim().split(/\s+/).join(' ')
  if (!validateMnemonic(phrase, wordlist))
    throw new Error('invalid mnemonic (unknown word or bad checksum; English BIP-39 words expected)')
  if (!/^m(\/\d+'?)*$/.test(hdPath))
    throw new Error(`invalid derivation path "${hdPath}" (expected e.g. ${DEFAULT_HD_PATH})`)
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
