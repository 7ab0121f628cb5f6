/**
 * The undo log of {@link UnitrieStateManager} (src/state/unitrie-state-manager.ts): one flat list of entries, each
 * restoring one field of an address record. `checkpoint()` pushes the log length (O(1)), `commit()` pops it (O(1):
 * the entries now belong to the enclosing level), `revert()` replays the entries of the level backwards
 * ({@link revertUndo}).
 */
import type { AcctVal, CodeVal, Rec } from './address-record.js'

/** Snapshot of a record taken before a wipe (deleteAccount / clearStorage). */
export interface RecSnapshot {
  acct: AcctVal | null | undefined
  code: CodeVal | null | undefined
  marker: boolean | undefined
  storage: Map<string, Uint8Array>
  storageWiped: boolean
  accountWiped: boolean
}

export const U_ACCT = 0
export const U_CODE = 1
export const U_MARKER = 2
export const U_SLOT = 3
export const U_WIPE = 4

/** One undo entry: restores `prev` into field `kind` of `rec` (slot entries carry the slot hex). */
export interface Undo {
  rec: Rec
  kind: number
  slot: string | undefined
  prev: unknown
}

/**
 * Replays the entries of `undo` from the last down to index `start` (the length the log had when the level being
 * reverted was opened), restoring each record field they changed, and truncates the log to `start`. Every record
 * touched loses its fork-mode readiness (`forkReady`), as a restored field may be unloaded again.
 */
export function revertUndo(undo: Undo[], start: number): void {
  for (let i = undo.length - 1; i >= start; i--) {
    const u = undo[i]!
    const r = u.rec
    r.forkReady = false
    switch (u.kind) {
      case U_ACCT:
        r.acct = u.prev as AcctVal | null | undefined
        break
      case U_CODE:
        r.code = u.prev as CodeVal | null | undefined
        break
      case U_MARKER:
        r.marker = u.prev as boolean | undefined
        break
      case U_SLOT:
        if (u.prev === undefined) r.storage.delete(u.slot!)
        else r.storage.set(u.slot!, u.prev as Uint8Array)
        break
      case U_WIPE: {
        const s = u.prev as RecSnapshot
        r.acct = s.acct
        r.code = s.code
        r.marker = s.marker
        r.storage = s.storage
        r.storageWiped = s.storageWiped
        r.accountWiped = s.accountWiped
        break
      }
    }
  }
  undo.length = start
}
