/**
 * The chain: blocks, transactions and receipts with their indexes, the head, and the one serialized writer
 * that mines (design.md principles 4 and 6). Emits `block` after every appended block.
 */
import { EventEmitter } from 'node:events'
import type { LegacyTx } from '@ethereumjs/tx'
import {
  Executor,
  TxApplyError,
  type BlockContext,
  type CallRequest,
  type AppliedBlock,
  type AppliedTx,
  type CallResult,
} from '../execution/executor.js'
import type { Common } from '@ethereumjs/common'
import { SerialQueue } from '../util/serial-queue.js'
import { LRUCache } from 'lru-cache'
import { bigIntToBytes, bytesEqual, toKey, ZERO_HASH } from '../util/bytes.js'
import { ErrorCode, RpcError, txRejected } from './errors.js'
import { executionError } from './revert.js'
import {
  blockEncoding,
  EMPTY_TRIE_ROOT,
  EMPTY_UNCLES_HASH,
  hashForMergedMining,
  headerHash,
  receiptsTrieRoot,
  transactionsTrieRoot,
} from './seal.js'
import type { BlockRecord, HeaderFields, TxRecord } from './types.js'
import { BlockStore, type TxLocation } from './block-store.js'
import { DevState } from './dev-state.js'
import { SnapshotRegistry } from './snapshots.js'
import { contextOf, StateQueries, type ConsoleLogEvent } from './state-queries.js'
import { validateTransaction } from '../txpool/validation.js'
import { TxPool, type PoolTx } from '../txpool/pool.js'
import { orBlooms } from '../rsk/receipt-rlp.js'
import type { CallOverrides } from '../execution/state-override.js'
import type { UnitrieStateManager } from '../state/unitrie-state-manager.js'
import type { Unitrie } from '../rsk/unitrie.js'
import { ChainStorage, decodeStoredBlock, encodedBlocks, STORAGE_FORMAT, StorageCorruptError, StorageMismatchError, type StoredMeta } from './storage.js'
// consensus: Remasc transaction, RSKIP144 block order, merged mining (src/chain/consensus.ts)
import {
  blockTransactions,
  forkDetectionDataFor,
  mergeMine,
  StaleWorkError,
  workHashForMergedMining,
  type MergedMiningSource,
  type MiningWork,
} from './consensus.js'
import type { MergedMiningFields } from '../rsk/merged-mining.js'

/** A transaction of a block being mined could not be applied (index into the block's list). */
class PoolApplyError extends RpcError {
  constructor(
    message: string,
    readonly index: number,
  ) {
    super(ErrorCode.TxRejected, message)
  }
}

/** Options for {@link Chain.create}. */
export interface ChainOptions {
  common: Common
  /** Genesis header fields (from the network preset). */
  genesis: {
    timestamp: bigint
    extraData: Uint8Array
    gasLimit: bigint
    difficulty: bigint
    coinbase: Uint8Array
    minimumGasPrice: bigint
    /** Difficulty bytes as the genesis file has them. */
    difficultyBytes: Uint8Array
    /** The merged-mining fields of the genesis file (0x00 in every reference genesis). */
    bitcoinMergedMining: Uint8Array
  }
  /** Network number (30-33): selects the genesis precompile rules of the state. */
  network: 30 | 31 | 32 | 33
  /** Genesis allocation: 0x-address → wei. */
  alloc: Record<string, bigint>
  /** Coinbase of mined blocks (20 bytes). */
  coinbase: Uint8Array
  /** Gas limit the miner steps toward by parent/1024 per block (reference GasLimitCalculator). */
  targetGasLimit: bigint
  /** extraData of mined blocks. */
  extraData: Uint8Array
  /** Target minimumGasPrice (wei; reference miner.minGasPrice), approached within ±1% of the parent per block. */
  minGasPrice: bigint
  /** Wall clock in milliseconds (injectable for tests). Default Date.now. */
  clock?: () => number
  /** eth_call gas cap (reference rpc.callGasCap). */
  callGasCap?: bigint
  /** eth_estimateGas cap (reference rpc.gasEstimationCap). */
  gasEstimationCap?: bigint
  /** Deadline of one eth_call / eth_estimateGas in ms (reference rpc.timeout = 5000); 0 = none. Default 5000. */
  executionTimeoutMs?: number
  /**
   * States of this many most recent blocks stay readable for historical reads (eth_getBalance at an old
   * block, eth_call at an old block); older ones are forgotten so memory stays flat, like Anvil's in-memory
   * state history. Genesis and snapshot states are always kept. Default 500; 0 = keep all.
   */
  stateHistory?: number
  /**
   * Where blocks, receipts, the head and the states are stored (src/chain/storage.ts; `--db`). A database
   * that already holds a chain is continued: its blocks are reloaded and mining goes on from its head.
   * Without it the chain lives in memory only.
   */
  storage?: ChainStorage
}

/** Default number of recent block states kept readable (see {@link ChainOptions.stateHistory}). */
export const DEFAULT_STATE_HISTORY = 500

export type { ConsoleLogEvent } from './state-queries.js'
export type { TxLocation } from './block-store.js'

/** A transaction for {@link Chain.submit}, or a function building it with its sender's pending nonce. */
export type TxToSubmit = LegacyTx | ((pendingNonce: bigint) => LegacyTx)

/** Called once a block's transactions have executed, before it is sealed (see Chain.submit). */
type OnExecuted = (applied: AppliedBlock) => Promise<void>

