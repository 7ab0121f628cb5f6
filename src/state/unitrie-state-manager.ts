/**
 * An @ethereumjs `StateManagerInterface` that keeps the world state in the reference node's layout: one RSK
 * Unitrie (RSKIP107) holding accounts, code and storage (keys: src/state/address-record.ts), so the root it
 * reports is the reference `stateRoot`.
 *
 * This class maps each interface call onto record writes; beside it live which fields each write sets
 * (write-rules.ts, docs/reference-rules.md#rule-unitrie-state-writes), the committed trie with the address records
 * and their undo journal (journaled-view.ts), the shared root registry (unitrie-state-db.ts), fork-mode loads
 * (fork-loads.ts, fork-overlay.ts), storage dumps (storage-dump.ts) and genesis loading (canonical-genesis.ts).
 * @ethereumjs calls `clearStorage(address)` exactly when it creates a contract, so
 * {@link UnitrieStateManager.clearStorage} wipes the storage subtree AND writes the marker. Code hashes are not
 * stored: EXTCODEHASH is keccak(code) (kept in the Unitrie node of long values, so it is cheap).
 *
 * Every root ever produced stays readable, so `setStateRoot` to an older root is O(1); `getStateRoot()` inside a
 * checkpoint returns the root of the uncommitted state WITHOUT flushing anything, so a later `revert()` is exact
 * (no @ethereumjs "pitfall 1"). For reference-exact roots the VM must also follow the reference's account rules
 * (no EIP-161 clearing, no marker for creation transactions with empty data): `applyReferenceStateRules` in
 * src/execution/ethereumjs/account-rules.ts.
 *
 * Not safe for concurrent use (same as every @ethereumjs state manager).
 */
import type { AccountFields, Common, StateManagerInterface, StorageDump, StorageRange } from '@ethereumjs/common'
import { OriginalStorageCache } from '@ethereumjs/statemanager'
import { Account, Address, KECCAK256_NULL, KECCAK256_RLP } from '@ethereumjs/util'
import { genesisStateTrie, type GenesisAlloc, type RskNetworkId } from '../rsk/genesis-state.js'
import { Unitrie, type TrieNodeStore } from '../unitrie/unitrie.js'
import { EMPTY, loadAcct, loadCode, loadMarker, unpad } from './address-record.js'
import { putCanonicalGenesis } from './canonical-genesis.js'
import type { ForkStateSource } from './fork-source.js'
import { JournaledView } from './journaled-view.js'
import { dumpRecordStorage, storageRangeOf } from './storage-dump.js'
import { UnitrieStateDB } from './unitrie-state-db.js'
import * as writes from './write-rules.js'

