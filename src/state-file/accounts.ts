/**
 * Dumping: a state's entries grouped into the accounts of a state file's `accounts` member, written as JSON bytes
 * as the walk goes (an account's storage cells straight from the trie's bytes to hex, no array or string per
 * cell). What the accounts cannot express is set aside for the node_cli member. Key layout:
 * src/rsk/trie-keys.ts (rskj TrieKeyMapper); the loading direction is ./account-entries.ts.
 */
import type { Unitrie } from '../unitrie/unitrie.js'
import { unitrieEntryViews } from '../unitrie/unitrie-walk.js'
import {
  accountKey,
  decodeAccountState,
  encodeAccountState,
  slotWord,
  STORAGE_MARKER_VALUE,
  storagePrefixKey,
  type AccountState,
} from '../rsk/trie-keys.js'
import { JsonBytes } from './json-bytes.js'

const ACCOUNT_KEY_LENGTH = 31
const STORAGE_PREFIX = 0x00
const CODE_PREFIX = 0x80
const COMMA = 0x2c
const COLON = 0x3a

/** A Unitrie entry [key, value]. */
export type RawEntry = [Uint8Array, Uint8Array]

/** What the accounts of a dump leave for the node_cli member. */
export interface DumpRest {
  /** Entries the accounts cannot express, in key order (node_cli.rawEntries). */
  raw: RawEntry[]
  /** Per address, cells that are not 32-byte words: [slot (32 B), stored bytes] (node_cli.storageBytes). */
  byteCells: { address: Uint8Array; cells: RawEntry[] }[]
}

/** What a dump has written so far (see {@link writeAccounts}). */
export interface DumpTally {
  /** Accounts written to `accounts`. */
  accounts: number
  /** Their storage cells written (32-byte words; byte cells go to the node_cli member). */
  cells: number
}

/** Whether bytes [from, to) of `a` equal `b`. */
function equalRange(a: Uint8Array, from: number, to: number, b: Uint8Array): boolean {
  if (to - from !== b.length) return false
  for (let i = 0; i < b.length; i++) if (a[from + i] !== b[i]) return false
  return true
}

/**
 * Walks a state's entries (in key order: an account's entry comes right before its storage marker, cells and
 * code) and writes its accounts as the members of `accounts` to `out` (`"0x<address>":{"nonce":…,"balance":…,
 * "code":…,"storage":{…}}`, comma-separated). Whatever the loader (./account-entries.ts) would not rebuild byte
 * for byte goes to `rest` instead (a non-canonical account encoding, a storage marker of an account without
 * storage, cells that are not words, keys outside the account layout), so that accounts plus `rest` rebuild the
 * same trie and root.
 * @param trie the state
 * @param out where the JSON goes
 * @param rest filled with what the accounts cannot hold
 * @param tally counts the accounts and cells written, when given
 * @returns a generator that pauses after each account (take {@link JsonBytes.full} chunks of `out` then)
 */
export function* writeAccounts(trie: Unitrie, out: JsonBytes, rest: DumpRest, tally?: DumpTally): Generator<void> {
  const raw = rest.raw
  const cellsOut = new JsonBytes()
  let first = true
  // the account being grouped
  let open = false
  const key = new Uint8Array(ACCOUNT_KEY_LENGTH)
  let address = new Uint8Array(0)
  let state: AccountState = { nonce: 0n, balance: 0n }
  let code: Uint8Array = new Uint8Array(0)
  let marker = false
  let cells = 0
  let byteCells: RawEntry[] = []
  const flush = (): void => {
    if (!open) return
    open = false
    if (marker && cells === 0 && byteCells.length === 0) raw.push([storagePrefixKey(address), STORAGE_MARKER_VALUE])
    if (!first) out.char(COMMA)
    first = false
    out.quotedHex(address).char(COLON)
    out.text(`{"nonce":${state.nonce.toString()},"balance":"0x${state.balance.toString(16)}","code":`)
    out.quotedHex(code).text(',"storage":{').append(cellsOut).text('}}')
    if (byteCells.length > 0) rest.byteCells.push({ address, cells: byteCells })
    if (tally !== undefined) {
      tally.accounts++
      tally.cells += cells
    }
  }
  for (const e of unitrieEntryViews(trie.root)) {
    const k = e.key
    const kl = e.keyLength
    const v = e.value
    const vs = e.valueStart
    const ve = e.valueEnd
    if (kl === ACCOUNT_KEY_LENGTH && k[0] === 0) {
      flush()
      yield
      address = k.slice(ACCOUNT_KEY_LENGTH - 20, ACCOUNT_KEY_LENGTH)
      let decoded: AccountState | undefined
      try {
        decoded = decodeAccountState(v.subarray(vs, ve))
      } catch {
        decoded = undefined
      }
      if (decoded === undefined || !equalRange(k, 0, kl, accountKey(address))) {
        raw.push([k.slice(0, kl), v.slice(vs, ve)])
        continue
      }
      state = decoded
      // hibernation flags and other encodings are kept as the raw entry (it overrides the rebuilt one)
      if (!equalRange(v, vs, ve, encodeAccountState({ nonce: state.nonce, balance: state.balance })))
        raw.push([k.slice(0, kl), v.slice(vs, ve)])
      key.set(k.subarray(0, ACCOUNT_KEY_LENGTH))
      open = true
      code = new Uint8Array(0)
      marker = false
      cells = 0
      byteCells = []
      cellsOut.clear()
      continue
    }
    if (!open || kl < ACCOUNT_KEY_LENGTH || !equalRange(k, 0, ACCOUNT_KEY_LENGTH, key)) {
      raw.push([k.slice(0, kl), v.slice(vs, ve)])
      continue
    }
    const kind = k[ACCOUNT_KEY_LENGTH]
    if (kl === ACCOUNT_KEY_LENGTH + 1 && kind === CODE_PREFIX) {
      code = v.slice(vs, ve)
    } else if (kl === ACCOUNT_KEY_LENGTH + 1 && kind === STORAGE_PREFIX) {
      if (equalRange(v, vs, ve, STORAGE_MARKER_VALUE)) marker = true
      else raw.push([k.slice(0, kl), v.slice(vs, ve)])
    } else if (kl >= ACCOUNT_KEY_LENGTH + 12 && kl <= ACCOUNT_KEY_LENGTH + 43 && kind === STORAGE_PREFIX) {
      // (the key's hashed part is not re-derived here: one Keccak per cell was most of a dump's time, and the
      // state manager only writes keys as storageKey makes them; a file whose keys differ fails the root check
      // when it is loaded, never silently)
      if (ve > vs && ve - vs <= 32 && v[vs] !== 0) {
        // the slot: the key's tail, its leading zeros stripped (storageKey); the word: the value, likewise
        if (cells > 0) cellsOut.char(COMMA)
        cellsOut
          .quotedWord(k, ACCOUNT_KEY_LENGTH + 11, kl)
          .char(COLON)
          .quotedWord(v, vs, ve)
        cells++
      } else {
        byteCells.push([slotWord(k.slice(ACCOUNT_KEY_LENGTH + 11, kl)), v.slice(vs, ve)])
      }
    } else {
      raw.push([k.slice(0, kl), v.slice(vs, ve)])
    }
  }
  flush()
}
