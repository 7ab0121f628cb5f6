/**
 * Between the Unitrie and the accounts of a state file: grouping a state's entries into accounts (dump) and
 * turning accounts back into entries (load). Key layout: src/rsk/trie-keys.ts (rskj TrieKeyMapper).
 */
import type { EntryBatch } from '../rsk/entry-batch.js'
import type { Unitrie } from '../rsk/unitrie.js'
import { unitrieEntries } from '../rsk/unitrie-walk.js'
import {
  accountKey,
  decodeAccountState,
  encodeAccountState,
  slotFromStorageKey,
  slotWord,
  STORAGE_MARKER_VALUE,
  storageKeySuffix,
  storagePrefixKey,
  type AccountState,
} from '../rsk/trie-keys.js'
import { bytesEqual, toKey } from '../util/bytes.js'

const ACCOUNT_KEY_LENGTH = 31
const STORAGE_PREFIX = 0x00
const CODE_PREFIX = 0x80

/** An account of a state: what Anvil's format holds, plus the cells and entries it cannot hold. */
export interface StateAccount {
  /** 20 bytes. */
  address: Uint8Array
  nonce: bigint
  /** wei */
  balance: bigint
  code: Uint8Array
  /** Cells storable as 32-byte words: [slot (32 B), word (32 B)]. */
  storage: [Uint8Array, Uint8Array][]
  /** Cells that are not 32-byte words (longer, or stored with leading zeros): [slot (32 B), stored bytes]. */
  storageBytes: [Uint8Array, Uint8Array][]
}

/** A Unitrie entry [key, value]. */
export type RawEntry = [Uint8Array, Uint8Array]

/** What {@link groupAccounts} yields: an account, or an entry the accounts cannot express. */
export type StateItem = { account: StateAccount } | { raw: RawEntry }

function startsWith(key: Uint8Array, prefix: Uint8Array): boolean {
  if (key.length < prefix.length) return false
  for (let i = 0; i < prefix.length; i++) if (key[i] !== prefix[i]) return false
  return true
}

/**
 * Walks a state's entries (in key order: an account's entry comes right before its marker, storage and code)
 * and groups them into accounts. Whatever {@link addAccountEntries} would not rebuild byte for byte is yielded as a
 * raw entry instead (a non-canonical account encoding, a storage marker of an account without storage, keys
 * outside the account layout), so that accounts plus raw entries rebuild the same trie and root.
 * @param trie the state
 */
export function* groupAccounts(trie: Unitrie): Generator<StateItem> {
  let current: { account: StateAccount; key: Uint8Array; marker: Uint8Array | undefined } | undefined
  const flush = function* (): Generator<StateItem> {
    if (!current) return
    const { account, marker } = current
    if (marker !== undefined && account.storage.length === 0 && account.storageBytes.length === 0) {
      yield { raw: [storagePrefixKey(account.address), marker] }
    }
    yield { account }
    current = undefined
  }
  for (const [key, value] of unitrieEntries(trie)) {
    if (key.length === ACCOUNT_KEY_LENGTH && key[0] === 0) {
      yield* flush()
      const address = key.slice(ACCOUNT_KEY_LENGTH - 20)
      let state: AccountState | undefined
      try {
        state = decodeAccountState(value)
      } catch {
        state = undefined
      }
      if (!bytesEqual(accountKey(address), key) || state === undefined) {
        yield { raw: [key, value] }
        continue
      }
      const account: StateAccount = {
        address,
        nonce: state.nonce,
        balance: state.balance,
        code: new Uint8Array(0),
        storage: [],
        storageBytes: [],
      }
      // hibernation flags and other encodings are kept as the raw entry (it overrides the rebuilt one)
      if (!bytesEqual(encodeAccountState({ nonce: state.nonce, balance: state.balance }), value))
        yield { raw: [key, value] }
      current = { account, key, marker: undefined }
      continue
    }
    if (!current || !startsWith(key, current.key)) {
      yield { raw: [key, value] }
      continue
    }
    const { account } = current
    const kind = key[ACCOUNT_KEY_LENGTH]
    if (key.length === ACCOUNT_KEY_LENGTH + 1 && kind === CODE_PREFIX) {
      account.code = value
    } else if (key.length === ACCOUNT_KEY_LENGTH + 1 && kind === STORAGE_PREFIX) {
      if (bytesEqual(value, STORAGE_MARKER_VALUE)) current.marker = value
      else yield { raw: [key, value] }
    } else if (
      key.length >= ACCOUNT_KEY_LENGTH + 12 &&
      key.length <= ACCOUNT_KEY_LENGTH + 43 &&
      kind === STORAGE_PREFIX
    ) {
      // (the key's hashed part is not re-derived here: one Keccak per cell was most of a dump's time, and the
      // state manager only writes keys as storageKey makes them; a file whose keys differ fails the root check
      // when it is loaded, never silently)
      const slot = slotFromStorageKey(key)
      if (value.length > 0 && value.length <= 32 && value[0] !== 0) {
        account.storage.push([slot, slotWord(value)])
      } else {
        account.storageBytes.push([slot, value])
      }
    } else {
      yield { raw: [key, value] }
    }
  }
  yield* flush()
}

/**
 * Adds the Unitrie entries of an account as the reference writes them to `batch`: the account state, the code,
 * the storage marker (when it has storage) and each non-zero cell (32-byte words stored without leading zeros;
 * byte cells as given). Keys are written straight into the batch from the account's key (one Keccak of the
 * address, as codeKey / storagePrefixKey / storageKey make them).
 */
export function addAccountEntries(batch: EntryBatch, a: StateAccount): void {
  const key = accountKey(a.address)
  batch.add(key, encodeAccountState({ nonce: a.nonce, balance: a.balance }))
  if (a.code.length > 0) batch.addJoined(key, CODE_SUFFIX, a.code)
  let prefix: Uint8Array | undefined
  const cell = (slot: Uint8Array, stored: Uint8Array): void => {
    if (prefix === undefined) {
      prefix = new Uint8Array(key.length + 1)
      prefix.set(key)
      prefix[key.length] = STORAGE_PREFIX
      batch.add(prefix, STORAGE_MARKER_VALUE)
    }
    batch.addJoined(prefix, slotSuffix(slot), stored)
  }
  for (const [slot, word] of a.storage) {
    let i = 0
    while (i < word.length && word[i] === 0) i++
    if (i < word.length) cell(slot, word.subarray(i))
  }
  for (const [slot, bytes] of a.storageBytes) if (bytes.length > 0) cell(slot, bytes)
}

const CODE_SUFFIX = Uint8Array.of(CODE_PREFIX)

/** Recent storage key suffixes by slot: many contracts use the same low slots (0, 1, 2 …), a Keccak each. */
const suffixes = new Map<string, Uint8Array>()
const MAX_SUFFIXES = 4096

function slotSuffix(slot: Uint8Array): Uint8Array {
  const id = toKey(slot)
  let suffix = suffixes.get(id)
  if (suffix === undefined) {
    if (suffixes.size >= MAX_SUFFIXES) suffixes.clear()
    suffix = storageKeySuffix(slot)
    suffixes.set(id, suffix)
  }
  return suffix
}
