/**
 * One block's entry of the address index (src/blocks/address-index.ts) as bytes: what `--db` stores beside the block
 * (the 'a' record, src/db/storage-layout.ts) and a node-cli state file carries with it, so the index is rebuilt
 * without re-executing the chain. RLP: `[[from, [touched…], [[address, creator]…]] per transaction]`, addresses
 * 20 bytes, transactions in block order (Remasc last).
 */
import { RLP } from '@ethereumjs/rlp'
import type { IndexedTx } from './address-index.js'

/**
 * Encodes a block's indexed transactions.
 * @param txs the transactions in block order
 */
export function encodeBlockAddresses(txs: readonly IndexedTx[]): Uint8Array {
  return RLP.encode(
    txs.map((t) => [t.from, t.touched as Uint8Array[], (t.created ?? []).map((c) => [c.address, c.creator])]),
  )
}

/**
 * Decodes {@link encodeBlockAddresses}' bytes.
 * @throws Error when the bytes are not such a record (a 20-byte address where one is expected)
 */
export function decodeBlockAddresses(bytes: Uint8Array): IndexedTx[] {
  const decoded = RLP.decode(bytes) as unknown
  if (!Array.isArray(decoded)) throw new Error('address record: not a list')
  return decoded.map((t: unknown) => {
    if (!Array.isArray(t) || t.length !== 3 || !Array.isArray(t[1]) || !Array.isArray(t[2])) {
      throw new Error('address record: a transaction is not [from, touched, created]')
    }
    const created = (t[2] as unknown[]).map((c) => {
      if (!Array.isArray(c) || c.length !== 2) throw new Error('address record: a creation is not [address, creator]')
      return { address: address(c[0]), creator: address(c[1]) }
    })
    return { from: address(t[0]), touched: (t[1] as unknown[]).map(address), created }
  })
}

function address(v: unknown): Uint8Array {
  if (!(v instanceof Uint8Array) || v.length !== 20) throw new Error('address record: an address is not 20 bytes')
  return v
}