/**
 * The chain state machine. All mutating operations and all VM access run through {@link Chain.queue}.
 */
export class Chain extends EventEmitter {
  /** The single writer; also used for every read that touches the VM/state. */
  readonly queue = new SerialQueue()
  /** Transactions waiting to be mined. */
  private readonly pool = new TxPool()
  /** Instant mining: mine executable transactions as they arrive (see {@link setAutomine}). */
  private automineOn = true
  /** The canonical blocks and their indexes. */
  private readonly blocks = new BlockStore()
  /** The clock, next-block overrides and mining targets (evm_increaseTime, evm_setNextBlockTimestamp, …). */
  private readonly dev: DevState
  /** evm_snapshot records. */
  private readonly snapshots = new SnapshotRegistry()
  readonly callGasCap: bigint
  readonly gasEstimationCap: bigint
  /** See {@link ChainOptions.executionTimeoutMs}. */
  readonly executionTimeoutMs: number

  /** Calls, estimates and state reads (src/chain/state-queries.ts). */
  private readonly queries: StateQueries

  /** The chain's database, if persistent. */
  private readonly database: ChainStorage | undefined

  private constructor(
    readonly executor: Executor,
    private readonly opts: ChainOptions,
  ) {
    super()
    this.database = opts.storage
    this.setMaxListeners(0)
    this.dev = new DevState({
      clock: opts.clock ?? Date.now,
      coinbase: opts.coinbase,
      targetGasLimit: opts.targetGasLimit,
      minGasPrice: opts.minGasPrice,
    })
    this.callGasCap = opts.callGasCap ?? 10_000_000n
    this.gasEstimationCap = opts.gasEstimationCap ?? 6_800_000n
    this.executionTimeoutMs = opts.executionTimeoutMs ?? 5_000
    this.queries = new StateQueries({
      executor,
      head: () => this.head,
      pendingBlock: () => this.computePending(),
      nextContext: () => this.nextContext(),
      onConsole: (event) => this.emit('console', event),
      callGasCap: this.callGasCap,
      gasEstimationCap: this.gasEstimationCap,
      executionTimeoutMs: this.executionTimeoutMs,
    })
  }

  /**
   * Creates the chain with its genesis block, or continues the chain held by `opts.storage`.
   * @throws StorageMismatchError when the storage holds a chain of another genesis or chain id
   */
  static async create(opts: ChainOptions): Promise<Chain> {
    let chain: Chain | undefined
    const executor = await Executor.create({
      common: opts.common,
      alloc: opts.alloc,
      network: opts.network,
      blockHash: (n) => chain?.blockByNumber(n)?.hash,
      processingBlock: (n) => {
        const b = chain?.blockByNumber(n)
        return b && { hash: b.hash, coinbase: b.header.coinbase, paidFees: b.header.paidFees }
      },
      canonicalBlock: (n) => chain?.blockByNumber(n),
      store: opts.storage?.trieStore,
    })
    chain = new Chain(executor, opts)
    const history = opts.stateHistory ?? DEFAULT_STATE_HISTORY
    // one committed root per block, plus a few in-place changes and pending previews
    executor.stateManager.db.maxRoots = history === 0 ? Number.POSITIVE_INFINITY : history + 16
    executor.stateManager.db.pin(executor.stateRoot)
    const g = opts.genesis
    const header: HeaderFields = {
      parentHash: ZERO_HASH,
      unclesHash: EMPTY_UNCLES_HASH,
      coinbase: g.coinbase,
      stateRoot: executor.stateRoot,
      transactionsRoot: EMPTY_TRIE_ROOT,
      receiptsRoot: EMPTY_TRIE_ROOT,
      logsBloom: new Uint8Array(256),
      difficulty: g.difficulty,
      number: 0n,
      gasLimit: g.gasLimit,
      gasUsed: 0n,
      timestamp: g.timestamp,
      extraData: g.extraData,
      paidFees: 0n,
      minimumGasPrice: g.minimumGasPrice,
      uncleCount: 0,
      bitcoinMergedMiningHeader: g.bitcoinMergedMining,
      bitcoinMergedMiningMerkleProof: g.bitcoinMergedMining,
      bitcoinMergedMiningCoinbaseTransaction: g.bitcoinMergedMining,
      rawDifficulty: g.difficultyBytes,
      rawGasLimit: bigIntToBytes(g.gasLimit),
    }
    const genesis = chain.seal(header, [], g.difficulty)
    if (opts.storage) await chain.restore(opts.storage, genesis)
    else chain.append(genesis)
    return chain
  }

