/**
 * Sending as an address without its key (anvil_/hardhat_impersonateAccount, anvil_autoImpersonateAccount,
 * eth_sendUnsignedTransaction). The transaction carries a placeholder signature (v 27, r = the sender,
 * s = 1 — unique hashes per sender and nonce) and reports the given sender (Hardhat's fake-sender pattern,
 * docs/reference-rules.md#lib-impersonation).
 */
import type { Common } from '@ethereumjs/common'
import { createLegacyTx, type LegacyTx, type LegacyTxData } from '@ethereumjs/tx'
import { Address } from '@ethereumjs/util'
import { impersonateSender } from '../execution/ethereumjs/transactions.js'
import { bytesToBigInt, toKey } from '../util/bytes.js'

/**
 * A legacy transaction from `from` with a placeholder signature. Its init code size is left to the pool, which
 * checks it with the rules of the block it would go in (docs/reference-rules.md#rule-gas-activations).
 * @param from 20-byte sender
 */
export function impersonatedTransaction(from: Uint8Array, data: LegacyTxData, common: Common): LegacyTx {
  return reportSender(
    createLegacyTx(
      { ...data, v: 27n, r: bytesToBigInt(from), s: 1n },
      { common, freeze: false, allowUnlimitedInitCodeSize: true },
    ),
    from,
  )
}

/**
 * Whether a transaction decoded from a stored block carries the placeholder signature of a send from `from`.
 * @param from the sender the block records for it
 */
export function hasPlaceholderSignature(tx: LegacyTx, from: Uint8Array): boolean {
  return tx.v === 27n && tx.s === 1n && tx.r === bytesToBigInt(from)
}

/**
 * Makes `tx` (unfrozen, placeholder-signed) report `from` as its sender, as when it was sent: replays of a
 * stored block (traces) then execute it from the impersonated address.
 */
export function reportSender(tx: LegacyTx, from: Uint8Array): LegacyTx {
  impersonateSender(tx, new Address(from))
  return tx
}

/** Which addresses may send without a key. */
export class Impersonation {
  private readonly addresses = new Set<string>()
  /** anvil_autoImpersonateAccount: every address may. */
  auto = false

  add(address: Uint8Array): void {
    this.addresses.add(toKey(address))
  }

  remove(address: Uint8Array): void {
    this.addresses.delete(toKey(address))
  }

  /** Whether `address` may send without a key. */
  has(address: Uint8Array): boolean {
    return this.auto || this.addresses.has(toKey(address))
  }
}
