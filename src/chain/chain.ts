/**
 * The chain: the one serialized writer (its queue) that sequences the parts below and emits the chain's events
 * (docs/architecture.md#single-writer, docs/architecture.md#events). Each part holds one job and emits no
 * events; only the submission path runs tasks on the queue itself (for its answer before the block is finished):
 * - block-store.ts: the canonical blocks, the hash and transaction indexes;
 * - dev-state.ts, snapshots.ts: the clock offset, next-block overrides, mining targets; evm_snapshot records;
 * - block-builder.ts: building and assembling blocks, the genesis, the `pending` block;
 * - tx-submission.ts: the pool, pool submission and automine (its early answer);
 * - state-queries.ts: calls, estimates (with their memo and overrides) and state reads;
 * - live-state.ts: in-place state changes, state-file capture and import; chain-restore.ts: continuing `--db`;
 * - block-commit.ts: a mined block built, written to `--db` and appended; rewind.ts: snapshot, revert, reset;
 * - work-blocks.ts: the blocks of merged-mining work; chain-options.ts: the options of {@link Chain.create};
 *   chain-setup.ts: the executor, the parts and the start (genesis, fork block or `--db`) of {@link Chain.create}.
 *
 * Events: `block` (BlockRecord) after every appended block; `removedBlocks` (BlockRecord[], highest first) after
 * a revert or reset; `pendingTransaction` (hash, from) and `droppedTransaction` (hash, reason) from the pool;
 * `console` (ConsoleLogEvent); `internalError` (err) for a failure while finishing an already-answered block.
 */
import type { AppliedTx, BlockContext, Executor } from '../execution/executor.js'
import type { MergedMiningFields } from '../rsk/merged-mining/merged-mining.js'
import type { Unitrie } from '../unitrie/unitrie.js'
import type { UnitrieStateManager } from '../state/unitrie-state-manager.js'
import type { PoolTx } from '../txpool/pool.js'
import type { BlockTx, OnExecuted } from './mining/block-builder.js'
import type { ChainOptions } from './chain-options.js'
import type { EncodedBlock } from '../blocks/block-codec.js'
import type { AddressIndex, IndexedTx } from '../blocks/address-index.js'
import { commitBlock, type CommitParts } from './mining/block-commit.js'
import type { MergedMiningSource, MiningWork } from './mining/consensus.js'
import { assembleParts, createChainExecutor, startChain, type ChainParts } from './chain-setup.js'
import { SerialQueue } from '../util/serial-queue.js'
import type { ChainCapture } from './live-state.js'
import { EventEmitter } from 'node:events'
import { ChainReads } from './chain-reads.js'
import { Rewinds } from './dev/rewind.js'
import type { TxToSubmit } from './mining/tx-submission.js'
import { buildWorkBlock, mineWorkBlock, type WorkParts } from './mining/work-blocks.js'
import type { BlockRecord } from '../types/records.js'
import type { ProgressListener } from '../util/progress.js'

export { DEFAULT_STATE_HISTORY, type ChainOptions } from './chain-options.js'
export type { ConsoleLogEvent } from './queries/state-queries.js'
export type { TxLocation } from '../blocks/block-store.js'
export type { TxToSubmit } from './mining/tx-submission.js'

/** One assembly of the chain over an executor: replaced whole when the chain starts over (Chain.reopen). */
interface ChainAssembly {
  executor: Executor
  opts: ChainOptions
  parts: ChainParts
  reads: ChainReads
  /** evm_snapshot, evm_revert and resets (src/chain/dev/rewind.ts). */
  rewinds: Rewinds
  /** What a mined block is committed with (src/chain/mining/block-commit.ts). */
  commit: CommitParts
}

/**
 * The chain state machine. All mutating operations and all VM access run through {@link Chain.queue}; nothing
 * outside writes its fields (automine, the clock, the finishing-block gate change through methods only). Its parts are
 * built by src/chain/chain-setup.ts; its reads (blocks, state, calls, the pending block) are {@link Chain.reads}
 * (src/chain/chain-reads.ts).
 */