  /**
   * Continues the chain stored in `storage` (blocks, indexes, head, live state), or starts it with `genesis`.
   * @throws StorageMismatchError when it holds another genesis or chain id; StorageCorruptError when inconsistent
   */
  private async restore(storage: ChainStorage, genesis: BlockRecord): Promise<void> {
    const sm = this.executor.stateManager
    sm.db.loadRoot = (root) => storage.loadRoot(root)
    const meta: StoredMeta = {
      format: STORAGE_FORMAT,
      network: this.opts.network,
      chainId: Number(this.chainId),
      genesisHash: genesis.hashKey,
    }
    const stored = await storage.read()
    if (stored === undefined) {
      await storage.init(meta, genesis, sm.getTrie())
      this.append(genesis)
      return
    }
    const m = stored.meta
    if (m.format !== STORAGE_FORMAT) {
      throw new StorageMismatchError(`${storage.label} holds a chain in storage format ${m.format}; this version reads format ${STORAGE_FORMAT}`)
    }
    if (m.genesisHash !== meta.genesisHash) {
      throw new StorageMismatchError(
        `${storage.label} holds a chain with a different genesis (network ${m.network}, genesis 0x${m.genesisHash}); ` +
          `this configuration has network ${meta.network}, genesis 0x${meta.genesisHash}. ` +
          'Use another directory, or the --network, --gas-limit, --mnemonic and --balance it was created with',
      )
    }
    if (m.chainId !== meta.chainId) {
      throw new StorageMismatchError(
        `${storage.label} holds a chain with chain id ${m.chainId}; this configuration has chain id ${meta.chainId}`,
      )
    }
    this.index(genesis)
    for await (const { rlp, extra } of stored.blocks) {
      const block = decodeStoredBlock(rlp, extra, this.common)
      if (toKey(block.header.parentHash) !== this.head.hashKey) {
        throw new StorageCorruptError(`${storage.label}: block ${block.header.number} does not follow block ${this.head.header.number}`)
      }
      this.index(block)
    }
    if (this.head.header.number !== stored.head) throw new StorageCorruptError(`${storage.label}: head ${stored.head} is missing`)
    if ((await sm.db.load(stored.liveRoot)) === undefined) {
      throw new StorageCorruptError(`${storage.label}: the state 0x${toKey(stored.liveRoot)} of the head is missing`)
    }
    await this.executor.resetTo(stored.liveRoot)
  }

  /** Stops using the chain's database (after the queue drains). Idempotent. */
  close(): Promise<void> {
    return this.queue.run(() => this.database?.close())
  }

  /** The EIP-155 chain id. */
  get chainId(): bigint {
    return this.opts.common.chainId()
  }

  /** The Common used for transactions. */
  get common(): Common {
    return this.opts.common
  }

  /** The canonical head block. */
  get head(): BlockRecord {
    return this.blocks.head
  }

  /** Canonical block by number, or undefined. */
  blockByNumber(n: bigint): BlockRecord | undefined {
    return this.blocks.byNumber(n)
  }

  /** Canonical block by 32-byte hash, or undefined. */
  blockByHash(hash: Uint8Array): BlockRecord | undefined {
    return this.blocks.byBlockHash(hash)
  }

  /** A mined transaction by hash, or undefined. */
  transaction(hash: Uint8Array): TxLocation | undefined {
    return this.blocks.transaction(hash)
  }

  /** Current time for the next block, in seconds (wall clock + evm_increaseTime offset). */
  now(): bigint {
    return this.dev.now()
  }

  /** Seconds the next block's clock is moved forward (evm_increaseTime), 0 when none. */
  get timeOffset(): bigint {
    return this.dev.timeOffset
  }

  /**
   * Block context of the block that would be mined next on the current head (also the `pending` context
   * for calls and estimates); see {@link DevState.nextContext}.
   */
  nextContext(): BlockContext {
    return this.dev.nextContext(this.head.header)
  }

  /** Whether instant mining is on (transactions are mined as they arrive). */
  get automine(): boolean {
    return this.automineOn
  }

  /** Turns instant mining on or off (the miner: evm_setAutomine, evm_start/stopMining). */
  setAutomine(on: boolean): void {
    this.automineOn = on
  }

  // ---- dev-chain controls (evm_*, anvil_*/hardhat_*): src/chain/dev-state.ts, snapshots in src/chain/snapshots.ts ----

  /**
   * Adds seconds to the clock offset of the next block (evm_increaseTime; reference MinerClock): a value
   * ≤ 0 changes nothing; the offset is cleared once the next block is built.
   * @returns the accumulated offset, seconds
   */
  increaseTime(seconds: bigint): bigint {
    return this.dev.increaseTime(seconds)
  }

  /**
   * Fixes the next block's timestamp (evm_setNextBlockTimestamp).
   * @param timestamp seconds; must be greater than the head's
   * @throws RpcError -32602 when not after the head's timestamp
   */
  setNextBlockTimestamp(timestamp: bigint): void {
    this.dev.setNextBlockTimestamp(timestamp, this.head.header.timestamp)
  }

  /** The coinbase (20 bytes) of blocks mined from now on (anvil_setCoinbase). */
  setCoinbase(address: Uint8Array): void {
    this.dev.setCoinbase(address)
  }

  /**
   * Sets the target minimumGasPrice (wei) and uses it for the next block directly, without the ±1% band
   * (hardhat_setMinGasPrice; later blocks follow the reference band around it).
   */
  setMinGasPrice(wei: bigint): void {
    this.dev.setMinGasPrice(wei)
    this.pendingCache = undefined
  }

  /** Sets the block gas limit of the next block and the target after it (evm_setBlockGasLimit). */
  setBlockGasLimit(gas: bigint): void {
    this.dev.setBlockGasLimit(gas)
    this.pendingCache = undefined
  }

  /**
   * Records the chain head, state, pool and clock so {@link revertTo} can restore them (evm_snapshot).
   * @returns the snapshot id: 1, 2, … (the RPC shows it as "0x1", "0x2", …)
   */
  snapshot(): Promise<number> {
    return this.queue.run(() => {
      this.executor.stateManager.db.pin(this.executor.stateRoot)
      return this.snapshots.take({
        blockNumber: this.head.header.number,
        stateRoot: this.executor.stateRoot,
        pool: [...this.pool.all()],
        ...this.dev.clockControls(),
      })
    })
  }

