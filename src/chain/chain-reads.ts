/**
 * The read side of the chain (`Chain.reads`): block and transaction reads (src/blocks/block-store.ts), the clock and
 * the next block's context (src/chain/dev/dev-state.ts), the `pending` block (src/chain/mining/block-builder.ts),
 * and calls, estimates and state reads (src/chain/queries/state-queries.ts) — those touching the VM or state run
 * inside the chain's queue. The changes are Chain's own (src/chain/chain.ts).
 */
import type { Common } from '@ethereumjs/common'
import type { BlockContext, CallRequest, CallResult, Executor } from '../execution/executor.js'
import type { CallOverrides } from '../execution/state-override.js'
import type { Unitrie } from '../unitrie/unitrie.js'
import type { PoolTx } from '../txpool/pool.js'
import type { BlockRecord, LogBlock } from '../types/records.js'
import { toKey } from '../util/bytes.js'
import type { SerialQueue } from '../util/serial-queue.js'
import type { TxLocation } from '../blocks/block-store.js'
import type { LogKeys } from '../blocks/log-index.js'
import type { ChainOptions } from './chain-options.js'
import type { ChainParts } from './chain-setup.js'
import { contextOf } from './queries/state-queries.js'

/** What the reads run against: the chain's queue, its executor and options (replaced together on Chain.reopen). */
export interface ReadContext {
  /** The chain's single writer; also used for every read that touches the VM/state. */
  queue: SerialQueue
  executor: Executor
  opts: ChainOptions
}

/**
 * The chain's reads over one set of parts (src/chain/chain-setup.ts): `Chain.reads`. A chain that starts over
 * (Chain.reopen) builds new parts and a new `ChainReads`; callers read `chain.reads` each time instead of keeping it.
 */
export class ChainReads {
  /**
   * @param parts the parts of the chain (block store, clock, builder, submission, queries)
   * @param ctx the chain's queue, executor and options
   */
  constructor(
    private readonly parts: ChainParts,
    private readonly ctx: ReadContext,
  ) {}

  /** The executor these reads run on (the chain's current one). */
  get executor(): Executor {
    return this.ctx.executor
  }

  /** eth_call gas cap (gas). */
  get callGasCap(): bigint {
    return this.parts.callGasCap
  }

  /** eth_estimateGas cap (gas). */
  get gasEstimationCap(): bigint {
    return this.parts.gasEstimationCap
  }

  /** See {@link ChainOptions.executionTimeoutMs} (milliseconds). */
  get executionTimeoutMs(): number {
    return this.parts.executionTimeoutMs
  }

  /** Fork mode: the number of the fork block (blocks at or below it are the remote's); undefined otherwise. */
  get forkBlockNumber(): bigint | undefined {
    return this.ctx.opts.fork?.block.header.number
  }

  /**
   * The highest block whose receipts `--transaction-block-keeper` dropped; the first block (genesis, or the fork
   * block) when none were.
   */
  get receiptsPrunedUpTo(): bigint {
    return this.parts.blocks.receiptsPrunedUpTo
  }

  /**
   * Fork mode: fetches these accounts of the remote state together (one round trip) before a transaction or
   * call touches them; nothing otherwise.
   * @throws ForkRemoteError (-32000) when the remote cannot answer
   */
  prefetch(accounts: readonly (Uint8Array | undefined)[]): Promise<void> | undefined {
    const fork = this.ctx.opts.fork
    if (fork === undefined) return undefined
    return fork.source.prefetch(accounts.filter((a): a is Uint8Array => a !== undefined))
  }

  /** The EIP-155 chain id. */
  get chainId(): bigint {
    return this.ctx.opts.common.chainId()
  }

  /** The Common used for transactions. */
  get common(): Common {
    return this.ctx.opts.common
  }

  /** The canonical head block. */
  get head(): BlockRecord {
    return this.parts.blocks.head
  }

  /**
   * Canonical block by number, or undefined. Old blocks are decoded from the block store's encodings (memory or
   * `--db`), recent and recently read ones come from its cache.
   * @throws StorageCorruptError when the stored block does not decode (answered as an internal error, -32603)
   */
  blockByNumber(n: bigint): Promise<BlockRecord | undefined> {
    return this.parts.blocks.byNumber(n)
  }

  /** Canonical block by 32-byte hash, or undefined. */
  blockByHash(hash: Uint8Array): Promise<BlockRecord | undefined> {
    return this.parts.blocks.byBlockHash(hash)
  }

  /**
   * The logs of canonical blocks `from` … `to` (clamped to the head) that may match, in order, in batches (arrays of
   * up to src/blocks/block-store.ts LOG_BATCH blocks); the others are never decoded (log queries). With `keys` (the
   * query's contracts and event signatures), the blocks the log index covers are only those it lists
   * (src/blocks/log-index.ts); any other block is given when its header logs bloom passes `mayMatch`. Receipts
   * `receiptMayMatch` rules out may read as empty.
   */
  async *blocksWithBloom(
    from: bigint,
    to: bigint,
    mayMatch: (bloom: Uint8Array) => boolean,
    receiptMayMatch?: (bloom: Uint8Array) => boolean,
    keys?: LogKeys,
  ): AsyncGenerator<LogBlock[]> {
    const { blocks, logs } = this.parts
    const indexed = BigInt(logs.indexedFrom)
    const head = blocks.head.header.number
    const last = to < head ? to : head
    const candidates =
      keys !== undefined && last >= indexed
        ? logs.candidates(keys, Number(from > indexed ? from : indexed), Number(last))
        : undefined
    if (candidates === undefined) {
      yield* blocks.blocksWithBloom(from, to, mayMatch, receiptMayMatch)
      return
    }
    if (from < indexed) yield* blocks.blocksWithBloom(from, indexed - 1n, mayMatch, receiptMayMatch)
    yield* blocks.blocksAt(candidates, receiptMayMatch)
  }

