/**
 * How the dirty address records of {@link UnitrieStateManager} (src/state/unitrie-state-manager.ts) are written
 * into a Unitrie at a flush (or applied to a copy for the root of an uncommitted view): wipes first
 * (`deleteRecursive` of the account or of its storage), then in fork mode the local marks, then the account, code,
 * storage marker and every possibly written cell. Writes are path-copying puts, so the input trie is unchanged.
 */
import { encodeAccountState } from '../rsk/trie-keys.js'
import type { Unitrie } from '../unitrie/unitrie.js'
import { MARKER_VALUE, type Rec } from './address-record.js'
import { markLocal } from './fork-overlay.js'

/**
 * Applies `recs` to `t` and returns the new trie (`t` itself is unchanged).
 * @param forked fork mode: also write the local marks of every written or wiped key (see markWrites)
 * @param reset clear each record's dirty state (a flush); false to only compute the current view
 */
export function applyRecords(t: Unitrie, recs: readonly Rec[], forked: boolean, reset: boolean): Unitrie {
  for (const r of recs) {
    if (r.accountWiped) t = wipeSubtree(t, r.key)
    else if (r.storageWiped) t = wipeSubtree(t, r.storagePrefix)
    if (forked) t = markWrites(t, r)
    if (r.writesAcct) {
      t =
        r.acct === null
          ? t.delete(r.key)
          : t.put(
              r.key,
              encodeAccountState({ nonce: r.acct!.nonce, balance: r.acct!.balance, stateFlags: r.acct!.flags }),
            )
    }
    if (r.writesCode) {
      if (r.code === null) t = t.delete(r.codeKey)
      else if (r.code!.code !== undefined) t = t.put(r.codeKey, r.code!.code)
    }
    if (r.writesMarker) t = r.marker ? t.put(r.storagePrefix, MARKER_VALUE) : t.delete(r.storagePrefix)
    if (r.dirtySlots !== undefined) {
      for (const [hex, slot] of r.dirtySlots) {
        const v = r.cellToWrite(hex)
        if (v !== undefined) t = t.put(r.storageKey(slot), v)
      }
    }
    if (reset) {
      r.accountWiped = false
      r.storageWiped = false
      r.dirty = 0
      r.dirtySlots = undefined
      r.listed = false
    }
  }
  return t
}

/**
 * Fork mode: marks as local every key the record is about to write or wipe (docs/architecture.md#forking), so
 * later reads of this state never fall through to the remote for them, even once deleted.
 */
function markWrites(t: Unitrie, r: Rec): Unitrie {
  if (r.address.length !== 20) return t
  if (r.accountWiped) t = markLocal(t, r.key, true)
  else if (r.storageWiped) t = markLocal(t, r.storagePrefix, true)
  if (r.writesAcct) t = markLocal(t, r.key, false)
  if (r.writesCode) t = markLocal(t, r.codeKey, false)
  if (r.writesMarker) t = markLocal(t, r.storagePrefix, false)
  if (r.dirtySlots !== undefined) {
    for (const [hex, slot] of r.dirtySlots)
      if (r.cellToWrite(hex) !== undefined) t = markLocal(t, r.storageKey(slot), false)
  }
  return t
}

/**
 * Delete the node at `key` with its whole subtree (Trie.deleteRecursive). The reference does
 * nothing when no value ends exactly at `key`; a subtree without its head value cannot be produced
 * by this manager's writes, but it is still removed key by key for robustness.
 */
function wipeSubtree(t: Unitrie, key: Uint8Array): Unitrie {
  if (t.getValueLength(key) > 0) return t.deleteRecursive(key)
  const keys = [...t.keys(key)]
  for (const k of keys) t = t.delete(k)
  return t
}
