/**
 * Chain storage (docs/architecture.md#storage): blocks, receipts, the head and the Unitrie nodes of every block's
 * state in one key-value database — `level` at `<db>/chain` with `--db <dir>`. Every mined block is written as
 * ONE atomic batch, so a crash never leaves a partly written block and the head never points past what is on
 * disk.
 *
 * Layout (keys are bytes; numbers are 8-byte big-endian):
 *   'm'              JSON {format, network, chainId, genesisHash}   what the directory holds
 *   'h'              head block number
 *   'k'              the highest block whose receipts --transaction-block-keeper dropped
 *   'l'              the live state root (the head's, or the one after in-place changes such as anvil_setBalance)
 *   'b' ‖ number     the block RLP exactly as the reference node encodes it (Block.getEncoded): a byte-faithful archive
 *   'x' ‖ number     RLP[hash, hashForMergedMining, totalDifficulty,
 *                        [[from, contractAddress, receipt RLP, first logIndex] per tx]]
 *   'H' ‖ hash       number of the canonical block with that hash (8 bytes)
 *   'T' ‖ tx hash    where a mined transaction is: block number (8 bytes) ‖ index in the block (4 bytes)
 *   'p' ‖ number     the state root the block ran on, when not its parent's (changed in place in between: replays)
 *   'n' ‖ hash       Unitrie node message, or long value, under its keccak256 (rskj TrieStoreImpl's content addressing)
 *
 * Blocks are read back on demand through ./level-block-archive.ts (by number, by hash, by transaction hash), so
 * opening a directory reads the meta, the head and the live root only, however long the chain is. Format 1
 * directories (no 'H'/'T' indexes) are upgraded once when opened.
 *
 * The Unitrie reads its store synchronously ({@link TrieNodeStore}); the database is asynchronous, but `level`
 * and `memory-level` also read synchronously (`getSync`). So (./trie-node-stores.ts):
 * - writes: {@link WriteBackTrieStore} collects the nodes `Unitrie.save` puts (only the paths a block changed)
 *   and they go into the block's batch;
 * - reads: a state whose trie is in memory (recent blocks, --state-history) is read as it is; any other root (the
 *   head on restart, a block older than --state-history) is found by {@link ChainStorage.loadRoot}, which hands
 *   out a lazy trie over the on-demand store ({@link ChainStorage.nodeStore}): each node is read from the
 *   database (`getSync`) when the trie first reaches it, so a restart reads no whole state. Every
 *   UNLOAD_STATE_EVERY_BLOCKS blocks the tries drop the nodes they loaded or built (src/chain/block-commit.ts),
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
import type { AbstractLevel } from 'abstract-level'
import { loadAllNodes, nodeReferences, Unitrie, type TrieNodeStore } from '../rsk/unitrie.js'
import { toKey } from '../util/bytes.js'
import { nodeKey, onDemandStore, WriteBackTrieStore, type PutOp } from './trie-node-stores.js'
import { encodeBlock, StorageCorruptError, type EncodedBlock } from './block-codec.js'
import type { BlockRecord } from '../types/records.js'

/**
 * The database the chain is stored in: any abstract-level database with byte keys and values — `level` with
 * `--db`, or `memory-level` ({@link ChainStorage.memory}). (`abstract-level` is the base package of both.)
 */
export type ChainDatabase = AbstractLevel<string | Buffer | Uint8Array, Uint8Array, Uint8Array>

/** Version of the layout above; a directory with another version is refused. */
export const STORAGE_FORMAT = 2

/** What a chain directory holds (the 'm' record). */
export interface StoredMeta {
  format: number
  network: number
  chainId: number
  /** Genesis block hash, lowercase hex without 0x. */
  genesisHash: string
}

/** The database holds a chain that this configuration cannot continue (other genesis, chain id or format). */
export class StorageMismatchError extends Error {}

export { StorageCorruptError } from './block-codec.js'

const META = Uint8Array.of(0x6d) // 'm'
const HEAD = Uint8Array.of(0x68) // 'h'
const LIVE = Uint8Array.of(0x6c) // 'l'
const PRUNED = Uint8Array.of(0x6b) // 'k'
const BLOCK = 0x62 // 'b'
const EXTRA = 0x78 // 'x'
const BY_HASH = 0x48 // 'H'
const TX = 0x54 // 'T'
const PRE_STATE = 0x70 // 'p'

function numberKey(prefix: number, n: bigint): Uint8Array {
  const k = new Uint8Array(9)
  k[0] = prefix
  new DataView(k.buffer).setBigUint64(1, n, false)
  return k
}

function u64(n: bigint): Uint8Array {
  const b = new Uint8Array(8)
  new DataView(b.buffer).setBigUint64(0, n, false)
  return b
}