  /**
   * Restores a snapshot (evm_revert): chain head, state, pool and indexes as they were; blocks after it are
   * removed (their logs are re-sent to filters and subscriptions with removed=true). The id stays usable
   * (reference SnapshotManager); snapshots taken after it are dropped.
   * @returns false for an unknown id
   */
  revertTo(id: number): Promise<boolean> {
    return this.queue.run(async () => {
      const snap = this.snapshots.get(id)
      if (!snap) return false
      for (const s of this.snapshots.keepUpTo(id)) this.executor.stateManager.db.unpin(s.stateRoot)
      await this.rewind(snap.blockNumber, snap.stateRoot)
      this.pool.clear()
      for (const p of snap.pool) this.pool.add(p.tx, p.hash, p.from)
      this.dev.restoreClock(snap)
      return true
    })
  }

  /** Back to genesis (evm_reset / anvil_reset): blocks, pool, snapshots and clock controls are cleared. */
  reset(): Promise<void> {
    return this.queue.run(async () => {
      await this.rewind(0n, this.blocks.genesis.header.stateRoot)
      this.pool.clear()
      for (const snap of this.snapshots.clear()) this.executor.stateManager.db.unpin(snap.stateRoot)
      this.dev.clearNextBlockControls()
    })
  }

  /** Removes blocks above `number` and sets the state to `stateRoot`. Inside the queue. */
  private async rewind(number: bigint, stateRoot: Uint8Array): Promise<void> {
    // the stored chain first (one batch): a failure leaves both as they were
    await this.database?.rewind(number, this.head.header.number, stateRoot)
    const removed = this.blocks.truncateAbove(number)
    await this.executor.resetTo(stateRoot)
    this.pendingCache = undefined
    if (removed.length > 0) this.emit('removedBlocks', removed.reverse())
  }

  /**
   * Changes account state outside any transaction (anvil_/hardhat_ setBalance, setNonce, setCode,
   * setStorageAt). The change applies to the latest state in place, as in Anvil and Hardhat: no block is
   * mined; reads at `latest` and the next block see it.
   * @param change receives the live state manager (inside a checkpoint that is committed)
   */
  modifyState(change: (sm: UnitrieStateManager) => Promise<void>): Promise<void> {
    return this.queue.run(async () => {
      const before = this.executor.stateRoot
      await this.executor.modify(change)
      this.pendingCache = undefined
      if (this.database) {
        try {
          await this.database.writeLiveState(this.executor.stateManager.getTrie())
        } catch (err) {
          await this.executor.resetTo(before)
          throw err
        }
      }
    })
  }

  // ---- state files (src/state-file/): capture for a dump, adopt a loaded state, import a dumped chain ----

  /**
   * A consistent capture of the chain for a state dump, taken inside the queue: the live state (a Unitrie is
   * immutable, so it stays as captured while the chain goes on), blocks 1 … head and the head.
   */
  captureState(): Promise<{ state: Unitrie; blocks: BlockRecord[]; head: BlockRecord; genesis: BlockRecord }> {
    return this.queue.run(() => ({
      state: this.executor.stateManager.getTrie(),
      blocks: this.blocks.afterGenesis(),
      head: this.head,
      genesis: this.blocks.genesis,
    }))
  }

  /**
   * Makes a state built from the live one the live state (anvil_loadState, an Anvil state file): an in-place
   * change like anvil_setBalance (kept with --db), not a block.
   * @param build receives the live state, returns the new one (it must not reject after partial work: nothing
   *   is changed when it rejects)
   */
  replaceLiveState(build: (live: Unitrie) => Promise<Unitrie>): Promise<void> {
    return this.queue.run(async () => {
      const sm = this.executor.stateManager
      const before = this.executor.stateRoot
      const next = await build(sm.getTrie())
      sm.db.register(next)
      await this.executor.resetTo(next.hash())
      this.pendingCache = undefined
      if (this.database) {
        try {
          await this.database.writeLiveState(next)
        } catch (err) {
          await this.executor.resetTo(before)
          throw err
        }
      }
    })
  }

  /**
   * Continues a dumped chain (`--load-state` of a node-cli state file): appends its blocks after the genesis and
   * makes `state` the live state. Only on a chain that has mined nothing and keeps no database.
   * @param blocks `[blockRlp, extra]` of blocks 1 … head (src/chain/storage.ts encodings)
   * @param state the live state of the dump (its root was checked by the caller)
   * @throws Error when the chain is not fresh or a block does not decode or follow its parent
   */
  importChain(blocks: readonly [Uint8Array, Uint8Array][], state: Unitrie): Promise<void> {
    return this.queue.run(async () => {
      if (this.blocks.length !== 1 || this.database) throw new Error('a dumped chain can only be loaded into a new in-memory chain')
      const decoded: BlockRecord[] = []
      let parent = this.head
      for (const [rlp, extra] of blocks) {
        const block = decodeStoredBlock(rlp, extra, this.common)
        if (block.header.number !== parent.header.number + 1n || toKey(block.header.parentHash) !== parent.hashKey) {
          throw new Error(`block ${block.header.number} does not follow block ${parent.header.number}`)
        }
        decoded.push(block)
        parent = block
      }
      const sm = this.executor.stateManager
      sm.db.register(state)
      sm.db.pin(state.hash())
      for (const b of decoded) this.index(b)
      await this.executor.resetTo(state.hash())
      this.pendingCache = undefined
    })
  }

