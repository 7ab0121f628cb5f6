/**
 * Pool submission and automine: admits a transaction to the pool with the reference's rules
 * (src/txpool/validation.ts), orders and picks pool transactions for a block, mines them (retrying without a
 * transaction that can no longer be applied), and, with automine on, answers a submission as soon as its
 * transaction has executed — before its block is finished — behind the `finishingBlock` gate every RPC request
 * waits for.
 * Mining itself (building, writing, appending) is the chain's `mineWith`, passed in; the chain
 * (src/chain/chain.ts) owns the queue this runs in.
 */
import type { LegacyTx } from '@ethereumjs/tx'
import type { AppliedTx, BlockContext, Executor } from '../../execution/executor.js'
import {
  isOutdated,
  outdatedCutoff,
  TxPool,
  type OutdatedCutoff,
  type OutdatedRule,
  type PoolTx,
} from '../../txpool/pool.js'
import { validateTransaction } from '../../txpool/validation.js'
import { bytesEqual, toKey } from '../../util/bytes.js'
import type { SerialQueue } from '../../util/serial-queue.js'
import { isLeftOut, type BlockTx, type OnExecuted } from './block-builder.js'
import { DomainError, ForkRemoteError } from '../../errors/domain-errors.js'
import { executionError } from '../queries/revert.js'
import type { BlockRecord } from '../../types/records.js'

/** The reason `droppedTransaction` gives for a transaction that waited too long in the pool. */
export const OUTDATED_REASON = 'outdated: it waited in the pool longer than the pool allows'

/** A transaction for {@link TxSubmission.submit}, or a function building it with its sender's pending nonce. */
export type TxToSubmit = LegacyTx | ((pendingNonce: bigint) => LegacyTx)

/** A mined block and the outcomes of its transactions (in the order given). */
export interface MinedBlock {
  block: BlockRecord
  applied: AppliedTx[]
}

/** What {@link TxSubmission} needs from the chain. */
export interface TxSubmissionOptions {
  /** The chain's single writer: submissions run in it. */
  queue: SerialQueue
  executor: Executor
  /** Context of the next block on the head. */
  nextContext: () => BlockContext
  /** Mines one block of `txs` on the head (builds, writes, appends; inside the queue). */
  mineWith: (ctx: BlockContext, txs: BlockTx[], onExecuted?: OnExecuted) => Promise<MinedBlock>
  /** Whether blocks are written to a database (then a submission is answered after its block is written). */
  persistent: boolean
  /**
   * Receives the pool's events: `pendingTransaction` (hash, from), `droppedTransaction` (hash, reason) and
   * `internalError` (err) for a failure while finishing an already-answered block.
   */
  emit: (event: 'pendingTransaction' | 'droppedTransaction' | 'internalError', ...args: unknown[]) => void
  /** The head's block number (when a transaction enters the pool, and what it is outdated against). */
  headNumber: () => bigint
  /** Wall clock in milliseconds since the epoch (the chain's injectable clock). */
  clock: () => number
  /** How long a transaction may wait in the pool; undefined: for ever (a tool profile, src/rpc/compat.ts). */
  outdated: OutdatedRule | undefined
}

/** The pool, its ordering, and the submit / automine path. */
export class TxSubmission {
  /** Transactions waiting to be mined. */
  readonly pool = new TxPool()
  private automineOn = true
  private finishGate: Promise<void> | undefined

  constructor(private readonly o: TxSubmissionOptions) {}

  /** Whether instant mining is on (transactions are mined as they arrive). */
  get automine(): boolean {
    return this.automineOn
  }

  /** Turns instant mining on or off. */
  setAutomine(on: boolean): void {
    this.automineOn = on
  }

  /**
   * Completes while a block whose transaction was already answered is being finished (see {@link submit});
   * undefined when none is. It never rejects: a failure of that finishing other than the transaction's own error
   * is emitted as `internalError` instead.
   */
  get finishingBlock(): Promise<void> | undefined {
    return this.finishGate
  }