function readU64(b: Uint8Array): bigint {
  return new DataView(b.buffer, b.byteOffset, b.byteLength).getBigUint64(0, false)
}

function hashKey(prefix: number, hash: Uint8Array): Uint8Array {
  const k = new Uint8Array(1 + hash.length)
  k[0] = prefix
  k.set(hash, 1)
  return k
}

/** The 'T' value: block number ‖ index. */
function txLocationValue(number: bigint, index: number): Uint8Array {
  const v = new Uint8Array(12)
  const view = new DataView(v.buffer)
  view.setBigUint64(0, number, false)
  view.setUint32(8, index, false)
  return v
}

/**
 * The index records of a block: its hash → number and each transaction hash → (number, index).
 * @param hash the block hash
 * @param txHashes the block's transaction hashes in block order
 */
export function blockIndexOps(number: bigint, hash: Uint8Array, txHashes: readonly Uint8Array[]): PutOp[] {
  const ops: PutOp[] = [{ type: 'put', key: hashKey(BY_HASH, hash), value: u64(number) }]
  txHashes.forEach((h, i) => ops.push({ type: 'put', key: hashKey(TX, h), value: txLocationValue(number, i) }))
  return ops
}

export type { PutOp } from './trie-node-stores.js'
type DelOp = { type: 'del'; key: Uint8Array }

/** Options of {@link ChainStorage.open}. */
export interface ChainStorageOptions {
  /** How errors name the store, e.g. "--db ./data". Default "the chain database". */
  label?: string
}

/** A stored chain as {@link ChainStorage.read} returns it. */
export interface StoredChain {
  meta: StoredMeta
  head: bigint
  liveRoot: Uint8Array
}

/**
 * The chain's database. Every method must run inside the chain's queue (one writer).
 */
export class ChainStorage {
  readonly trieStore = new WriteBackTrieStore()
  /** See {@link nodeStore}. */
  private onDemand: TrieNodeStore | undefined
  /** Set when a write failed: later writes fail with it too (the node must be restarted). */
  private failure: unknown
  private closed = false

  private constructor(
    readonly db: ChainDatabase,
    readonly label: string,
  ) {}

  /** Opens storage over a database (opened here if needed). */
  static async open(db: ChainDatabase, opts: ChainStorageOptions = {}): Promise<ChainStorage> {
    await db.open()
    return new ChainStorage(db, opts.label ?? 'the chain database')
  }

