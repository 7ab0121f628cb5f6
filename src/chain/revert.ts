/**
 * Turning a failed execution into the reference node's -32015 error
 * (rskj EthModule.decodeProgramRevert + RskJsonRpcRequestException.transactionRevertedExecutionError).
 */
import { ErrorCode, RpcError } from '../errors/rpc-error.js'
import { toHex } from '../util/bytes.js'

const ERROR_STRING_SELECTOR = '08c379a0'

/**
 * Decodes the `Error(string)` reason from revert data, or undefined when the data is not an Error(string).
 * @param data revert bytes
 */
export function decodeRevertReason(data: Uint8Array): string | undefined {
  if (data.length < 4 + 64) return undefined
  const buf = Buffer.from(data.buffer, data.byteOffset, data.byteLength)
  if (buf.toString('hex', 0, 4) !== ERROR_STRING_SELECTOR) return undefined
  try {
    const offset = Number(BigInt('0x' + buf.toString('hex', 4, 36)))
    const lenPos = 4 + offset
    if (lenPos + 32 > buf.length) return undefined
    const len = Number(BigInt('0x' + buf.toString('hex', lenPos, lenPos + 32)))
    if (lenPos + 32 + len > buf.length) return undefined
    return buf.toString('utf8', lenPos + 32, lenPos + 32 + len)
  } catch {
    return undefined
  }
}

/**
 * A -32015 error that keeps what failed, so that the RPC boundary can answer it in a compatibility profile's
 * shape (src/rpc/compat.ts) without parsing the message back.
 */
export class VmExecutionError extends RpcError {
  /**
   * @param message the reference's wording (see {@link executionError})
   * @param data the revert bytes as hex for a revert, else undefined
   * @param evmError the EVM's error name (`revert`, `out of gas`, `code store out of gas`, …)
   * @param returnValue the execution's return data
   * @param transactionHash 0x-hex hash of the mined transaction that failed (sends), else undefined (calls)
   */
  constructor(
    message: string,
    data: string | undefined,
    readonly evmError: string,
    readonly returnValue: Uint8Array,
    readonly transactionHash?: string,
  ) {
    super(ErrorCode.VmError, message, data)
  }
}

/** The EVM error names of running out of gas (@ethereumjs/evm EVMError: OUT_OF_GAS, CODESTORE_OUT_OF_GAS). */
const OUT_OF_GAS_ERRORS = new Set(['out of gas', 'code store out of gas'])

/**
 * The -32015 error for a failed execution.
 * - revert with Error(string): "VM Exception while processing transaction: revert <reason>", data = revert bytes
 * - other revert data (custom errors, empty): "…: transaction reverted", data = revert bytes
 * - out of gas: "…: out of gas (gas limit N)", no data — the reference says "transaction reverted" here too; the
 *   gas given is named because sends from node accounts default to 90 000 gas, too little for most deployments
 * - other failures (invalid opcode, stack errors): "…: transaction reverted", no data
 * @param error EVM error name (`revert`, `out of gas`, …)
 * @param returnValue the execution's return data
 * @param gasLimit the gas the execution was given (named in out-of-gas messages), when known
 * @param transactionHash the hash of the mined transaction that failed, for sends
 */
export function executionError(
  error: string,
  returnValue: Uint8Array,
  gasLimit?: bigint,
  transactionHash?: Uint8Array,
): VmExecutionError {
  const prefix = 'VM Exception while processing transaction: '
  const txHash = transactionHash === undefined ? undefined : toHex(transactionHash)
  if (error !== 'revert') {
    if (OUT_OF_GAS_ERRORS.has(error)) {
      const given = gasLimit === undefined ? '' : ` (gas limit ${gasLimit}${gasLimit === 90_000n ? ', the default of eth_sendTransaction without "gas"' : ''})`
      return new VmExecutionError(prefix + 'out of gas' + given, undefined, error, returnValue, txHash)
    }
    return new VmExecutionError(prefix + 'transaction reverted', undefined, error, returnValue, txHash)
  }
  const reason = decodeRevertReason(returnValue)
  const data = toHex(returnValue)
  if (reason !== undefined) return new VmExecutionError(prefix + 'revert ' + reason, data, error, returnValue, txHash)
  return new VmExecutionError(prefix + 'transaction reverted', data, error, returnValue, txHash)
}
