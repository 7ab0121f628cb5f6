/**
 * The current view of a {@link UnitrieStateManager} (src/state/unitrie-state-manager.ts): the committed Unitrie
 * (`base`) plus a write-through record per touched address (src/state/address-record.ts), the journaled field
 * writes into those records, and the checkpoint levels over one flat undo log (src/state/undo-log.ts).
 *
 * Journaling: `checkpoint()` pushes the log length (O(1)), `commit()` pops it (O(1): the entries now belong to the
 * enclosing level), `revert()` replays the entries of the level backwards. `base` is only replaced when the
 * outermost level commits or reverts (or by a flush at depth 0): the dirty records are applied with path-copying
 * puts (src/state/record-flush.ts), so every root ever produced stays readable. {@link JournaledView.currentTrie}
 * inside a checkpoint computes the root of the uncommitted view on a copy, flushing nothing, so a later revert
 * stays exact.
 *
 * This class knows no reference rules: which fields a state-manager call writes is decided by the manager and
 * src/state/write-rules.ts.
 */
import type { Address } from '@ethereumjs/util'
import type { Unitrie } from '../unitrie/unitrie.js'
import { bytesEqual, toKey } from '../util/bytes.js'
import {
  DIRTY_ACCT,
  DIRTY_CODE,
  DIRTY_MARKER,
  EMPTY,
  loadAcct,
  Rec,
  type AcctVal,
  type CodeVal,
} from './address-record.js'
import { loadRemoteAccount, prepareCell, remoteAccountToLoad } from './fork-loads.js'
import { applyRecords } from './record-flush.js'
import { revertUndo, U_ACCT, U_CODE, U_MARKER, U_SLOT, U_WIPE, type RecSnapshot, type Undo } from './undo-log.js'
import type { UnitrieStateDB } from './unitrie-state-db.js'

/** Committed trie, address records and undo journal of one state manager (see the module documentation). */
export class JournaledView {
  private _base: Unitrie
  private readonly recs = new Map<string, Rec>()
  private dirtyRecs: Rec[] = []
  private readonly undo: Undo[] = []
  private readonly levels: number[] = []
  private cachedSlots = 0
  /** Bumped on every change of the current view (memoizes {@link currentTrie} inside checkpoints). */
  private version = 0
  private viewMemo: { version: number; trie: Unitrie } | undefined

  /**
   * @param committedTrie the initial committed trie
   * @param db the manager's root registry (its `fork` decides whether fork-mode loads and local marks happen)
   * @param maxCachedAccounts address records kept after a flush before the cache is dropped
   * @param maxCachedSlots storage cells kept after a flush before the cache is dropped
   */
  constructor(
    committedTrie: Unitrie,
    private readonly db: UnitrieStateDB,
    readonly maxCachedAccounts: number,
    readonly maxCachedSlots: number,
  ) {
    this._base = committedTrie
  }

  /**
   * The committed trie (all levels ≤ 0 flushed into it, direct depth-0 writes possibly not yet): what records load
   * their unloaded fields from.
   */
  get base(): Unitrie {
    return this._base
  }

  /** Current checkpoint depth (0 = nothing uncommitted except direct writes). */
  get depth(): number {
    return this.levels.length
  }

  /** The record of `address` (an address or raw key bytes such as the Remasc sender's), created when missing. */
  rec(address: Address | Uint8Array): Rec {
    const bytes = address instanceof Uint8Array ? address : address.bytes
    const k = toKey(bytes)
    let r = this.recs.get(k)
    if (r === undefined) {
      r = new Rec(bytes.slice())
      this.recs.set(k, r)
    }
    return r
  }

  // -------------------------------------------------------------------------------------------
  // Journaled writes: each records an undo entry (only inside a checkpoint) and marks the record dirty
  // -------------------------------------------------------------------------------------------

  private touch(r: Rec, kind: number, slot: string | undefined, prev: unknown, dirtyBits: number): void {
    if (this.levels.length > 0) this.undo.push({ rec: r, kind, slot, prev })
    r.dirty |= dirtyBits
    if (!r.listed) {
      r.listed = true
      this.dirtyRecs.push(r)
    }
    this.version++
  }

