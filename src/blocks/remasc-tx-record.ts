/**
 * The Remasc transaction of a stored block as a transaction record (docs/reference-rules.md#rule-remasc-transaction).
 */
import type { Common } from '@ethereumjs/common'
import { createLegacyTx, type LegacyTx } from '@ethereumjs/tx'
import { Address } from '@ethereumjs/util'
// (the file, not the folder's index: this module is also in the lazily loaded state-file graph of the bundle)
import { deriveTx } from '../execution/ethereumjs/transactions.js'
import { REMASC_ADDRESS, REMASC_SENDER_JSON, remascTransactionHash, remascTransactionRlp } from '../rsk/remasc.js'
import type { TxRecord } from '../types/records.js'

/**
 * A template Remasc transaction per node (keyed by its Common); each block's is a cheap derived object
 * (createLegacyTx costs ~40 µs).
 */
const remascTemplates = new WeakMap<Common, LegacyTx>()

/**
 * The Remasc transaction of block `number` as a transaction record: an unsigned legacy transaction (v, r, s
 * undefined: the JSON shows "0x0") whose serialization and hash are the reference's (nonce number−1,
 * gasPrice and gasLimit the raw byte 0x00, see src/rsk/remasc.ts).
 */
export function remascTxRecord(number: bigint, index: number, receipt: TxRecord['receipt'], common: Common): TxRecord {
  let template = remascTemplates.get(common)
  if (template === undefined) {
    template = createLegacyTx(
      { nonce: 0n, gasPrice: 0n, gasLimit: 0n, to: new Address(REMASC_ADDRESS), value: 0n, data: new Uint8Array(0) },
      { common, freeze: false },
    )
    remascTemplates.set(common, template)
  }
  const rlp = remascTransactionRlp(number)
  const hash = remascTransactionHash(number)
  const sender = new Address(REMASC_SENDER_JSON)
  const tx = deriveTx(template, {
    nonce: number - 1n,
    serialize: () => rlp,
    hash: () => hash,
    getSenderAddress: () => sender,
  })
  return { tx, hash, from: REMASC_SENDER_JSON, index, receipt }
}