export class Chain extends EventEmitter {
  /** The single writer; also used for every read that touches the VM/state. */
  readonly queue = new SerialQueue()
  /** The predicates of {@link wantRemovedBlocks} (kept for the rewinds of a reopened chain). */
  private readonly removedWanted: (() => boolean)[] = []
  private assembly: ChainAssembly

  private constructor(executor: Executor, opts: ChainOptions) {
    super()
    this.setMaxListeners(0)
    this.assembly = this.assemble(executor, opts)
  }

  /** Builds the parts, the reads, the rewinds and the commit over `executor` (at creation and on reopen). */
  private assemble(executor: Executor, opts: ChainOptions): ChainAssembly {
    const parts = assembleParts(executor, opts, {
      queue: this.queue,
      emit: (event, ...args) => this.emit(event, ...args),
      head: () => this.reads.head,
      nextContext: () => this.reads.nextContext(),
      computePending: () => this.reads.computePending(),
      mineWith: (ctx, txs, onExecuted) => this.mineWith(ctx, txs, undefined, onExecuted),
    })
    const reads = new ChainReads(parts, { queue: this.queue, executor, opts })
    const { blocks, builder, dev, forkRoot } = parts
    const database = opts.storage
    const rewinds = new Rewinds({
      ...{ executor, blocks, history: parts.history, logs: parts.logs, builder, dev, database, forkRoot },
      pool: () => parts.submission.pool,
      emitRemoved: (removed) => this.emit('removedBlocks', removed),
    })
    for (const p of this.removedWanted) rewinds.wantRemovedBlocks(p)
    const commit: CommitParts = {
      ...{ executor, blocks, builder, database },
      transactionBlockKeeper: opts.transactionBlockKeeper,
      prefetch: opts.fork && ((accounts) => reads.prefetch(accounts)),
      append: (block, enc, addresses) => this.append(block, enc, addresses),
    }
    return { executor, opts, parts, reads, rewinds, commit }
  }

  /**
   * Creates the chain with its genesis block, or continues the chain held by `opts.storage`
   * (src/chain/chain-setup.ts).
   * @throws StorageMismatchError when the storage holds a chain of another genesis or chain id
   */
  static async create(opts: ChainOptions): Promise<Chain> {
    let chain: Chain | undefined
    const executor = await createChainExecutor(opts, () => chain?.assembly.parts.blocks)
    const created = (chain = new Chain(executor, opts))
    await startChain(opts, executor, created.parts, (genesis) => created.append(genesis))
    return created
  }

  /**
   * The chain's reads: blocks, transactions, the clock, the pending block, calls, estimates and state
   * (src/chain/chain-reads.ts). Read it at each use: a chain that starts over (reopen) has new reads.
   */
  get reads(): ChainReads {
    return this.assembly.reads
  }

  /** The executor (replaced when the chain starts over on another fork: {@link reopen}). */
  get executor(): Executor {
    return this.assembly.executor
  }

  /** The parts of the current assembly (src/chain/chain-setup.ts). */
  private get parts(): ChainParts {
    return this.assembly.parts
  }

  /** Stops using the chain's database (after the queue drains). Idempotent. */
  close(): Promise<void> {
    return this.queue.run(() => this.assembly.opts.storage?.close())
  }

  /**
   * Registers a listener's interest in the records of blocks removed by a revert (the `removedBlocks` event):
   * when no registered predicate answers true, a rewind does not decode the removed blocks and the event
   * carries an empty list.
   */
  wantRemovedBlocks(predicate: () => boolean): void {
    this.removedWanted.push(predicate)
    this.assembly.rewinds.wantRemovedBlocks(predicate)
  }

  /**
   * Starts over on another fork block or remote, or without a fork (anvil_reset with or without `forking`,
   * docs/architecture.md#forking): the local blocks are removed as by a reset (filters and subscriptions see
   * them go), then a new executor and parts are built over `opts` — same Common and network — and its first
   * block (fork block or genesis) is appended. Automine, console.log decoding and listeners carry over; the pool,
   * snapshots and clock controls do not.
   * @param opts the options of the new chain (`fork` for the new fork, none for a plain chain; no storage)
   */
  reopen(opts: ChainOptions): Promise<void> {
    return this.queue.run(async () => {
      if (opts.storage !== undefined || this.assembly.opts.storage !== undefined) {
        throw new Error('a chain with --db cannot reopen')
      }
      const executor = await createChainExecutor(opts, () => this.parts.blocks)
      await this.assembly.rewinds.reset()
      const automine = this.automine
      executor.consoleLog = this.executor.consoleLog
      this.assembly = this.assemble(executor, opts)
      this.setAutomine(automine)
      await startChain(opts, executor, this.parts, (first) => this.append(first))
    })
  }