  /** A mined transaction by hash, or undefined. */
  transaction(hash: Uint8Array): Promise<TxLocation | undefined> {
    return this.parts.blocks.transaction(hash)
  }

  /** Current time for the next block, in seconds (wall clock + evm_increaseTime offset). */
  now(): bigint {
    return this.parts.dev.now()
  }

  /** Seconds the next block's clock is moved forward (evm_increaseTime), 0 when none. */
  get timeOffset(): bigint {
    return this.parts.dev.timeOffset
  }

  /**
   * Block context of the block that would be mined next on the current head (also the `pending` context
   * for calls and estimates); see {@link DevState.nextContext}.
   */
  nextContext(): BlockContext {
    return this.parts.dev.nextContext(this.head.header)
  }

  /** Bumped whenever the pool changes (cache keys). */
  get poolVersion(): number {
    return this.parts.submission.pool.version
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
    const p = this.parts.submission.pool.get(hash)
    return p === undefined || this.parts.submission.isOutdated(p) ? undefined : p
  }

  /**
   * The `pending` block: a sample next block on top of the head, built from the pool's executable
   * transactions (as `Chain.mineBlock` would pick them) without committing
   * (docs/reference-rules.md#rule-pending-block; reference ExecutionBlockRetriever). Cached until the head, the
   * pool or the live state changes. Its state root stays readable, so `pending` state reads see the pool's effects.
   */
  pendingBlock(): Promise<BlockRecord> {
    return this.ctx.queue.run(() => this.computePending())
  }

  /** The pending block, inside the queue (the parts' host calls it). */
  computePending(): Promise<BlockRecord> {
    // (outdated transactions leave first, so that the cache key sees the pool without them)
    this.parts.submission.dropOutdated()
    return this.parts.builder.pending(
      () => `${this.head.hashKey}:${this.parts.submission.pool.version}:${toKey(this.ctx.executor.stateRoot)}`,
      () => this.nextContext(),
      (ctx) => this.parts.submission.pickForBlock(ctx),
      (p, err) => this.parts.submission.drop(p, err.message),
    )
  }

  /**
   * eth_call against a block's state (src/chain/queries/state-queries.ts).
   * @throws VmExecutionError on revert; CallPreconditionError when the sender cannot pay the value;
   *   ExecutionTimeoutError past {@link executionTimeoutMs} (nothing is cached or kept); StateNotFoundError
   *   beyond the kept states (the JSON-RPC answers: docs/architecture.md#errors)
   */
  call(req: CallRequest, block: BlockRecord | 'pending', over: CallOverrides = {}): Promise<CallResult> {
    if (this.ctx.opts.fork) {
      return this.ctx.queue.run(async () => {
        await this.prefetch([req.from, req.to])
        return this.parts.queries.call(req, block, over)
      })
    }
    return this.ctx.queue.run(() => this.parts.queries.call(req, block, over))
  }

  /**
   * eth_estimateGas: the lowest gas limit with which the call succeeds, capped by the estimation cap.
   * @throws VmExecutionError when it fails even at the cap; CallPreconditionError "insufficient funds for
   *   transfer"; StateNotFoundError beyond the kept states
   */
  estimateGas(req: CallRequest, block: BlockRecord | 'pending', over: CallOverrides = {}): Promise<bigint> {
    return this.ctx.queue.run(() => this.parts.queries.estimateGas(req, block, over))
  }

  /** Account fields at a block (inside the queue). */
  account(address: Uint8Array, block: BlockRecord | 'pending') {
    return this.ctx.queue.run(() => this.parts.queries.account(address, block))
  }

  /** Code at a block (inside the queue). */
  code(address: Uint8Array, block: BlockRecord | 'pending') {
    return this.ctx.queue.run(() => this.parts.queries.code(address, block))
  }

  /** Storage word at a block (inside the queue). */
  storage(address: Uint8Array, slot: Uint8Array, block: BlockRecord | 'pending') {
    return this.ctx.queue.run(() => this.parts.queries.storage(address, slot, block))
  }

  /** Raw bytes of a storage cell at a block, `key32` a 32-byte word (inside the queue). @throws StateNotFoundError */
  storageBytes(address: Uint8Array, key32: Uint8Array, block: BlockRecord | 'pending'): Promise<Uint8Array> {
    return this.ctx.queue.run(() => this.parts.queries.storageBytes(address, key32, block))
  }

  /**
   * The Unitrie of a block's state, for proofs (inside the queue). @throws StateNotFoundError beyond the kept states
   */
  stateTrie(block: BlockRecord | 'pending'): Promise<Unitrie> {
    return this.ctx.queue.run(() => this.parts.queries.stateTrie(block))
  }

  /** The state root `block`'s transactions ran on: its parent's, or the in-place-changed state they ran on. */
  async preStateRoot(block: BlockRecord): Promise<Uint8Array | undefined> {
    // mined here since the start, or recorded with the block in the database
    const changed =
      this.parts.builder.changedPreStateRoot(block) ?? (await this.ctx.opts.storage?.preStateRoot(block.header.number))
    return changed ?? this.parts.builder.preStateRoot(block)
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
    return this.parts.queries.stateFor(block)
  }
}
