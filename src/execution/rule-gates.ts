/**
 * The consensus rules a fork of an older network state may not have yet
 * (docs/reference-rules.md#rule-network-activations): the opcodes and precompiles the reference turns on with an RSKIP.
 * Without a fork (or when every gated rule is active from the first local block on) nothing is gated and the EVM is
 * built as always.
 *
 * An opcode whose rule is not active at the executing block is an invalid opcode (the frame halts and loses its
 * gas), as rskj `org/ethereum/vm/VM.java` checks each one; a precompile whose rule is not active is an account
 * without code (the call succeeds, returns nothing and costs no execution gas), as
 * `org/ethereum/vm/PrecompiledContracts.java` `getContractForAddress` answers no contract then.
 */
import type { Common } from '@ethereumjs/common'
import type { EVMOpts, ExecResult, PrecompileInput } from '@ethereumjs/evm'
import { halt, stockOpcode, type EvmRunState, type Logic } from './ethereumjs/index.js'

/** One entry of `EVMOpts.customOpcodes`. */
type CustomOpcode = NonNullable<EVMOpts['customOpcodes']>[number]
/** An entry that adds or replaces an opcode. */
type AddOpcode = Extract<CustomOpcode, { logicFunction: unknown }>

/**
 * The rules an executor runs with when they are not node-cli's own (a fork of network 30 or 31; absent: every
 * rule of the local networks is active).
 */
export interface ExecutionRules {
  /** Whether consensus rule `rule` is active at block `block` (src/rsk/activations.ts `Activations.isActive`). */
  isActive(rule: string, block: bigint): boolean
  /** The rules to check per block: those not active at the fork block (rules never turn off). */
  gated: ReadonlySet<string>
}

/** Whether a consensus rule (`'rskip398'`…) is active at the block being executed. */
export type RuleActive = (rule: string) => boolean

/** Opcodes the reference enables with a rule (VM.java): opcode → rule. */
export const OPCODE_RULES: ReadonlyMap<number, string> = new Map([
  [0x1b, 'rskip120'], // SHL
  [0x1c, 'rskip120'], // SHR
  [0x1d, 'rskip120'], // SAR
  [0x3f, 'rskip140'], // EXTCODEHASH
  [0x46, 'rskip152'], // CHAINID
  [0x47, 'rskip151'], // SELFBALANCE
  [0x48, 'rskip412'], // BASEFEE
  [0x5c, 'rskip446'], // TLOAD
  [0x5d, 'rskip446'], // TSTORE
  [0x5e, 'rskip445'], // MCOPY
  [0x5f, 'rskip398'], // PUSH0
  [0xf5, 'rskip125'], // CREATE2
  [0xfa, 'rskip91'], // STATICCALL
])

/** Precompiles the reference enables with a rule (PrecompiledContracts.java): lowercase address without 0x → rule. */
export const PRECOMPILE_RULES: ReadonlyMap<string, string> = new Map([
  ['0000000000000000000000000000000001000009', 'rskip106'], // HDWalletUtils
  ['0000000000000000000000000000000001000010', 'rskip119'], // BlockHeader
  ['0000000000000000000000000000000000000006', 'rskip137'], // bn128 add
  ['0000000000000000000000000000000000000007', 'rskip137'], // bn128 mul
  ['0000000000000000000000000000000000000008', 'rskip137'], // bn128 pairing
  ['0000000000000000000000000000000000000009', 'rskip153'], // blake2f
  ['0000000000000000000000000000000001000011', 'rskip203'], // Environment
  ['0000000000000000000000000000000001000016', 'rskip516'], // secp256k1 add
  ['0000000000000000000000000000000001000017', 'rskip516'], // secp256k1 mul
])

/**
 * The custom opcode list with the opcodes of `gated` rules checked at each execution: the node's own custom
 * entry of that opcode (CHAINID, CREATE2…) or the stock one of `common`, whose gas function and logic first
 * halt with an invalid opcode while `active(rule)` is false.
 * @param custom the node's custom opcodes (./opcodes.ts)
 * @param gated rules to check (those not active at the fork block)
 */
export function gateOpcodes(
  custom: CustomOpcode[],
  common: Common,
  gated: ReadonlySet<string>,
  active: RuleActive,
): CustomOpcode[] {
  if (gated.size === 0) return custom
  const out = [...custom]
  for (const [opcode, rule] of OPCODE_RULES) {
    if (!gated.has(rule)) continue
    const i = out.findIndex((c) => c.opcode === opcode && 'logicFunction' in c)
    let entry: AddOpcode
    if (i >= 0) entry = out[i] as AddOpcode
    else {
      const stock = stockOpcode(common, opcode)
      if (stock === undefined) continue
      entry = { opcode, opcodeName: stock.name, baseFee: stock.fee, gasFunction: stock.gas, logicFunction: stock.logic }
    }
    const logic = entry.logicFunction as Logic
    const gas = entry.gasFunction as ((r: EvmRunState, g: bigint, c: Common) => Promise<bigint>) | undefined
    const gatedEntry: AddOpcode = {
      ...entry,
      logicFunction: ((runState: EvmRunState, c: Common) => {
        if (!active(rule)) halt('INVALID_OPCODE')
        return logic(runState, c)
      }) as never,
    }
    if (gas !== undefined) {
      gatedEntry.gasFunction = (async (runState: EvmRunState, g: bigint, c: Common) => {
        if (!active(rule)) halt('INVALID_OPCODE')
        return gas(runState, g, c)
      }) as never
    }
    if (i >= 0) out[i] = gatedEntry
    else out.push(gatedEntry)
  }
  return out
}

/** An entry of `createEVM({ customPrecompiles })`. */
interface PrecompileEntry {
  address: { toString(): string }
  function: (input: PrecompileInput) => Promise<ExecResult> | ExecResult
}

/**
 * The precompile list with the contracts of `gated` rules answering as accounts without code while
 * `active(rule)` is false: success, no output, no execution gas.
 */
export function gatePrecompiles<T extends PrecompileEntry>(
  list: T[],
  gated: ReadonlySet<string>,
  active: RuleActive,
): T[] {
  if (gated.size === 0) return list
  return list.map((p) => {
    const rule = PRECOMPILE_RULES.get(p.address.toString().slice(2).toLowerCase())
    if (rule === undefined || !gated.has(rule)) return p
    const run = p.function
    return {
      ...p,
      function: (input: PrecompileInput) =>
        active(rule) ? run(input) : { executionGasUsed: 0n, returnValue: new Uint8Array(0) },
    }
  })
}
