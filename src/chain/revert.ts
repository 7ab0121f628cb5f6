/**
 * Turning a failed execution into the reference node's -32015 error
 * (rskj EthModule.decodeProgramRevert + RskJsonRpcRequestException.transactionRevertedExecutionError).
 */
import { ErrorCode, RpcError } from './errors.js'
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
 * The -32015 error for a failed execution.
 * - revert with Error(string): "VM Exception while processing transaction: revert <reason>", data = revert bytes
 * - other revert data (custom errors, empty): "…: transaction reverted", data = revert bytes
 * - non-revert failure (out of gas, invalid opcode): "…: transaction reverted", no data
 * @param error EVM error name (`revert`, `out of gas`, …)
 * @param returnValue the execution's return data
 */
export function executionError(error: string, returnValue: Uint8Array): RpcError {
  const prefix = 'VM Exception while processing transaction: '
  if (error !== 'revert') return new RpcError(ErrorCode.VmError, prefix + 'transaction reverted')
  const reason = decodeRevertReason(returnValue)
  const data = toHex(returnValue)
  if (reason !== undefined) return new RpcError(ErrorCode.VmError, prefix + 'revert ' + reason, data)
  return new RpcError(ErrorCode.VmError, prefix + 'transaction reverted', data)
}
