/**
 * Opcodes the reference EVM has that the Petersburg-based Common lacks (docs/reference-rules.md#rule-evm-fork):
 * CHAINID (0x46, 2 gas), SELFBALANCE (0x47, 5 gas) and BASEFEE (0x48, 2 gas) which on this chain pushes the
 * block's minimumGasPrice (rskj J/org/ethereum/vm/VM.java `doBASEFEE`).
 *
 * And the reference's gas rules for the opcodes that start a frame or delete one, which differ from the
 * Tangerine Whistle / Spurious Dragon rules @ethereumjs applies at petersburg (see {@link frameOpcodes}):
 * no 63/64 rule, the call stipend paid out of the caller's gas, the 25 000 new-account charge of CALL and
 * SELFDESTRUCT whenever the target does not exist (value or not). The call depth limit (400, RSKIP150) is the
 * `stackLimit` parameter in ./common.ts.
 */
import type { Common } from '@ethereumjs/common'
import { EVMError, getOpcodesForHF, type EVMOpts } from '@ethereumjs/evm'
import { Address, bigIntToBytes, setLengthLeft } from '@ethereumjs/util'
import { activeEstimate } from './gas-estimation.js'
import { activeFrameHook } from './tracers/frame-hook.js'
import { patchInterpreterLoop } from './interpreter-loop.js'

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
    ...frameOpcodes(),
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

/** The @ethereumjs run state (its type is not exported: taken from the opcode handler signature). */
type EvmRunState = Parameters<ReturnType<typeof getOpcodesForHF>['opcodeMap'][number]['opHandler']>[0]
/** Opcode logic as `customOpcodes` takes it. */
type Logic = (runState: EvmRunState, common: Common) => void | Promise<void>
/** Dynamic gas as `customOpcodes` takes it: returns the opcode's whole charge (base fee included). */
type DynamicGas = (runState: EvmRunState, gas: bigint, common: Common) => Promise<bigint>

let stockHandlers: ReturnType<typeof getOpcodesForHF>['handlers'] | undefined

/** The stock @ethereumjs logic of an opcode (a custom opcode must bring one; ours change the gas only). */
function stockLogic(opcode: number): Logic {
  return (runState, common) => {
    stockHandlers ??= getOpcodesForHF(common).handlers
    return stockHandlers.get(opcode)!(runState, common)
  }
}

/** Exceptional halt of the frame (all its gas is lost), as @ethereumjs's own (unexported) `trap`. */
function halt(error: keyof typeof EVMError.errorMessages): never {
  throw new EVMError(EVMError.errorMessages[error])
}

const MASK_160 = (1n << 160n) - 1n

function stackAddress(word: bigint): Address {
  return new Address(setLengthLeft(bigIntToBytes(word & MASK_160), 20))
}

/** rskj Repository.isExist: the account is in the state (balance, nonce or code do not matter). */
async function exists(runState: EvmRunState, word: bigint): Promise<boolean> {
  return (await runState.stateManager.getAccount(stackAddress(word))) !== undefined
}

/**
 * Memory expansion gas for an access of `length` bytes at `offset` (3 gas/word + words²/512, as
 * @ethereumjs's own `subMemUsage`, which is not exported); grows the frame's word count like it.
 */
