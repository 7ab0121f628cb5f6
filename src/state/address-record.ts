/**
 * The per-address record of {@link UnitrieStateManager} (src/state/unitrie-state-manager.ts): the decoded account,
 * code, storage marker and storage cells of one address as the current view sees them, what of it is dirty (to be
 * written at the next flush), what came from the remote in fork mode, and the Unitrie keys of the address.
 *
 * Layout (src/rsk/trie-keys.ts, rskj TrieKeyMapper / MutableRepository):
 *   accountKey(addr)            → RLP[nonce, balance]   (AccountState.getEncoded)
 *   accountKey(addr) ‖ 0x80     → code                  (absent when the account has no code)
 *   accountKey(addr) ‖ 0x00     → 0x01                  (storage marker, "isContract")
 *   storageKey(addr, slot)      → value without leading zeros (absent when zero)
 */
import { keccak256 } from '../crypto/keccak.js'
import { decodeAccountState } from '../rsk/trie-keys.js'
import type { TrieNode, Unitrie } from '../unitrie/unitrie.js'

/** Strip leading zero bytes; an all-zero or empty input gives an empty array. */
export function unpad(v: Uint8Array): Uint8Array {
  let i = 0
  while (i < v.length && v[i] === 0) i++
  return i === 0 ? v.slice() : v.slice(i)
}

export const EMPTY = new Uint8Array(0)
export const MARKER_VALUE = Uint8Array.of(0x01)
export const SECURE_KEY_SIZE = 10

function appendByte(prefix: Uint8Array, b: number): Uint8Array {
  const k = new Uint8Array(prefix.length + 1)
  k.set(prefix)
  k[prefix.length] = b
  return k
}

/** Decoded account value (immutable: replaced, never mutated). */
export interface AcctVal {
  readonly nonce: bigint
  readonly balance: bigint
  /** AccountState hibernation flags (always 0 in practice); preserved on writes. */
  readonly flags: number
}

/** Code of an account (immutable). `code` is loaded lazily from `node` for store-backed tries. */
export interface CodeVal {
  code: Uint8Array | undefined
  readonly node: TrieNode | undefined
  readonly hash: Uint8Array
}

export const DIRTY_ACCT = 1
export const DIRTY_CODE = 2
export const DIRTY_MARKER = 4

/**
 * Current view of one address. A field that is `undefined` has not been loaded: its value is the
 * one in `base` (unless `storageWiped` says the base storage is logically gone).
 */
export class Rec {
  /** 31-byte account key. */
  readonly key: Uint8Array
  private _storagePrefix: Uint8Array | undefined
  private _codeKey: Uint8Array | undefined
  /** undefined: not loaded; null: no account. */
  acct: AcctVal | null | undefined = undefined
  /** undefined: not loaded; null: no code. */
  code: CodeVal | null | undefined = undefined
  /** undefined: not loaded. */
  marker: boolean | undefined = undefined
  /** slot hex (64 chars) → stored value (no leading zeros; empty = zero). Loaded or written cells. */
  storage = new Map<string, Uint8Array>()
  /** The storage subtree of `base` is logically deleted (uncached cells read as zero). */
  storageWiped = false
  /** The whole account subtree of `base` is logically deleted (deleteRecursive pending). */
  accountWiped = false
  /** Bit set of DIRTY_* (conservative: never cleared by a revert, only by a flush). */
  dirty = 0
  /** Possibly-written slots since the last flush: slot hex → 32-byte slot. */
  dirtySlots: Map<string, Uint8Array> | undefined = undefined
  /** Already in the manager's dirty list. */
  listed = false
  /** Fork mode: the fields the local trie does not hold were loaded from the remote (reset by a revert). */
  forkReady = false
  /**
   * Fork mode: the values loaded from the remote (undefined: not from the remote). A field that still holds its
   * remote value (by identity: a revert restores the very object) is not written at a flush, so reads and
   * reverted work never change the root.
   */
  remoteAcct: AcctVal | null | undefined = undefined
  remoteCode: CodeVal | null | undefined = undefined
  remoteMarker: boolean | undefined = undefined
  remoteCells: Map<string, Uint8Array> | undefined = undefined

  /** Whether the account value is to be written at a flush (dirty, loaded, not the remote's own value). */
  get writesAcct(): boolean {
    return (this.dirty & DIRTY_ACCT) !== 0 && this.acct !== undefined && this.acct !== this.remoteAcct
  }

  /** As {@link writesAcct}, for the code. */
  get writesCode(): boolean {
    return (this.dirty & DIRTY_CODE) !== 0 && this.code !== undefined && this.code !== this.remoteCode
  }

  /** As {@link writesAcct}, for the storage marker. */
  get writesMarker(): boolean {
    return (this.dirty & DIRTY_MARKER) !== 0 && this.marker !== undefined && this.marker !== this.remoteMarker
  }

  /** The value of a possibly written cell that is to be written at a flush, or undefined. */
  cellToWrite(hex: string): Uint8Array | undefined {
    const v = this.storage.get(hex)
    return v !== undefined && this.remoteCells?.get(hex) !== v ? v : undefined
  }

  constructor(readonly address: Uint8Array) {
    // 31 bytes for a 20-byte address; the Remasc sender's key is built from the single byte 0x00 (12 bytes)
    const k = new Uint8Array(1 + SECURE_KEY_SIZE + address.length)
    k.set(keccak256(address).subarray(0, SECURE_KEY_SIZE), 1)
    k.set(address, 1 + SECURE_KEY_SIZE)
    this.key = k
  }

  get storagePrefix(): Uint8Array {
    return (this._storagePrefix ??= appendByte(this.key, 0x00))
  }

  get codeKey(): Uint8Array {
    return (this._codeKey ??= appendByte(this.key, 0x80))
  }

  /** storageKey(addr, slot) = prefix ‖ keccak(slot32)[0..10] ‖ slot32 without leading zeros (0 → 0x00). */
  storageKey(slot32: Uint8Array): Uint8Array {
    const prefix = this.storagePrefix
    let i = 0
    while (i < 31 && slot32[i] === 0) i++
    const k = new Uint8Array(prefix.length + SECURE_KEY_SIZE + (32 - i))
    k.set(prefix, 0)
    k.set(keccak256(slot32).subarray(0, SECURE_KEY_SIZE), prefix.length)
    k.set(slot32.subarray(i), prefix.length + SECURE_KEY_SIZE)
    return k
  }
}

/** The account of `r`, loaded from `base` (and cached in the record) when not loaded yet; null when none. */
export function loadAcct(base: Unitrie, r: Rec): AcctVal | null {
  let a = r.acct
  if (a === undefined) {
    const raw = base.get(r.key)
    if (raw === undefined) a = null
    else {
      const s = decodeAccountState(raw)
      a = { nonce: s.nonce, balance: s.balance, flags: s.stateFlags ?? 0 }
    }
    r.acct = a
  }
  return a
}

/** The code of `r`, loaded (lazily: only its node) from `base` when not loaded yet; null when none. */
export function loadCode(base: Unitrie, r: Rec): CodeVal | null {
  let c = r.code
  if (c === undefined) {
    const node = base.findNode(r.codeKey)
    c = node !== undefined && node.valueLength > 0 ? { code: undefined, node, hash: node.getValueHash()! } : null
    r.code = c
  }
  return c
}

/** Whether `r` has the storage marker, loaded from `base` when not loaded yet. */
export function loadMarker(base: Unitrie, r: Rec): boolean {
  let m = r.marker
  if (m === undefined) {
    m = base.getValueLength(r.storagePrefix) > 0
    r.marker = m
  }
  return m
}
