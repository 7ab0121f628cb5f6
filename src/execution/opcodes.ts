/**
 * Opcodes the reference EVM has that the Petersburg-based Common lacks (reference-node-facts.md §4):
 * CHAINID (0x46, 2 gas), SELFBALANCE (0x47, 5 gas) and BASEFEE (0x48, 2 gas) which on this chain pushes the
 * block's minimumGasPrice (rskj J/org/ethereum/vm/VM.java `doBASEFEE`).
 */
import type { EVMOpts } from '@ethereumjs/evm'

/** One entry of `EVMOpts.customOpcodes`. */
type CustomOpcode = NonNullable<EVMOpts['customOpcodes']>[number]
/** The run state an opcode handler receives. */
type RunState = { stack: { push(v: bigint): void }; interpreter: { getChainId(): bigint; getSelfBalance(): bigint } }

/** Supplies the minimumGasPrice (wei) of the block being executed, for BASEFEE. */
export type MinimumGasPriceSource = () => bigint

/**
 * Builds the custom opcode list for `createEVM({ customOpcodes })`.
 * @param minimumGasPrice read at each BASEFEE execution (the executor sets it per block context)
 * @param coinbase read at each COINBASE execution (20 bytes)
 */
export function rskOpcodes(minimumGasPrice: MinimumGasPriceSource, coinbase?: () => Uint8Array): CustomOpcode[] {
  const extra: CustomOpcode[] = []
  if (coinbase) {
    // COINBASE (0x41, 2 gas) from the block being executed: the executor gives the EVM the Remasc contract as
    // its block coinbase so that fees land there (reference BlockExecutor), and the real miner comes from here
    extra.push({
      opcode: 0x41,
      opcodeName: 'COINBASE',
      baseFee: 2,
      logicFunction: (runState: RunState) => {
        const b = coinbase()
        runState.stack.push(b.length === 0 ? 0n : BigInt('0x' + Buffer.from(b).toString('hex')))
      },
    })
  }
  return [
    ...extra,
    {
      opcode: 0x46,
      opcodeName: 'CHAINID',
      baseFee: 2,
      logicFunction: (runState: RunState) => {
        maybeCapture(runState)
        runState.stack.push(runState.interpreter.getChainId())
      },
    },
    {
      opcode: 0x47,
      opcodeName: 'SELFBALANCE',
      baseFee: 5,
      logicFunction: (runState: RunState) => {
        runState.stack.push(runState.interpreter.getSelfBalance())
      },
    },
    {
      opcode: 0x48,
      opcodeName: 'BASEFEE',
      baseFee: 2,
      logicFunction: (runState: RunState) => {
        runState.stack.push(minimumGasPrice())
      },
    },
  ]
}

/** What the jump-destination analysis of @ethereumjs's interpreter returns for a bytecode. */
type JumpAnalysis = { jumps: Uint8Array; pushes: Record<number, bigint>; opcodesCached: unknown[] }
interface InterpreterLike {
  _evm: object
  _getValidJumpDestinations(code: Uint8Array): JumpAnalysis
}

let analysisCachePatched = false

/**
 * Memoizes the interpreter's jump-destination analysis per bytecode (and EVM instance). @ethereumjs redoes
 * it for every message, ~8% of an eth_call/estimate; the result depends only on the code and the EVM's opcode
 * table, and the state manager hands out the same code array while the account is cached, so a WeakMap on
 * the array is enough. The Interpreter class is not exported: the prototype is reached from a `runState` our
 * custom opcodes receive (see {@link captureInterpreter}).
 */
function patchJumpAnalysis(proto: InterpreterLike): void {
  if (analysisCachePatched) return
  analysisCachePatched = true
  const original = proto._getValidJumpDestinations
  const perEvm = new WeakMap<object, WeakMap<Uint8Array, JumpAnalysis>>()
  proto._getValidJumpDestinations = function (this: InterpreterLike, code: Uint8Array): JumpAnalysis {
    let cache = perEvm.get(this._evm)
    if (!cache) perEvm.set(this._evm, (cache = new WeakMap()))
    let analysis = cache.get(code)
    if (!analysis) {
      analysis = original.call(this, code)
      cache.set(code, analysis)
    }
    return analysis
  }
}

/** One-shot hook: the next CHAINID executed hands its interpreter to {@link patchJumpAnalysis}. */
let capture = false

/** Arms the capture; run a CHAINID (e.g. `evm.runCode({ code: 0x46 00 })`) afterwards. */
export function captureInterpreter(): void {
  capture = !analysisCachePatched
}

/** Called from the CHAINID handler. */
function maybeCapture(runState: unknown): void {
  if (!capture) return
  capture = false
  const interpreter = (runState as { interpreter: object }).interpreter
  patchJumpAnalysis(Object.getPrototypeOf(interpreter) as InterpreterLike)
}