function memoryGas(runState: EvmRunState, offset: bigint, length: bigint, common: Common): bigint {
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

/**
 * CALL-family gas as the reference computes it (rskj VM.java `computeCallGas` / `getMessageCall`,
 * Program.java `callToAddress`):
 * - charge 700 (base fee) + memory expansion for the larger of the input and output areas, + 25 000 when the
 *   op is CALL and the target account does not exist (whatever the value; precompile accounts exist on this
 *   chain), + 9 000 when a value is sent (CALL, CALLCODE); out of gas if that exceeds the gas left;
 * - with a value, out of gas unless 2 300 (the stipend) is left after that charge;
 * - the callee gets min(gas left after the charge, requested gas + stipend): no 63/64 rule, and the stipend
 *   comes out of the caller's gas instead of on top of it. The caller pays what the callee used.
 *
 * @ethereumjs's CALL/CALLCODE logic adds the stipend to both the caller's gas and the callee's limit when a
 * value is sent, so the stipend is charged here and `messageGasLimit` set without it: the callee gets exactly
 * the reference's gas, and when the call fails before running (depth limit, balance) the caller is left with
 * exactly the charge above, as the reference refunds the whole callee gas then.
 */
function callGas(op: 'CALL' | 'CALLCODE' | 'DELEGATECALL' | 'STATICCALL'): DynamicGas {
  const withValue = op === 'CALL' || op === 'CALLCODE'
  return async (runState, gas, common) => {
    const args = runState.stack.peek(withValue ? 7 : 6)
    const [requested, to] = args
    const value = withValue ? args[2] : 0n
    const [inOffset, inLength, outOffset, outLength] = args.slice(withValue ? 3 : 2)
    if (op === 'CALL' && value !== 0n && runState.interpreter.isStatic()) halt('STATIC_STATE_CHANGE')
    gas += memoryGas(runState, inOffset, inLength, common)
    gas += memoryGas(runState, outOffset, outLength, common)
    if (op === 'CALL' && !(await exists(runState, to))) gas += common.param('callNewAccountGas')
    if (value !== 0n) gas += common.param('callValueTransferGas')
    const left = runState.interpreter.getGasLeft()
    if (gas > left) halt('OUT_OF_GAS')
    const stipend = value !== 0n ? common.param('callStipendGas') : 0n
    const remaining = left - gas
    if (remaining < stipend) halt('OUT_OF_GAS')
    const wanted = requested + stipend
    const calleeGas = wanted < remaining ? wanted : remaining
    activeEstimate?.onChildReservation(left, gas, calleeGas, wanted >= remaining, value !== 0n)
    runState.messageGasLimit = calleeGas - stipend
    activeFrameHook?.onFrameOpcode(op)
    return gas + stipend
  }
}

/**
 * CREATE / CREATE2 gas as the reference computes it (rskj VM.java `doCREATE` / `doCREATE2`, Program.java
 * `createContract`): 32 000 (base fee) + memory expansion + 2 gas per init-code word (RSKIP438), + 6 per word
 * for CREATE2's hashing; the new frame gets ALL the gas left after that (no 63/64 rule). The depth, balance
 * and init-code size checks stay in @ethereumjs's logic (a failed check costs only the charge above).
 */
function createGas(op: 'CREATE' | 'CREATE2'): DynamicGas {
  return async (runState, gas, common) => {
    if (runState.interpreter.isStatic()) halt('STATIC_STATE_CHANGE')
    const [value, offset, length] = runState.stack.peek(3)
    const words = (length + 31n) / 32n
    gas += memoryGas(runState, offset, length, common)
    gas += words * common.param('initCodeWordGas')
    if (op === 'CREATE2') gas += words * common.param('keccak256WordGas')
    const left = runState.interpreter.getGasLeft()
    if (gas > left) halt('OUT_OF_GAS')
    // the reference reserves the child's gas only once its depth and balance checks passed
    if (activeEstimate && runState.env.depth < Number(common.param('stackLimit')) && runState.env.contract.balance >= value) {
      activeEstimate.onChildReservation(left, gas, left - gas, false, false)
    }
    runState.messageGasLimit = left - gas
    activeFrameHook?.onFrameOpcode(op)
    return gas
  }
}

/**
 * SELFDESTRUCT gas as the reference computes it (rskj VM.java `doSUICIDE`): 5 000 (base fee), + 25 000 when
 * the beneficiary account does not exist, whatever the balance (@ethereumjs at Spurious Dragon: only with a
 * balance, and also for an existing empty account). The 24 000 refund (once per destroyed account, capped
 * with the other refunds at gasUsed/2) is @ethereumjs's already.
 */
const selfdestructGas: DynamicGas = async (runState, gas, common) => {
  if (runState.interpreter.isStatic()) halt('STATIC_STATE_CHANGE')
  const beneficiary = runState.stack.peek(1)[0]
  if (!(await exists(runState, beneficiary))) gas += common.param('callNewAccountGas')
  if (activeFrameHook !== undefined) {
    activeFrameHook.onSelfdestruct(runState.interpreter.getAddress().bytes, stackAddress(beneficiary).bytes, runState.interpreter.getSelfBalance())
  }
  return gas
}

/** The frame opcodes with the reference's gas rules (base fees: rskj GasCost CALL, CREATE, SUICIDE). */
function frameOpcodes(): CustomOpcode[] {
  const op = (opcode: number, opcodeName: string, baseFee: number, gasFunction: DynamicGas): CustomOpcode => ({
    opcode,
    opcodeName,
    baseFee,
    gasFunction,
    logicFunction: stockLogic(opcode),
  })
  return [
    op(0xf0, 'CREATE', 32_000, createGas('CREATE')),
    op(0xf1, 'CALL', 700, callGas('CALL')),
    op(0xf2, 'CALLCODE', 700, callGas('CALLCODE')),
    op(0xf4, 'DELEGATECALL', 700, callGas('DELEGATECALL')),
    op(0xf5, 'CREATE2', 32_000, createGas('CREATE2')),
    op(0xfa, 'STATICCALL', 700, callGas('STATICCALL')),
    op(0xff, 'SELFDESTRUCT', 5_000, selfdestructGas),
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

/**
 * One-shot hook: the next CHAINID executed hands its interpreter to {@link patchJumpAnalysis} and to
 * ./interpreter-loop.ts's {@link patchInterpreterLoop}.
 */
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
  const proto = Object.getPrototypeOf(interpreter)
  patchJumpAnalysis(proto as InterpreterLike)
  patchInterpreterLoop(proto as Parameters<typeof patchInterpreterLoop>[0])
}
