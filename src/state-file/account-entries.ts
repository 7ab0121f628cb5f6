/**
 * Loading: an account of a state file's `accounts` (as src/state-file/json-walk.ts assembles it) turned straight
 * into the Unitrie entries the reference writes for it — the account state, the code, the storage marker and each
 * non-zero cell — checking each field on the way. Hex is decoded into a few reused buffers and the entries'
 * bytes are copied from there into the batch, so a cell costs no array or string of its own; a storage key's
 * hashed part is computed once per distinct slot text among recent ones (contracts share their low slots).
 * Key layout: src/rsk/trie-keys.ts (rskj TrieKeyMapper).
 */
import { LRUCache } from 'lru-cache'
import { keccak256 } from '../crypto/keccak.js'
import type { EntryBatch } from '../unitrie/entry-batch.js'
import {
  CODE_PREFIX,
  encodeAccountState,
  SECURE_KEY_SIZE,
  STORAGE_MARKER_VALUE,
  STORAGE_PREFIX,
  storageKeySuffix,
} from '../rsk/trie-keys.js'
import { toKey } from '../util/bytes.js'
import { decodeHexInto, decodeHexWordInto, hasHexPrefix } from '../util/hex-codec.js'
import { StateFileError } from './format.js'
import { JsonObject } from './json-walk.js'

const ACCOUNT_KEY_LENGTH = 1 + SECURE_KEY_SIZE + 20
const CODE_SUFFIX = Uint8Array.of(CODE_PREFIX)
const MAX_NONCE = (1n << 64n) - 1n
const MAX_BALANCE = (1n << 256n) - 1n
/** Recent slots' key suffixes kept (least recently used dropped first). */
const MAX_SUFFIXES = 4096

/** A value as an error message shows it: a scalar as JSON (cut at 80 characters), a container by its kind. */
export function shown(v: unknown): string | undefined {
  if (v instanceof JsonObject) return 'an object'
  if (Array.isArray(v)) return 'an array'
  return JSON.stringify(v)?.slice(0, 80)
}

/**
 * A quantity as Anvil writes them: a JSON number (kept as text), a decimal or a 0x-hex string.
 * @throws StateFileError "<what>: expected a non-negative integer, got …"
 */
export function bigintField(v: unknown, what: string): bigint {
  if (typeof v === 'string' && (/^\d+$/.test(v) || /^0x[0-9a-fA-F]+$/.test(v))) return BigInt(v)
  throw new StateFileError(`${what}: expected a non-negative integer, got ${shown(v)}`)
}

/**
 * Writes accounts of a state file into an {@link EntryBatch} (see the module comment). One writer per load: it
 * keeps its buffers and the slot cache from one account to the next.
 */
export class AccountEntryWriter {
  /** account key ‖ STORAGE_PREFIX: the first 31 bytes are the account key, all 32 the storage prefix key */
  private readonly key = new Uint8Array(ACCOUNT_KEY_LENGTH + 1)
  private readonly accountKey = this.key.subarray(0, ACCOUNT_KEY_LENGTH)
  private readonly address = new Uint8Array(20)
  private readonly word = new Uint8Array(32)
  private bytes = new Uint8Array(1024)
  private readonly suffixes = new LRUCache<string, Uint8Array>({ max: MAX_SUFFIXES })

  /**
   * @param batch where the entries go
   * @param label how errors name the input, e.g. "state file ./state.json"
   */
  constructor(
    private readonly batch: EntryBatch,
    private readonly label: string,
  ) {
    this.key[ACCOUNT_KEY_LENGTH] = STORAGE_PREFIX
  }

