/**
 * An @ethereumjs `StateManagerInterface` that keeps the world state in the reference node's layout:
 * one RSK Unitrie (RSKIP107) holding accounts, code and storage, so the root it reports is the
 * reference `stateRoot`.
 *
 * Layout: see src/state/address-record.ts (account, code, storage marker and storage keys of one address).
 *
 * Reference rules implemented here (rskj master, org/ethereum/db/MutableRepository.java,
 * org/ethereum/core/TransactionExecutor.java, org/ethereum/vm/program/Program.java):
 * - The storage marker is written by `setupContract` when a contract is created (CREATE, CREATE2 and
 *   creation transactions with init code), together with a fresh account (`createAccount`, keeping
 *   the balance of an existing one). @ethereumjs calls `clearStorage(address)` at exactly that point
 *   of contract creation, so {@link UnitrieStateManager.clearStorage} wipes the storage subtree AND
 *   writes the marker. Calls to precompiles also run `setupContract` on the precompile (all regtest
 *   precompiles already carry one from genesis); expose it through {@link UnitrieStateManager.setupContract}.
 * - Storing zero deletes the cell; the marker stays (it is only removed together with the account).
 * - Writing a storage cell of a non-existent account creates the account and its marker
 *   (`addStorageBytes`).
 * - `saveCode` writes the code key (empty code deletes it) and creates the account when the code is
 *   non-empty and the account is missing; it does not write the marker.
 * - `delete` (SELFDESTRUCT) is `deleteRecursive(accountKey)`: account, code, marker and every cell.
 * - Code hashes are not stored in the account RLP; EXTCODEHASH is keccak(code) (the Unitrie keeps
 *   keccak(value) of long values in the node, so it is cheap), KECCAK256_NULL without code.
 *
 * Journaling: a write-through record per touched address (decoded account, code, marker, storage
 * cells) plus one flat undo log; `checkpoint()` pushes the log length (O(1)), `commit()` pops it
 * (O(1): the entries now belong to the enclosing level), `revert()` replays the entries of the level
 * backwards. The persistent Unitrie (`base`) is only touched when the outermost level commits (or by
 * `getStateRoot()` at depth 0): the dirty records are applied with path-copying puts, so every root
 * ever produced stays readable and `setStateRoot` to an older root is O(1).
 *
 * The parts live beside this file: the per-address record (address-record.ts), the undo log (undo-log.ts),
 * writing dirty records into a trie (record-flush.ts), the shared root registry (unitrie-state-db.ts), fork-mode
 * loads from the remote (fork-loads.ts, fork-overlay.ts), storage dumps (storage-dump.ts) and genesis loading
 * (canonical-genesis.ts). This file keeps the manager itself, whose per-access methods stay on one class.
 *
 * `getStateRoot()` inside a checkpoint returns the root of the current (uncommitted) state WITHOUT
 * flushing anything, so a later `revert()` is exact (no @ethereumjs "pitfall 1").
 *
 * For reference-exact roots the VM must also follow the reference's account rules (no EIP-161
 * clearing, no marker for creation transactions with empty data): see `applyReferenceStateRules` in
 * src/execution/ethereumjs/account-rules.ts.
 *
 * Not safe for concurrent use (same as every @ethereumjs state manager).
 */
import type { AccountFields, Common, StateManagerInterface, StorageDump, StorageRange } from '@ethereumjs/common'
import { OriginalStorageCache } from '@ethereumjs/statemanager'
import { Account, Address, KECCAK256_NULL, KECCAK256_RLP } from '@ethereumjs/util'
import { keccak256 } from '../crypto/keccak.js'
import { genesisStateTrie, type GenesisAlloc, type RskNetworkId } from '../rsk/genesis-state.js'
import { Unitrie, type TrieNodeStore } from '../rsk/unitrie.js'
import { bytesEqual, toKey } from '../util/bytes.js'
import {
  DIRTY_ACCT,
  DIRTY_CODE,
  DIRTY_MARKER,
  EMPTY,
  loadAcct,
  loadCode,
  loadMarker,
  Rec,
  unpad,
  type AcctVal,
  type CodeVal,
} from './address-record.js'
import { putCanonicalGenesis } from './canonical-genesis.js'
import { loadRemoteAccount, prepareCell, remoteAccountToLoad } from './fork-loads.js'
import type { ForkStateSource } from './fork-source.js'
import { applyRecords } from './record-flush.js'
import { dumpRecordStorage, storageRangeOf } from './storage-dump.js'
import { revertUndo, U_ACCT, U_CODE, U_MARKER, U_SLOT, U_WIPE, type RecSnapshot, type Undo } from './undo-log.js'
import { UnitrieStateDB } from './unitrie-state-db.js'

