/**
 * An @ethereumjs `StateManagerInterface` that keeps the world state in the reference node's layout:
 * one RSK Unitrie (RSKIP107) holding accounts, code and storage, so the root it reports is the
 * reference `stateRoot`.
 *
 * Layout (src/rsk/trie-keys.ts, rskj TrieKeyMapper / MutableRepository):
 *   accountKey(addr)            → RLP[nonce, balance]   (AccountState.getEncoded)
 *   accountKey(addr) ‖ 0x80     → code                  (absent when the account has no code)
 *   accountKey(addr) ‖ 0x00     → 0x01                  (storage marker, "isContract")
 *   storageKey(addr, slot)      → value without leading zeros (absent when zero)
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
import { Account, Address, KECCAK256_NULL, KECCAK256_RLP, toBytes } from '@ethereumjs/util'
import { EMPTY_TRIE_HASH, keccak256 } from '../crypto/keccak.js'
import { genesisStateTrie, type GenesisAlloc, type RskNetworkId } from '../rsk/genesis-state.js'
import { decodeAccountState, encodeAccountState, slotFromStorageKey } from '../rsk/trie-keys.js'
import { Unitrie, type TrieNode, type TrieNodeStore } from '../rsk/unitrie.js'
import { bytesEqual, toKey } from '../util/bytes.js'
import { isLocal, markLocal, remoteAccountExists, remoteHasStorageMarker } from './fork-overlay.js'
import type { ForkAccount, ForkStateSource } from './fork-source.js'

// ---------------------------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------------------------

/** Strip leading zero bytes; an all-zero or empty input gives an empty array. */
function unpad(v: Uint8Array): Uint8Array {
  let i = 0
  while (i < v.length && v[i] === 0) i++
  return i === 0 ? v.slice() : v.slice(i)
}

const EMPTY = new Uint8Array(0)
const MARKER_VALUE = Uint8Array.of(0x01)
const SECURE_KEY_SIZE = 10

function appendByte(prefix: Uint8Array, b: number): Uint8Array {
  const k = new Uint8Array(prefix.length + 1)
  k.set(prefix)
  k[prefix.length] = b
  return k
}

// ---------------------------------------------------------------------------------------------
// Records and undo log
// ---------------------------------------------------------------------------------------------

/** Decoded account value (immutable: replaced, never mutated). */
interface AcctVal {
  readonly nonce: bigint
  readonly balance: bigint
  /** AccountState hibernation flags (always 0 in practice); preserved on writes. */
  readonly flags: number
}

/** Code of an account (immutable). `code` is loaded lazily from `node` for store-backed tries. */
interface CodeVal {
  code: Uint8Array | undefined
  readonly node: TrieNode | undefined
  readonly hash: Uint8Array
}

const DIRTY_ACCT = 1
const DIRTY_CODE = 2
const DIRTY_MARKER = 4

/**
 * Current view of one address. A field that is `undefined` has not been loaded: its value is the
 * one in `base` (unless `storageWiped` says the base storage is logically gone).
 */
class Rec {
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

/** Snapshot of a record taken before a wipe (deleteAccount / clearStorage). */
interface RecSnapshot {
  acct: AcctVal | null | undefined
  code: CodeVal | null | undefined
  marker: boolean | undefined
  storage: Map<string, Uint8Array>
  storageWiped: boolean
  accountWiped: boolean
}

const U_ACCT = 0
const U_CODE = 1
const U_MARKER = 2
const U_SLOT = 3
const U_WIPE = 4

/** One undo entry: restores `prev` into field `kind` of `rec` (slot entries carry the slot hex). */
interface Undo {
  rec: Rec
  kind: number
  slot: string | undefined
  prev: unknown
}

// ---------------------------------------------------------------------------------------------
// Shared root registry
// ---------------------------------------------------------------------------------------------

/**
 * State shared by a manager and its shallow copies: every committed root produced so far (persistent
 * tries share structure, so keeping them is cheap) and an optional node store for roots that are not
 * in memory.
 */
export class UnitrieStateDB {
  /** root hex (no 0x) → trie. */
  readonly roots = new Map<string, Unitrie>()

  constructor(
    /** Optional content-addressed node store (rskj TrieStore) for persisted / lazily loaded roots. */
    readonly store?: TrieNodeStore,
    /**
     * Fork mode (docs/architecture.md#forking): the remote state at the fork block, read for every key the local
     * trie neither holds nor marks as local. Shared by the manager's shallow copies.
     */
    public fork?: ForkStateSource,
  ) {}

  /**
   * How many roots are kept readable (oldest unpinned ones are forgotten first, so their nodes can be
   * garbage-collected). Infinity = all. The chain sets it from `--state-history`.
   */
  maxRoots = Number.POSITIVE_INFINITY
  /** Pinned roots (hex → pin count): never forgotten (genesis, snapshot roots). */
  private readonly pins = new Map<string, number>()

