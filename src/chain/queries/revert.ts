/**
 * Turning a failed execution into a {@link VmExecutionError} worded as the reference node words it
 * (rskj EthModule.decodeProgramRevert + RskJsonRpcRequestException.transactionRevertedExecutionError;
 * docs/reference-rules.md#rule-error-revert); the RPC layer answers it with -32015 (docs/architecture.md#errors).
 */
import { VmExecutionError } from '../../errors/domain-errors.js'

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

/** The EVM error names of running out of gas (@ethereumjs/evm EVMError: OUT_OF_GAS, CODESTORE_OUT_OF_GAS). */
const OUT_OF_GAS_ERRORS = new Set(['out of gas', 'code store out of gas'])

/**
 * The error of a failed execution (-32015 at the RPC, with the revert bytes as `data` for reverts).
 * - revert with Error(string): "VM Exception while processing transaction: revert <reason>"
 * - other revert data (custom errors, empty): "…: transaction reverted"
 * - out of gas: "…: out of gas (gas limit N)" — the reference says "transaction reverted" here too; the
 *   gas given is named because sends from node accounts default to 90 000 gas, too little for most deployments
 * - other failures (invalid opcode, stack errors): "…: transaction reverted"
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
  if (error !== 'revert') {
    if (OUT_OF_GAS_ERRORS.has(error)) {
      const defaulted = gasLimit === 90_000n ? ', the default of eth_sendTransaction without "gas"' : ''
      const given = gasLimit === undefined ? '' : ` (gas limit ${gasLimit}${defaulted})`
      return new VmExecutionError(prefix + 'out of gas' + given, error, returnValue, transactionHash)
    }
    return new VmExecutionError(prefix + 'transaction reverted', error, returnValue, transactionHash)
  }
  const reason = decodeRevertReason(returnValue)
  return new VmExecutionError(
    prefix + (reason !== undefined ? 'revert ' + reason : 'transaction reverted'),
    error,
    returnValue,
    transactionHash,
  )
}
