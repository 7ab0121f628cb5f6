/**
 * Chain storage (docs/architecture.md#storage): blocks, receipts, the head and the Unitrie nodes of every block's
 * state in one key-value database — `level` at `<db>/chain` with `--db <dir>`. Every mined block is written as
 * ONE atomic batch, so a crash never leaves a partly written block and the head never points past what is on
 * disk.
 *
 * The keys and records are laid out in ./storage-layout.ts; the reads of records are in ./storage-reads.ts.
 *
 * Blocks are read back on demand through LevelBlockBackend in ./block-backend.ts (by number, by hash, by
 * transaction hash), so opening a directory reads the meta, the head and the live root only, however long the
 * chain is. Format 1 directories (no 'H'/'T' indexes) are upgraded once when opened.
 *
 * The Unitrie reads its store synchronously ({@link TrieNodeStore}); the database is asynchronous, but `level`
 * and `memory-level` also read synchronously (`getSync`). So (./trie-node-stores.ts):
 * - writes: {@link WriteBackTrieStore} collects the nodes `Unitrie.save` puts (only the paths a block changed)
 *   and they go into the block's batch;
 * - reads: a state whose trie is in memory (recent blocks, --state-history) is read as it is; any other root (the
 *   head on restart, a block older than --state-history) is found by {@link ChainStorage.loadRoot}, which hands
 *   out a lazy trie over the on-demand store ({@link ChainStorage.nodeStore}): each node is read from the
 *   database (`getSync`) when the trie first reaches it, so a restart reads no whole state. Every
 *   UNLOAD_STATE_EVERY_BLOCKS blocks the tries drop the nodes they loaded or built (src/chain/mining/block-commit.ts),
 *   so the state held in memory is what recent blocks touched, not the whole state: memory stays flat as the
 *   state grows. A database without synchronous reads gets every node of a root fetched asynchronously instead
 *   (breadth first, one `getMany` per level) and decoded into memory at once.
 *
 * Without --db the node does not use this module at all (not even over memory-level, although that would be
 * the same code path): measured, memory-level costs about 18% of automined throughput (a batch and its
 * encodings per block) and would keep every state node ever written, defeating --state-history's flat memory.
 * {@link ChainStorage.memory} exists for tests and tools.
 *
 * Not kept: the pool, snapshots (evm_snapshot ids), the clock offset and one-shot overrides. Blocks removed by
 * evm_revert / evm_reset are deleted with the head change in one batch; their trie nodes stay (content
 * addressed and possibly shared) as unreferenced garbage.
 */
import { loadAllNodes, nodeReferences, Unitrie, type TrieNodeStore } from '../unitrie/unitrie.js'
import { toKey } from '../util/bytes.js'
import { nodeKey, onDemandStore, WriteBackTrieStore, type PutOp } from './trie-node-stores.js'
import { encodeBlock, type EncodedBlock } from '../blocks/block-codec.js'
import { LEVEL_OPEN_OPTIONS } from './level-options.js'
import type { BlockRecord } from '../types/records.js'
import {
  ADDRESSES,
  BLOCK,
  BY_HASH,
  blockIndexOps,
  DERIVED,
  hashKey,
  HEAD,
  LIVE,
  META,
  numberKey,
  PRE_STATE,
  PRUNED,
  readU64,
  TX,
  u64,
  type ChainDatabase,
  type DelOp,
  type StoredMeta,
} from './storage-layout.js'
import { StorageReads } from './storage-reads.js'

export { STORAGE_FORMAT, storageKeys, type ChainDatabase, type PutOp, type StoredMeta } from './storage-layout.js'
export type { StoredChain } from './storage-reads.js'

/** Options of {@link ChainStorage.open}. */
export interface ChainStorageOptions {
  /** How errors name the store, e.g. "--db ./data". Default "the chain database". */
  label?: string
}

/**
 * The chain's database: {@link StorageReads} plus opening, the Unitrie node stores, writes and state roots. Every
 * method must run inside the chain's queue (one writer).
 */
export class ChainStorage extends StorageReads {
  readonly trieStore = new WriteBackTrieStore()
  /** See {@link nodeStore}. */
  private onDemand: TrieNodeStore | undefined
  /** Set when a write failed: later writes fail with it too (the node must be restarted). */
  private failure: unknown
  private closed = false

  private constructor(db: ChainDatabase, label: string) {
    super(db, label)
  }

  /** Opens storage over a database (opened here if needed). */
  static async open(db: ChainDatabase, opts: ChainStorageOptions = {}): Promise<ChainStorage> {
    await db.open()
    return new ChainStorage(db, opts.label ?? 'the chain database')
  }