  /** Whether instant mining is on (transactions are mined as they arrive). */
  get automine(): boolean {
    return this.parts.submission.automine
  }

  /** Turns instant mining on or off (the miner: evm_setAutomine, evm_start/stopMining). */
  setAutomine(on: boolean): void {
    this.parts.submission.setAutomine(on)
  }

  // ---- dev-chain controls (evm_*, anvil_*/hardhat_*): src/chain/dev/dev-state.ts, src/chain/dev/rewind.ts ----

  /**
   * Adds seconds to the clock offset of the next block (evm_increaseTime; reference MinerClock): a value
   * ≤ 0 changes nothing; the offset is cleared once the next block is built.
   * @returns the accumulated offset, seconds
   */
  increaseTime(seconds: bigint): bigint {
    return this.parts.dev.increaseTime(seconds)
  }

  /**
   * Fixes the next block's timestamp (evm_setNextBlockTimestamp).
   * @param timestamp seconds; must be greater than the head's
   * @throws InvalidArgumentError when not after the head's timestamp
   */
  setNextBlockTimestamp(timestamp: bigint): void {
    this.parts.dev.setNextBlockTimestamp(timestamp, this.reads.head.header.timestamp)
  }

  /** The coinbase (20 bytes) of blocks mined from now on (anvil_setCoinbase). */
  setCoinbase(address: Uint8Array): void {
    this.parts.dev.setCoinbase(address)
  }

  /**
   * Sets the target minimumGasPrice (wei) and uses it for the next block directly, without the ±1% band
   * (hardhat_setMinGasPrice; later blocks follow the reference band around it).
   */
  setMinGasPrice(wei: bigint): void {
    this.parts.dev.setMinGasPrice(wei)
    this.parts.builder.invalidatePending()
  }

  /** Sets the block gas limit of the next block and the target after it (evm_setBlockGasLimit). */
  setBlockGasLimit(gas: bigint): void {
    this.parts.dev.setBlockGasLimit(gas)
    this.parts.builder.invalidatePending()
  }

  /**
   * Records the chain head, state, pool and clock so {@link revertTo} can restore them (evm_snapshot).
   * @returns the snapshot id: 1, 2, … (the RPC shows it as "0x1", "0x2", …)
   */
  snapshot(): Promise<number> {
    return this.queue.run(() => this.assembly.rewinds.snapshot())
  }

  /**
   * Restores a snapshot (evm_revert): chain head, state, pool and indexes as they were; blocks after it are
   * removed (their logs are re-sent to filters and subscriptions with removed=true). The id stays usable
   * (reference SnapshotManager); snapshots taken after it are dropped.
   * @returns false for an unknown id
   */
  revertTo(id: number): Promise<boolean> {
    return this.queue.run(() => this.assembly.rewinds.revertTo(id))
  }

  /**
   * Back to genesis (evm_reset / anvil_reset), or to the fork block in a fork: blocks, pool, snapshots and clock
   * controls are cleared.
   */
  reset(): Promise<void> {
    return this.queue.run(() => this.assembly.rewinds.reset())
  }

  /**
   * Changes account state outside any transaction (anvil_/hardhat_ setBalance, setNonce, setCode,
   * setStorageAt). The change applies to the latest state in place, as in Anvil and Hardhat: no block is
   * mined; reads at `latest` and the next block see it.
   * @param change receives the live state manager (inside a checkpoint that is committed)
   */
  modifyState(change: (sm: UnitrieStateManager) => Promise<void>): Promise<void> {
    return this.queue.run(async () => {
      try {
        await this.parts.live.modify(change)
      } finally {
        this.parts.builder.invalidatePending()
      }
    })
  }