  /** Removes a pool transaction (anvil_dropTransaction). @returns true when it was in the pool */
  dropTransaction(hash: Uint8Array): Promise<boolean> {
    return this.queue.run(() => this.pool.remove(hash) !== undefined)
  }

  // ---- consensus: merged-mining work (mnr_getWork / mnr_submitBitcoinBlock*), see src/chain/merged-mining-work.ts ----

  /** Bumped whenever the pool changes (cache keys). */
  get poolVersion(): number {
    return this.pool.version
  }

  /**
   * Builds the block a merged miner works on: the next block from the pool (as {@link mineBlock} picks it),
   * executed without committing, with its hashForMergedMining (RSKIP110 fork detection data from block 449).
   */
  buildWork(): Promise<MiningWork> {
    return this.queue.run(async () => {
      const ctx = this.nextContext()
      let picked = await this.pickForBlock(ctx)
      for (;;) {
        const txs = picked.map((p) => ({ tx: p.tx, from: p.from }))
        try {
          const { block, applied } = await this.buildBlock(ctx, txs, false)
          const included = picked.filter((_, i) => !applied[i]?.skipped)
          return {
            block,
            hashForMergedMining: workHashForMergedMining(block.header, forkDetectionDataFor(ctx.number, (n) => this.blockByNumber(n))),
            parentHash: this.head.hash,
            ctx,
            txs: included.map((p) => ({ tx: p.tx, from: p.from })),
            poolHashes: included.map((p) => p.hash),
            stateRoot: this.executor.stateRoot,
          }
        } catch (err) {
          if (!(err instanceof PoolApplyError)) throw err
          picked = picked.filter((_, i) => i !== err.index)
        }
      }
    })
  }

  /**
   * Mines a work's block with a merged miner's fields (already validated against its hashForMergedMining).
   * @throws StaleWorkError when the best block or its state changed since the work was built
   */
  submitWork(work: MiningWork, mm: MergedMiningFields): Promise<BlockRecord> {
    return this.queue.run(async () => {
      if (toKey(this.head.hash) !== toKey(work.parentHash) || toKey(this.executor.stateRoot) !== toKey(work.stateRoot)) {
        throw new StaleWorkError('the best block changed since the work was built')
      }
      let result
      try {
        result = await this.mineWith(work.ctx, work.txs, (h) => {
          if (toKey(h) !== toKey(work.hashForMergedMining)) throw new StaleWorkError('the block re-executed differently')
          return mm
        })
      } catch (err) {
        // the state was committed before sealing failed: go back to the parent's
        if (err instanceof StaleWorkError) await this.executor.resetTo(work.stateRoot)
        throw err
      }
      for (const h of work.poolHashes) this.pool.remove(h)
      return result.block
    })
  }

  /** Context of an existing block (calls "at" a past block run in that block's context). */
  contextOf(block: BlockRecord): BlockContext {
    return contextOf(block)
  }

  /**
   * Submits a transaction: validates it against the pool rules (nonce in [account, account+16), funds, gas
   * price, gas limit, …), adds it to the pool (a same-nonce transaction is replaced when the price bump is
   * met) and, with automine on, mines every executable pool transaction, one block each, in order — so a
   * transaction filling a nonce gap also mines the queued ones behind it. A reverted transaction is still
   * mined, then the -32015 error is raised (reference EthModuleTransactionInstant).
   *
   * With automine on and no database, the answer is given as soon as the submitted transaction has executed:
   * the rest of its block (Remasc, roots, merged mining, sealing) is finished right after the answer is on its
   * way (see {@link sealing}), so the client's turnaround overlaps the sealing. Every RPC request waits for
   * {@link sealing} first, so no request can observe the chain before the block is appended. With `--db` the
   * answer waits until the block is written (a mined block is never lost to a crash after its answer).
   * @param tx signed (or impersonation) legacy transaction, or a function building it with the sender's
   *   pending nonce (called inside the queue, so concurrent sends from one account get consecutive nonces)
   * @param from its sender
   * @param opts.allowMissingSender skip the reference's "sender account must exist" rule (impersonated senders)
   * @returns the hash
   * @throws RpcError -32010 when the pool rejects it; -32015 when it was mined but failed
   */
  submit(tx: TxToSubmit, from: Uint8Array, opts: { allowMissingSender?: boolean } = {}): Promise<{ hash: Uint8Array }> {
    if (!this.automineOn || this.database) return this.queue.run(() => this.submitInQueue(tx, from, opts))
    // resolved early by the callback below, or by the task (a settled promise ignores the later of the two)
    return new Promise((resolve, reject) => {
      const task = this.queue.run(() =>
        this.submitInQueue(tx, from, opts, async (hash, outcome, gasLimit) => {
          const gate: Promise<void> = task.then(
            () => undefined,
            (err: unknown) => {
              // the submitted transaction's own failure was its answer; anything else is the node's
              if (!(err instanceof RpcError)) this.emit('internalError', err)
            },
          ).then(() => {
            if (this.sealingGate === gate) this.sealingGate = undefined
          })
          this.sealingGate = gate
          if (outcome.error === undefined) resolve({ hash })
          else reject(executionError(outcome.error, outcome.returnValue, gasLimit, hash))
          // let the answer be written before the block is sealed
          await new Promise<void>((r) => setImmediate(r))
        }),
      )
      task.then(resolve, reject)
    })
  }

