/**
 * Where the transactions of the block store's decoded blocks are (docs/architecture.md#storage): an index kept
 * beside the decoded-block cache (src/blocks/block-store.ts) when the backend reads a database (`--db`), so that a
 * transaction of a recent or recently read block — a receipt poll right after a send, a client re-reading the
 * receipts it knows — is found without reading the database's transaction index. Keyed by a 31-bit prefix of the
 * hash (a small integer, no string per entry); the caller checks the full hash.
 */

/** A transaction position packed in one number: block number × 2^20 + index (a block holds far fewer than 2^20). */
const SPAN = 2 ** 20

/** The 31-bit prefix of a 32-byte hash. */
function prefixOf(h: Uint8Array): number {
  return ((h[0]! << 23) | (h[1]! << 15) | (h[2]! << 7) | (h[3]! >>> 1)) >>> 0
}

/** Transaction hash prefixes → positions (number × 2^20 + index) of the transactions of the cached blocks. */
export class CachedTxIndex {
  /** A single position is stored unwrapped. */
  private readonly positions = new Map<number, number | number[]>()

  /**
   * Indexes the transactions of block `number`, once (adding a block again changes nothing).
   * @param txHashes its 32-byte transaction hashes in block order
   */
  add(number: number, txHashes: readonly Uint8Array[]): void {
    for (let i = 0; i < txHashes.length; i++) {
      const key = prefixOf(txHashes[i]!)
      const pos = number * SPAN + i
      const cur = this.positions.get(key)
      if (cur === undefined) this.positions.set(key, pos)
      else if (typeof cur === 'number') {
        if (cur !== pos) this.positions.set(key, [cur, pos])
      } else if (!cur.includes(pos)) cur.push(pos)
    }
  }

  /** Forgets the transactions of block `number` (it left the cache). @param txHashes as given to {@link add} */
  remove(number: number, txHashes: readonly Uint8Array[]): void {
    for (let i = 0; i < txHashes.length; i++) {
      const key = prefixOf(txHashes[i]!)
      const pos = number * SPAN + i
      const cur = this.positions.get(key)
      if (cur === undefined) continue
      if (typeof cur === 'number') {
        if (cur === pos) this.positions.delete(key)
        continue
      }
      const rest = cur.filter((p) => p !== pos)
      if (rest.length === 0) this.positions.delete(key)
      else this.positions.set(key, rest.length === 1 ? rest[0]! : rest)
    }
  }

  /** Positions where a transaction with this 32-byte hash may be (block number, index), possibly none. */
  candidates(hash: Uint8Array): { number: number; index: number }[] {
    const cur = this.positions.get(prefixOf(hash))
    if (cur === undefined) return []
    return (typeof cur === 'number' ? [cur] : cur).map((p) => ({ number: Math.floor(p / SPAN), index: p % SPAN }))
  }

  /** Number of hash prefixes indexed (tests). */
  get size(): number {
    return this.positions.size
  }
}