  /** Sets the account value of `r` (null: no account). */
  setAcct(r: Rec, v: AcctVal | null): void {
    const prev = r.acct
    this.touch(r, U_ACCT, undefined, prev, DIRTY_ACCT)
    r.acct = v
  }

  /** Sets the code of `r` (null: no code). */
  setCode(r: Rec, v: CodeVal | null): void {
    const prev = r.code
    this.touch(r, U_CODE, undefined, prev, DIRTY_CODE)
    r.code = v
  }

  /** Sets or removes the storage marker of `r`. */
  setMarker(r: Rec, v: boolean): void {
    const prev = r.marker
    this.touch(r, U_MARKER, undefined, prev, DIRTY_MARKER)
    r.marker = v
  }

  /**
   * Deletes every storage cell of `r` (`deleteRecursive` of its storage subtree at the flush); with `whole`
   * also the account, its code and its marker (of the whole account subtree). Without `whole` the marker is
   * marked dirty, for the caller to set.
   */
  wipe(r: Rec, whole: boolean): void {
    const snap: RecSnapshot = {
      acct: r.acct,
      code: r.code,
      marker: r.marker,
      storage: r.storage,
      storageWiped: r.storageWiped,
      accountWiped: r.accountWiped,
    }
    this.touch(r, U_WIPE, undefined, snap, whole ? DIRTY_ACCT | DIRTY_CODE | DIRTY_MARKER : DIRTY_MARKER)
    r.storage = new Map()
    r.storageWiped = true
    if (whole) {
      r.accountWiped = true
      r.acct = null
      r.code = null
      r.marker = false
    }
  }

  /** The account of `r`, created empty (nonce 0, balance 0 wei) when missing. */
  ensureAccount(r: Rec): AcctVal {
    const a = loadAcct(this.base, r)
    if (a !== null) return a
    const fresh: AcctVal = { nonce: 0n, balance: 0n, flags: 0 }
    this.setAcct(r, fresh)
    return fresh
  }

  /**
   * Sets storage cell `key` (32-byte slot) of `r` to the stored bytes `v` (empty: delete the cell); nothing
   * happens when the cached value is already `v`.
   */
  setCell(r: Rec, key: Uint8Array, v: Uint8Array): void {
    const hex = toKey(key)
    const prev = r.storage.get(hex)
    if (prev !== undefined && bytesEqual(prev, v)) return
    this.touch(r, U_SLOT, hex, prev, 0)
    if (prev === undefined) this.cachedSlots++
    r.storage.set(hex, v)
    let ds = r.dirtySlots
    if (ds === undefined) ds = r.dirtySlots = new Map()
    if (!ds.has(hex)) ds.set(hex, key.slice())
  }

  /** The stored bytes of storage cell `key` (32-byte slot) of `r`, empty when unset; cached in the record. */
  cell(r: Rec, key: Uint8Array): Uint8Array {
    const hex = toKey(key)
    let v = r.storage.get(hex)
    if (v !== undefined) return v
    if (r.storageWiped) v = EMPTY
    else v = this.base.get(r.storageKey(key)) ?? EMPTY
    r.storage.set(hex, v)
    this.cachedSlots++
    return v
  }

  // -------------------------------------------------------------------------------------------
  // Fork mode (docs/architecture.md#forking)
  // -------------------------------------------------------------------------------------------

  /**
   * Loads into `r` the account fields (account, code, storage marker) that it has not loaded and that `base` does
   * not hold, from the remote (src/state/fork-loads.ts). Undefined when nothing is to fetch or the value was at
   * hand; else a promise to await before the synchronous loads. Call only in fork mode.
   */
  prepareAccount(r: Rec): Promise<void> | undefined {
    const got = remoteAccountToLoad(this.db.fork, this.base, r)
    if (got === undefined) return undefined
    if (got instanceof Promise) return got.then((a) => loadRemoteAccount(this.base, r, a))
    loadRemoteAccount(this.base, r, got)
    return undefined
  }

