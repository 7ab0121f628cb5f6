/**
 * The interpreter patches — the faster opcode loop (./interpreter-loop.ts) and a memo of the jump-destination
 * analysis — and the EVMs they apply to (docs/architecture.md#dependency-patches).
 *
 * Reach: @ethereumjs/evm does not export its Interpreter class and builds one per message inside
 * `EVM.runInterpreter`, so the only place to change its loop is the class's prototype. The prototype is taken
 * from the interpreter a run returns (`ExecResult.runState.interpreter`, a public field of `evm.runCode()`'s
 * result), and `run` and `_getValidJumpDestinations` are wrapped on it once per process. The wrappers act only
 * for EVMs the node adopted ({@link adoptEvm}); for any other EVM — a library user's own @ethereumjs EVM in the
 * same process — they call the stock methods with the same arguments, so that EVM runs unchanged.
 *
 * Relies on (checked by {@link checkInterpreterShape} when the prototype is first patched): the members named in
 * ./interpreter-loop.ts's InterpreterLike, RunState and OpcodeEntry; `_evm` being the EVM that built the
 * interpreter; the analysis returning `{ jumps, pushes, opcodesCached }` that depends only on the code and the
 * EVM's opcode table.
 */
import { EVMError, type EVMInterface } from '@ethereumjs/evm'
import { captureEntryParts, installEntry, type EntryParts } from './interpreter-entry.js'
import { fastRun, type InterpreterLike, type JumpAnalysis, type LoopOwner } from './interpreter-loop.js'
import { failOnProblems, missingMethods } from './shape-error.js'

export type { LoopOwner } from './interpreter-loop.js'

/** What an adopted EVM carries: who runs it, and its memo of jump analyses (per bytecode array). */
interface Adopted {
  owner: LoopOwner
  jumps: WeakMap<Uint8Array, JumpAnalysis>
}

/**
 * The node's EVMs. Keyed by EVM object, so each node's entries are its own (nothing here is shared between two
 * nodes in one process); the process-wide prototype wrappers look an EVM up here to decide fast or stock.
 */
const adopted = new WeakMap<object, Adopted>()

/** Prototypes already wrapped (one per copy of @ethereumjs/evm in the process). */
const patchedPrototypes = new WeakSet<object>()

/** What the node's `runInterpreter` (./interpreter-entry.ts) builds from, by EVM prototype (per @ethereumjs copy). */
const entryParts = new WeakMap<object, EntryParts>()

/** STOP: the smallest program, run once to reach an interpreter. */
const STOP = Uint8Array.of(0x00)

/**
 * Wraps the Interpreter prototype of `evm`'s @ethereumjs copy (once per process) after checking its shape, and
 * adopts `evm`. Runs one STOP on `evm` (no state change).
 * @param owner the deadline and time-slice keeper of the executions on `evm`
 * @throws EthereumjsShapeError when the interpreter lacks what the patches rely on
 */
export async function installInterpreterPatches(evm: EVMInterface, owner: LoopOwner): Promise<void> {
  const result = await evm.runCode({ code: STOP, gasLimit: 100n })
  const interpreter = (result.runState as { interpreter?: unknown } | undefined)?.interpreter
  if (typeof interpreter !== 'object' || interpreter === null) {
    failOnProblems('interpreter loop', ['evm.runCode() no longer returns runState.interpreter'])
  }
  const proto = Object.getPrototypeOf(interpreter) as InterpreterLike
  if (!patchedPrototypes.has(proto)) {
    checkInterpreterShape(interpreter as InterpreterLike, evm)
    patchPrototype(proto)
    patchedPrototypes.add(proto)
  }
  const evmProto = Object.getPrototypeOf(evm) as object
  if (!entryParts.has(evmProto)) entryParts.set(evmProto, captureEntryParts(interpreter as object, evm))
  adoptEvm(evm, owner)
}

/**
 * Turns the patches on for one more EVM of the node (e.g. one made by `vm.shallowCopy()`). Idempotent.
 * @param owner as for {@link installInterpreterPatches}
 */
export function adoptEvm(evm: object, owner: LoopOwner): void {
  if (adopted.has(evm)) return
  adopted.set(evm, { owner, jumps: new WeakMap() })
  const parts = entryParts.get(Object.getPrototypeOf(evm) as object)
  if (parts !== undefined) installEntry(evm, parts)
}

/** Whether the node adopted `evm` (its executions run the patched loop). */
export function isAdopted(evm: object): boolean {
  return adopted.has(evm)
}

const ownerOf = (evm: object): LoopOwner | undefined => adopted.get(evm)?.owner