  /**
   * Completes while a block whose transaction was already answered is being finished (see {@link submit});
   * undefined when none is. The RPC layer awaits it before running any request. It never rejects: a failure of
   * that sealing other than the transaction's own error is emitted as `internalError` (err) instead.
   */
  get sealing(): Promise<void> | undefined {
    return this.sealingGate
  }

  private sealingGate: Promise<void> | undefined

  /**
   * {@link submit}'s work, inside the queue.
   * @param onExecuted called once the submitted transaction has executed in its block, before the block is
   *   sealed; the sealing waits for the promise it returns
   * @returns the hash
   * @throws RpcError -32010 when the pool rejects the transaction; -32015 when it was mined but failed
   */
  private async submitInQueue(
    toSubmit: TxToSubmit,
    from: Uint8Array,
    opts: { allowMissingSender?: boolean },
    onExecuted?: (hash: Uint8Array, outcome: AppliedTx, gasLimit: bigint) => Promise<void>,
  ): Promise<{ hash: Uint8Array }> {
    const tx = typeof toSubmit === 'function' ? toSubmit(await this.pendingNonceInQueue(from)) : toSubmit
    const hash = tx.hash()
    const ctx = this.nextContext()
    const sender = await this.executor.getAccount(from, this.executor.stateRoot)
    validateTransaction(tx, {
      sender,
      expectedNonce: sender.nonce,
      blockGasLimit: ctx.gasLimit,
      minimumGasPrice: ctx.minimumGasPrice,
      allowFutureNonce: true,
      allowMissingSender: opts.allowMissingSender,
    })
    this.pool.add(tx, hash, from)
    this.emit('pendingTransaction', hash, from)
    if (!this.automineOn) return { hash }
    let failure: RpcError | undefined
    for (;;) {
      const next = (await this.orderedPool())[0]
      if (!next) break
      const ours = bytesEqual(next.hash, hash)
      let result
      try {
        result = await this.mineFromPool(
          this.nextContext(),
          [next],
          false,
          ours && onExecuted ? (applied) => onExecuted(hash, applied.txs[0]!, tx.gasLimit) : undefined,
        )
      } catch (err) {
        // the transaction could not be applied and was dropped from the pool
        if (ours) throw err
        continue
      }
      if (ours) {
        const outcome = result.applied[0]!
        if (outcome.error !== undefined) failure = executionError(outcome.error, outcome.returnValue, tx.gasLimit, hash)
      }
    }
    if (failure) throw failure
    return { hash }
  }

  /** Pool transactions in mining order (highest gas price first, nonces in order per sender). Inside the queue. */
  private async orderedPool(): Promise<PoolTx[]> {
    const nonces = await this.poolNonces()
    return this.pool.ordered((a) => nonces.get(toKey(a)) ?? 0n)
  }

  private async poolNonces(): Promise<Map<string, bigint>> {
    const nonces = new Map<string, bigint>()
    for (const p of this.pool.all()) {
      const k = toKey(p.from)
      if (!nonces.has(k)) nonces.set(k, (await this.executor.getAccount(p.from, this.executor.stateRoot)).nonce)
    }
    return nonces
  }

  /**
   * Pending (executable) and queued (after a nonce gap) pool transactions, each by sender then nonce.
   */
  poolContent(): Promise<{ pending: PoolTx[]; queued: PoolTx[] }> {
    return this.queue.run(async () => {
      const nonces = await this.poolNonces()
      return this.pool.split((a) => nonces.get(toKey(a)) ?? 0n)
    })
  }

  /** A transaction still in the pool, or undefined. */
  pooled(hash: Uint8Array): PoolTx | undefined {
    return this.pool.get(hash)
  }

  /**
   * The next nonce of `address` counting its executable pool transactions (the `pending` nonce).
   */
  pendingNonce(address: Uint8Array): Promise<bigint> {
    return this.queue.run(() => this.pendingNonceInQueue(address))
  }

  private async pendingNonceInQueue(address: Uint8Array): Promise<bigint> {
    let n = (await this.executor.getAccount(address, this.executor.stateRoot)).nonce
    while (this.pool.at(address, n)) n++
    return n
  }

  /**
   * Mines one block from the pool: transactions in mining order while they fit the block gas limit (a
   * transaction that does not fit waits, and so do its sender's later ones). Empty when the pool is.
   * @returns the new block
   */
  mineBlock(): Promise<BlockRecord> {
    return this.queue.run(async () => {
      const ctx = this.nextContext()
      return (await this.mineFromPool(ctx, await this.pickForBlock(ctx))).block
    })
  }

