/**
 * The reference node's world-state layout inside the Unitrie: trie keys for accounts, storage
 * and code, and the encodings of the values stored under them.
 *
 * Reference sources (rskj master, paths under rskj-core/src/main/java/):
 * - org/ethereum/db/TrieKeyMapper.java   key layout
 * - org/ethereum/core/AccountState.java  account value RLP
 * - org/ethereum/db/MutableRepository.java  createAccount / setupContract / addStorageBytes / saveCode
 * - org/ethereum/vm/DataWord.java        getByteArrayForStorage (storage values)
 * - org/ethereum/util/ByteUtil.java      stripLeadingZeroes (zero → single 0x00 byte)
 *
 * Layout (all keys are whole bytes; sizes in bytes):
 *   account key  = 0x00 ‖ keccak256(addr)[0..10] ‖ addr                    (31)
 *   storage root = accountKey ‖ 0x00  → value 0x01 ("storage marker")      (32)
 *   storage key  = accountKey ‖ 0x00 ‖ keccak256(slot32)[0..10] ‖ strip(slot32)   (43..74)
 *                  where strip() removes leading zeros and maps an all-zero slot to 0x00
 *   code key     = accountKey ‖ 0x80                                       (32)
 */
import { keccak256 } from '../crypto/keccak.js'
import { bytesToBigInt } from '../util/bytes.js'
import { javaBigIntegerBytes, rlpBytes, rlpList, unsignedBytes } from './rlp-encoding.js'

/** Bytes of keccak256 prefix used to "secure" account and storage keys (TrieKeyMapper.SECURE_KEY_SIZE). */
export const SECURE_KEY_SIZE = 10
/** Domain prefix of account keys. */
export const DOMAIN_PREFIX = 0x00
/** Suffix that branches from an account key to its storage subtree (MSB 0). */
export const STORAGE_PREFIX = 0x00
/** Suffix that branches from an account key to its code (MSB 1). */
export const CODE_PREFIX = 0x80
/** The value stored under the storage root key of every contract (MutableRepository.setupContract). */
export const STORAGE_MARKER_VALUE: Uint8Array = Uint8Array.of(0x01)

function checkAddress(addr: Uint8Array): void {
  if (addr.length !== 20) throw new Error(`expected a 20-byte address, got ${addr.length} bytes`)
}

/** keccak256(data)[0..10] (TrieKeyMapper.secureKeyPrefix). */
export function secureKeyPrefix(data: Uint8Array): Uint8Array {
  return keccak256(data).slice(0, SECURE_KEY_SIZE)
}

/** Account key (31 B): 0x00 ‖ keccak256(addr)[0..10] ‖ addr (TrieKeyMapper.getAccountKey). */
export function accountKey(address: Uint8Array): Uint8Array {
  checkAddress(address)
  const k = new Uint8Array(1 + SECURE_KEY_SIZE + 20)
  k[0] = DOMAIN_PREFIX
  k.set(secureKeyPrefix(address), 1)
  k.set(address, 1 + SECURE_KEY_SIZE)
  return k
}

/** accountKey ‖ one suffix byte. */
function accountSubKey(address: Uint8Array, suffix: number): Uint8Array {
  const a = accountKey(address)
  const k = new Uint8Array(a.length + 1)
  k.set(a)
  k[a.length] = suffix
  return k
}

/** Storage root key (32 B): accountKey ‖ 0x00 — holds the 0x01 marker (getAccountStoragePrefixKey). */
export function storagePrefixKey(address: Uint8Array): Uint8Array {
  return accountSubKey(address, STORAGE_PREFIX)
}

/** Code key (32 B): accountKey ‖ 0x80 (TrieKeyMapper.getCodeKey). */
export function codeKey(address: Uint8Array): Uint8Array {
  return accountSubKey(address, CODE_PREFIX)
}

/** A storage slot as a 32-byte word; bigints are converted (0 ≤ slot < 2^256). */
export function slotWord(slot: Uint8Array | bigint): Uint8Array {
  if (typeof slot !== 'bigint') {
    if (slot.length === 32) return slot
    if (slot.length > 32) throw new Error('storage slot longer than 32 bytes')
    const w = new Uint8Array(32)
    w.set(slot, 32 - slot.length)
    return w
  }
  if (slot < 0n || slot >= 1n << 256n) throw new Error('storage slot out of range')
  const u = unsignedBytes(slot)
  const w = new Uint8Array(32)
  w.set(u, 32 - u.length)
  return w
}

/**
 * ByteUtil.stripLeadingZeroes(data) with the default "value for zero" = a single 0x00 byte.
 */
export function stripLeadingZeroes(data: Uint8Array): Uint8Array {
  let i = 0
  while (i < data.length && data[i] === 0) i++
  if (i === data.length) return Uint8Array.of(0)
  return i === 0 ? data : data.slice(i)
}

/**
 * Storage key (TrieKeyMapper.getAccountStorageKey):
 * accountKey ‖ 0x00 ‖ keccak256(slot32)[0..10] ‖ stripLeadingZeroes(slot32).
 * The hash is over the full 32-byte word; slot 0 ends in a single 0x00 byte (43 B key).
 */
export function storageKey(address: Uint8Array, slot: Uint8Array | bigint): Uint8Array {
  const word = slotWord(slot)
  const prefix = storagePrefixKey(address)
  const sec = secureKeyPrefix(word)
  const stripped = stripLeadingZeroes(word)
  const k = new Uint8Array(prefix.length + sec.length + stripped.length)
  k.set(prefix, 0)
  k.set(sec, prefix.length)
  k.set(stripped, prefix.length + sec.length)
  return k
}

