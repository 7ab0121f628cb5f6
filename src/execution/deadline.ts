/**
 * Deadlines and time slices for EVM executions (no request monopolises the node): calls, estimates and traces get
 * one deadline each ({@link setDeadline}); each transaction of a block being built gets its own ({@link armDeadline},
 * docs/reference-rules.md#rule-send-deadline). Long precompiles (./native/bn254-pairing.ts, ./native/blake2f.ts) call
 * the checkpoint as they compute, and every plain precompile call ends with one (./native/plain-precompile.ts).
 *
 * The opcode loop (./ethereumjs/interpreter-loop.ts) calls its EVM's {@link ExecutionClock} every
 * {@link CHECK_EVERY} units of work (a backward jump is 1 unit, an opcode with dynamic gas — calls, storage,
 * precompiles — is {@link DYNAMIC_OP_UNITS}). The checkpoint
 * - throws {@link ExecutionTimeoutError} once the execution's deadline (set per EVM by {@link setDeadline}) has
 *   passed: the reference stops a request after `rpc.timeout` (5000 ms) with -32011 "Execution has got timeout
 *   out." (docs/reference-rules.md#rule-limits); like the reference, whose VM polls an expiry set per request
 *   (rskj co/rsk/rpc/netty/ExecTimeoutContext.java `checkIfExpired`), the check runs inside the opcode loop;
 * - yields to the event loop (one `setImmediate`) when the thread's time slice is spent: {@link SLICE_MS} since
 *   work last yielded, whether the queue between two tasks, an execution or a mining loop (src/util/time-slices.ts).
 *   An execution does not start a slice of its own: the slice counts from the last yield, so a run of short calls
 *   queued back to back yields as one long one would (docs/architecture.md#fairness). Other requests that need no
 *   execution (eth_blockNumber, eth_chainId, reads of blocks…), timers and signals are served meanwhile.
 *   Executions themselves stay serialized by the chain's queue, so yielding never interleaves two executions on
 *   one state.
 *
 * Each EVM has its own clock (its deadline), kept here by EVM object: nothing of one node's executions is shared
 * with another node in the process but the thread's slice (they share the thread), and nothing is written onto
 * @ethereumjs's objects. The cost on the fast path is one compare per static opcode (did it jump backwards?); the
 * clock is read once per {@link CHECK_EVERY} units.
 */
import { ExecutionTimeoutError } from '../errors/domain-errors.js'
import { SLICE_MS, threadSliceSpent, yieldThread } from '../util/time-slices.js'
import type { LoopOwner } from './ethereumjs/index.js'

export { CHECK_EVERY, DYNAMIC_OP_UNITS } from './ethereumjs/index.js'

/** Longest run of the EVM, in ms, before it yields the thread to other work once: the node's time slice. */
export { SLICE_MS }

/** An EVM as seen by this module. */
export type DeadlineHolder = object

/** The deadline of the executions on one EVM (one execution runs at a time, in the chain's queue). */
export class ExecutionClock implements LoopOwner {
  /** Ms since the epoch; 0 = none. */
  private deadline = 0

  /** See {@link armDeadline}. */
  arm(timeoutMs: number): void {
    this.deadline = timeoutMs > 0 ? Date.now() + timeoutMs : 0
  }

  /** See {@link executionCheckpoint}. */
  checkpoint(): Promise<void> | undefined {
    const now = Date.now()
    if (this.deadline !== 0 && now >= this.deadline) throw new ExecutionTimeoutError()
    return threadSliceSpent(now) ? yieldThread() : undefined
  }
}

/** The clock of each EVM (keyed by the EVM object: each node's entries are its own). */
const clocks = new WeakMap<object, ExecutionClock>()

/**
 * The clock of `evm`, created on first use (the executor adopts its EVMs with it: ./ethereumjs/index.ts).
 * @param evm the EVM (`vm.evm`, or a precompile's `input._EVM`)
 */
export function clockOf(evm: DeadlineHolder): ExecutionClock {
  let clock = clocks.get(evm)
  if (clock === undefined) clocks.set(evm, (clock = new ExecutionClock()))
  return clock
}

/**
 * Sets (or, with 0, clears) the deadline of executions on one EVM (a call, an estimate, a trace). The time slice is
 * the thread's (see the module doc): it is not restarted here.
 * @param evm the EVM (`vm.evm`)
 * @param timeoutMs milliseconds from now; 0 or less clears it
 */
export function setDeadline(evm: DeadlineHolder, timeoutMs: number): void {
  clockOf(evm).arm(timeoutMs)
}

/**
 * Sets (or, with 0, clears) the deadline of the next execution on one EVM: each transaction of a block being built
 * gets its own (docs/reference-rules.md#rule-send-deadline), while the block's executions share the thread's slice.
 * @param evm the EVM (`vm.evm`)
 * @param timeoutMs milliseconds from now; 0 or less clears it
 */
export function armDeadline(evm: DeadlineHolder, timeoutMs: number): void {
  clockOf(evm).arm(timeoutMs)
}

/**
 * The periodic check (see the module doc), for code that runs outside the opcode loop (precompiles, traced runs).
 * @param evm the EVM running the code (a precompile's `input._EVM`)
 * @returns a promise to await when the thread is to be yielded, else undefined (stay synchronous)
 * @throws ExecutionTimeoutError (-32011) past the EVM's deadline
 */
export function executionCheckpoint(evm: DeadlineHolder): Promise<void> | undefined {
  return clockOf(evm).checkpoint()
}

/**
 * A yield point for a loop of many executions (mining N blocks).
 * @returns a function to await between two iterations: it yields the thread once its slice is spent
 *   ({@link SLICE_MS} since work last yielded, src/util/time-slices.ts), and otherwise returns at once
 */
export function loopYielder(): () => Promise<void> {
  return async () => {
    if (threadSliceSpent()) await yieldThread()
  }
}
