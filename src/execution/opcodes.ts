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