  // ---- state files (src/state-file/): capture for a dump, adopt a loaded state, import a dumped chain ----

  /**
   * A consistent capture of the chain for a state dump, taken inside the queue: the live state (a Unitrie is
   * immutable, so it stays as captured while the chain goes on), blocks 1 … head and the head.
   */
  captureState(): Promise<ChainCapture> {
    return this.queue.run(() => this.parts.live.capture())
  }

  /**
   * Makes a state built from the live one the live state (anvil_loadState, an Anvil state file): an in-place
   * change like anvil_setBalance (kept with --db), not a block.
   * @param build receives the live state, returns the new one (it must not reject after partial work: nothing
   *   is changed when it rejects)
   */
  replaceLiveState(build: (live: Unitrie) => Promise<Unitrie>): Promise<void> {
    return this.queue.run(async () => {
      try {
        await this.parts.live.replace(build)
      } finally {
        this.parts.builder.invalidatePending()
      }
    })
  }

  /**
   * Continues a dumped chain (`--load-state` of a node-cli state file): appends its blocks after the genesis and
   * makes `state` the live state. Only on a chain that has mined nothing and keeps no database.
   * @param blocks `[blockRlp, derived, addresses?]` of blocks 1 … head (src/chain/live-state.ts importChain)
   * @param state the live state of the dump (its root was checked by the caller)
   * @param onProgress receives the `importing blocks` step (blocks checked of all, throttled)
   * @throws Error when the chain is not fresh or a block does not decode or follow its parent
   */
  importChain(
    blocks: readonly (readonly [Uint8Array, Uint8Array, Uint8Array?])[],
    state: Unitrie,
    onProgress?: ProgressListener,
  ): Promise<void> {
    return this.queue.run(async () => {
      await this.parts.live.importChain(blocks, state, onProgress)
      this.parts.builder.invalidatePending()
    })
  }

  /**
   * The address index (Otterscan's address pages, src/chain/address-history.ts): which mined transactions touched,
   * sent or created what. Read it synchronously right after the promise resolves (an append may follow); its
   * positions name blocks that may be gone after a revert.
   * @throws StorageCorruptError when a `--db` record does not decode (the first call with `--db` reads them)
   */
  addressIndex(): Promise<AddressIndex> {
    const history = this.parts.history
    return history.isLoaded ? history.ready() : this.queue.run(() => history.ready())
  }

  /** Removes a pool transaction (anvil_dropTransaction). @returns true when it was in the pool */
  dropTransaction(hash: Uint8Array): Promise<boolean> {
    return this.queue.run(() => this.parts.submission.pool.remove(hash) !== undefined)
  }

  // ---- merged-mining work (mnr_getWork / mnr_submitBitcoinBlock*): src/chain/mining/work-blocks.ts ----

  /**
   * Builds the block a merged miner works on: the next block from the pool (as {@link mineBlock} picks it),
   * executed without committing, with its hashForMergedMining (RSKIP110 fork detection data from block 449).
   */
  buildWork(): Promise<MiningWork> {
    return this.queue.run(() => buildWorkBlock(this.reads.nextContext(), this.workParts()))
  }

  /**
   * Mines a work's block with a merged miner's fields (already validated against its hashForMergedMining).
   * @throws StaleWorkError when the best block or its state changed since the work was built
   */
  submitWork(work: MiningWork, mm: MergedMiningFields): Promise<BlockRecord> {
    return this.queue.run(() => mineWorkBlock(work, mm, this.workParts(), this.parts.submission.pool))
  }

  /** The parts the merged-mining work blocks use (src/chain/mining/work-blocks.ts). */
  private workParts(): WorkParts {
    const { executor } = this
    const { blocks, builder, submission } = this.parts
    return { executor, blocks, builder, submission, mineWith: (ctx, txs, mm) => this.mineWith(ctx, txs, mm) }
  }