  /**
   * Mines `picked` pool transactions in one block and removes them from the pool. A transaction that can no
   * longer be applied (e.g. its sender's funds changed) is dropped from the pool and the block is retried
   * without it; when nothing is left and `allowEmpty` is false, that error is raised instead of mining an
   * empty block. Inside the queue.
   * @throws RpcError -32010 (see above)
   */
  private async mineFromPool(
    ctx: BlockContext,
    picked: PoolTx[],
    allowEmpty = true,
    onExecuted?: OnExecuted,
  ): Promise<{ block: BlockRecord; applied: AppliedTx[] }> {
    let txs = picked
    for (;;) {
      try {
        const result = await this.mineWith(
          ctx,
          txs.map((p) => ({ tx: p.tx, from: p.from })),
          undefined,
          onExecuted,
        )
        // a transaction no RSKIP144 sublist had room for stays in the pool
        txs.forEach((p, i) => {
          if (!result.applied[i]?.skipped) this.pool.remove(p.hash)
        })
        return result
      } catch (err) {
        if (!(err instanceof PoolApplyError)) throw err
        const bad = txs[err.index]!
        this.pool.remove(bad.hash)
        this.emit('droppedTransaction', bad.hash, err.message)
        txs = txs.filter((p) => p !== bad)
        if (txs.length === 0 && !allowEmpty) throw err
      }
    }
  }

  /**
   * Mines one block with the given transactions (they must be valid in order) — or an empty block.
   * Must run inside the queue.
   */
  private async mineWith(
    ctx: BlockContext,
    txs: { tx: LegacyTx; from: Uint8Array }[],
    mm?: MergedMiningSource,
    onExecuted?: OnExecuted,
  ): Promise<{ block: BlockRecord; applied: AppliedTx[] }> {
    const parentState = this.executor.stateRoot
    const result = await this.buildBlock(ctx, txs, true, mm, onExecuted)
    if (this.database) {
      // one batch per block (block, receipts, state nodes, head) before anyone sees the block
      try {
        await this.database.writeBlock(result.block, this.executor.stateManager.getTrie())
      } catch (err) {
        await this.executor.resetTo(parentState)
        throw err
      }
    }
    this.append(result.block)
    return result
  }

  /**
   * Executes `txs` in the context and seals the block; `commit` false previews it (the `pending` block).
   * @param onExecuted awaited between the execution and the sealing
   * @throws PoolApplyError when a transaction cannot be applied
   */
  private async buildBlock(
    ctx: BlockContext,
    txs: { tx: LegacyTx; from: Uint8Array }[],
    commit: boolean,
    mm?: MergedMiningSource,
    onExecuted?: OnExecuted,
  ): Promise<{ block: BlockRecord; applied: AppliedTx[] }> {
    let applied
    const preRoot = this.executor.stateRoot
    try {
      applied = await this.executor.applyBlock(ctx, txs, { commit })
    } catch (err) {
      if (err instanceof TxApplyError) throw new PoolApplyError(normalizeApplyError(err.message), err.index)
      throw err
    }
    if (onExecuted) await onExecuted(applied)
    // consensus: block order (RSKIP144 sublists) with the Remasc transaction last
    const records: TxRecord[] = blockTransactions(ctx.number, txs, applied, this.opts.common)
    const bloom = orBlooms(records.map((r) => r.receipt.logsBloom))
    const parent = this.head
    const header: HeaderFields = {
      parentHash: parent.hash,
      unclesHash: EMPTY_UNCLES_HASH,
      coinbase: ctx.coinbase,
      stateRoot: applied.stateRoot,
      transactionsRoot: transactionsTrieRoot(records.map((r) => r.tx.serialize())),
      receiptsRoot: receiptsTrieRoot(records.map((r) => r.receipt)),
      logsBloom: bloom,
      difficulty: ctx.difficulty,
      number: ctx.number,
      gasLimit: ctx.gasLimit,
      gasUsed: applied.gasUsed,
      timestamp: ctx.timestamp,
      extraData: this.opts.extraData,
      paidFees: applied.paidFees,
      minimumGasPrice: ctx.minimumGasPrice,
      uncleCount: 0,
      bitcoinMergedMiningHeader: new Uint8Array(0),
      bitcoinMergedMiningMerkleProof: new Uint8Array(0),
      bitcoinMergedMiningCoinbaseTransaction: new Uint8Array(0),
      edges: applied.edges,
    }
    // consensus: a mined block is merge-mined (the pending preview has no merged-mining fields)
    const hfmm = commit ? mergeMine(header, (n) => this.blockByNumber(n), mm) : undefined
    const block = this.seal(header, records, parent.totalDifficulty + ctx.difficulty, hfmm)
    // the tracers replay a block on the state it ran on: its parent's, unless changed in place in between
    if (commit && !bytesEqual(preRoot, parent.header.stateRoot)) this.preStateRoots.set(block.hashKey, preRoot)
    if (commit) {
      for (let i = 0; i < txs.length; i++) {
        const lines = applied.txs[i]!.consoleLogs
        if (lines !== undefined) this.emit('console', { source: 'transaction', hash: txs[i]!.tx.hash(), lines } satisfies ConsoleLogEvent)
      }
    }
    return { block, applied: applied.txs }
  }

  /**
   * Mines one block with no transactions.
   * @returns the new block
   */
  mineEmpty(): Promise<BlockRecord> {
    return this.queue.run(async () => (await this.mineWith(this.nextContext(), [])).block)
  }

  /**
   * The `pending` block: a sample next block on top of the head, built from the pool's executable
   * transactions (as {@link mineBlock} would pick them) without committing (spec §2 rule 3; reference
   * ExecutionBlockRetriever). Cached until the head or the pool changes. Its state root stays readable, so
   * `pending` state reads see the pool's effects.
   */
  pendingBlock(): Promise<BlockRecord> {
    return this.queue.run(() => this.computePending())
  }

  private pendingCache: { key: string; block: BlockRecord } | undefined

