/**
 * The reference pool's admission checks (rskj J/co/rsk/net/handler/TxPendingValidator.java;
 * docs/reference-rules.md#rule-pool-validation, docs/reference-rules.md#rule-error-pool), raising
 * {@link TxRejectedError} with the reference's messages (-32010 at the RPC).
 */
import type { LegacyTx } from '@ethereumjs/tx'
import { TxRejectedError } from '../errors/domain-errors.js'

/** Maximum init code size (bytes) of a creation (EIP-3860 limit, as the reference). */
export const MAX_INIT_CODE_SIZE = 49_152
/** Maximum serialized transaction size (bytes; reference TxPendingValidator.TX_MAX_SIZE, 128 KB). */
export const MAX_TX_SIZE = 128 * 1024
/** Nonces at most this far ahead of the account's are accepted into the pool (reference: [state, state+16)). */
export const MAX_NONCE_GAP = 16n
/** Gas the reference reserves for the sequential sublist of a block (RSKIP144, J/co/rsk/core/bc/BlockUtils.java). */
export const SEQUENTIAL_SUBLIST_GAS = 6_800_000n

/**
 * The largest gas limit a single transaction may have in a block with `blockGasLimit`: the larger of the
 * sequential sublist (≥ 6 800 000) and a parallel sublist ((limit − 6 800 000)/2), never above the block limit.
 */
export function maxTransactionGas(blockGasLimit: bigint): bigint {
  if (blockGasLimit <= SEQUENTIAL_SUBLIST_GAS) return blockGasLimit
  const parallel = (blockGasLimit - SEQUENTIAL_SUBLIST_GAS) / 2n
  return parallel > SEQUENTIAL_SUBLIST_GAS ? parallel : SEQUENTIAL_SUBLIST_GAS
}

/** What the validator needs to know about the sender and the chain. */
export interface ValidationContext {
  /** Sender account state at the pending state; `exists` false when absent. */
  sender: { nonce: bigint; balance: bigint; exists: boolean }
  /** Nonce the next transaction of this sender must have to be executable now. */
  expectedNonce: bigint
  /** Gas limit of the block the tx would go in. */
  blockGasLimit: bigint
  /** minimumGasPrice (wei) of the best block. */
  minimumGasPrice: bigint
  /** Whether to accept nonces ahead of `expectedNonce` (queued). Instant mining needs exact nonces. */
  allowFutureNonce: boolean
  /**
   * Whether the init code size limit applies (RSKIP438; absent: it does). A fork below that rule's height has none
   * (docs/reference-rules.md#rule-gas-activations).
   */
  initCodeLimit?: boolean
  /** Skip the sender-exists rule (impersonated or dev senders on networks without the reference rule). */
  allowMissingSender?: boolean
}

/**
 * Checks a transaction for admission.
 * @throws TxRejectedError with the reference's message when it is rejected
 */
export function validateTransaction(tx: LegacyTx, ctx: ValidationContext): void {
  // Same order as the reference's TxPendingValidator, so a tx breaking several rules gets its message.
  if (!ctx.sender.exists && !ctx.allowMissingSender) {
    throw new TxRejectedError("the sender account doesn't exist")
  }
  const isCreate = tx.to === undefined
  if (isCreate && tx.data.length > MAX_INIT_CODE_SIZE && ctx.initCodeLimit !== false) {
    throw new TxRejectedError("transaction's init code size is invalid")
  }
  const size = tx.serialize().length
  if (size > MAX_TX_SIZE) {
    throw new TxRejectedError(`transaction's size is higher than defined maximum: ${size} > ${MAX_TX_SIZE}`)
  }
  const maxGas = maxTransactionGas(ctx.blockGasLimit)
  if (tx.gasLimit > maxGas) {
    throw new TxRejectedError(
      `transaction's gas limit of ${tx.gasLimit} is higher than the block's gas limit of ${maxGas}`,
    )
  }
  if (tx.nonce < ctx.expectedNonce) throw new TxRejectedError('transaction nonce too low')
  if (tx.nonce > ctx.expectedNonce && (!ctx.allowFutureNonce || tx.nonce >= ctx.sender.nonce + MAX_NONCE_GAP)) {
    throw new TxRejectedError('transaction nonce too high')
  }
  if (ctx.sender.balance < tx.gasPrice * tx.gasLimit + tx.value) {
    throw new TxRejectedError('insufficient funds')
  }
  if (tx.gasPrice < ctx.minimumGasPrice) {
    throw new TxRejectedError("transaction's gas price lower than block's minimum")
  }
  if (tx.getIntrinsicGas() > tx.gasLimit) {
    throw new TxRejectedError("transaction's basic cost is above the gas limit")
  }
}