  /** Remember `trie` as a readable root; returns its hash. Forgets the oldest unpinned roots past {@link maxRoots}. */
  register(trie: Unitrie): Uint8Array {
    const h = trie.hash()
    const hex = toKey(h)
    this.roots.delete(hex)
    this.roots.set(hex, trie)
    if (this.roots.size > this.maxRoots) {
      for (const key of this.roots.keys()) {
        if (this.roots.size <= this.maxRoots) break
        if (key !== hex && !this.pins.has(key)) this.roots.delete(key)
      }
    }
    return h
  }

  /** Keeps `root` readable regardless of {@link maxRoots} until as many {@link unpin} calls. */
  pin(root: Uint8Array): void {
    const hex = toKey(root)
    this.pins.set(hex, (this.pins.get(hex) ?? 0) + 1)
  }

  /** Releases one {@link pin} of `root`. */
  unpin(root: Uint8Array): void {
    const hex = toKey(root)
    const n = this.pins.get(hex) ?? 0
    if (n <= 1) this.pins.delete(hex)
    else this.pins.set(hex, n - 1)
  }

  /**
   * Optional asynchronous source of roots that are neither registered nor in the synchronous store (the
   * chain's database, src/chain/storage.ts): returns the root's trie with every node in memory, or undefined.
   */
  loadRoot: ((root: Uint8Array) => Promise<Unitrie | undefined>) | undefined

  /** {@link lookup}, then the {@link loadRoot} source; a loaded root is registered as the newest one. */
  async load(root: Uint8Array): Promise<Unitrie | undefined> {
    const t = this.lookup(root)
    if (t !== undefined || this.loadRoot === undefined || root.length !== 32) return t
    const loaded = await this.loadRoot(root)
    if (loaded !== undefined) this.register(loaded)
    return loaded
  }

  /** The trie for `root`, or undefined when unknown (neither registered nor in the store). */
  lookup(root: Uint8Array): Unitrie | undefined {
    if (root.length !== 32) return undefined
    const hex = toKey(root)
    const t = this.roots.get(hex)
    if (t) return t
    if (bytesEqual(root, EMPTY_TRIE_HASH)) return Unitrie.empty(this.store)
    if (this.store && this.store.get(root) !== undefined) {
      const loaded = Unitrie.fromRootHash(root, this.store)
      this.roots.set(hex, loaded)
      return loaded
    }
    return undefined
  }
}

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

  private loadAcct(r: Rec): AcctVal | null {
    let a = r.acct
    if (a === undefined) {
      const raw = this.base.get(r.key)
      if (raw === undefined) a = null
      else {
        const s = decodeAccountState(raw)
        a = { nonce: s.nonce, balance: s.balance, flags: s.stateFlags ?? 0 }
      }
      r.acct = a
    }
    return a
  }

  private loadCode(r: Rec): CodeVal | null {
    let c = r.code
    if (c === undefined) {
      const node = this.base.findNode(r.codeKey)
      c = node !== undefined && node.valueLength > 0 ? { code: undefined, node, hash: node.getValueHash()! } : null
      r.code = c
    }
    return c
  }