  /**
   * Submits a transaction (runs in the queue); see Chain.submit for the rules and the early answer.
   * @returns the hash
   * @throws TxRejectedError when the pool rejects it; VmExecutionError when it was mined but failed;
   *   ExecutionTimeoutError when its execution passed the deadline (it is then dropped, nothing is mined)
   */
  submit(tx: TxToSubmit, from: Uint8Array, opts: { allowMissingSender?: boolean }): Promise<{ hash: Uint8Array }> {
    const { queue } = this.o
    if (!this.automineOn || this.o.persistent) return queue.run(() => this.submitInQueue(tx, from, opts))
    // resolved early by the callback below, or by the task (a settled promise ignores the later of the two)
    return new Promise((resolve, reject) => {
      const task = queue.run(() =>
        this.submitInQueue(tx, from, opts, async (hash, outcome, gasLimit) => {
          const gate: Promise<void> = task
            .then(
              () => undefined,
              (err: unknown) => {
                // the submitted transaction's own failure was its answer; anything else is the node's
                if (!(err instanceof DomainError)) this.o.emit('internalError', err)
              },
            )
            .then(() => {
              if (this.finishGate === gate) this.finishGate = undefined
            })
          this.finishGate = gate
          if (outcome.error === undefined) resolve({ hash })
          else reject(executionError(outcome.error, outcome.returnValue, gasLimit, hash))
          // let the answer be written before the block is finished
          await new Promise<void>((r) => setImmediate(r))
        }),
      )
      task.then(resolve, reject)
    })
  }

