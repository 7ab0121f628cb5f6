/**
 * The errors of block application (./block-application.ts) and the clean-up of @ethereumjs's error messages
 * they carry.
 */

/** Thrown by {@link Executor.applyBlock} when a transaction cannot be applied at all (invalid nonce, funds, …). */
export class TxApplyError extends Error {
  constructor(
    message: string,
    /** Index of the offending transaction in the batch. */
    readonly index: number,
  ) {
    super(message)
  }
}

/**
 * Thrown by {@link Executor.applyBlock} when a transaction's execution passed the deadline
 * (docs/reference-rules.md#rule-send-deadline): the block is not built and the state is unchanged.
 */
export class TxTimeoutError extends TxApplyError {}

/** Strips @ethereumjs's debug postfix (" (tx type=0 hash=… )") and block context from an error message. */
export function cleanVmMessage(err: unknown): string {
  const msg = err instanceof Error ? err.message : String(err)
  return msg.replace(/\s*\(?-?\s*(tx type|block number|hf=|Block:).*$/s, '').trim()
}