export { UnitrieStateDB } from './unitrie-state-db.js'

// ---------------------------------------------------------------------------------------------
// The state manager
// ---------------------------------------------------------------------------------------------

/** Options for {@link UnitrieStateManager}. */
export interface UnitrieStateManagerOpts {
  /** Initial committed state (default: the empty trie). */
  trie?: Unitrie
  /** Node store for persisting (see {@link UnitrieStateManager.save}) and loading roots. Ignored when `db` is given. */
  store?: TrieNodeStore
  /** Share the root registry of another manager (used by shallowCopy). */
  db?: UnitrieStateDB
  /** Fork mode: the remote state under the local one (docs/architecture.md#forking). Ignored when `db` is given. */
  fork?: ForkStateSource
  /** Kept for API parity with MerkleStateManager (not needed for execution). */
  common?: Common
  /** Cached address records kept after a flush before the cache is dropped (default 50 000). */
  maxCachedAccounts?: number
  /** Cached storage cells kept after a flush before the cache is dropped (default 10 000). */
  maxCachedSlots?: number
}

/**
 * A state manager over the RSK Unitrie (see the module documentation for layout and rules).
 *
 * Besides the {@link StateManagerInterface} it offers {@link fromGenesis}, {@link setupContract},
 * {@link hasStorageMarker}, {@link getTrie}, {@link save} and {@link dumpStorage} with real slot keys.
 */
export class UnitrieStateManager implements StateManagerInterface {
  readonly originalStorageCache: OriginalStorageCache
  readonly db: UnitrieStateDB
  readonly common: Common | undefined

  /** Committed trie (all levels ≤ 0 flushed into it). */
  private base: Unitrie
  private readonly recs = new Map<string, Rec>()
  private dirtyRecs: Rec[] = []
  private readonly undo: Undo[] = []
  private readonly levels: number[] = []
  private cachedSlots = 0
  private readonly maxCachedAccounts: number
  private readonly maxCachedSlots: number
  /**
   * Whether the next {@link clearStorage} (contract creation) writes the storage marker; reset to
   * true by it. Set by `applyReferenceStateRules` (src/execution/ethereumjs/account-rules.ts) for creation
   * transactions with empty data.
   */
  markerOnNextCreate = true
  /** Bumped on every change of the current view (memoizes getStateRoot inside checkpoints). */
  private version = 0
  private viewMemo: { version: number; trie: Unitrie } | undefined

  constructor(opts: UnitrieStateManagerOpts = {}) {
    this.db = opts.db ?? new UnitrieStateDB(opts.store, opts.fork)
    this.common = opts.common
    this.base = opts.trie ?? Unitrie.empty(this.db.store)
    this.db.register(this.base)
    this.maxCachedAccounts = opts.maxCachedAccounts ?? 50_000
    this.maxCachedSlots = opts.maxCachedSlots ?? 10_000
    this.originalStorageCache = new OriginalStorageCache(this.getStorage.bind(this))
  }

  /**
   * A manager positioned at the network's genesis state (genesisStateTrie: alloc accounts plus, on
   * regtest/devnet, the precompile accounts with storage markers).
   * @param alloc address → balance (wei) or full entry
   * @param network 30..33 (33 = regtest: root 0x9c13f6bf…723f for rsk-dev.json)
   */
  static fromGenesis(alloc: GenesisAlloc, network: RskNetworkId, opts: Omit<UnitrieStateManagerOpts, 'trie'> = {}) {
    return new UnitrieStateManager({ ...opts, trie: genesisStateTrie(alloc, network) })
  }

  /** Current checkpoint depth (0 = nothing uncommitted except direct writes). */
  get checkpointDepth(): number {
    return this.levels.length
  }

  // -------------------------------------------------------------------------------------------
  // Records
  // -------------------------------------------------------------------------------------------

  private rec(address: Address | Uint8Array): Rec {
    const bytes = address instanceof Uint8Array ? address : address.bytes
    const k = toKey(bytes)
    let r = this.recs.get(k)
    if (r === undefined) {
      r = new Rec(bytes.slice())
      this.recs.set(k, r)
    }
    return r
  }

