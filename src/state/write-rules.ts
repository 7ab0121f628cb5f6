/**
 * Which fields of an address record each state write sets, by the reference's rules
 * (docs/reference-rules.md#rule-unitrie-state-writes; rskj org/ethereum/db/MutableRepository.java). Each function
 * takes the record already prepared by {@link UnitrieStateManager} (src/state/unitrie-state-manager.ts; in fork
 * mode its remote fields loaded) and writes through the manager's {@link JournaledView}, so every write is undone
 * by a revert.
 */
import { keccak256 } from '../crypto/keccak.js'
import { loadAcct, loadCode, loadMarker, type Rec } from './address-record.js'
import type { JournaledView } from './journaled-view.js'

/**
 * Sets nonce and balance (wei) of the account of `r`; an undefined field keeps its value (0 for a missing
 * account, which is created). Nothing is written when both already hold these values.
 */
export function writeAccountFields(
  view: JournaledView,
  r: Rec,
  nonce: bigint | undefined,
  balance: bigint | undefined,
): void {
  const prev = loadAcct(view.base, r)
  const n = nonce ?? prev?.nonce ?? 0n
  const b = balance ?? prev?.balance ?? 0n
  if (prev !== null && prev.nonce === n && prev.balance === b) return
  view.setAcct(r, { nonce: n, balance: b, flags: prev?.flags ?? 0 })
}

/** rskj `delete` (SELFDESTRUCT, `deleteRecursive` of the account key): account, code, marker and every cell. */
export function deleteRecursive(view: JournaledView, r: Rec): void {
  if (loadAcct(view.base, r) === null && r.storageWiped && r.accountWiped) return
  view.wipe(r, true)
}

/** rskj `saveCode`: empty code deletes the code key; non-empty code creates a missing account, but no marker. */
export function saveCode(view: JournaledView, r: Rec, value: Uint8Array): void {
  if (value.length === 0) {
    if (loadCode(view.base, r) !== null) view.setCode(r, null)
    return
  }
  const code = value.slice()
  view.setCode(r, { code, node: undefined, hash: keccak256(code) })
  view.ensureAccount(r)
}

/**
 * rskj `addStorageBytes`: writes the stored bytes `v` into cell `key` (32-byte slot; empty `v` deletes the cell,
 * the marker stays); a missing account is created together with its storage marker.
 */
export function addStorageBytes(view: JournaledView, r: Rec, key: Uint8Array, v: Uint8Array): void {
  if (loadAcct(view.base, r) === null) {
    view.ensureAccount(r)
    view.setMarker(r, true)
  }
  view.setCell(r, key, v)
}

/**
 * Contract creation, rskj `createAccount` + `setupContract`: a missing account is created (an existing one keeps
 * its balance), every storage cell is deleted and the storage marker is set to `marker` (false only for a
 * creation transaction with empty data).
 */
export function createContract(view: JournaledView, r: Rec, marker: boolean): void {
  view.ensureAccount(r)
  view.wipe(r, false)
  r.marker = marker
}

/** rskj `setupContract`: writes the storage marker when missing (e.g. for a called precompile). */
export function setupContract(view: JournaledView, r: Rec): void {
  if (!loadMarker(view.base, r)) view.setMarker(r, true)
}