  /**
   * Opens (creating if needed) a LevelDB directory, with the memory bounds of ./level-options.ts.
   * @throws Error naming the directory when it cannot be opened (e.g. another node holds its lock)
   */
  static async openDirectory(dir: string, opts: ChainStorageOptions = {}): Promise<ChainStorage> {
    // loaded on demand: runs without --db do not pay for the native binding
    const { Level } = await import('level')
    const db = new Level<Uint8Array, Uint8Array>(dir, {
      keyEncoding: 'view',
      valueEncoding: 'view',
      ...LEVEL_OPEN_OPTIONS,
    })
    try {
      return await ChainStorage.open(db, opts)
    } catch (err) {
      const cause = (err as { cause?: { code?: string } }).cause
      const why = cause?.code === 'LEVEL_LOCKED' ? 'it is in use by another process' : (err as Error).message
      throw new Error(`cannot open ${opts.label ?? dir} (${dir}): ${why}`, { cause: err })
    }
  }

  /**
   * Makes tries read the nodes they reach from the database synchronously (`getSync`, which `level`
   * and `memory-level` have): a stored root is then readable as a lazy trie that loads only the nodes it reaches
   * (a restart loads none of the head's state up front), and tries can drop their loaded nodes
   * (`UnitrieStateDB.unloadStored` in src/state/unitrie-state-db.ts) to read them back on demand. Roots are
   * still found through {@link loadRoot} only (so `--prune-history`, which switches that off, keeps older states
   * unreadable), which then hands out lazy tries over {@link nodeStore}.
   * @returns false when the database has no synchronous reads (roots are then loaded whole, {@link loadRoot})
   */
  readNodesOnDemand(): boolean {
    if (!this.syncReads) return false
    this.onDemand = onDemandStore(this.trieStore, (key) => (this.closed ? undefined : this.db.getSync(key)))
    return true
  }

  /**
   * The store of lazily read tries once {@link readNodesOnDemand} took effect (the collected writes, then the
   * database), else undefined. States are saved through it too, so that a node read back counts as saved.
   */
  get nodeStore(): TrieNodeStore | undefined {
    return this.onDemand
  }

  /** In-memory storage (memory-level): the same code path without a directory (tests, measurements). */
  static async memory(opts: ChainStorageOptions = {}): Promise<ChainStorage> {
    const { MemoryLevel } = await import('memory-level')
    return ChainStorage.open(
      new MemoryLevel<Uint8Array, Uint8Array>({ keyEncoding: 'view', valueEncoding: 'view' }),
      opts,
    )
  }

  /**
   * Drops a block's receipts (`--transaction-block-keeper`) in one batch: its derived record replaced by `derived`
   * (receipts emptied), its transactions' index records deleted, the prune mark moved to `number`.
   */
  async pruneReceipts(number: bigint, derived: Uint8Array, txHashes: readonly Uint8Array[]): Promise<void> {
    const ops: (PutOp | DelOp)[] = [
      { type: 'put', key: numberKey(DERIVED, number), value: derived },
      { type: 'put', key: PRUNED, value: u64(number) },
    ]
    for (const h of txHashes) ops.push({ type: 'del', key: hashKey(TX, h) })
    await this.write(ops)
  }

  /**
   * Starts an empty database: meta, the genesis block and its state, head 0.
   * @param state the genesis state trie
   */
  async init(meta: StoredMeta, genesis: BlockRecord, state: Unitrie): Promise<void> {
    state.save(this.saveStore)
    await this.write([
      { type: 'put', key: META, value: Buffer.from(JSON.stringify(meta), 'utf8') },
      ...this.blockOps(genesis),
      { type: 'put', key: LIVE, value: state.hash() },
    ])
  }

  /**
   * Writes a mined block in one batch: its RLP, receipts and senders, the new nodes of its state, the head, and
   * the addresses its transactions touched.
   * @param state the trie of the block's state (the live state after it)
   * @param extra.enc its encodings when already made; extra.preStateRoot the state it ran on when that is not its
   *   parent's (changed in place in between), for replays (traces); extra.addresses its address-index record
   *   (src/blocks/address-index-record.ts)
   */
  writeBlock(
    block: BlockRecord,
    state: Unitrie,
    extra: { enc?: EncodedBlock; preStateRoot?: Uint8Array; addresses?: Uint8Array } = {},
  ): Promise<void> {
    state.save(this.saveStore)
    const n = block.header.number
    const ops = [...this.blockOps(block, extra.enc), { type: 'put' as const, key: LIVE, value: state.hash() }]
    if (extra.preStateRoot !== undefined)
      ops.push({ type: 'put', key: numberKey(PRE_STATE, n), value: extra.preStateRoot })
    if (extra.addresses !== undefined) ops.push({ type: 'put', key: numberKey(ADDRESSES, n), value: extra.addresses })
    return this.write(ops)
  }

  /**
   * The address-index records (src/blocks/address-index-record.ts) of the stored blocks, ascending by number.
   * @param visit receives each block's number and record
   */
  async forEachAddressRecord(visit: (number: bigint, record: Uint8Array) => void): Promise<void> {
    const it = this.db.iterator({ gte: numberKey(ADDRESSES, 0n), lte: numberKey(ADDRESSES, 2n ** 64n - 1n) })
    try {
      for await (const [key, value] of it) visit(readU64(key.subarray(1)), value)
    } finally {
      await it.close()
    }
  }

