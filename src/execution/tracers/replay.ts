/**
 * Re-execution for the tracers: a mined block's transactions are run again on its parent's state (the
 * reference's BlockExecutor.traceBlock), the chosen ones with a tracer attached, and everything is reverted
 * afterwards; a call (debug_traceCall) runs like eth_call with a tracer. Inside the chain's queue.
 *
 * The parent's state must still be readable: with `--state-history` older states are forgotten (with `--db`
 * they are read back), and beyond that the reference's "state not found" error is answered (-32600, as
 * eth_call at such a block). A block mined after state was changed in place (anvil_setBalance, …) is replayed
 * on the changed state (Chain.preStateRoot), recorded with the block (also in the `--db` database).
 *
 * A replay or traced call has the execution deadline of a call (`--rpc-timeout`, -32011; ../deadline.ts,
 * docs/reference-rules.md#rule-limits) and yields like one. A tracer that listens to every opcode makes the stock
 * interpreter loop run, which has no checkpoint of its own: {@link watchSteps} adds one.
 */
import { Address } from '@ethereumjs/util'
import { NotTraceableError, StateNotFoundError } from '../../errors/domain-errors.js'
import type { BlockRecord, TxRecord } from '../../types/records.js'
import type { UnitrieStateManager } from '../../state/unitrie-state-manager.js'
import { bytesEqual } from '../../util/bytes.js'
import type { BlockContext, CallRequest, Executor } from '../executor.js'
import { REMASC_ADDRESS } from '../executor.js'
import { applyStateOverride, type StateOverride } from '../state-override.js'
import { CHECK_EVERY, executionCheckpoint, setDeadline } from '../deadline.js'
import { runTxFromAnySender } from '../ethereumjs/index.js'
import type { ExecutionTracer, TracedOutcome, TraceEvents } from './types.js'

/**
 * What a replay reads from the chain (the chain passes itself; declared here so execution/ does not import
 * chain/, which imports execution/).
 */
export interface ReplaySource {
  readonly executor: Executor
  /** eth_call gas cap (reference rpc.callGasCap). */
  readonly callGasCap: bigint
  /** Deadline of one replay or traced call, in ms (0 = none; --rpc-timeout). */
  readonly executionTimeoutMs: number
  blockByNumber(n: bigint): Promise<BlockRecord | undefined>
  /** The state root a mined block's transactions ran on, when still known. */
  preStateRoot(block: BlockRecord): Promise<Uint8Array | undefined>
  contextOf(block: BlockRecord): BlockContext
}

/** Makes the tracer for one transaction; it gets the state manager the execution reads. */
export type TracerFactory<T extends ExecutionTracer> = (sm: UnitrieStateManager, tx: TxRecord) => T

/** A traced transaction: the tracer after the run and the run's outcome. */
export interface TracedTx<T> {
  tx: TxRecord
  tracer: T
  outcome: TracedOutcome
}

/** Whether a transaction record is the block's Remasc transaction (to 0x…01000008 from the zero address). */
export function isRemascTx(tx: TxRecord): boolean {
  return tx.tx.to !== undefined && bytesEqual(tx.tx.to.bytes, REMASC_ADDRESS.bytes) && tx.from.every((b) => b === 0)
}

/**
 * The state root a block's transactions ran on: its parent's. @throws StateNotFoundError when no longer readable;
 * NotTraceableError for the genesis
 */
async function parentRoot(chain: ReplaySource, block: BlockRecord): Promise<Uint8Array> {
  const parent = await chain.blockByNumber(block.header.number - 1n)
  const root = await chain.preStateRoot(block)
  if (parent === undefined || root === undefined)
    throw new NotTraceableError('The genesis block has no transactions to trace')
  const states = chain.executor.stateManager.db
  if (states.lookup(root) === undefined && (await states.load(root)) === undefined) {
    throw new StateNotFoundError(parent.hashKey)
  }
  return root
}

/**
 * Leaves the VM as an untraced run would: the EVM journal and transient storage cleared, and every checkpoint
 * level above `depth` undone (a run aborted by a tracer, e.g. past the size limit, leaves its levels open).
 */
async function unwindTo(
  vm: { evm: { journal: { cleanup(): Promise<void> }; transientStorage?: { clear(): void } } },
  sm: UnitrieStateManager,
  depth: number,
): Promise<void> {
  await vm.evm.journal.cleanup()
  vm.evm.transientStorage?.clear()
  while (sm.checkpointDepth > depth) await sm.revert()
}

/** What {@link watchSteps} needs of the EVM's event emitter besides the tracers' view of it. */
interface CountedEvents {
  listenerCount(event: 'step'): number
}

/**
 * While a tracer listens to `step` (the stock interpreter loop then runs), checks the deadline and yields every
 * {@link CHECK_EVERY} opcodes from a `step` listener of its own, as the fast loop does from its checkpoint.
 * Attach after the tracer.
 * @param evm the EVM that runs (it carries the deadline)
 * @returns the function that detaches it
 */
