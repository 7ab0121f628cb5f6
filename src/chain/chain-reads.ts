/**
 * The read side of the chain and the parts it holds (src/chain/chain.ts extends it with every change): the parts
 * assembled by src/chain/chain-setup.ts, block and transaction reads (src/blocks/block-store.ts), the clock and the
 * next block's context (src/chain/dev/dev-state.ts), the `pending` block (src/chain/mining/block-builder.ts), and
 * calls, estimates and state reads (src/chain/queries/state-queries.ts) — those touching the VM or state run inside the
 * queue.
 */
import { EventEmitter } from 'node:events'
import type { Common } from '@ethereumjs/common'
import type { AppliedTx, BlockContext, CallRequest, CallResult, Executor } from '../execution/executor.js'
import type { CallOverrides } from '../execution/state-override.js'
import type { Unitrie } from '../unitrie/unitrie.js'
import type { PoolTx, TxPool } from '../txpool/pool.js'
import type { BlockRecord, LogBlock } from '../types/records.js'
import { toKey } from '../util/bytes.js'
import { SerialQueue } from '../util/serial-queue.js'
import type { BlockBuilder, BlockTx, OnExecuted } from './mining/block-builder.js'
import type { BlockStore, TxLocation } from '../blocks/block-store.js'
import type { ChainOptions } from './chain-options.js'
import { assembleParts } from './chain-setup.js'
import type { MergedMiningSource } from './mining/consensus.js'
import type { DevState } from './dev/dev-state.js'
import type { LiveState } from './live-state.js'
import { contextOf, type StateQueries } from './queries/state-queries.js'
import type { ChainStorage } from '../db/chain-storage.js'
import type { TxSubmission } from './mining/tx-submission.js'

/** The chain's parts and reads; `Chain` (src/chain/chain.ts) is the one concrete chain. */
export abstract class ChainReads extends EventEmitter {
  /** The single writer; also used for every read that touches the VM/state. */
  readonly queue = new SerialQueue()
  /** The canonical blocks and their indexes (encoded in memory, or read back from the database). */
  protected blocks!: BlockStore
  /** The clock, next-block overrides and mining targets (evm_increaseTime, evm_setNextBlockTimestamp, …). */
  protected dev!: DevState
  callGasCap!: bigint
  gasEstimationCap!: bigint
  /** See {@link ChainOptions.executionTimeoutMs}. */
  executionTimeoutMs!: number

  /** The pool, pool submission and automine (src/chain/mining/tx-submission.ts). */
  protected submission!: TxSubmission

  /** Transactions waiting to be mined (owned by the submission path). */
  protected get pool(): TxPool {
    return this.submission.pool
  }
  /** Building, sealing and the pending block (src/chain/mining/block-builder.ts). */
  protected builder!: BlockBuilder
  /** Calls, estimates and state reads (src/chain/queries/state-queries.ts). */
  protected queries!: StateQueries
  /** In-place state changes, state-file capture and import (src/chain/live-state.ts). */
  protected live!: LiveState

  /** The chain's database, if persistent. */
  protected readonly database: ChainStorage | undefined

  /** Fork mode: the local root of the fork block's state (what a reset goes back to). */
  protected forkRoot: Uint8Array | undefined

  protected constructor(
    /** The executor (replaced when the chain starts over on another fork: Chain.reopen). */
    public executor: Executor,
    protected opts: ChainOptions,
  ) {
    super()
    this.database = opts.storage
    this.setMaxListeners(0)
    this.assemble(executor, opts)
  }

  /** Builds the parts over `executor` (at creation, and when the chain starts over: Chain.reopen). */
  protected assemble(executor: Executor, opts: ChainOptions): void {
    this.executor = executor
    this.opts = opts
    const parts = assembleParts(executor, opts, {
      queue: this.queue,
      emit: (event, ...args) => this.emit(event, ...args),
      head: () => this.head,
      nextContext: () => this.nextContext(),
      computePending: () => this.computePending(),
      mineWith: (ctx, txs, onExecuted) => this.mineWith(ctx, txs, undefined, onExecuted),
    })
    ;({ blocks: this.blocks, dev: this.dev, builder: this.builder, submission: this.submission } = parts)
    ;({ live: this.live, queries: this.queries, callGasCap: this.callGasCap, forkRoot: this.forkRoot } = parts)
    ;({ gasEstimationCap: this.gasEstimationCap, executionTimeoutMs: this.executionTimeoutMs } = parts)
  }

  /**
   * Mines one block with the given transactions (they must be valid in order) — or an empty block
   * (src/chain/chain.ts). Must run inside the queue.
   */
  protected abstract mineWith(
    ctx: BlockContext,
    txs: BlockTx[],
    mm?: MergedMiningSource,
    onExecuted?: OnExecuted,
  ): Promise<{ block: BlockRecord; applied: AppliedTx[] }>

  /** Fork mode: the number of the fork block (blocks at or below it are the remote's); undefined otherwise. */
  get forkBlockNumber(): bigint | undefined {
    return this.opts.fork?.block.header.number
  }

