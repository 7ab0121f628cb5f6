/**
 * A Common whose parameter tables are final (docs/architecture.md#dependency-patches).
 *
 * Reach: every @ethereumjs transaction and block header calls `common.updateParams(packageParams)` on its copy
 * of the Common, which deep-copies the parameter tables and rebuilds the parameter cache (~15% of the automine
 * path), and re-merging Frontier's table over this chain's overrides puts 68 gas per non-zero calldata byte back
 * in place of RSKIP400's 16. The node's Common is built with every package's parameters already merged, and
 * `updateParams` becomes a no-op own property of it. Relies on: `Common.copy()` copying own enumerable
 * properties (Object.assign), so each copy a tx or header makes inherits the no-op; and no other caller needing
 * updateParams to merge. Checked by {@link freezeParams} itself, on the Common it changes.
 */
import type { Common } from '@ethereumjs/common'
import { failOnProblems } from './shape-error.js'

function keepParams(this: Common): Common {
  return this
}

/**
 * Makes `common.updateParams` (and that of every copy of it) a no-op.
 * @param common a Common already holding every parameter it needs
 * @throws EthereumjsShapeError when Common has no updateParams method or its copies do not inherit the no-op
 */
export function freezeParams(common: Common): void {
  const problems: string[] = []
  if (typeof (common as { updateParams?: unknown }).updateParams !== 'function')
    problems.push('Common.updateParams is not a function')
  Object.defineProperty(common, 'updateParams', { value: keepParams, enumerable: true, writable: true })
  if (common.copy().updateParams !== keepParams) problems.push('Common.copy() does not copy own properties')
  failOnProblems('Common parameters', problems)
}
