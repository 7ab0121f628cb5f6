/**
 * A cheaper opcode loop for @ethereumjs's interpreter (less allocation and GC per transaction;
 * docs/architecture.md#performance-rules). Installed by ./interpreter.ts, for the node's own EVMs only.
 *
 * @ethereumjs v10 runs every opcode through `async runStep()`, awaited by `run()`: two promises, an async
 * frame and an argument array per opcode, ~140 KB of garbage per ERC-20 transfer (a third of all the node
 * allocates per automined transaction; sampled with the heap profiler, 531 KB/tx in all). Most opcodes (PUSH,
 * DUP, SWAP, arithmetic, JUMP…) have neither a dynamic gas function nor asynchronous logic, so this loop runs
 * them synchronously. Opcodes with dynamic gas (memory, KECCAK256, SLOAD, RETURN, calls…) run here too, in the stock
 * `runStep`'s order — gas function, INVALID_OPCODE check, gas, program counter, handler — awaiting only the gas
 * function when it answers a promise and an asynchronous handler: the stock `runStep` cost an eth_call of a
 * view function ~5 KB of garbage (its async frame, promise and argument array per opcode, measured).
 *
 * The loop keeps the stock one's behaviour for legacy bytecode: the jump-destination analysis at the first
 * JUMP/JUMPI, `opCode` and `programCounter` in the run state, base-fee charging before the handler,
 * INVALID_OPCODE for undefined opcodes, STOP ending the frame without an error, other EVM errors ending it
 * with that error, non-EVM errors thrown. Whenever a feature this loop does not implement could matter — EOF
 * (EIP-3540), stateless code-chunk charging (EIP-6800/7864), the profiler, `step` listeners or DEBUG (tracers),
 * block-level access lists (EIP-7928, whose post-call out-of-gas the stock `runStep` applies) — the stock `run()` /
 * `runStep()` take over. So does any EVM the node did not adopt (its {@link LoopOwner} is unknown): a library
 * user's own EVM in the same process runs the stock loop.
 *
 * Every {@link CHECK_EVERY} units of work (a backward jump of a static-opcode loop is one unit, an opcode with
 * dynamic gas {@link DYNAMIC_OP_UNITS}) the loop asks the EVM's {@link LoopOwner} whether the execution passed
 * its deadline (it throws ExecutionTimeoutError, a non-EVM error that ends the whole call) or should yield the thread
 * for a moment (src/execution/deadline.ts). Straight-line code needs no check: it ends with the code.
 *
 * What it relies on (checked by ./interpreter.ts at start-up, docs/architecture.md#dependency-patches): the
 * members listed in {@link InterpreterLike}, {@link RunState} and {@link OpcodeEntry}, and EVM errors carrying
 * `errorType === 'EVMError'` and the `error` texts of `EVMError.errorMessages`.
 */
import { EVMError } from '@ethereumjs/evm'

/** Work units between two checkpoints (a backward jump is one unit). */
export const CHECK_EVERY = 1024

/** Units an opcode with dynamic gas counts for (calls, storage and precompiles cost far more than a PUSH). */
export const DYNAMIC_OP_UNITS = 16

/** Who runs an adopted EVM's executions: asked every {@link CHECK_EVERY} units of work. */
export interface LoopOwner {
  /**
   * @returns a promise to await when the thread is to be yielded, else undefined (stay synchronous)
   * @throws a non-EVM error (e.g. the -32011 timeout) to end the whole execution
   */
  checkpoint(): Promise<void> | undefined
}

/** One entry of the (unexported) Interpreter's opcode table. */
export interface OpcodeEntry {
  opcodeInfo: { code: number; feeBigInt: bigint; dynamicGas: boolean; isAsync: boolean; isInvalid: boolean }
  opHandler: (runState: RunState, common: unknown) => void | Promise<void>
  /** The dynamic gas function (opcodes with `dynamicGas` only): the opcode's full gas from its base fee. */
  gasHandler?: (runState: RunState, gas: bigint, common: unknown) => bigint | Promise<bigint>
}

/** The parts of the Interpreter's run state this loop reads and writes. */
export interface RunState {
  code: Uint8Array
  programCounter: number
  opCode: number
  validJumps: Uint8Array
  cachedPushes: unknown
  shouldDoJumpAnalysis: boolean
  eip7928PostTargetCallOog?: unknown
  eip8037BurnLeftoverAfterCreateHaltOntoAlive?: boolean
  gasLeft: bigint
  env: { accessWitness?: { commit(): void; revert?(): void } }
}

/** What the jump-destination analysis returns for a bytecode. */
export interface JumpAnalysis {
  jumps: Uint8Array
  pushes: unknown
  opcodesCached: OpcodeEntry[]
}

/** The parts of @ethereumjs's (unexported) Interpreter this loop uses. */
export interface InterpreterLike {
  _runState: RunState
  _evm: { DEBUG: boolean; events: { listenerCount(event: string): number } }
  common: { isActivatedEIP(eip: number): boolean }
  profilerOpts?: { enabled?: boolean }
  run(code: Uint8Array, opts?: { pc?: number }): Promise<{ runState: RunState; exceptionError?: EVMError }>
  runStep(entry?: OpcodeEntry): Promise<void>
  lookupOpInfo(op: number): OpcodeEntry
  useGas(amount: bigint, context?: unknown): void
  _getValidJumpDestinations(code: Uint8Array): JumpAnalysis
}