  /**
   * Submits a transaction: validates it against the pool rules (nonce in [account, account+16), funds, gas
   * price, gas limit, …), adds it to the pool (a same-nonce transaction is replaced when the price bump is
   * met) and, with automine on, mines every executable pool transaction, one block each, in order — so a
   * transaction filling a nonce gap also mines the queued ones behind it. A reverted transaction is still
   * mined, then the -32015 error is raised (reference EthModuleTransactionInstant).
   *
   * With automine on and no database, the answer is given as soon as the submitted transaction has executed:
   * the rest of its block (Remasc, roots, merged mining, assembly) is finished right after the answer is on its
   * way (see {@link finishingBlock}), so the client's turnaround overlaps the finishing. Every RPC request waits
   * for {@link finishingBlock} first, so no request can observe the chain before the block is appended. With `--db` the
   * answer waits until the block is written (a mined block is never lost to a crash after its answer).
   * @param tx signed (or impersonation) legacy transaction, or a function building it with the sender's
   *   pending nonce (called inside the queue, so concurrent sends from one account get consecutive nonces)
   * @param from its sender
   * @param opts.allowMissingSender skip the reference's "sender account must exist" rule (impersonated senders)
   * @returns the hash
   * @throws TxRejectedError when the pool rejects it; VmExecutionError when it was mined but failed;
   *   ExecutionTimeoutError when its execution ran past {@link executionTimeoutMs}: it is dropped and nothing is
   *   mined (docs/reference-rules.md#rule-send-deadline)
   */
  submit(tx: TxToSubmit, from: Uint8Array, opts: { allowMissingSender?: boolean } = {}): Promise<{ hash: Uint8Array }> {
    return this.parts.submission.submit(tx, from, opts)
  }

  /**
   * Completes while a block whose transaction was already answered is being finished (see {@link submit});
   * undefined when none is. The RPC layer awaits it before running any request. It never rejects: a failure of
   * that finishing other than the transaction's own error is emitted as `internalError` (err) instead.
   */
  get finishingBlock(): Promise<void> | undefined {
    return this.parts.submission.finishingBlock
  }

  /**
   * Pending (executable) and queued (after a nonce gap) pool transactions, each by sender then nonce.
   */
  poolContent(): Promise<{ pending: PoolTx[]; queued: PoolTx[] }> {
    return this.queue.run(() => this.parts.submission.content())
  }

  /**
   * The next nonce of `address` counting its executable pool transactions (the `pending` nonce).
   */
  pendingNonce(address: Uint8Array): Promise<bigint> {
    return this.queue.run(() => this.parts.submission.pendingNonce(address))
  }

  /**
   * Mines one block from the pool: transactions in mining order while they fit the block gas limit (a
   * transaction that does not fit waits, and so do its sender's later ones). Empty when the pool is.
   * @returns the new block
   */
  mineBlock(): Promise<BlockRecord> {
    return this.queue.run(async () => {
      const ctx = this.reads.nextContext()
      return (await this.parts.submission.mineFromPool(ctx, await this.parts.submission.pickForBlock(ctx))).block
    })
  }

  /**
   * Mines one block with the given transactions (they must be valid in order) — or an empty block
   * (src/chain/mining/block-commit.ts). Must run inside the queue.
   */
  private mineWith(
    ctx: BlockContext,
    txs: BlockTx[],
    mm?: MergedMiningSource,
    onExecuted?: OnExecuted,
  ): Promise<{ block: BlockRecord; applied: AppliedTx[] }> {
    return commitBlock(this.assembly.commit, ctx, txs, mm, onExecuted)
  }

  /**
   * Mines one block with no transactions.
   * @returns the new block
   */
  mineEmpty(): Promise<BlockRecord> {
    return this.queue.run(async () => (await this.mineWith(this.reads.nextContext(), [])).block)
  }

  private append(block: BlockRecord, enc?: EncodedBlock, addresses?: readonly IndexedTx[]): void {
    // the clock controls apply to one block (reference MinerServerImpl.buildBlockToMine clears the offset)
    this.parts.dev.clearNextBlockControls()
    this.parts.blocks.add(block, enc)
    if (addresses !== undefined) this.parts.history.append(block.header.number, addresses)
    this.parts.logs.append(Number(block.header.number), block.transactions)
    this.emit('block', block)
  }
}
