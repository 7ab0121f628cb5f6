/**
 * Every place where node-cli relies on @ethereumjs internals — behaviour or members that are not part of its
 * public API — lives in this folder, each in its own file with a comment on what it relies on, a guard that
 * fails loudly when @ethereumjs no longer has that shape (EthereumjsShapeError: the node refuses to start
 * rather than run with a patch silently off), and a test that breaks on an upgrade that changes it
 * (test/execution/ethereumjs.test.ts and the tests named in docs/architecture.md#dependency-patches, which
 * lists them all, with the start-up patches of the bundle).
 *
 * | file                  | reach                                                                  |
 * |-----------------------|------------------------------------------------------------------------|
 * | interpreter.ts        | faster opcode loop and jump-analysis memo on the Interpreter prototype, |
 * | interpreter-loop.ts   | for the node's adopted EVMs only                                       |
 * | interpreter-entry.ts  | the node's runInterpreter (small memory, lazy runState), per EVM       |
 * | account-rules.ts      | journal cleanup without EIP-161 clearing (per VM)                      |
 * | sender-code.ts        | runTx without the EIP-3607 sender check (a one-read state mask)         |
 * | transactions.ts       | LegacyTx method overrides (known sender/encoding, impersonation, …)    |
 * | block-context.ts      | derived context blocks; the BLOCKHASH-only blockchain stub             |
 * | common-params.ts      | Common.updateParams made a no-op                                       |
 * | gas-rule-params.ts    | a fork's RSKIP400/RSKIP438 gas switched in Common's shared caches      |
 * | opcode-helpers.ts     | re-implemented `trap` / `subMemUsage`, stock opcode logic, CALL gas    |
 *
 * Rules for code outside this folder: use @ethereumjs's public API (options such as customOpcodes and
 * customPrecompiles, the StateManagerInterface, EVM events); anything more goes here, with its guard and test.
 * Patches act on the node's own objects only (its VMs, journals, transactions, Common): a library user's
 * @ethereumjs objects in the same process behave as stock. Nothing here holds state shared between two nodes.
 */
import type { Common } from '@ethereumjs/common'
import type { VM } from '@ethereumjs/vm'
import { applyReferenceStateRules } from './account-rules.js'
import { adoptEvm, installInterpreterPatches, type LoopOwner } from './interpreter.js'
import { checkOpcodeHelpers } from './opcode-helpers.js'
import { checkTransactionShape } from './transactions.js'

export { applyReferenceStateRules, type ReferenceRulesTarget } from './account-rules.js'
export {
  blockHashBlockchain,
  checkBlockShape,
  deriveBlock,
  type BlockHashSource,
  type ContextFields,
} from './block-context.js'
export { freezeParams } from './common-params.js'
export {
  forgetDataGas,
  gasRuleSwitch,
  PRE_RSKIP400_NON_ZERO_BYTE_GAS,
  restoreGasRules,
  type GasRules,
  type GasRuleSwitch,
} from './gas-rule-params.js'
export { isAdopted, type LoopOwner } from './interpreter.js'
export { CHECK_EVERY, DYNAMIC_OP_UNITS } from './interpreter-loop.js'
export {
  evmFailure,
  halt,
  memoryGas,
  setCalleeGas,
  stockLogicOf,
  stockOpcode,
  type EvmRunState,
  type Logic,
} from './opcode-helpers.js'
export { runTxFromAnySender } from './sender-code.js'
export { EthereumjsShapeError, VERIFIED_ETHEREUMJS_VERSION } from './shape-error.js'
export { deriveTx, impersonateSender, pinKnownParts, runAsSignedBy, type TxOverrides } from './transactions.js'

/**
 * The start-up guards that need only the node's Common (run before the VM is built).
 * @throws EthereumjsShapeError when @ethereumjs lacks what a patch relies on
 */
export function checkEthereumjs(common: Common): void {
  checkTransactionShape(common)
  checkOpcodeHelpers(common)
}

/**
 * Applies the patches to the node's first VM: the reference account rules on its journal, and the interpreter
 * patches (installed on the prototype once per process, after their guard) with the VM's EVM adopted.
 * @param owner the node's execution clock (deadline and time slices, src/execution/deadline.ts)
 * @throws EthereumjsShapeError when @ethereumjs lacks what a patch relies on
 */
export async function installVmPatches(vm: VM, owner: LoopOwner): Promise<void> {
  applyReferenceStateRules(vm)
  await installInterpreterPatches(vm.evm, owner)
}

/**
 * Applies the patches to another VM of the same node (one made by `vm.shallowCopy()`, which builds a new EVM
 * and journal). Idempotent.
 */
export function adoptVm(vm: VM, owner: LoopOwner): void {
  applyReferenceStateRules(vm)
  adoptEvm(vm.evm, owner)
}
