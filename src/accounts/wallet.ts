/**
 * The wallet behind personal_* and the signing methods: passphrase-protected accounts (created with
 * personal_newAccount or imported with personal_importRawKey) kept as v3 keystores, unlock/lock with expiry by
 * the node's clock, and the checks every signing method makes (unknown account, locked account, wrong
 * passphrase). Behaviour follows the reference node (rskj co/rsk/core/Wallet.java,
 * co/rsk/rpc/modules/personal/PersonalModuleWalletEnabled.java) where it is useful; where it differs it is said.
 *
 * Errors (src/errors/domain-errors.ts; their JSON-RPC answers are in docs/architecture.md#errors):
 * - unknown account → UnknownAccountError "Could not find account for address: 0x…" (the reference's send
 *   error; the reference answers the same for a locked account, since a locked key is simply absent there)
 * - locked account → LockedAccountError "account 0x… is locked; unlock it with personal_unlockAccount"
 * - wrong passphrase → WrongPassphraseError "wrong passphrase for account 0x…" (the reference fails decryption
 *   with an internal error)
 * - bad private key → InvalidArgumentError (the key itself is never echoed, unlike the reference's message)
 * None of them changes anything.
 */
import { randomBytes } from 'node:crypto'
import {
  InvalidArgumentError,
  LockedAccountError,
  UnknownAccountError,
  WrongPassphraseError,
} from '../errors/domain-errors.js'
import { privateKeyToAddress } from '../crypto/secp256k1.js'
import { seedToPrivateKey } from '../rsk/networks.js'
import { bytesToBigInt, toHex } from '../util/bytes.js'
import type { AccountStore, LocalAccount } from './dev-accounts.js'
import { decryptKeystore, encryptKeystore, type KeystoreKdf, type KeystoreStorage } from './keystore.js'

/** Default unlock duration: 30 minutes (reference PersonalModuleWalletEnabled.unlockAccount). */
export const DEFAULT_UNLOCK_MS = 30 * 60 * 1000

const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n

/** True when `key` is 32 bytes and 0 < key < n (a usable secp256k1 private key). */
export function isValidPrivateKey(key: Uint8Array): boolean {
  if (key.length !== 32) return false
  const k = bytesToBigInt(key)
  return k > 0n && k < SECP256K1_N
}

/** Options of {@link Wallet}. */
export interface WalletOptions {
  /** The keyring (also holds the permanent accounts). */
  accounts: AccountStore
  /** Where keystores live: memory, or `<db>/keystore`. */
  storage: KeystoreStorage
  /** scrypt cost of new keystores. Default 'light'. */
  kdf?: KeystoreKdf
}

/** Passphrase-protected accounts and the account checks of the signing methods. */
export class Wallet {
  private readonly accounts: AccountStore
  private readonly storage: KeystoreStorage
  private readonly kdf: KeystoreKdf

  /**
   * Lists every keystore of `storage` in the keyring, locked (restart with the same `--db`).
   */
  constructor(opts: WalletOptions) {
    this.accounts = opts.accounts
    this.storage = opts.storage
    this.kdf = opts.kdf ?? 'light'
    for (const { address } of this.storage.list()) this.accounts.addLocked(address)
  }

  /**
   * personal_newAccount: a random key, stored encrypted with `passphrase`, unlocked for 30 minutes
   * (as the reference).
   * @returns the 20-byte address
   * @throws Error when the keystore cannot be written (an internal error)
   */
  async newAccount(passphrase: string): Promise<Uint8Array> {
    let key: Uint8Array
    do key = new Uint8Array(randomBytes(32))
    while (!isValidPrivateKey(key))
    return this.store(key, passphrase)
  }