function watchSteps(evm: object, events: TraceEvents): () => void {
  if ((events as unknown as CountedEvents).listenerCount('step') === 0) return () => {}
  let steps = 0
  // two arguments: the EVM awaits `done`, so the listener can pause the run; a throw (past the deadline) ends it
  const listener = (_step: unknown, done?: () => void) => {
    if (++steps < CHECK_EVERY) return done?.()
    steps = 0
    const pause = executionCheckpoint(evm)
    if (pause === undefined) done?.()
    else void pause.then(done)
  }
  events.on('step', listener)
  return () => events.off('step', listener)
}

/**
 * Replays `block` on its parent's state, tracing the transactions `wanted` selects (in block order). The
 * Remasc transaction is not executed by the EVM (the reference runs it as a native contract); it is reported
 * with an empty trace by the callers. Inside the chain's queue.
 * @param wanted which transactions to trace (by position); transactions after the last wanted one are not run
 * @throws StateNotFoundError when the parent's state is no longer available; TraceTooLargeError when a
 *   tracer's size budget is exceeded; ExecutionTimeoutError when the replay runs past the deadline
 */
export async function traceBlockTxs<T extends ExecutionTracer>(
  chain: ReplaySource,
  block: BlockRecord,
  wanted: (tx: TxRecord) => boolean,
  make: TracerFactory<T>,
): Promise<TracedTx<T>[]> {
  const ex = chain.executor
  // nothing to execute (only the Remasc transaction wanted): no state needed
  if (!block.transactions.some((t) => !isRemascTx(t) && wanted(t))) return []
  const root = await parentRoot(chain, block)
  const vm = await ex.vmFor(root)
  const sm = vm.stateManager as UnitrieStateManager
  const events = vm.evm.events as unknown as TraceEvents
  const ctx = chain.contextOf(block)
  const evmBlock = ex.blockFor(ctx)
  const txs = block.transactions.filter((t) => !isRemascTx(t))
  let last = -1
  for (let i = 0; i < txs.length; i++) if (wanted(txs[i]!)) last = i
  const out: TracedTx<T>[] = []
  const base = sm.checkpointDepth
  await sm.checkpoint()
  setDeadline(vm.evm, chain.executionTimeoutMs)
  try {
    let gasUsed = 0n
    for (let i = 0; i <= last; i++) {
      const rec = txs[i]!
      const tracer = wanted(rec) ? make(sm, rec) : undefined
      tracer?.attach(events, ex.hooks)
      const unwatch = watchSteps(vm.evm, events)
      try {
        const r = await runTxFromAnySender(vm, sm, new Address(rec.from), {
          tx: rec.tx,
          block: evmBlock,
          blockGasUsed: gasUsed,
          skipHardForkValidation: true,
          skipBlockGasLimitValidation: true,
        })
        gasUsed += r.totalGasSpent
        if (tracer !== undefined) {
          out.push({
            tx: rec,
            tracer,
            outcome: {
              gasUsed: rec.receipt.gasUsed,
              returnValue: r.execResult.returnValue,
              error: r.execResult.exceptionError?.error,
              createdAddress: r.createdAddress?.bytes,
            },
          })
        }
      } finally {
        unwatch()
        tracer?.detach(events, ex.hooks)
      }
    }
  } finally {
    setDeadline(vm.evm, 0)
    await unwindTo(vm as never, sm, base)
  }
  return out
}

/**
 * Runs a call (debug_traceCall) at a block's state like eth_call, with `tracer` attached and the overrides
 * applied; nothing is kept. Inside the chain's queue.
 * @param root the state to run on; @param ctx its block context (block overrides already applied)
 * @throws RpcError -32011 when a tracer's size budget is exceeded or the call runs past the deadline
 */
export async function traceCallAt<T extends ExecutionTracer>(
  chain: ReplaySource,
  req: CallRequest,
  root: Uint8Array,
  ctx: BlockContext,
  overrides: StateOverride,
  make: (sm: UnitrieStateManager) => T,
): Promise<{ tracer: T; outcome: TracedOutcome }> {
  const ex = chain.executor
  const vm = await ex.vmFor(root)
  const sm = vm.stateManager as UnitrieStateManager
  const events = vm.evm.events as unknown as TraceEvents
  const base = sm.checkpointDepth
  await sm.checkpoint()
  let tracer: T | undefined
  let unwatch = () => {}
  try {
    // the tracer sees the overridden state as the state before the call
    if (overrides.length > 0) await applyStateOverride(sm, overrides)
    tracer = make(sm)
    tracer.attach(events, ex.hooks)
    unwatch = watchSteps(vm.evm, events)
    const r = await ex.call(req, ctx, root, chain.callGasCap, chain.executionTimeoutMs)
    return {
      tracer,
      outcome: { gasUsed: r.gasUsed, returnValue: r.returnValue, error: r.error, createdAddress: r.createdAddress },
    }
  } finally {
    unwatch()
    tracer?.detach(events, ex.hooks)
    await unwindTo(vm as never, sm, base)
  }
}
