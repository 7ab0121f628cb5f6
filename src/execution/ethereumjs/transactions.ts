/**
 * Method overrides on @ethereumjs `LegacyTx` objects (docs/architecture.md#dependency-patches). A transaction
 * object has no option for a sender known in advance, an encoding known in advance, or a placeholder signature,
 * so the node sets these as own properties of its own transaction objects (built with `freeze: false`), which
 * shadow the prototype's methods. No prototype is touched: other LegacyTx objects are unchanged.
 *
 * Relies on: `getSenderAddress`, `verifySignature`, `isSigned`, `serialize` and `hash` being LegacyTx prototype
 * methods that @ethereumjs (runTx, the tx's own hash and validation) calls through the object; an unfrozen tx
 * being extensible; `hash()` of a frozen tx being keccak256 of `serialize()`; the fields (`nonce`, …) being own
 * data properties read through `this` (so an object derived with Object.create reads the template's, or its own
 * overrides). Checked by {@link checkTransactionShape} at start-up.
 */
import type { Common } from '@ethereumjs/common'
import { createLegacyTx, LegacyTx } from '@ethereumjs/tx'
import { Address } from '@ethereumjs/util'
import { keccak256 } from '../../crypto/keccak.js'
import { failOnProblems, missingMethods } from './shape-error.js'

/**
 * Pins what is already known to an unfrozen transaction, then freezes it: `getSenderAddress()` answers `sender`
 * (@ethereumjs re-derives it with a pure-JS keccak on every call) and `serialize()` answers `raw` (so the hash,
 * the transactions trie, the block encoding and the pool's size rule reuse the received bytes).
 * @param tx built with `freeze: false`; @param sender its recovered sender; @param raw its received encoding
 */
export function pinKnownParts(tx: LegacyTx, sender: Address, raw: Uint8Array): void {
  Object.defineProperty(tx, 'getSenderAddress', { value: () => sender })
  Object.defineProperty(tx, 'serialize', { value: () => raw })
  Object.freeze(tx)
}

/**
 * Makes an unfrozen transaction with a placeholder signature report `sender` and pass signature checks
 * (impersonation, docs/reference-rules.md#lib-impersonation).
 */
export function impersonateSender(tx: LegacyTx, sender: Address): void {
  tx.getSenderAddress = () => sender
  tx.verifySignature = () => true
}

/**
 * Makes an unsigned, unfrozen transaction run as sent by `sender` (eth_call / eth_estimateGas of a creation,
 * run through runTx, which requires a signed transaction).
 */
export function runAsSignedBy(tx: LegacyTx, sender: Address): void {
  tx.getSenderAddress = () => sender
  ;(tx as unknown as { isSigned: () => boolean }).isSigned = () => true
}

/** The members a derived transaction may override. */
export interface TxOverrides {
  nonce?: bigint
  serialize?: () => Uint8Array
  hash?: () => Uint8Array
  getSenderAddress?: () => Address
}

/**
 * A cheap transaction object reading `template`'s fields and methods, with some overridden (the Remasc
 * transaction of each block: createLegacyTx costs ~40 µs). The overrides are plain own properties of an object
 * whose prototype is `template`, set by assignment: Object.create with a property-descriptor map cost ~1.2-1.8 µs
 * per block and made an object in dictionary mode; this ~0.05 µs (measured in-process). They are writable and
 * enumerable, which nothing relies on either way.
 * @param template an unfrozen transaction: its fields are writable own data properties (checked by
 *   {@link checkTransactionShape}), so an assigned `nonce` lands on the derived object and shadows the template's
 */
export function deriveTx(template: LegacyTx, overrides: TxOverrides): LegacyTx {
  const tx = Object.create(template) as { -readonly [K in keyof TxOverrides]: TxOverrides[K] }
  if (overrides.nonce !== undefined) tx.nonce = overrides.nonce
  if (overrides.serialize !== undefined) tx.serialize = overrides.serialize
  if (overrides.hash !== undefined) tx.hash = overrides.hash
  if (overrides.getSenderAddress !== undefined) tx.getSenderAddress = overrides.getSenderAddress
  return tx as unknown as LegacyTx
}

/**
 * The start-up guard of the transaction overrides: builds one small transaction with `common` and checks the
 * shape listed in the module doc.
 * @throws EthereumjsShapeError listing every mismatch
 */
export function checkTransactionShape(common: Common): void {
  const methods = ['getSenderAddress', 'verifySignature', 'isSigned', 'serialize', 'hash']
  const problems = missingMethods('LegacyTx.prototype', LegacyTx.prototype, methods)
  if (problems.length === 0) {
    const tx = createLegacyTx({ nonce: 7n, gasLimit: 21_000n, v: 27n, r: 1n, s: 1n }, { common, freeze: false })
    for (const m of methods)
      if (Object.hasOwn(tx, m)) problems.push(`LegacyTx.${m} is an own property, not a prototype method`)
    if (!Object.isExtensible(tx)) problems.push('a LegacyTx built with freeze: false is not extensible')
    if (!Object.getOwnPropertyDescriptor(tx, 'nonce')?.writable)
      problems.push('LegacyTx.nonce is not an own data property')
    // (deriveTx assigns the nonce: only tried on a writable one, where the assignment cannot throw)
    else if (deriveTx(tx, { nonce: 8n }).nonce !== 8n || tx.nonce !== 7n)
      problems.push('a derived LegacyTx does not read its own nonce')
    const raw = Uint8Array.of(0xc0)
    pinKnownParts(tx, new Address(new Uint8Array(20)), raw)
    if (Buffer.compare(tx.hash(), keccak256(raw)) !== 0) problems.push('LegacyTx.hash() is not keccak256(serialize())')
  }
  failOnProblems('LegacyTx overrides', problems)
}