  /** Record an undo entry (only inside a checkpoint) and mark the record dirty. */
  private touch(r: Rec, kind: number, slot: string | undefined, prev: unknown, dirtyBits: number): void {
    if (this.levels.length > 0) this.undo.push({ rec: r, kind, slot, prev })
    r.dirty |= dirtyBits
    if (!r.listed) {
      r.listed = true
      this.dirtyRecs.push(r)
    }
    this.version++
  }

  private setAcct(r: Rec, v: AcctVal | null): void {
    const prev = r.acct
    this.touch(r, U_ACCT, undefined, prev, DIRTY_ACCT)
    r.acct = v
  }

  private setCode(r: Rec, v: CodeVal | null): void {
    const prev = r.code
    this.touch(r, U_CODE, undefined, prev, DIRTY_CODE)
    r.code = v
  }

  private setMarker(r: Rec, v: boolean): void {
    const prev = r.marker
    this.touch(r, U_MARKER, undefined, prev, DIRTY_MARKER)
    r.marker = v
  }

  private wipe(r: Rec, whole: boolean): void {
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

  private ensureAccount(r: Rec): AcctVal {
    const a = loadAcct(this.base, r)
    if (a !== null) return a
    const fresh: AcctVal = { nonce: 0n, balance: 0n, flags: 0 }
    this.setAcct(r, fresh)
    return fresh
  }

  // -------------------------------------------------------------------------------------------
  // Fork mode (docs/architecture.md#forking)
  // -------------------------------------------------------------------------------------------

  /**
   * Fork mode: loads into the record the account fields (account, code, storage marker) that it has not loaded
   * and that the local trie does not hold, from the remote (src/state/fork-loads.ts). Undefined when nothing is to
   * fetch or the value was at hand; else a promise to await before the synchronous loads.
   */
  private prepareAccount(r: Rec): Promise<void> | undefined {
    const got = remoteAccountToLoad(this.db.fork, this.base, r)
    if (got === undefined) return undefined
    if (got instanceof Promise) return got.then((a) => loadRemoteAccount(this.base, r, a))
    loadRemoteAccount(this.base, r, got)
    return undefined
  }

  // -------------------------------------------------------------------------------------------
  // Accounts
  // -------------------------------------------------------------------------------------------

  /** The account at `address`, or undefined when it does not exist. codeHash = keccak(code). */
  async getAccount(address: Address): Promise<Account | undefined> {
    const r = this.rec(address)
    if (this.db.fork !== undefined) await this.prepareAccount(r)
    const a = loadAcct(this.base, r)
    if (this.senderCodeMask !== undefined && this.senderCodeMask === address.toString()) {
      this.senderCodeMask = undefined
      return a === null ? undefined : new Account(a.nonce, a.balance, KECCAK256_RLP, KECCAK256_NULL)
    }
    if (a === null) return undefined
    const c = loadCode(this.base, r)
    return new Account(a.nonce, a.balance, KECCAK256_RLP, c === null ? KECCAK256_NULL : c.hash)
  }

  /** See {@link maskSenderCodeOnce}. */
  private senderCodeMask: string | undefined

  /**
   * Makes the next getAccount of `address` (whether the account exists or not) report no code. Used to run a
   * transaction whose sender has code (src/execution/ethereumjs/sender-code.ts). putAccount ignores codeHash,
   * so the code itself is untouched.
   */
  maskSenderCodeOnce(address: Address): void {
    this.senderCodeMask = address.toString()
  }

  /**
   * Drops a mask {@link maskSenderCodeOnce} left unused (call after the transaction ran or failed).
   * @returns whether a mask was still pending (no getAccount of its address happened)
   */
  clearSenderCodeMask(): boolean {
    const pending = this.senderCodeMask !== undefined
    this.senderCodeMask = undefined
    return pending
  }

  /**
   * Store nonce and balance of `account` (its codeHash/storageRoot are ignored: code is set with
   * putCode). `undefined` deletes the account with its code and storage, like deleteAccount.
   */
  async putAccount(address: Address, account?: Account): Promise<void> {
    if (account === undefined) return this.deleteAccount(address)
    const r = this.rec(address)
    if (this.db.fork !== undefined) await this.prepareAccount(r)
    const prev = loadAcct(this.base, r)
    const nonce = account.nonce
    const balance = account.balance
    if (prev !== null && prev.nonce === nonce && prev.balance === balance) return
    this.setAcct(r, { nonce, balance, flags: prev?.flags ?? 0 })
  }

  /** SELFDESTRUCT semantics (rskj Repository.delete = deleteRecursive): account, code, marker, storage. */
  async deleteAccount(address: Address): Promise<void> {
    const r = this.rec(address)
    if (this.db.fork !== undefined) await this.prepareAccount(r)
    if (loadAcct(this.base, r) === null && r.storageWiped && r.accountWiped) return
    this.wipe(r, true)
  }

  async modifyAccountFields(address: Address, accountFields: AccountFields): Promise<void> {
    const r = this.rec(address)
    if (this.db.fork !== undefined) await this.prepareAccount(r)
    const prev = loadAcct(this.base, r)
    const nonce = accountFields.nonce ?? prev?.nonce ?? 0n
    const balance = accountFields.balance ?? prev?.balance ?? 0n
    if (prev !== null && prev.nonce === nonce && prev.balance === balance) return
    this.setAcct(r, { nonce, balance, flags: prev?.flags ?? 0 })
  }

  // -------------------------------------------------------------------------------------------
  // Code
  // -------------------------------------------------------------------------------------------

  /** Save code (rskj saveCode): empty code deletes it; non-empty code creates a missing account. */
  async putCode(address: Address, value: Uint8Array): Promise<void> {
    const r = this.rec(address)
    if (this.db.fork !== undefined) await this.prepareAccount(r)
    if (value.length === 0) {
      if (loadCode(this.base, r) !== null) this.setCode(r, null)
      return
    }
    const code = value.slice()
    this.setCode(r, { code, node: undefined, hash: keccak256(code) })
    this.ensureAccount(r)
  }

  /** Contract code, empty when none (or when the account does not exist). */
  async getCode(address: Address): Promise<Uint8Array> {
    const r = this.rec(address)
    if (this.db.fork !== undefined) await this.prepareAccount(r)
    if (loadAcct(this.base, r) === null) return EMPTY
    const c = loadCode(this.base, r)
    if (c === null) return EMPTY
    if (c.code === undefined) c.code = c.node!.getValue()!
    return c.code
  }

  async getCodeSize(address: Address): Promise<number> {
    const r = this.rec(address)
    if (this.db.fork !== undefined) await this.prepareAccount(r)
    if (loadAcct(this.base, r) === null) return 0
    const c = loadCode(this.base, r)
    if (c === null) return 0
    return c.code !== undefined ? c.code.length : c.node!.valueLength
  }

  // -------------------------------------------------------------------------------------------
  // Storage
  // -------------------------------------------------------------------------------------------

  /**
   * The value of storage slot `key` (32 bytes) without leading zeros; empty when unset.
   * Do not mutate the returned array.
   */
  async getStorage(address: Address, key: Uint8Array): Promise<Uint8Array> {
    if (key.length !== 32) throw new Error('Storage key must be 32 bytes long')
    const r = this.rec(address)
    if (this.db.fork !== undefined && (await prepareCell(this.db.fork, this.base, r, key))) this.cachedSlots++
    const hex = toKey(key)
    let v = r.storage.get(hex)
    if (v !== undefined) return v
    if (r.storageWiped) v = EMPTY
    else v = this.base.get(r.storageKey(key)) ?? EMPTY
    r.storage.set(hex, v)
    this.cachedSlots++
    return v
  }

  /**
   * Write storage slot `key` (32 bytes); `value` (≤ 32 bytes) is stored without leading zeros, and
   * an empty or zero value deletes the cell (the storage marker stays). A missing account is
   * created together with its storage marker (rskj addStorageBytes).
   */
  async putStorage(address: Address, key: Uint8Array, value: Uint8Array): Promise<void> {
    if (key.length !== 32) throw new Error('Storage key must be 32 bytes long')
    if (value.length > 32) throw new Error('Storage value cannot be longer than 32 bytes')
    if (this.db.fork !== undefined) await this.prepareAccount(this.rec(address))
    this.writeCell(address, key, unpad(value))
  }

  /**
   * rskj Repository.getStorageBytes: the raw bytes of a storage cell (may exceed 32 bytes, may be a single
   * 0x00), empty when unset. `address` may also be raw key bytes (see {@link putStorageBytes}).
   */
  async getStorageBytes(address: Address | Uint8Array, key: Uint8Array): Promise<Uint8Array> {
    return this.getStorage(address as Address, key)
  }

  /**
   * rskj Repository.addStorageBytes: writes raw bytes into a storage cell (no stripping, any length);
   * empty deletes the cell. A missing account is created with its storage marker. Used by native
   * contracts (Remasc) that store non-word values.
   */
  async putStorageBytes(address: Address | Uint8Array, key: Uint8Array, value: Uint8Array): Promise<void> {
    if (key.length !== 32) throw new Error('Storage key must be 32 bytes long')
    if (this.db.fork !== undefined) await this.prepareAccount(this.rec(address as Address))
    this.writeCell(address, key, value.slice())
  }

  /**
   * Writes a storage cell (journaled): a missing account is created with its storage marker (rskj
   * addStorageBytes); an empty value deletes the cell.
   */
  private writeCell(address: Address | Uint8Array, key: Uint8Array, v: Uint8Array): void {
    const r = this.rec(address as Address)
    if (loadAcct(this.base, r) === null) {
      this.ensureAccount(r)
      this.setMarker(r, true)
    }
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

  /**
   * Contract-creation hook: @ethereumjs calls this exactly when it creates a contract at `address`
   * (after putting the new account). Deletes every storage cell and writes the storage marker, i.e.
   * rskj `createAccount` + `setupContract`. A missing account is created.
   */
  async clearStorage(address: Address): Promise<void> {
    const r = this.rec(address)
    if (this.db.fork !== undefined) await this.prepareAccount(r)
    this.ensureAccount(r)
    this.wipe(r, false)
    r.marker = this.markerOnNextCreate
    this.markerOnNextCreate = true
  }

  /** rskj Repository.setupContract: write the storage marker (e.g. for a called precompile). */
  async setupContract(address: Address): Promise<void> {
    const r = this.rec(address)
    if (this.db.fork !== undefined) await this.prepareAccount(r)
    if (!loadMarker(this.base, r)) this.setMarker(r, true)
  }

  /** rskj Repository.isContract: whether the storage marker is present. */
  async hasStorageMarker(address: Address): Promise<boolean> {
    const r = this.rec(address)
    if (this.db.fork !== undefined) await this.prepareAccount(r)
    return loadMarker(this.base, r)
  }

  /**
   * Storage of `address` with REAL slot keys (the Unitrie keeps the slot in the key): 0x-prefixed
   * 32-byte slot → 0x-prefixed value without leading zeros. (MerkleStateManager returns
   * keccak(slot) keys and RLP values instead.)
   */
  async dumpStorage(address: Address): Promise<StorageDump> {
    const r = this.rec(address)
    return dumpRecordStorage(this.currentTrie(), r)
  }

  /**
   * Up to `limit` storage entries of `address` in slot order starting at slot `startKey`
   * (note: slot numbers, not keccak(slot) as in MerkleStateManager). `key` is the slot itself.
   */
  async dumpStorageRange(address: Address, startKey: bigint, limit: number): Promise<StorageRange> {
    if (!Number.isSafeInteger(limit) || limit < 0) throw new Error('Limit is not a proper uint.')
    return storageRangeOf(await this.dumpStorage(address), startKey, limit)
  }

  // -------------------------------------------------------------------------------------------
  // Checkpoints
  // -------------------------------------------------------------------------------------------

  async checkpoint(): Promise<void> {
    // At depth 0 make `base` the committed state, so shallow copies taken inside see it.
    if (this.levels.length === 0 && this.dirtyRecs.length > 0) this.flush()
    this.levels.push(this.undo.length)
  }

  async commit(): Promise<void> {
    if (this.levels.length === 0) throw new Error('commit() without checkpoint')
    this.levels.pop()
    if (this.levels.length === 0) {
      this.undo.length = 0
      this.flush()
      this.originalStorageCache.clear()
    }
  }

  async revert(): Promise<void> {
    const start = this.levels.pop()
    if (start === undefined) throw new Error('revert() without checkpoint')
    revertUndo(this.undo, start)
    this.version++
    if (this.levels.length === 0) {
      // flush() also trims the read cache; read-only work (eth_call, estimates) ends here, never in a commit
      this.flush()
      this.originalStorageCache.clear()
    }
  }

  // -------------------------------------------------------------------------------------------
  // Roots
  // -------------------------------------------------------------------------------------------

  /** Apply the dirty records to `t` (persistent: `t` itself is unchanged). */
  private applyDirty(t: Unitrie, reset: boolean): Unitrie {
    t = applyRecords(t, this.dirtyRecs, this.db.fork !== undefined, reset)
    if (reset) this.dirtyRecs = []
    return t
  }

  /** Write the dirty records into `base` (only ever called at depth 0). */
  private flush(): void {
    if (this.dirtyRecs.length > 0) this.base = this.applyDirty(this.base, true)
    if (this.recs.size > this.maxCachedAccounts || this.cachedSlots > this.maxCachedSlots) {
      this.recs.clear()
      this.cachedSlots = 0
    }
  }

  /** The trie of the current view (committed + uncommitted), without changing anything. */
  private currentTrie(): Unitrie {
    if (this.dirtyRecs.length === 0) return this.base
    if (this.levels.length === 0) {
      this.flush()
      return this.base
    }
    if (this.viewMemo?.version !== this.version)
      this.viewMemo = { version: this.version, trie: this.applyDirty(this.base, false) }
    return this.viewMemo.trie
  }

  /**
   * Root hash of the current state. At depth 0 the state is flushed and the root becomes readable
   * through setStateRoot; inside checkpoints nothing is flushed (a later revert stays exact).
   */
  async getStateRoot(): Promise<Uint8Array> {
    if (this.levels.length > 0) return this.currentTrie().hash()
    this.flush()
    return this.db.register(this.base)
  }

  /**
   * Registers the trie of the current view (committed + uncommitted levels) as a readable root without
   * flushing or committing anything, so a later revert stays exact. For previews such as the `pending`
   * block, built inside a checkpoint that is then reverted, whose root must stay readable through
   * setStateRoot / shallow copies. @returns the root hash
   */
  registerCurrentView(): Uint8Array {
    if (this.levels.length === 0) this.flush()
    return this.db.register(this.currentTrie())
  }

  /**
   * Switch to a previously produced root (any root registered by getStateRoot/fromGenesis in this
   * manager or its copies, or present in the node store). Drops the caches.
   * @throws when there are open checkpoints or the root is unknown
   */
  async setStateRoot(stateRoot: Uint8Array, clearCache = true): Promise<void> {
    if (this.levels.length > 0) throw new Error('Cannot set state root with uncommitted checkpoints')
    this.flush()
    const t = this.db.lookup(stateRoot)
    if (t === undefined) throw new Error('State trie does not contain state root')
    if (t === this.base && !clearCache) return
    this.base = t
    this.recs.clear()
    this.cachedSlots = 0
    this.viewMemo = undefined
    this.version++
  }

  async hasStateRoot(root: Uint8Array): Promise<boolean> {
    return this.db.lookup(root) !== undefined
  }

  /** The committed trie (flushes direct depth-0 writes first). */
  getTrie(): Unitrie {
    if (this.levels.length === 0) this.flush()
    return this.base
  }

  /**
   * Persist the committed state's nodes into the node store (rskj TrieStore.save). Only the nodes
   * not saved before are written. @returns the root hash
   */
  save(): Uint8Array {
    const store = this.db.store
    if (!store) throw new Error('UnitrieStateManager.save: no node store configured')
    const t = this.getTrie()
    this.db.register(t)
    return t.save(store)
  }

  /**
   * Load an @ethereumjs-style genesis (address → balance | [balance, code, storage, nonce]) on top of
   * the current state, with reference semantics (code → storage marker). Usually
   * {@link fromGenesis} is what you want.
   */
  async generateCanonicalGenesis(initState: Record<string, unknown>): Promise<void> {
    if (this.levels.length !== 0) throw new Error('Cannot create genesis state with uncommitted checkpoints')
    await putCanonicalGenesis(this, initState)
    this.flush()
    this.db.register(this.base)
  }

  /**
   * An independent manager at the last committed state, sharing the root registry and node store.
   * Caches are not copied.
   */
  shallowCopy(_downlevelCaches?: boolean): UnitrieStateManager {
    if (this.levels.length === 0) this.flush()
    return new UnitrieStateManager({
      db: this.db,
      trie: this.base,
      common: this.common,
      maxCachedAccounts: this.maxCachedAccounts,
      maxCachedSlots: this.maxCachedSlots,
    })
  }

  /** Drop the read caches (nothing is lost: at depth 0 pending writes are flushed first; inside checkpoints it is a no-op). */
  clearCaches(): void {
    if (this.levels.length > 0) return
    this.flush()
    this.recs.clear()
    this.cachedSlots = 0
  }

  /** The trie key of the account (used by @ethereumjs for preimage reporting). */
  getAppliedKey(address: Uint8Array): Uint8Array {
    return this.rec(address).key.slice()
  }
}