/**
 * Per Common: whether it activates a feature only the stock loop or `runStep` implements (EOF, EIP-3540; stateless
 * code-chunk charging, EIP-6800/7864; block-level access lists, EIP-7928). Fixed for a Common, so asked once
 * instead of four EIP lookups per message.
 */
const stockFeatureCache = new WeakMap<object, StockFeatures>()

/** What a Common activates that only the stock loop or the stock `runStep` implements. */
interface StockFeatures {
  /** EOF (EIP-3540): the stock `run` for 0xEF code. */
  eof: boolean
  /** Stateless code-chunk charging (EIP-6800/7864): the stock `run` throughout. */
  stateless: boolean
  /** Block-level access lists (EIP-7928): opcodes with dynamic gas through the stock `runStep` (post-call OOG). */
  bal: boolean
}

function stockFeatures(common: InterpreterLike['common']): StockFeatures {
  let f = stockFeatureCache.get(common)
  if (f === undefined) {
    f = {
      eof: common.isActivatedEIP(3540),
      stateless: common.isActivatedEIP(6800) || common.isActivatedEIP(7864),
      bal: common.isActivatedEIP(7928),
    }
    stockFeatureCache.set(common, f)
  }
  return f
}

/**
 * The replacement for `Interpreter.prototype.run`.
 * @param stockRun the stock `run` (what every EVM the node did not adopt gets)
 * @param stockRunStep the stock `runStep` (for opcodes with dynamic gas)
 * @param ownerOf the {@link LoopOwner} of an adopted EVM, undefined for any other
 */
export function fastRun(
  stockRun: InterpreterLike['run'],
  stockRunStep: InterpreterLike['runStep'],
  ownerOf: (evm: object) => LoopOwner | undefined,
): InterpreterLike['run'] {
  return async function (this: InterpreterLike, code: Uint8Array, opts: { pc?: number } = {}) {
    const common = this.common
    const features = stockFeatures(common)
    const evm = this._evm
    const owner = ownerOf(evm)
    if (
      owner === undefined ||
      (code[0] === 0xef && features.eof) ||
      features.stateless ||
      this.profilerOpts?.enabled === true ||
      evm.DEBUG ||
      evm.events.listenerCount('step') > 0
    ) {
      return stockRun.call(this, code, opts)
    }
    const rs = this._runState
    rs.code = code
    rs.programCounter = opts.pc ?? rs.programCounter
    const start = rs.programCounter
    if (start !== 0 && (start < 0 || start >= code.length)) {
      throw new Error('Internal error: program counter not in range')
    }
    let err: EVMError | undefined
    let cached: OpcodeEntry[] | undefined
    let units = 0
    while (rs.programCounter < code.length) {
      const pc = rs.programCounter
      let entry: OpcodeEntry | undefined
      let opCode: number
      if (cached === undefined) {
        opCode = code[pc]!
        // the analysis runs at the first JUMP/JUMPI (0x5e: JUMPSUB in the stock table), as in the stock loop
        if (opCode === 0x56 || opCode === 0x57 || opCode === 0x5e) {
          const { jumps, pushes, opcodesCached } = this._getValidJumpDestinations(code)
          rs.validJumps = jumps
          rs.cachedPushes = pushes
          rs.shouldDoJumpAnalysis = false
          cached = opcodesCached
        }
      } else {
        entry = cached[pc]!
        opCode = entry.opcodeInfo.code
      }
      rs.opCode = opCode
      try {
        entry ??= this.lookupOpInfo(opCode)
        const info = entry.opcodeInfo
        if (features.bal || rs.eip7928PostTargetCallOog !== undefined) {
          await stockRunStep.call(this, entry)
          units += DYNAMIC_OP_UNITS
        } else {
          // the stock runStep's order: the dynamic gas function (opcodes with one), INVALID_OPCODE, gas, program
          // counter, handler (what runStep does for step listeners, DEBUG, the profiler, stateless charging and
          // EIP-7928 cannot apply here: those runs take the stock path)
          let gas = info.feeBigInt
          if (info.dynamicGas) {
            const dynamic = entry.gasHandler!(rs, gas, common)
            gas = typeof dynamic === 'bigint' ? dynamic : await dynamic
          }
          if (info.isInvalid) throw new EVMError(EVMError.errorMessages.INVALID_OPCODE)
          this.useGas(gas, info)
          rs.programCounter++
          if (info.isAsync) await entry.opHandler(rs, common)
          else entry.opHandler(rs, common)
          rs.env.accessWitness?.commit()
          // a loop made of static opcodes jumps backwards once per turn: count those jumps only
          if (info.dynamicGas) units += DYNAMIC_OP_UNITS
          else if (rs.programCounter <= pc) units++
        }
        if (units >= CHECK_EVERY) {
          units = 0
          const pause = owner.checkpoint() // throws past the deadline (not an EVMError: rethrown below)
          if (pause !== undefined) await pause
        }
      } catch (e) {
        rs.env.accessWitness?.revert?.()
        if (!(e instanceof Object && 'errorType' in e && (e as { errorType: unknown }).errorType === 'EVMError'))
          throw e
        if ((e as EVMError).error !== EVMError.errorMessages.STOP) err = e as EVMError
        break
      }
    }
    if (err === undefined && rs.eip8037BurnLeftoverAfterCreateHaltOntoAlive === true && rs.gasLeft > 0n) {
      rs.gasLeft = 0n
      err = new EVMError(EVMError.errorMessages.OUT_OF_GAS)
    }
    return { runState: rs, exceptionError: err }
  }
}