  /** Records an in-place change of the live state (anvil_setBalance, …): its new nodes and root. */
  writeLiveState(state: Unitrie): Promise<void> {
    state.save(this.saveStore)
    return this.write([{ type: 'put', key: LIVE, value: state.hash() }])
  }

  /**
   * Back to block `number` (evm_revert, evm_reset): deletes blocks number+1 … `oldHead` with their index records
   * and sets the head and the live state root, in one batch. `liveRoot` must be a state stored before (a
   * block's or a snapshot's).
   * @param removed hashes of the removed blocks and of their transactions
   */
  rewind(
    number: bigint,
    oldHead: bigint,
    liveRoot: Uint8Array,
    removed: Iterable<{ hash: Uint8Array; txHashes: readonly Uint8Array[] }>,
  ): Promise<void> {
    const ops: (PutOp | DelOp)[] = []
    for (let n = number + 1n; n <= oldHead; n++) {
      ops.push(
        { type: 'del', key: numberKey(BLOCK, n) },
        { type: 'del', key: numberKey(DERIVED, n) },
        { type: 'del', key: numberKey(PRE_STATE, n) },
        { type: 'del', key: numberKey(ADDRESSES, n) },
      )
    }
    for (const r of removed) {
      ops.push({ type: 'del', key: hashKey(BY_HASH, r.hash) })
      for (const h of r.txHashes) ops.push({ type: 'del', key: hashKey(TX, h) })
    }
    ops.push({ type: 'put', key: HEAD, value: u64(number) }, { type: 'put', key: LIVE, value: liveRoot })
    return this.write(ops)
  }

  /**
   * Loads the state trie of `root` from the database: a lazy trie over {@link nodeStore} after
   * {@link readNodesOnDemand}, else every node in memory (see the module documentation).
   * @returns the trie, or undefined when the database does not hold that state
   */
  async loadRoot(root: Uint8Array): Promise<Unitrie | undefined> {
    if (this.closed) return undefined
    if (this.onDemand !== undefined) {
      // a lazy trie: its nodes are read as they are reached
      if ((await this.getRecord(nodeKey(root))) === undefined && this.trieStore.get(root) === undefined)
        return undefined
      return Unitrie.fromRootHash(root, this.onDemand)
    }
    const nodes = new Map<string, Uint8Array>()
    let frontier: { hash: Uint8Array; node: boolean }[] = [{ hash: root, node: true }]
    while (frontier.length > 0) {
      const want = frontier.filter((r) => !nodes.has(toKey(r.hash)))
      const values = await this.db.getMany(want.map((r) => nodeKey(r.hash)))
      const next: typeof frontier = []
      for (let i = 0; i < want.length; i++) {
        const ref = want[i]!
        const value = values[i] ?? this.trieStore.get(ref.hash)
        if (value === undefined) return undefined
        nodes.set(toKey(ref.hash), value)
        if (!ref.node) continue
        const refs = nodeReferences(value)
        for (const h of refs.nodes) next.push({ hash: h, node: true })
        for (const h of refs.values) next.push({ hash: h, node: false })
      }
      frontier = next
    }
    this.trieStore.loading = nodes
    try {
      const trie = Unitrie.fromRootHash(root, this.trieStore)
      loadAllNodes(trie)
      return trie
    } finally {
      this.trieStore.loading = undefined
    }
  }

  /** Where states are saved: {@link nodeStore} when set (nodes read back then count as saved), else the trie store. */
  private get saveStore(): TrieNodeStore {
    return this.onDemand ?? this.trieStore
  }

  /** Closes the database (idempotent). */
  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    await this.db.close()
  }

  private blockOps(block: BlockRecord, enc: EncodedBlock = encodeBlock(block)): PutOp[] {
    const n = block.header.number
    return [
      { type: 'put', key: numberKey(BLOCK, n), value: enc.rlp },
      { type: 'put', key: numberKey(DERIVED, n), value: enc.derived },
      ...blockIndexOps(
        n,
        block.hash,
        block.transactions.map((t) => t.hash),
      ),
      { type: 'put', key: HEAD, value: u64(n) },
    ]
  }

  /** One atomic batch: the trie nodes collected so far plus `ops`. */
  private async write(ops: (PutOp | DelOp)[]): Promise<void> {
    const nodes = this.trieStore.take()
    if (this.failure !== undefined) throw this.failure
    try {
      await this.db.batch(nodes.length === 0 ? ops : [...nodes, ...ops])
    } catch (err) {
      // the nodes of this batch count as saved in memory: no later write may assume they are on disk
      this.failure = new Error(`${this.label}: write failed, restart the node (${(err as Error).message})`, {
        cause: err,
      })
      throw this.failure
    }
  }
}
