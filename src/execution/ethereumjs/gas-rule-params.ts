/**
 * The two gas rules a fork may have to run in their older form below their activation height
 * (docs/reference-rules.md#rule-gas-activations): RSKIP400 (16 instead of 68 gas per non-zero calldata byte) and
 * RSKIP438 (the 49 152-byte init code limit and 2 gas per init code word). They are switched once per execution
 * (a block, a call or an estimate) on the node's Common, never per opcode.
 *
 * Reach (docs/architecture.md#dependency-patches): Common's parameter cache (`_paramsCache`, an object) and
 * activated-EIP cache (`_activatedEIPsCache`, an array) are written in place. Relies on: `param()` and
 * `isActivatedEIP()` reading those caches; `Common.copy()` (every transaction's, header's, VM's and EVM's copy)
 * sharing them by reference, which holds as long as nobody changes the hardfork of a copy (the node never does) or
 * calls `updateParams` (a no-op on the node's Common, ./common-params.ts). Checked by {@link gasRuleSwitch}.
 * Transactions cache their data gas when frozen (`cache.dataFee`): {@link forgetDataGas} drops it before a run.
 */
import type { Common } from '@ethereumjs/common'
import { failOnProblems } from './shape-error.js'

/** Gas per non-zero calldata byte before RSKIP400 (rskj GasCost.TX_NO_ZERO_DATA). */
export const PRE_RSKIP400_NON_ZERO_BYTE_GAS = 68n

/** Which of the two gas rules are active for the execution under way. */
export interface GasRules {
  /** RSKIP400: 16 gas per non-zero calldata byte (else 68). */
  rskip400: boolean
  /** RSKIP438: init code size limit and 2 gas per init code word (EIP-3860; else neither). */
  rskip438: boolean
}

interface CommonCaches {
  _paramsCache: Record<string, unknown>
  _activatedEIPsCache: number[]
}

/** Sets the gas rules of the next execution on a Common and every copy of it. */
export type GasRuleSwitch = (rules: GasRules) => void

/** The switch of each Common it was built for (a node keeps its Common when anvil_reset changes the fork). */
const switches = new WeakMap<Common, GasRuleSwitch>()

/**
 * The switch of `common`'s gas rules, built on first use (then the Common must hold the newest rules, as
 * src/execution/common.ts builds it); later calls answer the same switch.
 * @returns a function setting the rules of the next execution (cheap when they do not change)
 * @throws EthereumjsShapeError when Common's caches are not where this relies on them to be
 */
export function gasRuleSwitch(common: Common): GasRuleSwitch {
  let sw = switches.get(common)
  if (sw === undefined) {
    sw = buildSwitch(common)
    switches.set(common, sw)
  }
  return sw
}

/**
 * Puts the newest gas rules back on `common` if a fork switched them (a node reset from a fork to a local chain,
 * or to a fork past both heights). Nothing to do for a Common never switched.
 */
export function restoreGasRules(common: Common): void {
  switches.get(common)?.({ rskip400: true, rskip438: true })
}

function buildSwitch(common: Common): GasRuleSwitch {
  const c = common as unknown as CommonCaches
  const problems: string[] = []
  if (typeof c._paramsCache !== 'object' || c._paramsCache === null) problems.push('Common._paramsCache is missing')
  else if (!('txDataNonZeroGas' in c._paramsCache) || !('initCodeWordGas' in c._paramsCache))
    problems.push('Common._paramsCache lacks txDataNonZeroGas or initCodeWordGas')
  if (!Array.isArray(c._activatedEIPsCache) || !c._activatedEIPsCache.includes(3860))
    problems.push('Common._activatedEIPsCache is not an array holding 3860')
  const copy = common.copy() as unknown as CommonCaches
  if (copy._paramsCache !== c._paramsCache || copy._activatedEIPsCache !== c._activatedEIPsCache)
    problems.push('Common.copy() does not share its parameter caches')
  failOnProblems('Common gas rules', problems)
  const newNonZero = c._paramsCache.txDataNonZeroGas
  const newInitWord = c._paramsCache.initCodeWordGas
  const current: GasRules = { rskip400: true, rskip438: true }
  return (rules) => {
    if (rules.rskip400 !== current.rskip400) {
      c._paramsCache.txDataNonZeroGas = rules.rskip400 ? newNonZero : PRE_RSKIP400_NON_ZERO_BYTE_GAS
      current.rskip400 = rules.rskip400
    }
    if (rules.rskip438 !== current.rskip438) {
      // the custom CREATE gas (../opcodes.ts) reads initCodeWordGas whatever the EIPs; @ethereumjs's size checks and
      // the transaction's init code gas look at EIP 3860
      c._paramsCache.initCodeWordGas = rules.rskip438 ? newInitWord : 0n
      const list = c._activatedEIPsCache
      const at = list.indexOf(3860)
      if (rules.rskip438 && at < 0) list.push(3860)
      if (!rules.rskip438 && at >= 0) list.splice(at, 1)
      current.rskip438 = rules.rskip438
    }
  }
}

/** Drops a transaction's cached data gas (frozen transactions keep it across runs: the rules may have changed). */
export function forgetDataGas(tx: object): void {
  const cache = (tx as { cache?: { dataFee?: unknown } }).cache
  if (cache !== undefined && cache.dataFee !== undefined) cache.dataFee = undefined
}
