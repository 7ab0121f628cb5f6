/**
 * What the node's custom opcodes (src/execution/opcodes.ts) borrow from @ethereumjs beyond the `customOpcodes`
 * option (docs/architecture.md#dependency-patches).
 *
 * - {@link halt} — @ethereumjs's `trap` (not exported): an exceptional halt is an `EVMError` thrown by a gas
 *   function or handler; the interpreter ends the frame with it and consumes the frame's gas.
 * - {@link memoryGas} — @ethereumjs's `subMemUsage` (not exported): the memory expansion charge (3 gas/word +
 *   words²/512, params `memoryGas`, `quadCoefficientDivGas`), kept in the run state's `memoryWordCount` and
 *   `highestMemCost`, which the stock handlers read and write too.
 * - {@link stockLogicOf} — the stock handler of an opcode, from the exported `getOpcodesForHF(common).handlers`:
 *   the frame opcodes keep @ethereumjs's logic and change only the gas.
 * - {@link setCalleeGas} — the gas function ↔ logic contract of CALL-family and CREATE opcodes: the gas function
 *   sets `runState.messageGasLimit`, the logic hands that much gas to the new frame; for CALL/CALLCODE with a
 *   value the logic adds the 2 300 stipend to it (and to the caller's gas) itself.
 * - {@link evmFailure} — an `EVMError` with a message of the node's own (the constructor's type lists only
 *   @ethereumjs's messages; the error is carried as text).
 *
 * Relies on what each line says. Checked: {@link checkOpcodeHelpers} at start-up (error names, parameters,
 * handlers present); the arithmetic and the CALL contract by test/execution/ethereumjs.test.ts and
 * test/execution/gas-rules.test.ts (the same gas as the stock opcodes, and the reference's CALL gas).
 */
import type { Common } from '@ethereumjs/common'
import { EVMError, getOpcodesForHF } from '@ethereumjs/evm'
import { failOnProblems } from './shape-error.js'

/** The @ethereumjs run state (its type is not exported: taken from the opcode handler signature). */
export type EvmRunState = Parameters<ReturnType<typeof getOpcodesForHF>['opcodeMap'][number]['opHandler']>[0]

/** Opcode logic as `customOpcodes` takes it. */
export type Logic = (runState: EvmRunState, common: Common) => void | Promise<void>

/** Exceptional halt of the frame (all its gas is lost), as @ethereumjs's own `trap`. */
export function halt(error: keyof typeof EVMError.errorMessages): never {
  throw new EVMError(EVMError.errorMessages[error])
}

/** An EVM error with the node's own message (e.g. a precompile's failure reason). */
export function evmFailure(message: string): EVMError {
  return new EVMError(message as never)
}

/**
 * Memory expansion gas for an access of `length` bytes at `offset`, as @ethereumjs's `subMemUsage`; grows the
 * frame's word count like it.
 * @returns gas
 */
export function memoryGas(runState: EvmRunState, offset: bigint, length: bigint, common: Common): bigint {
  if (length === 0n) return 0n
  const words = (offset + length + 31n) / 32n
  if (words <= runState.memoryWordCount) return 0n
  let cost = words * common.param('memoryGas') + (words * words) / common.param('quadCoefficientDivGas')
  if (cost > runState.highestMemCost) {
    const before = runState.highestMemCost
    runState.highestMemCost = cost
    cost -= before
  }
  runState.memoryWordCount = words
  return cost
}

/** The gas the next frame opened by this CALL-family or CREATE opcode gets (stipend excluded; gas). */
export function setCalleeGas(runState: EvmRunState, gas: bigint): void {
  runState.messageGasLimit = gas
}

/**
 * The stock logic of opcodes, looked up on first use (the table costs ~2 ms to build: not at start-up).
 * @returns opcode → its @ethereumjs logic (a custom opcode must bring one; the frame opcodes change the gas only).
 *   The first execution of an opcode without a stock handler throws EthereumjsShapeError.
 */
export function stockLogicOf(): (opcode: number) => Logic {
  let handlers: ReturnType<typeof getOpcodesForHF>['handlers'] | undefined
  return (opcode) => {
    let logic: Logic | undefined
    return (runState, common) => {
      if (logic === undefined) {
        handlers ??= getOpcodesForHF(common).handlers
        logic = handlers.get(opcode)
        if (typeof logic !== 'function')
          failOnProblems('custom opcode helpers', [`no stock handler for opcode 0x${opcode.toString(16)}`])
      }
      return logic!(runState, common)
    }
  }
}

/** Dynamic gas as `customOpcodes` takes it: the opcode's whole charge (base fee included). */
export type StockGas = (runState: EvmRunState, gas: bigint, common: Common) => Promise<bigint>

/**
 * An opcode as the stock table of `common` has it: name, base fee (gas), dynamic gas function (if any) and logic,
 * from the exported `getOpcodesForHF(common)`; undefined when the table has no such opcode.
 */
export function stockOpcode(
  common: Common,
  opcode: number,
): { name: string; fee: number; gas: StockGas | undefined; logic: Logic } | undefined {
  const t = getOpcodesForHF(common)
  const info = t.opcodes.get(opcode)
  const logic = t.handlers.get(opcode)
  if (info === undefined || typeof logic !== 'function') return undefined
  const gas = info.dynamicGas ? t.dynamicGasHandlers.get(opcode) : undefined
  return { name: info.name, fee: info.fee, gas: gas as StockGas | undefined, logic: logic as Logic }
}

/** The parameters the custom opcodes read from the Common. */
const PARAMS = [
  'memoryGas',
  'quadCoefficientDivGas',
  'callNewAccountGas',
  'callValueTransferGas',
  'callStipendGas',
  'initCodeWordGas',
  'keccak256WordGas',
  'stackLimit',
]

/**
 * The start-up guard of these helpers.
 * @param common the node's Common
 * @throws EthereumjsShapeError listing every mismatch
 */
export function checkOpcodeHelpers(common: Common): void {
  const problems: string[] = []
  for (const name of ['OUT_OF_GAS', 'STATIC_STATE_CHANGE'] as const) {
    if (typeof EVMError.errorMessages[name] !== 'string') problems.push(`EVMError.errorMessages.${name} is missing`)
  }
  if ((evmFailure('x').error as string) !== 'x') problems.push('EVMError does not carry its message as `error`')
  for (const p of PARAMS) {
    let value: unknown
    try {
      value = common.param(p)
    } catch {
      value = undefined
    }
    if (typeof value !== 'bigint') problems.push(`Common parameter ${p} is missing`)
  }
  failOnProblems('custom opcode helpers', problems)
}
