/**
 * The observer the frame opcodes' gas functions (../opcodes.ts) notify while a call tree is being collected,
 * so callTracer and trace_* need no `step` listener (which would switch the fast opcode loop off and make
 * @ethereumjs copy the memory and stack at every opcode). Untraced execution pays one `undefined` check per
 * CALL-family, CREATE and SELFDESTRUCT opcode. Attached per node through its ExecutionHooks (../hooks.ts).
 */

/** Notified by the frame opcodes, after their gas checks passed. */
export interface FrameHook {
  /** A CALL-family or CREATE opcode is about to open a frame (the next `beforeMessage`). */
  onFrameOpcode(op: 'CALL' | 'CALLCODE' | 'DELEGATECALL' | 'STATICCALL' | 'CREATE' | 'CREATE2'): void
  /** SELFDESTRUCT of `address` sending `balance` (wei) to `beneficiary` (20 bytes each). */
  onSelfdestruct(address: Uint8Array, beneficiary: Uint8Array, balance: bigint): void
}
