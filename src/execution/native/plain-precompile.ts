/**
 * The reference's handling of a (non-native-contract) precompile call (rskj J/org/ethereum/vm/program/Program.java
 * `callToPrecompiledAddress`, `getInputLength`, `executePrecompiledAndHandleError`; TransactionExecutor `call`):
 * - price = the contract's getGasForData(input); more than the call has → out of gas, all its gas consumed;
 * - a CALL from code passes at most the contract's maximum input (RSKIP516, active from block 0 on regtest:
 *   longer input is cut); a transaction sent to the contract passes its whole data;
 * - a failing execution fails the call and charges the price only (RSKIP197); the CALL pushes 0.
 */
import { EVMError, type ExecResult, type PrecompileInput } from '@ethereumjs/evm'
import { evmFailure } from '../ethereumjs/index.js'
import { currentMessage } from './message-tracker.js'
import { executionCheckpoint } from '../deadline.js'
import { ExecutionTimeoutError } from '../../errors/domain-errors.js'

/** A precompile as the reference defines one. */
export interface PlainPrecompile {
  /** Gas for the (possibly cut) input. */
  price(data: Uint8Array): bigint
  /** Output bytes. @throws Error on invalid input (the call fails) */
  run(data: Uint8Array, input: PrecompileInput): Uint8Array | Promise<Uint8Array>
  /** Longest input a CALL passes (RSKIP516 getMaxInput); undefined = no limit. */
  maxInput?: number
}

const EMPTY = new Uint8Array(0)

/** Wraps a {@link PlainPrecompile} as an @ethereumjs precompile function. */
export function plainPrecompile(p: PlainPrecompile): (input: PrecompileInput) => Promise<ExecResult> {
  return async (input) => {
    let data = input.data
    // (message depth 0 = a transaction or eth_call sent straight to the contract: no cut)
    if (p.maxInput !== undefined && data.length > p.maxInput && (currentMessage(input._EVM)?.depth ?? 0) > 0) {
      data = data.subarray(0, p.maxInput)
    }
    const gas = p.price(data)
    if (gas > input.gasLimit) {
      return {
        returnValue: EMPTY,
        executionGasUsed: input.gasLimit,
        exceptionError: new EVMError(EVMError.errorMessages.OUT_OF_GAS),
      }
    }
    let result: ExecResult
    try {
      result = { returnValue: await p.run(data, input), executionGasUsed: gas }
    } catch (err) {
      if (err instanceof ExecutionTimeoutError) throw err // the deadline ends the whole execution
      const message = err instanceof Error ? err.message : String(err)
      result = { returnValue: EMPTY, executionGasUsed: gas, exceptionError: evmFailure(`precompile: ${message}`) }
    }
    // a precompile can take milliseconds (a pairing, many BLAKE2 rounds): the deadline and the time slice are
    // checked after each one, where the opcode loop would only count it as one dynamic opcode (../deadline.ts)
    const pause = executionCheckpoint(input._EVM)
    if (pause !== undefined) await pause
    return result
  }
}