/**
 * The part of a storage key after the account's storage prefix:
 * keccak256(slot32)[0..10] ‖ stripLeadingZeroes(slot32).
 */
export function storageKeySuffix(slot: Uint8Array | bigint): Uint8Array {
  const word = slotWord(slot)
  const sec = secureKeyPrefix(word)
  const stripped = stripLeadingZeroes(word)
  const k = new Uint8Array(sec.length + stripped.length)
  k.set(sec, 0)
  k.set(stripped, sec.length)
  return k
}

/** Extract the 20-byte address from an account key (or any key starting with one). */
export function addressFromAccountKey(key: Uint8Array): Uint8Array {
  if (key.length < 31 || key[0] !== DOMAIN_PREFIX) throw new Error('not an account key')
  return key.slice(1 + SECURE_KEY_SIZE, 31)
}

/**
 * Recover the 32-byte slot word from a storage key (the stripped slot is the tail after the
 * 32-byte storage prefix and the 10-byte secure prefix).
 */
export function slotFromStorageKey(key: Uint8Array): Uint8Array {
  if (key.length < 43) throw new Error('not a storage key')
  return slotWord(key.subarray(42))
}

// ---------------------------------------------------------------------------------------------
// Values
// ---------------------------------------------------------------------------------------------

/** Account state (AccountState): nonce, balance (wei) and rarely-used state flags. */
export interface AccountState {
  nonce: bigint
  balance: bigint
  /** Hibernation flags; 0 (default) is not serialized. */
  stateFlags?: number
}

/**
 * AccountState.getEncoded: RLP[ RLP.encodeBigInteger(nonce), RLP.encodeSignedCoinNonNullZero(balance) (, flags) ].
 * nonce 0 → 0x80; balance 0 → raw 0x00; balance > 0 → RLP(BigInteger.toByteArray()) (0x00 prefix
 * when the top bit is set). An empty account (createAccount) is therefore c2 80 00.
 */
export function encodeAccountState(a: AccountState): Uint8Array {
  const items = [rlpBytes(unsignedBytes(a.nonce)), rlpBytes(javaBigIntegerBytes(a.balance))]
  if (a.stateFlags) items.push(rlpBytes(unsignedBytes(a.stateFlags)))
  return rlpList(items)
}

/** The encoding of a freshly created account (nonce 0, balance 0): 0xc28000. */
export const EMPTY_ACCOUNT_STATE: Uint8Array = encodeAccountState({ nonce: 0n, balance: 0n })

/** Decode {@link encodeAccountState} output (AccountState(byte[] rlp)). */
export function decodeAccountState(data: Uint8Array): AccountState {
  const items = decodeShortList(data)
  if (items.length < 2) throw new Error('bad account state RLP')
  const nonce = bytesToBigInt(items[0]!)
  const balBytes = items[1]!
  // parseSignedCoinNonNullZero: new BigInteger(bytes) — signed; balances are never negative
  if (balBytes.length > 0 && balBytes[0]! & 0x80) throw new Error('negative balance in account state')
  const balance = bytesToBigInt(balBytes)
  const stateFlags = items.length > 2 ? Number(bytesToBigInt(items[2]!)) : 0
  return stateFlags ? { nonce, balance, stateFlags } : { nonce, balance }
}

/**
 * The bytes the reference stores for a storage word (DataWord.getByteArrayForStorage): the
 * 32-byte word without leading zeros, or undefined for zero (= delete the cell).
 */
export function storageValueBytes(word: Uint8Array | bigint): Uint8Array | undefined {
  const w = slotWord(word)
  let i = 0
  while (i < 32 && w[i] === 0) i++
  return i === 32 ? undefined : w.slice(i)
}

/** Left-pad a stored storage value back to a 32-byte word (DataWord.valueOf). */
export function storageValueWord(stored: Uint8Array | undefined): Uint8Array {
  return stored ? slotWord(stored) : new Uint8Array(32)
}

/** Minimal RLP list-of-strings decoder (enough for account states). */
function decodeShortList(data: Uint8Array): Uint8Array[] {
  let pos = 0
  const b0 = data[pos++]
  if (b0 === undefined || b0 < 0xc0) throw new Error('expected an RLP list')
  let end: number
  if (b0 <= 0xf7) end = pos + (b0 - 0xc0)
  else {
    const ll = b0 - 0xf7
    let len = 0
    for (let i = 0; i < ll; i++) len = len * 256 + data[pos++]!
    end = pos + len
  }
  if (end > data.length) throw new Error('truncated RLP list')
  const out: Uint8Array[] = []
  while (pos < end) {
    const b = data[pos]!
    if (b < 0x80) {
      out.push(data.slice(pos, pos + 1))
      pos += 1
    } else if (b <= 0xb7) {
      const len = b - 0x80
      out.push(data.slice(pos + 1, pos + 1 + len))
      pos += 1 + len
    } else if (b <= 0xbf) {
      const ll = b - 0xb7
      let len = 0
      for (let i = 0; i < ll; i++) len = len * 256 + data[pos + 1 + i]!
      out.push(data.slice(pos + 1 + ll, pos + 1 + ll + len))
      pos += 1 + ll + len
    } else throw new Error('nested list in account state')
  }
  return out
}
