/**
 * Web3 Secret Storage (v3) keystores for keys created or imported at run time (personal_newAccount,
 * personal_importRawKey): encryption and decryption through @ethereumjs/wallet (`toV3` / `fromV3`: scrypt
 * KDF, aes-128-ctr, keccak MAC — no KDF or cipher code of our own), and where the encrypted files live:
 * `<db>/keystore/UTC--<time>--<address>` files when `--db <dir>` is given, a map in memory otherwise.
 *
 * The reference node (rskj co/rsk/core/Wallet.java) keeps its passphrase-encrypted keys in a key-value store
 * of its own format; v3 files are what every Ethereum wallet and library reads (ethers `Wallet.fromEncryptedJson`,
 * geth, web3.js), so the files this node writes can be taken elsewhere.
 *
 * @ethereumjs/wallet is imported on first use only, so node startup does not pay for it.
 */
import { mkdirSync, readdirSync, readFileSync } from 'node:fs'
import { rename, unlink, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { WrongPassphraseError } from '../errors/domain-errors.js'
import { fromHex, toHex, toKey } from '../util/bytes.js'

/** A v3 keystore as written to disk (the library's output plus the customary `address` field, no 0x). */
export interface KeystoreV3 {
  version: 3
  id: string
  address?: string
  crypto: {
    cipher: string
    cipherparams: { iv: string }
    ciphertext: string
    kdf: string
    kdfparams: Record<string, unknown>
    mac: string
  }
}

/**
 * scrypt cost of new keystores.
 * - `light`: N = 4096, p = 6 (geth's "light KDF"), ~0.1 s per encryption/decryption — the default, for a dev
 *   chain whose accounts are created and unlocked often in tests.
 * - `standard`: N = 262144, p = 1 (the v3 default of geth and @ethereumjs/wallet), ~1 s each.
 * Both produce standard v3 files; decryption reads the parameters from the file.
 */
export type KeystoreKdf = 'light' | 'standard'

const SCRYPT_PARAMS: Record<KeystoreKdf, { n: number; p: number; r: number }> = {
  light: { n: 4096, p: 6, r: 8 },
  standard: { n: 262144, p: 1, r: 8 },
}

type WalletModule = typeof import('@ethereumjs/wallet')
let walletModule: Promise<WalletModule> | undefined
function loadWallet(): Promise<WalletModule> {
  walletModule ??= import('@ethereumjs/wallet')
  return walletModule
}

/**
 * Encrypts a private key into a v3 keystore.
 * @param privateKey 32-byte secp256k1 private key (already validated by the caller)
 * @param passphrase any string, "" included (UTF-8 bytes feed scrypt)
 * @param kdf scrypt cost, see {@link KeystoreKdf}
 * @returns the keystore JSON object (with `address`, lowercase hex without 0x)
 */
export async function encryptKeystore(
  privateKey: Uint8Array,
  passphrase: string,
  kdf: KeystoreKdf = 'light',
): Promise<KeystoreV3> {
  const { Wallet } = await loadWallet()
  const json = await Wallet.fromPrivateKey(privateKey).toV3(passphrase, { kdf: 'scrypt', ...SCRYPT_PARAMS[kdf] })
  return json as unknown as KeystoreV3
}

/**
 * Decrypts a v3 keystore (scrypt or pbkdf2, as the file says).
 * @param json the keystore object
 * @param passphrase the passphrase it was encrypted with
 * @returns the 32-byte private key
 * @throws WrongPassphraseError when the MAC does not match; Error (without key material) for a malformed keystore
 */
export async function decryptKeystore(json: KeystoreV3, passphrase: string): Promise<Uint8Array> {
  const { Wallet } = await loadWallet()
  try {
    return (await Wallet.fromV3(json as never, passphrase)).getPrivateKey()
  } catch (err) {
    // the caller knows the address
    if (/wrong passphrase/i.test((err as Error).message)) throw new WrongPassphraseError()
    throw new Error(`unreadable keystore: ${(err as Error).message}`)
  }
}

/** Where encrypted keystores are kept, by address. */
export interface KeystoreStorage {
  /** Human-readable location for messages ("memory" or the directory). */
  readonly location: string
  /** Every stored keystore, in the order the accounts were created (for a directory: by file name). */
  list(): { address: Uint8Array; json: KeystoreV3 }[]
  /** The keystore of `address`, or undefined. */
  get(address: Uint8Array): KeystoreV3 | undefined
  /**
   * Stores (or replaces) the keystore of `address`.
   * @throws Error when the file cannot be written (nothing is changed then)
   */
  put(address: Uint8Array, json: KeystoreV3): Promise<void>
}

/** Keystores held in memory (no `--db`): encrypted like on disk, gone when the process ends. */
export class MemoryKeystore implements KeystoreStorage {
  readonly location = 'memory'
  private readonly map = new Map<string, { address: Uint8Array; json: KeystoreV3 }>()

  list(): { address: Uint8Array; json: KeystoreV3 }[] {
    return [...this.map.values()]
  }

  get(address: Uint8Array): KeystoreV3 | undefined {
    return this.map.get(toKey(address))?.json
  }

  async put(address: Uint8Array, json: KeystoreV3): Promise<void> {
    const key = toKey(address)
    this.map.delete(key)
    this.map.set(key, { address, json })
  }
}

const FILE_RE = /^UTC--.+--([0-9a-fA-F]{40})$/

/**
 * Keystores as files in a directory (`<db>/keystore`), one `UTC--<ISO time>--<address>` file per account,
 * the naming geth and ethers use. The directory is created (mode 0700) when missing; files are written
 * with mode 0600, through a temporary file and a rename so a crash never leaves half a keystore.
 */
export class DirectoryKeystore implements KeystoreStorage {
  private readonly entries = new Map<string, { address: Uint8Array; json: KeystoreV3; file: string }>()

  /**
   * Opens (creating it when missing) the directory and reads the keystores in it. Files that are not v3
   * keystores named `UTC--…--<address>` are ignored.
   * @param location the keystore directory (`<db>/keystore`)
   * @throws Error when the directory cannot be created or read
   */
  constructor(readonly location: string) {
    mkdirSync(location, { recursive: true, mode: 0o700 })
    for (const name of readdirSync(location).sort()) {
      const m = FILE_RE.exec(name)
      if (!m) continue
      let json: KeystoreV3 & { Crypto?: KeystoreV3['crypto'] }
      try {
        json = JSON.parse(readFileSync(path.join(location, name), 'utf8')) as KeystoreV3
      } catch {
        continue
      }
      // ethers (and old geth) write the section as "Crypto"; the v3 definition says "crypto".
      if (json?.crypto === undefined && json?.Crypto !== undefined) {
        const { Crypto, ...rest } = json
        json = { ...rest, crypto: Crypto }
      }
      if (json?.version !== 3 || typeof json.crypto !== 'object' || json.crypto === null) continue
      const address = fromHex('0x' + m[1]!.toLowerCase())
      // A later file for the same address (re-import) wins, as on write.
      this.entries.delete(toKey(address))
      this.entries.set(toKey(address), { address, json, file: name })
    }
  }

  list(): { address: Uint8Array; json: KeystoreV3 }[] {
    return [...this.entries.values()].map(({ address, json }) => ({ address, json }))
  }

  get(address: Uint8Array): KeystoreV3 | undefined {
    return this.entries.get(toKey(address))?.json
  }

  async put(address: Uint8Array, json: KeystoreV3): Promise<void> {
    const key = toKey(address)
    const stamp = new Date().toISOString().replace(/:/g, '-')
    const file = `UTC--${stamp}--${toHex(address).slice(2)}`
    const target = path.join(this.location, file)
    const tmp = `${target}.tmp-${process.pid}`
    try {
      await writeFile(tmp, JSON.stringify(json), { mode: 0o600 })
      await rename(tmp, target)
    } catch (err) {
      await unlink(tmp).catch(() => undefined)
      throw err
    }
    const old = this.entries.get(key)
    if (old && old.file !== file) await unlink(path.join(this.location, old.file)).catch(() => undefined)
    this.entries.delete(key)
    this.entries.set(key, { address, json, file })
  }
}