  /**
   * Opens (creating if needed) a LevelDB directory.
   * @throws Error naming the directory when it cannot be opened (e.g. another node holds its lock)
   */
  static async openDirectory(dir: string, opts: ChainStorageOptions = {}): Promise<ChainStorage> {
    // loaded on demand: runs without --db do not pay for the native binding
    const { Level } = await import('level')
    const db = new Level<Uint8Array, Uint8Array>(dir, { keyEncoding: 'view', valueEncoding: 'view' })
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
   * (a restart no longer loads the head's whole state), and tries can drop their loaded nodes
   * (`UnitrieStateDB.unloadStored` in src/state/unitrie-state-db.ts) to read them back on demand. Roots are
   * still found through {@link loadRoot} only (so `--prune-history`, which switches that off, keeps older states
   * unreadable), which then hands out lazy tries over {@link nodeStore}.
   * @returns false when the database has no synchronous reads (roots are then loaded whole, {@link loadRoot})
   */
  readNodesOnDemand(): boolean {
    // (abstract-level's manifest type does not declare the getSync flag its databases set)
    if ((this.db.supports as { getSync?: boolean }).getSync !== true) return false
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

  /** The stored chain (meta, head number, live root), or undefined for an empty database. */
  async read(): Promise<StoredChain | undefined> {
    const [meta, head, live] = await this.db.getMany([META, HEAD, LIVE])
    if (meta === undefined) return undefined
    if (head === undefined || live === undefined) throw new StorageCorruptError(`${this.label} has no head`)
    return { meta: JSON.parse(Buffer.from(meta).toString('utf8')) as StoredMeta, head: readU64(head), liveRoot: live }
  }

  /** Rewrites the 'm' record (a format upgrade). */
  async writeMeta(meta: StoredMeta): Promise<void> {
    await this.write([{ type: 'put', key: META, value: Buffer.from(JSON.stringify(meta), 'utf8') }])
  }

  /**
   * The encodings of blocks `from` … `to` in order, read with one iterator (a consistent snapshot of the database).
   * @throws StorageCorruptError when a block in the range is missing
   */
  async *encodedRange(from: bigint, to: bigint): AsyncGenerator<{ number: bigint } & EncodedBlock> {
    if (to < from) return
    const blocks = this.db.iterator({ gte: numberKey(BLOCK, from), lte: numberKey(BLOCK, to) })
    const extras = this.db.iterator({ gte: numberKey(EXTRA, from), lte: numberKey(EXTRA, to) })
    try {
      let expected = from
      for await (const [key, rlp] of blocks) {
        const number = readU64(key.subarray(1))
        const x = await extras.next()
        if (number !== expected || x === undefined || readU64(x[0].subarray(1)) !== number) {
          throw new StorageCorruptError(`${this.label}: block ${expected} is missing`)
        }
        yield { number, rlp, extra: x[1] }
        expected++
      }
      if (expected !== to + 1n) throw new StorageCorruptError(`${this.label}: block ${expected} is missing`)
    } finally {
      await Promise.all([blocks.close(), extras.close()])
    }
  }

  /** The encodings of block `number`, or undefined when it is not stored. */
  async encoded(number: bigint): Promise<EncodedBlock | undefined> {
    const [rlp, extra] = await this.db.getMany([numberKey(BLOCK, number), numberKey(EXTRA, number)])
    return rlp === undefined || extra === undefined ? undefined : { rlp, extra }
  }

  /** The state block `number` ran on when it was not its parent's (recorded with the block), or undefined. */
  async preStateRoot(number: bigint): Promise<Uint8Array | undefined> {
    return this.db.get(numberKey(PRE_STATE, number))
  }

  /** The number of the stored block with this hash, or undefined. */
  async numberOfHash(hash: Uint8Array): Promise<bigint | undefined> {
    const v = await this.db.get(hashKey(BY_HASH, hash))
    return v === undefined ? undefined : readU64(v)
  }

  /** Block number and index of a stored transaction, or undefined. */
  async txLocation(hash: Uint8Array): Promise<{ number: bigint; index: number } | undefined> {
    const v = await this.db.get(hashKey(TX, hash))
    if (v === undefined || v.length !== 12) return undefined
    const view = new DataView(v.buffer, v.byteOffset, v.byteLength)
    return { number: view.getBigUint64(0, false), index: view.getUint32(8, false) }
  }

  /**
   * Drops a block's receipts (`--transaction-block-keeper`) in one batch: its extra record replaced by `extra`
   * (receipts emptied), its transactions' index records deleted, the prune mark moved to `number`.
   */
  async pruneReceipts(number: bigint, extra: Uint8Array, txHashes: readonly Uint8Array[]): Promise<void> {
    const ops: (PutOp | DelOp)[] = [
      { type: 'put', key: numberKey(EXTRA, number), value: extra },
      { type: 'put', key: PRUNED, value: u64(number) },
    ]
    for (const h of txHashes) ops.push({ type: 'del', key: hashKey(TX, h) })
    await this.write(ops)
  }

  /** The highest block whose receipts were dropped (`--transaction-block-keeper`), or undefined. */
  async prunedUpTo(): Promise<bigint | undefined> {
    const v = await this.db.get(PRUNED)
    return v === undefined ? undefined : readU64(v)
  }

  /**
   * Writes index records (a format upgrade) in one batch.
   * @param ops from {@link blockIndexOps}
   */
  async writeIndexes(ops: PutOp[]): Promise<void> {
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
   * Writes a mined block in one batch: its RLP, receipts and senders, the new nodes of its state, the head.
   * @param state the trie of the block's state (the live state after it)
   * @param enc its encodings when already made; @param preStateRoot the state it ran on when that is not its
   *   parent's (changed in place in between), for replays (traces)
   */
  writeBlock(block: BlockRecord, state: Unitrie, enc?: EncodedBlock, preStateRoot?: Uint8Array): Promise<void> {
    state.save(this.saveStore)
    const ops = [...this.blockOps(block, enc), { type: 'put' as const, key: LIVE, value: state.hash() }]
    if (preStateRoot !== undefined)
      ops.push({ type: 'put', key: numberKey(PRE_STATE, block.header.number), value: preStateRoot })
    return this.write(ops)
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
        { type: 'del', key: numberKey(EXTRA, n) },
        { type: 'del', key: numberKey(PRE_STATE, n) },
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
      if ((await this.db.get(nodeKey(root))) === undefined && this.trieStore.get(root) === undefined) return undefined
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
      { type: 'put', key: numberKey(EXTRA, n), value: enc.extra },
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

/** The record keys (for tests and tools). */
export const storageKeys = {
  block: (n: bigint): Uint8Array => numberKey(BLOCK, n),
  extra: (n: bigint): Uint8Array => numberKey(EXTRA, n),
  node: nodeKey,
  byHash: (hash: Uint8Array): Uint8Array => hashKey(BY_HASH, hash),
  tx: (hash: Uint8Array): Uint8Array => hashKey(TX, hash),
  head: HEAD,
  live: LIVE,
  meta: META,
}