  /**
   * Adds the entries of one account: `"0x<address>": { nonce, balance, code, storage }` (each optional; other
   * members are ignored; of a repeated member or slot the last counts). An account of the file replaces the
   * account state and code; its zero cells add nothing.
   * @param addressText the member's key
   * @param value the member's value
   * @returns the number of storage cells read (zero ones included)
   * @throws StateFileError naming the account and the field: not an address, not an object, a nonce of 2^64 or
   *   more, a balance of 2^256 or more, code that is not 0x-hex bytes, a slot or word that is not 1-64 hex digits
   */
  addAccount(addressText: string, value: unknown): number {
    this.setAddress(addressText)
    const what = `${this.label}: account ${addressText}`
    const o = objectField(value, what)
    let nonceField: unknown
    let balanceField: unknown
    let codeField: unknown
    let storageField: unknown
    const items = o.items
    for (let i = 0; i < items.length; i += 2) {
      const v = items[i + 1]
      switch (items[i]) {
        case 'nonce':
          nonceField = v
          break
        case 'balance':
          balanceField = v
          break
        case 'code':
          codeField = v
          break
        case 'storage':
          storageField = v
          break
      }
    }
    const nonce = nonceField === undefined ? 0n : bigintField(nonceField, `${what}: nonce`)
    if (nonce > MAX_NONCE) throw new StateFileError(`${what}: nonce is 2^64 or more`)
    const balance = balanceField === undefined ? 0n : bigintField(balanceField, `${what}: balance`)
    if (balance > MAX_BALANCE) throw new StateFileError(`${what}: balance is 2^256 or more`)
    const batch = this.batch
    batch.add(this.accountKey, encodeAccountState({ nonce, balance }))
    if (codeField !== undefined && codeField !== null) {
      const length = this.decodeBytes(codeField, `${what}: code`)
      if (length > 0) batch.addSlice(this.accountKey, CODE_SUFFIX, this.bytes, 0, length)
    }
    if (storageField === undefined || storageField === null) return 0
    const cells = objectField(storageField, `${what}: storage`).items
    const word = this.word
    let marked = false
    for (let i = 0; i < cells.length; i += 2) {
      const slot = cells[i] as string
      const suffix = this.slotSuffix(slot, what)
      const v = cells[i + 1]
      if (typeof v !== 'string' || !decodeHexWordInto(v, word, 0))
        throw new StateFileError(`${what}: storage ${slot}: expected a 32-byte hex word, got ${shown(v)}`)
      // stored without leading zeros; a zero word is no cell
      let from = 0
      while (from < 32 && word[from] === 0) from++
      if (from === 32) {
        // (a zero word after a non-zero one for the same slot, in a file with repeated keys: the last counts)
        if (marked && repeated(cells, i)) batch.addSlice(this.key, suffix, word, 32, 32)
        continue
      }
      if (!marked) {
        batch.add(this.key, STORAGE_MARKER_VALUE)
        marked = true
      }
      batch.addSlice(this.key, suffix, word, from, 32)
    }
    return cells.length >> 1
  }

  /**
   * Adds the byte cells of one address (node_cli.storageBytes: `"0x<address>": { "<slot>": "0x<bytes>" }`),
   * each stored as given (an empty value deletes the cell), and the address's storage marker.
   * @returns the number of cells read
   * @throws StateFileError naming the address and slot
   */
  addByteCells(addressText: string, value: unknown): number {
    this.setAddress(addressText)
    const what = `${this.label}: storageBytes of ${addressText}`
    const cells = objectField(value, what).items
    for (let i = 0; i < cells.length; i += 2) {
      const slot = cells[i] as string
      const suffix = this.slotSuffix(slot, what)
      const length = this.decodeBytes(cells[i + 1], `${what} ${slot}`)
      this.batch.addSlice(this.key, suffix, this.bytes, 0, length)
    }
    this.batch.add(this.key, STORAGE_MARKER_VALUE)
    return cells.length >> 1
  }

  /**
   * The last address added, as lowercase hex without 0x (a string of its own: the member's key is a slice of the
   * tokenizer's text, and keeping it would keep that whole piece of the file).
   */
  addressKey(): string {
    return toKey(this.address)
  }

  /** Decodes the address and writes its account key (0x00 ‖ keccak256(address)[0..10] ‖ address). */
  private setAddress(text: string): void {
    if (text.length !== 42 || decodeHexInto(text, this.address, 0) !== 20)
      throw new StateFileError(`${this.label}: "${text.slice(0, 80)}" is not an address`)
    const key = this.key
    const hash = keccak256(this.address)
    key[0] = 0
    for (let k = 0; k < SECURE_KEY_SIZE; k++) key[1 + k] = hash[k]!
    key.set(this.address, 1 + SECURE_KEY_SIZE)
  }

  /** The storage key suffix of a slot given as text (cached by the text). */
  private slotSuffix(slot: string, what: string): Uint8Array {
    let suffix = this.suffixes.get(slot)
    if (suffix !== undefined) return suffix
    if (!decodeHexWordInto(slot, this.word, 0))
      throw new StateFileError(`${what}: storage slot: expected a 32-byte hex word, got ${shown(slot)}`)
    suffix = storageKeySuffix(this.word.slice())
    this.suffixes.set(slot, suffix)
    return suffix
  }

  /** Decodes 0x-hex bytes into {@link bytes} (grown as needed); returns their length. */
  private decodeBytes(v: unknown, what: string): number {
    if (typeof v === 'string' && hasHexPrefix(v)) {
      const need = (v.length - 2) >> 1
      if (this.bytes.length < need) this.bytes = new Uint8Array(need * 2)
      const length = decodeHexInto(v, this.bytes, 0)
      if (length >= 0) return length
    }
    throw new StateFileError(`${what}: expected 0x-hex bytes, got ${shown(v)}`)
  }
}

/** Whether the key at `i` of an object's items appeared before it. */
function repeated(items: unknown[], i: number): boolean {
  for (let j = 0; j < i; j += 2) if (items[j] === items[i]) return true
  return false
}

/** `v` as a JSON object, or a StateFileError "<what>: expected an object, got …". */
export function objectField(v: unknown, what: string): JsonObject {
  if (!(v instanceof JsonObject)) throw new StateFileError(`${what}: expected an object, got ${shown(v)}`)
  return v
}
