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
import type { EVMOpts } from '@ethereumjs/evm'
import { Address, bigIntToBytes, setLengthLeft } from '@ethereumjs/util'
import { halt, memoryGas, setCalleeGas, stockLogicOf, type EvmRunState, type Logic } from './ethereumjs/index.js'
import type { ExecutionHooks } from './hooks.js'

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
 * @param hooks the node's observers of its frame opcodes (eth_estimateGas, call-tree tracers; ./hooks.ts)
 */
export function rskOpcodes(
  minimumGasPrice: MinimumGasPriceSource,
  coinbase: (() => Uint8Array) | undefined,
  hooks: ExecutionHooks,
): CustomOpcode[] {
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
    ...frameOpcodes(hooks),
    {
      opcode: 0x46,
      opcodeName: 'CHAINID',
      baseFee: 2,
      logicFunction: (runState: RunState) => {
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

/** Dynamic gas as `customOpcodes` takes it: returns the opcode's whole charge (base fee included). */
type DynamicGas = (runState: EvmRunState, gas: bigint, common: Common) => Promise<bigint>

const MASK_160 = (1n << 160n) - 1n

function stackAddress(word: bigint): Address {
  return new Address(setLengthLeft(bigIntToBytes(word & MASK_160), 20))
}

/** rskj Repository.isExist: the account is in the state (balance, nonce or code do not matter). */
async function exists(runState: EvmRunState, word: bigint): Promise<boolean> {
  return (await runState.stateManager.getAccount(stackAddress(word))) !== undefined
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
 * value is sent, so the stipend is charged here and the callee's gas set without it (setCalleeGas,
 * src/execution/ethereumjs/opcode-helpers.ts): the callee gets exactly
 * the reference's gas, and when the call fails before running (depth limit, balance) the caller is left with
 * exactly the charge above, as the reference refunds the whole callee gas then.
 */
function callGas(op: 'CALL' | 'CALLCODE' | 'DELEGATECALL' | 'STATICCALL', hooks: ExecutionHooks): DynamicGas {
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
    hooks.estimate?.onChildReservation(left, gas, calleeGas, wanted >= remaining, value !== 0n)
    setCalleeGas(runState, calleeGas - stipend)
    hooks.frames?.onFrameOpcode(op)
    return gas + stipend
  }
}

/**
 * CREATE / CREATE2 gas as the reference computes it (rskj VM.java `doCREATE` / `doCREATE2`, Program.java
 * `createContract`): 32 000 (base fee) + memory expansion + 2 gas per init-code word (RSKIP438), + 6 per word
 * for CREATE2's hashing; the new frame gets ALL the gas left after that (no 63/64 rule). The depth, balance
 * and init-code size checks stay in @ethereumjs's logic (a failed check costs only the charge above).
 */
function createGas(op: 'CREATE' | 'CREATE2', hooks: ExecutionHooks): DynamicGas {
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
    const estimate = hooks.estimate
    if (estimate && runState.env.depth < Number(common.param('stackLimit')) && runState.env.contract.balance >= value) {
      estimate.onChildReservation(left, gas, left - gas, false, false)
    }
    setCalleeGas(runState, left - gas)
    hooks.frames?.onFrameOpcode(op)
    return gas
  }
}

/**
 * SELFDESTRUCT gas as the reference computes it (rskj VM.java `doSUICIDE`): 5 000 (base fee), + 25 000 when
 * the beneficiary account does not exist, whatever the balance (@ethereumjs at Spurious Dragon: only with a
 * balance, and also for an existing empty account). The 24 000 refund (once per destroyed account, capped
 * with the other refunds at gasUsed/2) is @ethereumjs's already.
 */
function selfdestructGas(hooks: ExecutionHooks): DynamicGas {
  return async (runState, gas, common) => {
    if (runState.interpreter.isStatic()) halt('STATIC_STATE_CHANGE')
    const beneficiary = runState.stack.peek(1)[0]
    if (!(await exists(runState, beneficiary))) gas += common.param('callNewAccountGas')
    hooks.addresses?.onSelfdestruct(runState.interpreter.getAddress().bytes, stackAddress(beneficiary).bytes)
    const frames = hooks.frames
    if (frames !== undefined) {
      frames.onSelfdestruct(
        runState.interpreter.getAddress().bytes,
        stackAddress(beneficiary).bytes,
        runState.interpreter.getSelfBalance(),
      )
    }
    return gas
  }
}

/**
 * The frame opcodes with the reference's gas rules (base fees: rskj GasCost CALL, CREATE, SUICIDE); their
 * logic is @ethereumjs's own (a custom opcode must bring one).
 */
function frameOpcodes(hooks: ExecutionHooks): CustomOpcode[] {
  const stockLogic = stockLogicOf()
  const op = (opcode: number, opcodeName: string, baseFee: number, gasFunction: DynamicGas): CustomOpcode => ({
    opcode,
    opcodeName,
    baseFee,
    gasFunction,
    logicFunction: stockLogic(opcode) satisfies Logic,
  })
  return [
    op(0xf0, 'CREATE', 32_000, createGas('CREATE', hooks)),
    op(0xf1, 'CALL', 700, callGas('CALL', hooks)),
    op(0xf2, 'CALLCODE', 700, callGas('CALLCODE', hooks)),
    op(0xf4, 'DELEGATECALL', 700, callGas('DELEGATECALL', hooks)),
    op(0xf5, 'CREATE2', 32_000, createGas('CREATE2', hooks)),
    op(0xfa, 'STATICCALL', 700, callGas('STATICCALL', hooks)),
    op(0xff, 'SELFDESTRUCT', 5_000, selfdestructGas(hooks)),
  ]
}
