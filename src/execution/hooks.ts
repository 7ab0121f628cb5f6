/**
 * The observers the node's custom frame opcodes (./opcodes.ts) notify during an execution: the eth_estimateGas
 * probe (./gas-estimation.ts), the call-tree collector of the tracers (./tracers/call-frames.ts) and the
 * touched-address collector of block application (./touched-addresses.ts).
 *
 * One {@link ExecutionHooks} per node: its executor builds its opcodes with it and hands it to whoever attaches an
 * observer, so an estimate or a trace on one node never sees another node's opcodes (two nodes in one process
 * share no execution state). A node runs one execution at a time (the chain's queue), so one observer of each
 * kind is attached at most.
 */
import type { FrameHook } from './tracers/frame-hook.js'

/** Told when a CALL-family or CREATE opcode reserves gas for a child frame (the estimate's peak consumption). */
export interface ReservationObserver {
  /**
   * @param gasLeft gas the executing frame had before the opcode (gas)
   * @param charge the opcode's own charge: base fee, memory, new-account and value-transfer gas (gas)
   * @param calleeGas gas handed to the child, stipend included (gas)
   * @param movedAll the child got all the gas left after the charge (CALL family only; CREATE does not count)
   * @param withValue a CALL/CALLCODE transferring a non-zero value
   */
  onChildReservation(gasLeft: bigint, charge: bigint, calleeGas: bigint, movedAll: boolean, withValue: boolean): void
}

/** Told of each SELFDESTRUCT while a block's touched addresses are collected (./touched-addresses.ts). */
export interface SelfdestructObserver {
  /** SELFDESTRUCT of `address` to `beneficiary` (20 bytes each), after its static-context check. */
  onSelfdestruct(address: Uint8Array, beneficiary: Uint8Array): void
}

/** The observers attached to one node's executions (undefined: none). */
export class ExecutionHooks {
  /** The eth_estimateGas run under way. */
  estimate: ReservationObserver | undefined = undefined
  /** The call-tree collector of the trace under way. */
  frames: FrameHook | undefined = undefined
  /** The touched-address collector of the block being applied (mining only, not calls or traces). */
  addresses: SelfdestructObserver | undefined = undefined
}
