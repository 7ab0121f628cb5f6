/**
 * Errors the domain raises, carrying the JSON-RPC code the reference node answers with
 * (docs/reference-rules.md#rule-error-codes; rskj J/org/ethereum/rpc/exception/RskJsonRpcRequestException.java).
 * The RPC layer passes `code`, `message` and `data` through unchanged.
 */

/** JSON-RPC error codes used by this node. */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  Internal: -32603,
  /** Generic server error (insufficient funds in estimate, filter not found, …). */
  Server: -32000,
  /** Unknown error (reference `unknownError`). */
  Unknown: -32009,
  /** Transaction rejected by the pool (nonce, funds, gas price, gas limit, …). */
  TxRejected: -32010,
  /** Timeout or response too big. */
  Timeout: -32011,
  /** eth_getLogs limits exceeded. */
  LogsLimit: -32012,
  /** VM execution error (revert), with the revert bytes in `data`. */
  VmError: -32015,
} as const

/** An error with a JSON-RPC code, raised anywhere in the node. */
export class RpcError extends Error {
  /**
   * @param code JSON-RPC error code (see {@link ErrorCode})
   * @param message human-readable message, as the reference words it where it defines one
   * @param data optional `data` member (hex string of revert bytes for -32015)
   */
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message)
  }
}

/** -32010: a transaction the pool rejects (message as the reference's TxPendingValidator words it). */
export function txRejected(message: string): RpcError {
  return new RpcError(ErrorCode.TxRejected, message)
}

/** -32602: invalid params. */
export function invalidParams(message: string): RpcError {
  return new RpcError(ErrorCode.InvalidParams, message)
}
