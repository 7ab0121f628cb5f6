/**
 * Fork mode (docs/architecture.md#forking): how an address record of {@link UnitrieStateManager}
 * (src/state/unitrie-state-manager.ts) loads from the remote the fields the local trie neither holds nor marks
 * as local. Values loaded from the remote are remembered in the record's `remote*` fields, so a flush never
 * writes them back (reads and reverted work never change the root). Addresses that are not 20 bytes (raw keys)
 * are always local.
 */
import { keccak256 } from '../crypto/keccak.js'
import type { Unitrie } from '../unitrie/unitrie.js'
import { toKey } from '../util/bytes.js'
import type { Rec } from './address-record.js'
import { isLocal, remoteAccountExists, remoteHasStorageMarker } from './fork-overlay.js'
import type { ForkAccount, ForkStateSource } from './fork-source.js'

/**
 * Whether the record needs account fields (account, code, storage marker) from the remote: undefined when not
 * (not forked, already ready, or every unloaded field is local in `base`; the record is then marked ready), else
 * the remote account (or a promise of it) to hand to {@link loadRemoteAccount}.
 */
export function remoteAccountToLoad(
  fork: ForkStateSource | undefined,
  base: Unitrie,
  r: Rec,
): ForkAccount | Promise<ForkAccount> | undefined {
  if (fork === undefined || r.forkReady) return undefined
  const enclosing = [r.key]
  const need =
    r.address.length === 20 &&
    !r.accountWiped &&
    ((r.acct === undefined && !isLocal(base, r.key, enclosing)) ||
      (r.code === undefined && !isLocal(base, r.codeKey, enclosing)) ||
      (r.marker === undefined && !isLocal(base, r.storagePrefix, enclosing)))
  if (!need) {
    r.forkReady = true
    return undefined
  }
  return fork.account(r.address)
}

/**
 * Sets the record's unloaded, non-local (in `base`) fields from the remote account (as loads: nothing becomes dirty).
 */
export function loadRemoteAccount(base: Unitrie, r: Rec, a: ForkAccount): void {
  const enclosing = [r.key]
  if (!r.accountWiped) {
    if (r.acct === undefined && !isLocal(base, r.key, enclosing)) {
      r.acct = r.remoteAcct = remoteAccountExists(r.address, a)
        ? { nonce: a.nonce, balance: a.balance, flags: 0 }
        : null
    }
    if (r.code === undefined && !isLocal(base, r.codeKey, enclosing)) {
      r.code = r.remoteCode = a.code.length > 0 ? { code: a.code, node: undefined, hash: keccak256(a.code) } : null
    }
    if (r.marker === undefined && !isLocal(base, r.storagePrefix, enclosing)) {
      r.marker = r.remoteMarker = remoteHasStorageMarker(r.address, a)
    }
  }
  r.forkReady = true
}

/**
 * Loads storage cell `key` (32-byte slot) into the record from the remote when the record has not loaded it and
 * `base` does not hold it (nor marks it as local, nor wiped it).
 * @returns whether a cell was added to the record's cache (or a promise of it, to await before reading)
 */
export function prepareCell(fork: ForkStateSource, base: Unitrie, r: Rec, key: Uint8Array): Promise<boolean> | boolean {
  if (r.storageWiped || r.address.length !== 20) return false
  const hex = toKey(key)
  if (r.storage.has(hex) || isLocal(base, r.storageKey(key), [r.key, r.storagePrefix])) return false
  const load = (v: Uint8Array): boolean => {
    if (r.storage.has(hex) || r.storageWiped) return false
    r.storage.set(hex, v)
    ;(r.remoteCells ??= new Map()).set(hex, v)
    return true
  }
  const got = fork.storage(r.address, key)
  if (got instanceof Promise) return got.then(load)
  return load(got)
}