function patchPrototype(proto: InterpreterLike): void {
  proto.run = fastRun(proto.run, proto.runStep, ownerOf)
  const analyse = proto._getValidJumpDestinations
  // Memoizes the analysis per bytecode and EVM: @ethereumjs redoes it for every message (~8% of an
  // eth_call/estimate); the result depends only on the code and the EVM's opcode table, and the state manager
  // hands out the same code array while the account is cached, so a WeakMap on the array is enough.
  proto._getValidJumpDestinations = function (this: InterpreterLike, code: Uint8Array): JumpAnalysis {
    const cache = adopted.get(this._evm)?.jumps
    if (cache === undefined) return analyse.call(this, code)
    let analysis = cache.get(code)
    if (analysis === undefined) {
      analysis = analyse.call(this, code)
      cache.set(code, analysis)
    }
    return analysis
  }
}

/**
 * The start-up guard of the interpreter patches: the members the loop and the memo use exist with the expected
 * kinds, on a real interpreter that has just run.
 * @throws EthereumjsShapeError listing every mismatch
 */
export function checkInterpreterShape(interpreter: InterpreterLike, evm: object): void {
  const problems = missingMethods('Interpreter', interpreter, [
    'run',
    'runStep',
    'lookupOpInfo',
    'useGas',
    '_getValidJumpDestinations',
  ])
  const i = interpreter as unknown as Record<string, unknown>
  if (i._evm !== evm) problems.push('interpreter._evm is not the EVM that ran it')
  problems.push(...missingMethods('Interpreter.common', i.common, ['isActivatedEIP']))
  if (typeof (evm as { DEBUG?: unknown }).DEBUG !== 'boolean') problems.push('evm.DEBUG is not a boolean')
  problems.push(...missingMethods('evm.events', (evm as { events?: unknown }).events, ['listenerCount']))
  const rs = i._runState as Record<string, unknown> | undefined
  const fields: Record<string, string> = {
    code: 'object',
    programCounter: 'number',
    opCode: 'number',
    validJumps: 'object',
    cachedPushes: 'object',
    shouldDoJumpAnalysis: 'boolean',
    gasLeft: 'bigint',
    env: 'object',
  }
  for (const [name, kind] of Object.entries(fields)) {
    if (typeof rs?.[name] !== kind) problems.push(`interpreter._runState.${name} is not a ${kind}`)
  }
  if (problems.length === 0) {
    const entry = interpreter.lookupOpInfo(0x01) as unknown as {
      opcodeInfo?: Record<string, unknown>
      opHandler?: unknown
    }
    const info = entry?.opcodeInfo
    if (info?.code !== 0x01 || typeof info.feeBigInt !== 'bigint' || typeof entry.opHandler !== 'function') {
      problems.push('lookupOpInfo(0x01) is not { opcodeInfo: { code, feeBigInt, … }, opHandler }')
    }
    for (const flag of ['dynamicGas', 'isAsync', 'isInvalid']) {
      if (typeof info?.[flag] !== 'boolean') problems.push(`opcodeInfo.${flag} is not a boolean`)
    }
    // MLOAD: memory expansion makes its gas dynamic
    const mload = interpreter.lookupOpInfo(0x51) as unknown as {
      opcodeInfo?: { dynamicGas?: unknown }
      gasHandler?: unknown
    }
    if (mload?.opcodeInfo?.dynamicGas !== true || typeof mload.gasHandler !== 'function') {
      problems.push('lookupOpInfo(0x51) is not { opcodeInfo: { dynamicGas: true, … }, gasHandler }')
    }
    // JUMPDEST, PUSH1 1, JUMP
    const a = interpreter._getValidJumpDestinations(Uint8Array.of(0x5b, 0x60, 0x01, 0x56))
    if (a?.jumps?.[0] !== 1 || (a.pushes as Record<number, bigint>)?.[2] !== 1n || a.opcodesCached?.length !== 4) {
      problems.push('_getValidJumpDestinations() no longer returns { jumps, pushes, opcodesCached }')
    }
  }
  for (const name of ['STOP', 'INVALID_OPCODE', 'OUT_OF_GAS'] as const) {
    if (typeof EVMError.errorMessages[name] !== 'string') problems.push(`EVMError.errorMessages.${name} is missing`)
  }
  if ((new EVMError(EVMError.errorMessages.STOP) as { errorType?: unknown }).errorType !== 'EVMError') {
    problems.push("EVMError.errorType is not 'EVMError'")
  }
  failOnProblems('interpreter loop', problems)
}