  private loadMarker(r: Rec): boolean {
    let m = r.marker
    if (m === undefined) {
      m = this.base.getValueLength(r.storagePrefix) > 0
      r.marker = m
    }
    return m
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
    const a = this.loadAcct(r)
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
   * and that the local trie does not hold, from the remote. Undefined when nothing is to fetch or the value was
   * at hand; else a promise to await before the synchronous loads. Addresses that are not 20 bytes (raw keys)
   * are always local.
   */
  private prepareAccount(r: Rec): Promise<void> | undefined {
    const fork = this.db.fork
    if (fork === undefined || r.forkReady) return undefined
    const base = this.base
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
    const got = fork.account(r.address)
    if (got instanceof Promise) return got.then((a) => this.loadRemoteAccount(r, a))
    this.loadRemoteAccount(r, got)
    return undefined
  }

  /** Sets the record's unloaded, non-local fields from the remote account (as loads: nothing becomes dirty). */
  private loadRemoteAccount(r: Rec, a: ForkAccount): void {
    const base = this.base
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
   * Fork mode: loads a storage cell the record has not loaded and the local trie does not hold (nor marks as
   * local, nor wiped) from the remote. Undefined when nothing is to fetch; else a promise to await first.
   */
  private prepareCell(r: Rec, key: Uint8Array): Promise<void> | undefined {
    const fork = this.db.fork
    if (fork === undefined || r.storageWiped || r.address.length !== 20) return undefined
    const hex = toKey(key)
    if (r.storage.has(hex) || isLocal(this.base, r.storageKey(key), [r.key, r.storagePrefix])) return undefined
    const load = (v: Uint8Array): void => {
      if (r.storage.has(hex) || r.storageWiped) return
      r.storage.set(hex, v)
      ;(r.remoteCells ??= new Map()).set(hex, v)
      this.cachedSlots++
    }
    const got = fork.storage(r.address, key)
    if (got instanceof Promise) return got.then(load)
    load(got)
    return undefined
  }

  // -------------------------------------------------------------------------------------------
  // Accounts
  // -------------------------------------------------------------------------------------------

  /** The account at `address`, or undefined when it does not exist. codeHash = keccak(code). */
  async getAccount(address: Address): Promise<Account | undefined> {
    const r = this.rec(address)
    if (this.db.fork !== undefined) await this.prepareAccount(r)
    const a = this.loadAcct(r)
    if (this.senderCodeMask !== undefined && this.senderCodeMask === address.toString()) {
      this.senderCodeMask = undefined
      return a === null ? undefined : new Account(a.nonce, a.balance, KECCAK256_RLP, KECCAK256_NULL)
    }
    if (a === null) return undefined
    const c = this.loadCode(r)
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
    const prev = this.loadAcct(r)
    const nonce = account.nonce
    const balance = account.balance
    if (prev !== null && prev.nonce === nonce && prev.balance === balance) return
    this.setAcct(r, { nonce, balance, flags: prev?.flags ?? 0 })
  }

  /** SELFDESTRUCT semantics (rskj Repository.delete = deleteRecursive): account, code, marker, storage. */
  async deleteAccount(address: Address): Promise<void> {
    const r = this.rec(address)
    if (this.db.fork !== undefined) await this.prepareAccount(r)
    if (this.loadAcct(r) === null && r.storageWiped && r.accountWiped) return
    this.wipe(r, true)
  }

  async modifyAccountFields(address: Address, accountFields: AccountFields): Promise<void> {
    const r = this.rec(address)
    if (this.db.fork !== undefined) await this.prepareAccount(r)
    const prev = this.loadAcct(r)
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
      if (this.loadCode(r) !== null) this.setCode(r, null)
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
    if (this.loadAcct(r) === null) return EMPTY
    const c = this.loadCode(r)
    if (c === null) return EMPTY
    if (c.code === undefined) c.code = c.node!.getValue()!
    return c.code
  }

  async getCodeSize(address: Address): Promise<number> {
    const r = this.rec(address)
    if (this.db.fork !== undefined) await this.prepareAccount(r)
    if (this.loadAcct(r) === null) return 0
    const c = this.loadCode(r)
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
    if (this.db.fork !== undefined) await this.prepareCell(r, key)
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
    if (this.loadAcct(r) === null) {
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
    if (!this.loadMarker(r)) this.setMarker(r, true)
  }

  /** rskj Repository.isContract: whether the storage marker is present. */
  async hasStorageMarker(address: Address): Promise<boolean> {
    const r = this.rec(address)
    if (this.db.fork !== undefined) await this.prepareAccount(r)
    return this.loadMarker(r)
  }

  /**
   * Storage of `address` with REAL slot keys (the Unitrie keeps the slot in the key): 0x-prefixed
   * 32-byte slot → 0x-prefixed value without leading zeros. (MerkleStateManager returns
   * keccak(slot) keys and RLP values instead.)
   */
  async dumpStorage(address: Address): Promise<StorageDump> {
    const r = this.rec(address)
    const t = this.currentTrie()
    const out: StorageDump = {}
    const prefixLen = r.storagePrefix.length
    for (const [k, v] of t.entries(r.storagePrefix)) {
      if (k.length <= prefixLen + SECURE_KEY_SIZE) continue // the marker itself
      out['0x' + toKey(slotFromStorageKey(k))] = '0x' + toKey(v)
    }
    return out
  }

  /**
   * Up to `limit` storage entries of `address` in slot order starting at slot `startKey`
   * (note: slot numbers, not keccak(slot) as in MerkleStateManager). `key` is the slot itself.
   */
  async dumpStorageRange(address: Address, startKey: bigint, limit: number): Promise<StorageRange> {
    if (!Number.isSafeInteger(limit) || limit < 0) throw new Error('Limit is not a proper uint.')
    const all = Object.entries(await this.dumpStorage(address))
      .map(([k, v]) => [BigInt(k), k, v] as const)
      .filter(([n]) => n >= startKey)
      .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    const storage: StorageRange['storage'] = {}
    for (const [, k, v] of all.slice(0, limit)) storage[k] = { key: k as `0x${string}`, value: v as `0x${string}` }
    const next = all[limit]
    return { storage, nextKey: next ? next[1] : null }
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
    const undo = this.undo
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
    const forked = this.db.fork !== undefined
    for (const r of this.dirtyRecs) {
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
    for (const [addressHex, state] of Object.entries(initState)) {
      const address = new Address(toBytes(addressHex as `0x${string}`))
      if (!Array.isArray(state)) {
        await this.putAccount(address, new Account(0n, BigInt(state as string | bigint)))
        continue
      }
      const [balance, code, storage, nonce] = state as [
        string | bigint | undefined,
        string | undefined,
        Array<[string, string]> | undefined,
        string | bigint | undefined,
      ]
      await this.putAccount(address, new Account(BigInt(nonce ?? 0), BigInt(balance ?? 0)))
      if (code !== undefined) {
        await this.setupContract(address)
        await this.putCode(address, toBytes(code as `0x${string}`))
      }
      for (const [k, v] of storage ?? [])
        await this.putStorage(address, toBytes(k as `0x${string}`), toBytes(v as `0x${string}`))
    }
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
