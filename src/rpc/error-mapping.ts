/**
 * The one place where the domain's errors (src/errors/domain-errors.ts) become JSON-RPC errors: the reference
 * node's code, the message, and `data` (docs/architecture.md#errors, docs/reference-rules.md#rule-error-codes).
 * The dispatcher calls {@link toRpcError} for whatever a method raises; a compatibility profile
 * (src/rpc/compat.ts) may answer a revert in its tool's shape instead.
 */
import {
  CallPreconditionError,
  DomainError,
  ExecutionTimeoutError,
  FilterNotFoundError,
  ForkRemoteError,
  InvalidArgumentError,
  LockedAccountError,
  LogQueryLimitError,
  MergedMiningSubmitError,
  NotTraceableError,
  ResponseTooLargeError,
  StateNotFoundError,
  StorageCellTooLongError,
  TxRejectedError,
  UnknownAccountError,
  VmExecutionError,
  WrongPassphraseError,
} from '../errors/domain-errors.js'
import { toHex } from '../util/bytes.js'
import type { CompatProfile } from './compat.js'
import { ErrorCode, RpcError } from './rpc-error.js'

/** A domain error class. */
type DomainErrorClass = abstract new (...args: never[]) => DomainError

/**
 * The JSON-RPC code of each domain error class; the message is the error's own. {@link VmExecutionError} is
 * answered apart (its `data`, the compatibility profiles). A subclass answers as its class (PoolApplyError as
 * TxRejectedError, PoolTimeoutError as ExecutionTimeoutError, TraceTooLargeError as ResponseTooLargeError).
 */
export const DOMAIN_ERROR_CODES: ReadonlyMap<DomainErrorClass, number> = new Map<DomainErrorClass, number>([
  [TxRejectedError, ErrorCode.TxRejected],
  [ExecutionTimeoutError, ErrorCode.Timeout],
  [ResponseTooLargeError, ErrorCode.Timeout],
  [StateNotFoundError, ErrorCode.InvalidRequest],
  [NotTraceableError, ErrorCode.InvalidRequest],
  [InvalidArgumentError, ErrorCode.InvalidParams],
  [UnknownAccountError, ErrorCode.InvalidParams],
  [LockedAccountError, ErrorCode.InvalidParams],
  [CallPreconditionError, ErrorCode.Server],
  [FilterNotFoundError, ErrorCode.Server],
  [WrongPassphraseError, ErrorCode.Server],
  [ForkRemoteError, ErrorCode.Server],
  [LogQueryLimitError, ErrorCode.LogsLimit],
  [StorageCellTooLongError, ErrorCode.Internal],
  [MergedMiningSubmitError, ErrorCode.SubmitBlock],
])

/**
 * The JSON-RPC error a method's failure is answered with.
 * @param err what the method raised
 * @param profile the compatibility profile in force (undefined: the reference's answers)
 * @returns the RpcError itself; for a domain error its JSON-RPC error (`cause` = the domain error): a
 *   {@link VmExecutionError} is -32015 with the revert bytes (hex) as `data` for a revert, unless the profile
 *   answers it otherwise; every other class has its code in {@link DOMAIN_ERROR_CODES}, without `data`.
 *   Undefined for anything else: an internal error (a bug), which the caller answers with -32603 and logs.
 */
export function toRpcError(err: unknown, profile?: CompatProfile): RpcError | undefined {
  if (err instanceof RpcError) return err
  if (!(err instanceof DomainError)) return undefined
  if (err instanceof VmExecutionError) {
    const shaped = profile?.revertError(err)
    if (shaped !== undefined) return shaped
    const revert = err.revertData
    return new RpcError(ErrorCode.VmError, err.message, revert === undefined ? undefined : toHex(revert), err)
  }
  for (
    let proto = Object.getPrototypeOf(err) as object | null;
    proto !== null;
    proto = Object.getPrototypeOf(proto) as object | null
  ) {
    const code = DOMAIN_ERROR_CODES.get(proto.constructor as DomainErrorClass)
    if (code !== undefined) return new RpcError(code, err.message, undefined, err)
  }
  // a DomainError subclass without a row (a test keeps the table complete): the spec's "other server errors"
  return new RpcError(ErrorCode.Server, err.message, undefined, err)
}