export { UnitrieStateDB } from './unitrie-state-db.js'

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

  /** Committed trie, address records and undo journal. */
  private readonly view: JournaledView
  /**
   * Whether the next {@link clearStorage} (contract creation) writes the storage marker; reset to true by it. Set
   * by `applyReferenceStateRules` (src/execution/ethereumjs/account-rules.ts) for creation transactions with empty
   * data.
   */
  markerOnNextCreate = true

  constructor(opts: UnitrieStateManagerOpts = {}) {
    this.db = opts.db ?? new UnitrieStateDB(opts.store, opts.fork)
    this.common = opts.common
    const base = opts.trie ?? Unitrie.empty(this.db.store)
    this.db.register(base)
    this.view = new JournaledView(base, this.db, opts.maxCachedAccounts ?? 50_000, opts.maxCachedSlots ?? 10_000)
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
    return this.view.depth
  }

  // -------------------------------------------------------------------------------------------
  // Accounts and code
  // -------------------------------------------------------------------------------------------

  /** The account at `address`, or undefined when it does not exist. codeHash = keccak(code). */
  async getAccount(address: Address): Promise<Account | undefined> {
    const r = this.view.rec(address)
    if (this.db.fork !== undefined) await this.view.prepareAccount(r)
    const a = loadAcct(this.view.base, r)
    if (this.senderCodeMask !== undefined && this.senderCodeMask === address.toString()) {
      this.senderCodeMask = undefined
      return a === null ? undefined : new Account(a.nonce, a.balance, KECCAK256_RLP, KECCAK256_NULL)
    }
    if (a === null) return undefined
    const c = loadCode(this.view.base, r)
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
    const r = this.view.rec(address)
    if (this.db.fork !== undefined) await this.view.prepareAccount(r)
    writes.writeAccountFields(this.view, r, account.nonce, account.balance)
  }

  /** SELFDESTRUCT semantics (rskj Repository.delete = deleteRecursive): account, code, marker, storage. */
  async deleteAccount(address: Address): Promise<void> {
    const r = this.view.rec(address)
    if (this.db.fork !== undefined) await this.view.prepareAccount(r)
    writes.deleteRecursive(this.view, r)
  }

  /** Sets the given nonce and balance (wei) of the account, creating a missing one; other fields are ignored. */
  async modifyAccountFields(address: Address, accountFields: AccountFields): Promise<void> {
    const r = this.view.rec(address)
    if (this.db.fork !== undefined) await this.view.prepareAccount(r)
    writes.writeAccountFields(this.view, r, accountFields.nonce, accountFields.balance)
  }

  /** Save code (rskj saveCode): empty code deletes it; non-empty code creates a missing account. */
  async putCode(address: Address, value: Uint8Array): Promise<void> {
    const r = this.view.rec(address)
    if (this.db.fork !== undefined) await this.view.prepareAccount(r)
    writes.saveCode(this.view, r, value)
  }

  /** Contract code, empty when none (or when the account does not exist). */
  async getCode(address: Address): Promise<Uint8Array> {
    const r = this.view.rec(address)
    if (this.db.fork !== undefined) await this.view.prepareAccount(r)
    if (loadAcct(this.view.base, r) === null) return EMPTY
    const c = loadCode(this.view.base, r)
    if (c === null) return EMPTY
    if (c.code === undefined) c.code = c.node!.getValue()!
    return c.code
  }

  async getCodeSize(address: Address): Promise<number> {
    const r = this.view.rec(address)
    if (this.db.fork !== undefined) await this.view.prepareAccount(r)
    if (loadAcct(this.view.base, r) === null) return 0
    const c = loadCode(this.view.base, r)
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
    const r = this.view.rec(address)
    if (this.db.fork !== undefined) await this.view.prepareCell(r, key)
    return this.view.cell(r, key)
  }

  /**
   * Write storage slot `key` (32 bytes); `value` (≤ 32 bytes) is stored without leading zeros, and
   * an empty or zero value deletes the cell (the storage marker stays). A missing account is
   * created together with its storage marker (rskj addStorageBytes).
   */
  async putStorage(address: Address, key: Uint8Array, value: Uint8Array): Promise<void> {
    if (key.length !== 32) throw new Error('Storage key must be 32 bytes long')
    if (value.length > 32) throw new Error('Storage value cannot be longer than 32 bytes')
    const r = this.view.rec(address)
    if (this.db.fork !== undefined) await this.view.prepareAccount(r)
    writes.addStorageBytes(this.view, r, key, unpad(value))
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
    const r = this.view.rec(address)
    if (this.db.fork !== undefined) await this.view.prepareAccount(r)
    writes.addStorageBytes(this.view, r, key, value.slice())
  }

  /**
   * Contract-creation hook: @ethereumjs calls this exactly when it creates a contract at `address`
   * (after putting the new account). Deletes every storage cell and writes the storage marker, i.e.
   * rskj `createAccount` + `setupContract`. A missing account is created.
   */
  async clearStorage(address: Address): Promise<void> {
    const r = this.view.rec(address)
    if (this.db.fork !== undefined) await this.view.prepareAccount(r)
    writes.createContract(this.view, r, this.markerOnNextCreate)
    this.markerOnNextCreate = true
  }

  /** rskj Repository.setupContract: write the storage marker (e.g. for a called precompile). */
  async setupContract(address: Address): Promise<void> {
    const r = this.view.rec(address)
    if (this.db.fork !== undefined) await this.view.prepareAccount(r)
    writes.setupContract(this.view, r)
  }

  /** rskj Repository.isContract: whether the storage marker is present. */
  async hasStorageMarker(address: Address): Promise<boolean> {
    const r = this.view.rec(address)
    if (this.db.fork !== undefined) await this.view.prepareAccount(r)
    return loadMarker(this.view.base, r)
  }

  /**
   * Storage of `address` with REAL slot keys (the Unitrie keeps the slot in the key): 0x-prefixed
   * 32-byte slot → 0x-prefixed value without leading zeros. (MerkleStateManager returns
   * keccak(slot) keys and RLP values instead.)
   */
  async dumpStorage(address: Address): Promise<StorageDump> {
    const r = this.view.rec(address)
    return dumpRecordStorage(this.view.currentTrie(), r)
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

  /** Opens a checkpoint level (see {@link JournaledView.checkpoint}). */
  async checkpoint(): Promise<void> {
    this.view.checkpoint()
  }

  /** Closes the innermost level keeping its writes; at depth 0 they are committed. @throws without a level */
  async commit(): Promise<void> {
    if (this.view.commit()) this.originalStorageCache.clear()
  }

  /** Closes the innermost level undoing its writes. @throws without a level */
  async revert(): Promise<void> {
    if (this.view.revert()) this.originalStorageCache.clear()
  }

  // -------------------------------------------------------------------------------------------
  // Roots
  // -------------------------------------------------------------------------------------------

  /**
   * Root hash of the current state. At depth 0 the state is flushed and the root becomes readable
   * through setStateRoot; inside checkpoints nothing is flushed (a later revert stays exact).
   */
  async getStateRoot(): Promise<Uint8Array> {
    if (this.view.depth > 0) return this.view.currentTrie().hash()
    return this.db.register(this.view.committed())
  }

  /**
   * Registers the trie of the current view (committed + uncommitted levels) as a readable root without
   * flushing or committing anything, so a later revert stays exact. For previews such as the `pending`
   * block, built inside a checkpoint that is then reverted, whose root must stay readable through
   * setStateRoot / shallow copies, among the registry's few preview roots (UnitrieStateDB.registerPreview: outside
   * the block states `--state-history` keeps). @returns the root hash
   */
  registerCurrentView(): Uint8Array {
    if (this.view.depth === 0) this.view.flush()
    return this.db.registerPreview(this.view.currentTrie())
  }

  /**
   * Switch to a previously produced root (any root registered by getStateRoot/fromGenesis in this
   * manager or its copies, or present in the node store). Drops the caches.
   * @throws when there are open checkpoints or the root is unknown
   */
  async setStateRoot(stateRoot: Uint8Array, clearCache = true): Promise<void> {
    if (this.view.depth > 0) throw new Error('Cannot set state root with uncommitted checkpoints')
    this.view.flush()
    const t = this.db.lookup(stateRoot)
    if (t === undefined) throw new Error('State trie does not contain state root')
    if (t === this.view.base && !clearCache) return
    this.view.reset(t)
  }

  async hasStateRoot(root: Uint8Array): Promise<boolean> {
    return this.db.lookup(root) !== undefined
  }

  /** The committed trie (flushes direct depth-0 writes first). */
  getTrie(): Unitrie {
    return this.view.committed()
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
    if (this.view.depth !== 0) throw new Error('Cannot create genesis state with uncommitted checkpoints')
    await putCanonicalGenesis(this, initState)
    this.db.register(this.view.committed())
  }

  /**
   * An independent manager at the last committed state, sharing the root registry and node store.
   * Caches are not copied.
   */
  shallowCopy(_downlevelCaches?: boolean): UnitrieStateManager {
    return new UnitrieStateManager({
      db: this.db,
      trie: this.view.committed(),
      common: this.common,
      maxCachedAccounts: this.view.maxCachedAccounts,
      maxCachedSlots: this.view.maxCachedSlots,
    })
  }

  /** Drops the read caches; nothing is lost (pending depth-0 writes are flushed first; a no-op inside checkpoints). */
  clearCaches(): void {
    if (this.view.depth > 0) return
    this.view.flush()
    this.view.dropCaches()
  }

  /** The trie key of the account (used by @ethereumjs for preimage reporting). */
  getAppliedKey(address: Uint8Array): Uint8Array {
    return this.view.rec(address).key.slice()
  }
}
