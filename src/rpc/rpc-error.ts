/**
 * JSON-RPC errors: the codes this node answers with (docs/reference-rules.md#rule-error-codes; rskj
 * org/ethereum/rpc/exception/RskJsonRpcRequestException.java) and {@link RpcError}, the error the RPC layer
 * raises and answers. The domain never sees these: it raises its own errors (src/errors/domain-errors.ts),
 * which src/rpc/error-mapping.ts turns into RpcErrors (docs/architecture.md#errors).
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
  /** Merged-mining block submission refused (reference JsonRpcApplicationDefinedErrorCodes.SUBMIT_BLOCK). */
  SubmitBlock: -33000,
} as const

/** A JSON-RPC error: what a request is answered with, and what the in-process provider rejects with. */
export class RpcError extends Error {
  /**
   * @param code JSON-RPC error code (see {@link ErrorCode})
   * @param message human-readable message, as the reference words it where it defines one
   * @param data optional `data` member (hex string of revert bytes for -32015)
   * @param cause the domain error this answers, when it answers one
   */
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
    cause?: unknown,
  ) {
    super(message, cause === undefined ? undefined : { cause })
  }
}

/** -32602: invalid params. */
export function invalidParams(message: string): RpcError {
  return new RpcError(ErrorCode.InvalidParams, message)
}