  /**
   * {@link submit}'s work, inside the queue.
   * @param onExecuted called once the submitted transaction has executed in its block, before the block is
   *   assembled; the assembly waits for the promise it returns
   * @throws TxRejectedError when the pool rejects the transaction; VmExecutionError when it was mined but failed
   */
  private async submitInQueue(
    toSubmit: TxToSubmit,
    from: Uint8Array,
    opts: { allowMissingSender?: boolean },
    onExecuted?: (hash: Uint8Array, outcome: AppliedTx, gasLimit: bigint) => Promise<void>,
  ): Promise<{ hash: Uint8Array }> {
    const { executor } = this.o
    const tx = typeof toSubmit === 'function' ? toSubmit(await this.pendingNonce(from)) : toSubmit
    const hash = tx.hash()
    const ctx = this.o.nextContext()
    const sender = await executor.getAccount(from, executor.stateRoot)
    // a fork's calldata price and init code limit of the block the transaction would go in
    const { initCodeLimit } = executor.useGasRulesOf(ctx.number)
    validateTransaction(tx, {
      initCodeLimit,
      sender,
      expectedNonce: sender.nonce,
      blockGasLimit: ctx.gasLimit,
      minimumGasPrice: ctx.minimumGasPrice,
      allowFutureNonce: true,
      allowMissingSender: opts.allowMissingSender,
    })
    this.dropOutdated()
    this.pool.add(tx, hash, from, { block: this.o.headNumber(), ms: this.o.clock() })
    this.o.emit('pendingTransaction', hash, from)
    if (!this.automineOn) return { hash }
    let failure: DomainError | undefined
    for (;;) {
      const next = (await this.orderedPool())[0]
      if (!next) break
      const ours = bytesEqual(next.hash, hash)
      let result
      try {
        result = await this.mineFromPool(
          this.o.nextContext(),
          [next],
          false,
          ours && onExecuted ? (applied) => onExecuted(hash, applied.txs[0]!, tx.gasLimit) : undefined,
        )
      } catch (err) {
        // a fork's remote failed: nothing was mined, the submitted transaction is not kept, the rest of the pool
        // stays as it was (docs/architecture.md#forking)
        if (err instanceof ForkRemoteError) {
          this.pool.remove(hash)
          throw err
        }
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

  /**
   * Mines `picked` pool transactions in one block and removes them from the pool. A transaction that can no
   * longer be applied (e.g. its sender's funds changed), or whose execution passed the deadline
   * (docs/reference-rules.md#rule-send-deadline), is dropped from the pool and the block is retried without it;
   * when nothing is left and `allowEmpty` is false, that error is raised instead of mining an empty block.
   * Inside the queue.
   * @throws PoolApplyError or PoolTimeoutError (see above)
   */
  async mineFromPool(
    ctx: BlockContext,
    picked: PoolTx[],
    allowEmpty = true,
    onExecuted?: OnExecuted,
  ): Promise<MinedBlock> {
    let txs = picked
    for (;;) {
      try {
        const result = await this.o.mineWith(
          ctx,
          txs.map((p) => ({ tx: p.tx, from: p.from })),
          onExecuted,
        )
        // a transaction no RSKIP144 sublist had room for stays in the pool
        txs.forEach((p, i) => {
          if (!result.applied[i]?.skipped) this.pool.remove(p.hash)
        })
        this.dropOutdated()
        return result
      } catch (err) {
        if (!isLeftOut(err)) throw err
        const bad = txs[err.index]!
        this.drop(bad, err.message)
        txs = txs.filter((p) => p !== bad)
        if (txs.length === 0 && !allowEmpty) throw err
      }
    }
  }

  /**
   * Removes a pool transaction that cannot go into a block (it can no longer be applied, or its execution
   * passed the deadline) and emits `droppedTransaction` (hash, reason). Inside the queue.
   */
  drop(p: PoolTx, reason: string): void {
    this.pool.remove(p.hash)
    this.o.emit('droppedTransaction', p.hash, reason)
  }

  /**
   * Drops the pool transactions that have waited longer than the outdated rule allows and emits
   * `droppedTransaction` for each (docs/reference-rules.md#rule-pool-outdated: the reference does this whenever it
   * adds to or reads its pool, and after every block). Inside the queue.
   */
  dropOutdated(): void {
    const cutoff = this.pool.size === 0 ? undefined : this.outdatedCutoff()
    if (cutoff !== undefined) for (const p of this.pool.outdated(cutoff)) this.drop(p, OUTDATED_REASON)
  }

  /**
   * Whether a pool transaction is one {@link dropOutdated} would drop now: reads outside the queue treat it as gone
   * before it is removed.
   */
  isOutdated(p: PoolTx): boolean {
    const cutoff = this.outdatedCutoff()
    return cutoff !== undefined && isOutdated(p, cutoff)
  }

  /** What is outdated now (head and clock read once), or undefined when the pool keeps transactions for ever. */
  private outdatedCutoff(): OutdatedCutoff | undefined {
    const rule = this.o.outdated
    return rule && outdatedCutoff(this.o.headNumber(), this.o.clock(), rule)
  }

  /** Pool transactions for the next block: mining order while they fit the block gas limit. Inside the queue. */
  async pickForBlock(ctx: BlockContext): Promise<PoolTx[]> {
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

  /** Pending (executable) and queued (after a nonce gap) pool transactions, by sender then nonce. Inside the queue. */
  async content(): Promise<{ pending: PoolTx[]; queued: PoolTx[] }> {
    this.dropOutdated()
    const nonces = await this.poolNonces()
    return this.pool.split((a) => nonces.get(toKey(a)) ?? 0n)
  }

  /** The next nonce of `address` counting its executable pool transactions (the `pending` nonce). Inside the queue. */
  async pendingNonce(address: Uint8Array): Promise<bigint> {
    const { executor } = this.o
    this.dropOutdated()
    let n = (await executor.getAccount(address, executor.stateRoot)).nonce
    while (this.pool.at(address, n)) n++
    return n
  }

  /** Pool transactions in mining order (highest gas price first, nonces in order per sender). Inside the queue. */
  private async orderedPool(): Promise<PoolTx[]> {
    this.dropOutdated()
    const nonces = await this.poolNonces()
    return this.pool.ordered((a) => nonces.get(toKey(a)) ?? 0n)
  }

  /** The live nonce of every sender in the pool, by address key. */
  private async poolNonces(): Promise<Map<string, bigint>> {
    const { executor } = this.o
    const nonces = new Map<string, bigint>()
    for (const p of this.pool.all()) {
      const k = toKey(p.from)
      if (!nonces.has(k)) nonces.set(k, (await executor.getAccount(p.from, executor.stateRoot)).nonce)
    }
    return nonces
  }
}