  /** Loads storage cell `key` (32-byte slot) of `r` from the remote when needed. Call only in fork mode. */
  async prepareCell(r: Rec, key: Uint8Array): Promise<void> {
    if (await prepareCell(this.db.fork!, this.base, r, key)) this.cachedSlots++
  }

  // -------------------------------------------------------------------------------------------
  // Checkpoints
  // -------------------------------------------------------------------------------------------

  /** Opens a level. At depth 0 `base` first becomes the committed state, so shallow copies taken inside see it. */
  checkpoint(): void {
    if (this.levels.length === 0 && this.dirtyRecs.length > 0) this.flush()
    this.levels.push(this.undo.length)
  }

  /**
   * Closes the innermost level keeping its writes; at depth 0 they are flushed into `base`.
   * @returns whether depth 0 was reached
   * @throws without an open level
   */
  commit(): boolean {
    if (this.levels.length === 0) throw new Error('commit() without checkpoint')
    this.levels.pop()
    if (this.levels.length > 0) return false
    this.undo.length = 0
    this.flush()
    return true
  }

  /**
   * Closes the innermost level undoing its writes; at depth 0 the rest is flushed (which also trims the read
   * cache: read-only work such as eth_call and estimates ends here, never in a commit).
   * @returns whether depth 0 was reached
   * @throws without an open level
   */
  revert(): boolean {
    const start = this.levels.pop()
    if (start === undefined) throw new Error('revert() without checkpoint')
    revertUndo(this.undo, start)
    this.version++
    if (this.levels.length > 0) return false
    if (this.db.fork === undefined) this.unlistReverted()
    this.flush()
    return true
  }

  /**
   * After a revert to depth 0: every listed record was written only inside the level just reverted (a
   * checkpoint at depth 0 flushes first) and holds its values from before that level again, so writing it into
   * `base` would leave the same trie. They are unlisted instead: a read-only execution (eth_call,
   * eth_estimateGas) that wrote its caller's nonce no longer re-writes that account into the trie when it
   * ends (3 µs of a ~70 µs eth_call, measured). Not in fork mode, where a flush also marks written keys local.
   */
  private unlistReverted(): void {
    const dirty = this.dirtyRecs
    if (dirty.length === 0) return
    for (const r of dirty) {
      r.dirty = 0
      r.dirtySlots = undefined
      r.listed = false
    }
    this.dirtyRecs = []
  }

  // -------------------------------------------------------------------------------------------
  // Tries
  // -------------------------------------------------------------------------------------------

  /** Apply the dirty records to `t` (persistent: `t` itself is unchanged). */
  private applyDirty(t: Unitrie, reset: boolean): Unitrie {
    t = applyRecords(t, this.dirtyRecs, this.db.fork !== undefined, reset)
    if (reset) this.dirtyRecs = []
    return t
  }

  /** Writes the dirty records into `base` (call only at depth 0) and drops the caches past their limits. */
  flush(): void {
    if (this.dirtyRecs.length > 0) this._base = this.applyDirty(this._base, true)
    if (this.recs.size > this.maxCachedAccounts || this.cachedSlots > this.maxCachedSlots) this.dropCaches()
  }

  /** The committed trie; at depth 0 direct writes are flushed into it first. */
  committed(): Unitrie {
    if (this.levels.length === 0) this.flush()
    return this.base
  }

  /** The trie of the current view (committed + uncommitted), flushing only at depth 0. */
  currentTrie(): Unitrie {
    if (this.dirtyRecs.length === 0) return this.base
    if (this.levels.length === 0) {
      this.flush()
      return this.base
    }
    if (this.viewMemo?.version !== this.version)
      this.viewMemo = { version: this.version, trie: this.applyDirty(this.base, false) }
    return this.viewMemo.trie
  }

  /** Positions the view at `t` (call only at depth 0, after a flush): every record is dropped. */
  reset(t: Unitrie): void {
    this._base = t
    this.dropCaches()
    this.viewMemo = undefined
    this.version++
  }

  /** Drops every cached record (call only at depth 0, after a flush: nothing is dirty). */
  dropCaches(): void {
    this.recs.clear()
    this.cachedSlots = 0
  }
}