  /**
   * personal_importRawKey: stores `privateKey` encrypted with `passphrase` and unlocks it for 30 minutes.
   * Importing a key the keystore already holds replaces its keystore (new passphrase), as the reference
   * overwrites its entry. Importing the key of a permanent account (seeded, mnemonic, miner) changes nothing.
   * @param privateKey 32 bytes
   * @returns the 20-byte address
   * @throws InvalidArgumentError for a key outside 1 … n-1; Error when the keystore cannot be written
   */
  async importRawKey(privateKey: Uint8Array, passphrase: string): Promise<Uint8Array> {
    if (!isValidPrivateKey(privateKey))
      throw new InvalidArgumentError('invalid argument 0: not a valid secp256k1 private key (must be 1 … n-1)')
    const address = privateKeyToAddress(privateKey)
    if (this.accounts.info(address)?.permanent) return address
    return this.store(privateKey, passphrase)
  }

  private async store(privateKey: Uint8Array, passphrase: string): Promise<Uint8Array> {
    const address = privateKeyToAddress(privateKey)
    const json = await encryptKeystore(privateKey, passphrase, this.kdf)
    await this.storage.put(address, json)
    this.accounts.addLocked(address)
    this.accounts.unlock(address, privateKey, DEFAULT_UNLOCK_MS)
    return address
  }

  /**
   * personal_newAccountWithSeed: key = keccak256(utf8(seed)), a permanent account (no passphrase, not
   * persisted), as the reference's seeded accounts.
   * @returns the 20-byte address
   */
  newAccountWithSeed(seed: string): Uint8Array {
    const privateKey = seedToPrivateKey(seed)
    const address = privateKeyToAddress(privateKey)
    this.accounts.add({ address, privateKey, origin: 'seed' })
    return address
  }

  /**
   * personal_unlockAccount. Permanent accounts have no passphrase and are always unlocked: any passphrase
   * answers true for them.
   * @param durationMs undefined = until personal_lockAccount or restart
   * @returns true
   * @throws UnknownAccountError; WrongPassphraseError
   */
  async unlock(address: Uint8Array, passphrase: string, durationMs: number | undefined): Promise<boolean> {
    const key = await this.decrypt(address, passphrase)
    if (key) this.accounts.unlock(address, key, durationMs)
    return true
  }

  /**
   * personal_lockAccount.
   * @returns true for a keystore-backed account (locked now), false for a permanent one (never locked)
   * @throws UnknownAccountError
   */
  lock(address: Uint8Array): boolean {
    if (!this.accounts.has(address)) throw new UnknownAccountError(address)
    return this.accounts.lock(address)
  }

  /**
   * The account's key for signing without a passphrase: permanent, or unlocked and not expired.
   * @throws UnknownAccountError; LockedAccountError
   */
  requireUnlocked(address: Uint8Array): LocalAccount {
    const account = this.accounts.get(address)
    if (account) return account
    throw this.accounts.has(address) ? new LockedAccountError(address) : new UnknownAccountError(address)
  }

  /**
   * The account's key for a call that carries a passphrase (personal_sendTransaction, personal_sign with a
   * third argument): a keystore-backed account is decrypted with it (its lock state is left unchanged, as the
   * reference); a permanent account has no passphrase and signs whatever is given.
   * @throws UnknownAccountError; WrongPassphraseError; LockedAccountError
   */
  async withPassphrase(address: Uint8Array, passphrase: string): Promise<LocalAccount> {
    const key = await this.decrypt(address, passphrase)
    if (key) return { address, privateKey: key, origin: 'keystore' }
    return this.requireUnlocked(address)
  }

  /** Decrypts a keystore-backed account's key; undefined for a permanent account. */
  private async decrypt(address: Uint8Array, passphrase: string): Promise<Uint8Array | undefined> {
    const info = this.accounts.info(address)
    if (!info) throw new UnknownAccountError(address)
    if (info.permanent) return undefined
    const json = this.storage.get(address)
    if (!json) throw new UnknownAccountError(address)
    let key: Uint8Array
    try {
      key = await decryptKeystore(json, passphrase)
    } catch (err) {
      if (err instanceof WrongPassphraseError) throw new WrongPassphraseError(address)
      throw err
    }
    if (toHex(privateKeyToAddress(key)) !== toHex(address)) {
      throw new Error(`the keystore of ${toHex(address)} (${this.storage.location}) holds the key of another address`)
    }
    return key
  }
}
