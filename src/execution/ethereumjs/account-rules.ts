/**
 * The reference node's account rules on an @ethereumjs VM (docs/architecture.md#dependency-patches): no EIP-161
 * clearing of touched empty accounts, and no storage marker for a creation transaction with empty data.
 *
 * Reach: EIP-161 clearing cannot be switched off through an option (it is on from Spurious Dragon, which this
 * chain's Common needs for other rules), so each node VM's own journal object gets a `cleanup` that empties
 * the journal's `touched` set before running the stock cleanup. Per instance: other EVMs' journals are left
 * alone. Relies on: `journal.touched` being the Set of touched addresses that the stock `cleanup()` walks to
 * delete empty accounts (then resets), and `cleanup()` being called through the object (runTx, and the
 * executor after a bare runCall). Checked by {@link checkJournalShape} on every VM it is applied to.
 */
import { UnitrieStateManager } from '../../state/unitrie-state-manager.js'
import { failOnProblems, missingMethods } from './shape-error.js'

/** The parts of an @ethereumjs VM that {@link applyReferenceStateRules} changes. */
export interface ReferenceRulesTarget {
  stateManager: unknown
  evm: {
    journal: object
    events?: {
      on(
        event: 'beforeMessage',
        listener: (message: { depth: number; to?: unknown; data?: Uint8Array; code?: unknown }) => void,
      ): unknown
    }
  }
}

/** The journal as the patch sees it. */
interface JournalLike {
  cleanup(): Promise<void>
  touched: Set<string>
}

/** Journals already patched (keyed by the journal object: each VM's own). */
const patchedJournals = new WeakSet<object>()

/**
 * The guard of the journal patch.
 * @throws EthereumjsShapeError when the journal has no `cleanup()` or no `touched` Set
 */
export function checkJournalShape(journal: object): void {
  const problems = missingMethods('evm.journal', journal, ['cleanup'])
  if (!((journal as { touched?: unknown }).touched instanceof Set)) problems.push('evm.journal.touched is not a Set')
  failOnProblems('journal cleanup', problems)
}

/**
 * Makes an @ethereumjs VM follow the reference node's account rules. Idempotent; call it again after
 * `vm.shallowCopy()` (which builds a new EVM and journal).
 *
 * 1. No EIP-161 state clearing. RSK never deletes "touched" empty accounts, and a transfer (even of
 *    0 wei) creates its destination (rskj Repository.addBalance → getAccountStateOrCreateNew).
 *    @ethereumjs (SpuriousDragon+) deletes touched empty accounts at the end of each transaction,
 *    which e.g. deletes the empty genesis precompile accounts 0x01–0x09 with their storage markers
 *    when they are called, and the account created by a 0-value transfer. SELFDESTRUCT deletion is
 *    unaffected.
 * 2. A creation transaction with empty data creates the account WITHOUT a storage marker
 *    (TransactionExecutor.create skips setupContract); CREATE/CREATE2 and creation transactions
 *    with init code get one (see {@link UnitrieStateManager.clearStorage}). Needs the VM's state
 *    manager to be a {@link UnitrieStateManager}. (Public API: the `beforeMessage` event.)
 * @throws EthereumjsShapeError when the journal lacks what rule 1 relies on
 */
export function applyReferenceStateRules(vm: ReferenceRulesTarget): void {
  const journal = vm.evm.journal as JournalLike
  if (patchedJournals.has(journal)) return
  checkJournalShape(journal)
  patchedJournals.add(journal)
  const original = journal.cleanup.bind(journal)
  journal.cleanup = async () => {
    journal.touched.clear()
    await original()
  }
  const sm = vm.stateManager
  if (sm instanceof UnitrieStateManager && vm.evm.events) {
    vm.evm.events.on('beforeMessage', (m) => {
      // Every message resets the flag; clearStorage of a depth-0 create runs before any inner message.
      sm.markerOnNextCreate = !(m.depth === 0 && m.to === undefined && (m.data?.length ?? 0) === 0)
    })
  }
}