  /** Inside the queue. */
  private async computePending(): Promise<BlockRecord> {
    const key = `${this.head.hashKey}:${this.pool.version}:${toKey(this.executor.stateRoot)}`
    if (this.pendingCache?.key === key) return this.pendingCache.block
    const ctx = this.nextContext()
    let picked = await this.pickForBlock(ctx)
    let block: BlockRecord | undefined
    while (block === undefined) {
      try {
        block = (await this.buildBlock(ctx, picked.map((p) => ({ tx: p.tx, from: p.from })), false)).block
      } catch (err) {
        if (!(err instanceof PoolApplyError)) throw err
        picked = picked.filter((_, i) => i !== err.index)
      }
    }
    this.pendingCache = { key, block }
    return block
  }

  /** Pool transactions for the next block: mining order while they fit the block gas limit. Inside the queue. */
  private async pickForBlock(ctx: BlockContext): Promise<PoolTx[]> {
    const picked: PoolTx[] = []
    let gas = 0n
    const blockedSenders = new Set<string>()
    for (const p of await this.orderedPool()) {
      const k = toKey(p.from)
      if (blockedSenders.has(k)) continue
      if (gas + p.tx.gasLimit > ctx.gasLimit) {
        blockedSenders.add(k)
        continue
      }
      gas += p.tx.gasLimit
      picked.push(p)
    }
    return picked
  }

  private seal(header: HeaderFields, txs: TxRecord[], totalDifficulty: bigint, hfmm?: Uint8Array): BlockRecord {
    const hash = headerHash(header)
    const rlp = blockEncoding(
      header,
      txs.map((t) => t.tx.serialize()),
    )
    const block: BlockRecord = {
      header,
      hash,
      hashKey: toKey(hash),
      hashForMergedMining: hfmm ?? hashForMergedMining(header),
      size: rlp.length,
      totalDifficulty,
      cumulativeDifficulty: header.difficulty,
      transactions: txs,
      uncles: [],
    }
    // the storage writes this encoding as it is (no second encoding per mined block)
    if (this.database) encodedBlocks.set(block, rlp)
    return block
  }

  private append(block: BlockRecord): void {
    // the clock controls apply to one block (reference MinerServerImpl.buildBlockToMine clears the offset)
    this.dev.clearNextBlockControls()
    this.index(block)
    this.emit('block', block)
  }

  /** Adds a block to the canonical chain and its indexes. */
  private index(block: BlockRecord): void {
    this.blocks.add(block)
  }

  /**
   * eth_call against a block's state (src/chain/state-queries.ts).
   * @throws RpcError -32015 on revert (data = revert bytes); -32000 when the sender cannot pay the value;
   *   -32011 "Execution has got timeout out." past {@link executionTimeoutMs} (nothing is cached or kept)
   */
  call(req: CallRequest, block: BlockRecord | 'pending', over: CallOverrides = {}): Promise<CallResult> {
    return this.queue.run(() => this.queries.call(req, block, over))
  }

  /**
   * eth_estimateGas: the lowest gas limit with which the call succeeds, capped by the estimation cap.
   * @throws RpcError -32015 when it fails even at the cap; -32000 "insufficient funds for transfer"
   */
  estimateGas(req: CallRequest, block: BlockRecord | 'pending', over: CallOverrides = {}): Promise<bigint> {
    return this.queue.run(() => this.queries.estimateGas(req, block, over))
  }

  /** Account fields at a block (inside the queue). */
  account(address: Uint8Array, block: BlockRecord | 'pending') {
    return this.queue.run(() => this.queries.account(address, block))
  }

  /** Code at a block (inside the queue). */
  code(address: Uint8Array, block: BlockRecord | 'pending') {
    return this.queue.run(() => this.queries.code(address, block))
  }

  /** Storage word at a block (inside the queue). */
  storage(address: Uint8Array, slot: Uint8Array, block: BlockRecord | 'pending') {
    return this.queue.run(() => this.queries.storage(address, slot, block))
  }

  /** Roots blocks ran on where they differ from the parent's (state changed in place in between; in memory only). */
  private readonly preStateRoots = new LRUCache<string, Uint8Array>({ max: 4096 })

  /** The state root `block`'s transactions ran on: its parent's, or the in-place-changed state they ran on. */
  preStateRoot(block: BlockRecord): Uint8Array | undefined {
    return this.preStateRoots.get(block.hashKey) ?? this.blockByNumber(block.header.number - 1n)?.header.stateRoot
  }

  /**
   * Block context and state root to run at, for executions outside this class (debug_traceCall; inside the queue).
   * @throws RpcError -32600 "State not found…" beyond the kept states
   */
  executionState(block: BlockRecord | 'pending'): Promise<{ ctx: BlockContext; root: Uint8Array }> {
    return this.stateFor(block)
  }

  /** Block context and state root to run or read at (inside the queue). */
  private stateFor(block: BlockRecord | 'pending'): Promise<{ ctx: BlockContext; root: Uint8Array }> {
    return this.queries.stateFor(block)
  }
}

/** Maps @ethereumjs runTx rejection texts to the reference pool's messages. */
function normalizeApplyError(message: string): string {
  if (/nonce/i.test(message) && /too low|higher|lower/i.test(message)) return 'transaction nonce too low'
  if (/enough funds|insufficient/i.test(message)) return 'insufficient funds'
  if (/gas limit|gasLimit/i.test(message)) return "transaction's basic cost is above the gas limit"
  return message
}
