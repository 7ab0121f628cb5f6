/**
 * eth_estimateGas as the reference computes it: ONE execution at the estimation gas limit, whose peak gas
 * consumption is the answer (rskj J/co/rsk/rpc/modules/eth/EthModule.java `internalEstimateGas`,
 * J/org/ethereum/vm/program/ProgramResult.java `spendGas` / `merge`, J/org/ethereum/vm/VM.java `getMessageCall`;
 * docs/reference-rules.md#rule-estimate-gas).
 *
 * The reference tracks, for the transaction's top frame, the gas it has spent so far (intrinsic gas, opcode
 * charges, and the whole gas reserved for each child frame, with what the child did not use given back when it
 * returns) and its maximum over the run (`maxGasUsed`). The estimate is:
 * - that maximum, unless some CALL handed the callee all the gas its caller had left ("moved remaining gas to
 *   child"): then the peak is just the limit the run had, so the gas consumed before refunds is used instead;
 * - plus the 2 300 call stipend when some CALL transferred a value;
 * - capped at the estimation cap (`rpc.gasEstimationCap`).
 * Flags raised inside a child frame count only when that frame (and every frame between it and the top)
 * returned without an exception or revert, as ProgramResult.merge does.
 *
 * @ethereumjs charges a caller only for what its callee used, after the callee returns, so the reservation
 * point is observed in the CALL/CREATE gas functions of ./opcodes.ts, through the node's {@link ExecutionHooks}.
 */
import type { EVMResult } from '@ethereumjs/evm'
import type { ExecutionHooks, ReservationObserver } from './hooks.js'

/** Flags of one frame of the run (rskj ProgramResult fields of the same names). */
interface FrameFlags {
  movedRemainingGasToChild: boolean
  callWithValuePerformed: boolean
}

/** The subset of @ethereumjs's EVM event emitter (`evm.events`) used here. */
export interface EvmEvents {
  on(event: 'beforeMessage', listener: () => void): unknown
  on(event: 'afterMessage', listener: (result: EVMResult) => void): unknown
  off(event: 'beforeMessage', listener: () => void): unknown
  off(event: 'afterMessage', listener: (result: EVMResult) => void): unknown
}

/**
 * Observes one estimation run. Create one per run, {@link attach} it to the EVM before running and
 * {@link detach} it afterwards (the executor runs one execution at a time, so one probe is active at most).
 */
export class EstimateProbe implements ReservationObserver {
  /** The stack of frames under way, innermost last; the top frame's flags end up in {@link result}. */
  private readonly frames: FrameFlags[] = []
  private readonly result: FrameFlags = { movedRemainingGasToChild: false, callWithValuePerformed: false }
  /** Largest top-frame consumption seen at a child reservation (gas, intrinsic gas included). */
  private peak = 0n

  /** @param gasLimit the run's transaction gas limit (gas) */
  constructor(private readonly gasLimit: bigint) {}

  private readonly onBefore = (): void => {
    this.frames.push({ movedRemainingGasToChild: false, callWithValuePerformed: false })
  }

  private readonly onAfter = (result: EVMResult): void => {
    const frame = this.frames.pop()
    if (frame === undefined || result.execResult.exceptionError !== undefined) return
    const parent = this.frames.length > 0 ? this.frames[this.frames.length - 1]! : this.result
    parent.movedRemainingGasToChild ||= frame.movedRemainingGasToChild
    parent.callWithValuePerformed ||= frame.callWithValuePerformed
  }

  /**
   * Starts observing `events` (the EVM's) and the node's frame opcodes.
   * @param hooks the node's hooks (its executor's): this probe becomes their `estimate`
   */
  attach(events: EvmEvents, hooks: ExecutionHooks): void {
    events.on('beforeMessage', this.onBefore)
    events.on('afterMessage', this.onAfter)
    hooks.estimate = this
  }

  /** Stops observing `events` and `hooks`. */
  detach(events: EvmEvents, hooks: ExecutionHooks): void {
    events.off('beforeMessage', this.onBefore)
    events.off('afterMessage', this.onAfter)
    if (hooks.estimate === this) hooks.estimate = undefined
  }

  /**
   * A CALL-family or CREATE opcode reserved gas for a child frame (called from ./opcodes.ts).
   * @param gasLeft gas the executing frame had before the opcode (gas)
   * @param charge the opcode's own charge: base fee, memory, new-account and value-transfer gas (gas)
   * @param calleeGas gas handed to the child, stipend included (gas)
   * @param movedAll the child got all the gas left after the charge (CALL family only; CREATE does not count)
   * @param withValue a CALL/CALLCODE transferring a non-zero value
   */
  onChildReservation(gasLeft: bigint, charge: bigint, calleeGas: bigint, movedAll: boolean, withValue: boolean): void {
    const frame = this.frames[this.frames.length - 1]
    if (frame === undefined) return
    if (movedAll) frame.movedRemainingGasToChild = true
    if (withValue) frame.callWithValuePerformed = true
    if (this.frames.length === 1) {
      // the top frame's message limit is the transaction's minus the intrinsic gas, so gasLimit − gasLeft is
      // what the transaction has consumed so far, intrinsic gas included
      const consumed = this.gasLimit - gasLeft + charge + calleeGas
      if (consumed > this.peak) this.peak = consumed
    }
  }

  /**
   * The estimate for a successful run.
   * @param consumedBeforeRefunds the run's gas used before refunds (gas; code deposit included)
   * @param cap the estimation cap (gas)
   * @returns gas
   */
  estimate(consumedBeforeRefunds: bigint, cap: bigint): bigint {
    let gas = this.result.movedRemainingGasToChild
      ? consumedBeforeRefunds
      : this.peak > consumedBeforeRefunds
        ? this.peak
        : consumedBeforeRefunds
    if (this.result.callWithValuePerformed) gas += CALL_STIPEND
    return gas > cap ? cap : gas
  }
}

/** rskj GasCost.STIPEND_CALL. */
const CALL_STIPEND = 2300n