  /**
   * Fork mode: fetches these accounts of the remote state together (one round trip) before a transaction or
   * call touches them; nothing otherwise.
   * @throws ForkRemoteError (-32000) when the remote cannot answer
   */
  prefetch(accounts: readonly (Uint8Array | undefined)[]): Promise<void> | undefined {
    const fork = this.opts.fork
    if (fork === undefined) return undefined
    return fork.source.prefetch(accounts.filter((a): a is Uint8Array => a !== undefined))
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

  /**
   * Canonical block by number, or undefined. Old blocks are decoded from the block store's encodings (memory or
   * `--db`), recent and recently read ones come from its cache.
   * @throws StorageCorruptError when the stored block does not decode (JSON-RPC -32000 at the boundary)
   */
  blockByNumber(n: bigint): Promise<BlockRecord | undefined> {
    return this.blocks.byNumber(n)
  }

  /** Canonical block by 32-byte hash, or undefined. */
  blockByHash(hash: Uint8Array): Promise<BlockRecord | undefined> {
    return this.blocks.byBlockHash(hash)
  }

  /**
   * The logs of canonical blocks `from` … `to` (clamped to the head) whose header logs bloom passes `mayMatch`,
   * in order; the others are never decoded (log queries). Receipts `receiptMayMatch` rules out may read as empty.
   */
  blocksWithBloom(
    from: bigint,
    to: bigint,
    mayMatch: (bloom: Uint8Array) => boolean,
    receiptMayMatch?: (bloom: Uint8Array) => boolean,
  ): AsyncGenerator<LogBlock> {
    return this.blocks.blocksWithBloom(from, to, mayMatch, receiptMayMatch)
  }

  /** A mined transaction by hash, or undefined. */
  transaction(hash: Uint8Array): Promise<TxLocation | undefined> {
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

  /** Bumped whenever the pool changes (cache keys). */
  get poolVersion(): number {
    return this.pool.version
  }

  /** Context of an existing block (calls "at" a past block run in that block's context). */
  contextOf(block: BlockRecord): BlockContext {
    return contextOf(block)
  }

  /**
   * A transaction still in the pool, or undefined — also for one that has waited longer than the pool allows and
   * is about to be dropped (docs/reference-rules.md#rule-pool-outdated).
   */
  pooled(hash: Uint8Array): PoolTx | undefined {
    const p = this.pool.get(hash)
    return p === undefined || this.submission.isOutdated(p) ? undefined : p
  }

  /**
   * The `pending` block: a sample next block on top of the head, built from the pool's executable
   * transactions (as `Chain.mineBlock` would pick them) without committing
   * (docs/reference-rules.md#rule-pending-block; reference ExecutionBlockRetriever). Cached until the head, the
   * pool or the live state changes. Its state root stays readable, so `pending` state reads see the pool's effects.
   */
  pendingBlock(): Promise<BlockRecord> {
    return this.queue.run(() => this.computePending())
  }

  /** The pending block, inside the queue. */
  private computePending(): Promise<BlockRecord> {
    // (outdated transactions leave first, so that the cache key sees the pool without them)
    this.submission.dropOutdated()
    return this.builder.pending(
      () => `${this.head.hashKey}:${this.pool.version}:${toKey(this.executor.stateRoot)}`,
      () => this.nextContext(),
      (ctx) => this.submission.pickForBlock(ctx),
      (p, err) => this.submission.drop(p, err.message),
    )
  }

  /**
   * eth_call against a block's state (src/chain/queries/state-queries.ts).
   * @throws VmExecutionError on revert; CallPreconditionError when the sender cannot pay the value;
   *   ExecutionTimeoutError past {@link executionTimeoutMs} (nothing is cached or kept); StateNotFoundError
   *   beyond the kept states (the JSON-RPC answers: docs/architecture.md#errors)
   */
  call(req: CallRequest, block: BlockRecord | 'pending', over: CallOverrides = {}): Promise<CallResult> {
    if (this.opts.fork) {
      return this.queue.run(async () => {
        await this.prefetch([req.from, req.to])
        return this.queries.call(req, block, over)
      })
    }
    return this.queue.run(() => this.queries.call(req, block, over))
  }

  /**
   * eth_estimateGas: the lowest gas limit with which the call succeeds, capped by the estimation cap.
   * @throws VmExecutionError when it fails even at the cap; CallPreconditionError "insufficient funds for
   *   transfer"; StateNotFoundError beyond the kept states
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

  /** Raw bytes of a storage cell at a block, `key32` a 32-byte word (inside the queue). @throws StateNotFoundError */
  storageBytes(address: Uint8Array, key32: Uint8Array, block: BlockRecord | 'pending'): Promise<Uint8Array> {
    return this.queue.run(() => this.queries.storageBytes(address, key32, block))
  }

  /**
   * The Unitrie of a block's state, for proofs (inside the queue). @throws StateNotFoundError beyond the kept states
   */
  stateTrie(block: BlockRecord | 'pending'): Promise<Unitrie> {
    return this.queue.run(() => this.queries.stateTrie(block))
  }

  /** The state root `block`'s transactions ran on: its parent's, or the in-place-changed state they ran on. */
  async preStateRoot(block: BlockRecord): Promise<Uint8Array | undefined> {
    // mined here since the start, or recorded with the block in the database
    const changed = this.builder.changedPreStateRoot(block) ?? (await this.database?.preStateRoot(block.header.number))
    return changed ?? this.builder.preStateRoot(block)
  }

  /**
   * Block context and state root to run at, for executions outside this class (debug_traceCall; inside the queue).
   * @throws StateNotFoundError beyond the kept states
   */
  executionState(block: BlockRecord | 'pending'): Promise<{ ctx: BlockContext; root: Uint8Array }> {
    return this.stateFor(block)
  }

  /** Block context and state root to run or read at (inside the queue). */
  private stateFor(block: BlockRecord | 'pending'): Promise<{ ctx: BlockContext; root: Uint8Array }> {
    return this.queries.stateFor(block)
  }
}
