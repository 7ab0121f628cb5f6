/**
 * Where the transactions of the block store's decoded blocks are (docs/architecture.md#storage): an index kept
 * beside the decoded-block cache (src/blocks/block-store.ts) when the backend reads a database (`--db`), so that a
 * transaction of a recent or recently read block — a receipt poll right after a send, a client re-reading the
 * receipts it knows — is found without reading the database's transaction index. A multimap from the 30-bit prefix
 * of the hash (src/util/hash-prefix.ts) to packed positions (src/blocks/tx-position-key.ts) in the in-memory
 * backend's typed-array table (src/blocks/hash-prefix-index.ts): no object or string per entry; the caller checks
 * the full hash.
 */
import { HashPrefixIndex } from './hash-prefix-index.js'
import { txPositionIndex, txPositionKey, txPositionNumber } from './tx-position-key.js'
import { hashPrefix } from '../util/hash-prefix.js'

/** Transaction hash prefixes → positions (src/blocks/tx-position-key.ts) of the transactions of the cached blocks. */
export class CachedTxIndex {
  private readonly positions = new HashPrefixIndex()

  /**
   * Indexes the transactions of block `number`, once (adding a block again changes nothing).
   * @param txHashes its 32-byte transaction hashes in block order
   */
  add(number: number, txHashes: readonly Uint8Array[]): void {
    for (let i = 0; i < txHashes.length; i++) {
      const key = hashPrefix(txHashes[i]!)
      const pos = txPositionKey(number, i)
      if (!this.positions.has(key, pos)) this.positions.add(key, pos)
    }
  }

  /** Forgets the transactions of block `number` (it left the cache). @param txHashes as given to {@link add} */
  remove(number: number, txHashes: readonly Uint8Array[]): void {
    for (let i = 0; i < txHashes.length; i++) this.positions.delete(hashPrefix(txHashes[i]!), txPositionKey(number, i))
  }

  /** Positions where a transaction with this 32-byte hash may be (block number, index), possibly none. */
  candidates(hash: Uint8Array): { number: number; index: number }[] {
    return this.positions.get(hashPrefix(hash)).map((p) => ({ number: txPositionNumber(p), index: txPositionIndex(p) }))
  }

  /** Number of transaction positions indexed (tests). */
  get size(): number {
    return this.positions.size
  }
}
