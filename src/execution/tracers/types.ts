/**
 * What the tracers observe: @ethereumjs's EVM events (`beforeMessage`, `afterMessage`, `step`) and the common
 * tracer contract the replay drives (./replay.ts). A tracer attached to an EVM sees every message and, when it
 * listens to `step`, every opcode: attaching a `step` listener makes the stock interpreter loop run instead of
 * the fast one (src/execution/ethereumjs/interpreter-loop.ts), so untraced execution never pays for tracing.
 */
import type { EVMResult, InterpreterStep, Message } from '@ethereumjs/evm'
import type { ExecutionHooks } from '../hooks.js'

/** The EVM event emitter, as the tracers use it. A two-argument listener is awaited by the EVM. */
export interface TraceEvents {
  on(event: 'beforeMessage', listener: (m: Message, done?: () => void) => void): unknown
  on(event: 'afterMessage', listener: (r: EVMResult, done?: () => void) => void): unknown
  on(event: 'step', listener: (s: InterpreterStep, done?: () => void) => void): unknown
  off(event: 'beforeMessage', listener: (m: Message, done?: () => void) => void): unknown
  off(event: 'afterMessage', listener: (r: EVMResult, done?: () => void) => void): unknown
  off(event: 'step', listener: (s: InterpreterStep, done?: () => void) => void): unknown
}

/** One traced execution's observer. */
export interface ExecutionTracer {
  /**
   * Starts observing (before the execution).
   * @param events the EVM's events; @param hooks the node's observers of its frame opcodes (../hooks.ts)
   */
  attach(events: TraceEvents, hooks: ExecutionHooks): void
  /** Stops observing (after it, also after a failure). */
  detach(events: TraceEvents, hooks: ExecutionHooks): void
}

/** Outcome of the traced transaction or call, as the replay saw it. */
export interface TracedOutcome {
  /** Receipt gas (after refunds) for a mined transaction; the run's gas for a call. */
  gasUsed: bigint
  returnValue: Uint8Array
  /** EVM error name (`revert`, `out of gas`, …). */
  error?: string
  /** Created contract of a creation. */
  createdAddress?: Uint8Array
}

/**
 * The reference's response size limit (rpc `maxResponseSize`, 10 MB; docs/reference-rules.md#rule-limits): past it,
 * -32011.
 */
export const MAX_TRACE_BYTES = 10 * 1024 * 1024
