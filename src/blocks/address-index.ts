/**
 * The in-memory address index behind Otterscan's account pages: which mined transactions touched an address
 * (`ots_searchTransactionsBefore` / `After`, pages cut by src/blocks/address-index-pages.ts), the transactions an
 * account sent (`ots_getTransactionBySenderAndNonce`) and who created a contract (`ots_getContractCreator`).
 * Answers come from the index alone, no chain scan. Transactions are named by their packed position
 * (src/blocks/tx-position-key.ts: number × 2^20 + index); three postings stores (src/blocks/address-index-postings.ts)
 * hold, per 20-byte address, ascending numbers:
 *
 * - touched: address → positions of the transactions that touched it: its sender, every address the caller lists
 *   in `touched` (the collector's choice: call targets, internal calls, …), the contracts it created and their
 *   creators; a transaction is filed once per address;
 * - sent: sender → positions of the transactions it sent. The nonce is not stored: nonces along one sender's
 *   transactions increase (`anvil_setNonce` may make them jump), so the caller binary-searches with a nonce-of-
 *   position callback reading the transaction ({@link AddressIndex.findSentByNonce}, ≤ 17 reads for 100 000
 *   transactions); storing nonces would cost 8 B per transaction to duplicate a field of the block;
 * - created: contract → ordinals in a creation log (position, creator), ascending; the last one is the contract's
 *   current incarnation (a CREATE2 address re-created after a self-destruct has several).
 *
 * Appends come in block order; {@link AddressIndex.truncateAbove} (evm_revert, anvil_reset, a reorg) pops the
 * entries of the forgotten blocks off the ends of their lists at a cost proportional to what it forgets, so a test
 * suite reverting after every test pays per test, not per chain length.
 *
 * The LevelDB layout can mirror it one row per entry, keys ordered as the lists (big-endian numbers, so byte order
 * is numeric order): `prefix(1 B) + address(20 B) + position(8 B, uint64 BE)` with prefix `t` touched (empty value),
 * `s` sent (empty value), `c` created (value: the creator's 20 bytes). A page is one range read: before(block) a
 * reverse iterator from `t ‖ address ‖ position(block, 0)` exclusive, after(block) a forward one from
 * `t ‖ address ‖ position(block + 1, 0)`, stopping at the address's end. LevelDB has no access by rank, so the
 * sent lookup there either walks the `s` rows or files `n ‖ sender ‖ nonce(8 B BE)` → position rows (the nonce
 * is in the transaction the collector reads). Truncation deletes the rows of the forgotten blocks (listed by a
 * per-block journal row `j ‖ number(8 B BE)`, or found by re-reading those blocks). eth_getLogs' sparse queries can
 * reuse the same postings keyed by an emitter address (20 B) or a topic (32 B), valued by block number × 2^20 +
 * log index in the block (the position encoding with the log's index for the transaction's).
 */
import { Postings } from './address-index-postings.js'
import { pageAfter, pageBefore, type SearchPage } from './address-index-pages.js'
import { txPositionIndex, txPositionKey, txPositionNumber } from './tx-position-key.js'

export type { SearchPage } from './address-index-pages.js'

/** What the index learns of one mined transaction (the collector's output, in block order). */
export interface IndexedTx {
  /** Addresses the transaction touched (20 bytes each; repeats and the sender may be included). */
  touched: readonly Uint8Array[]
  /** Its sender (20 bytes). */
  from: Uint8Array
  /** Contracts it created, with their direct creator (the sender, or the contract that ran CREATE/CREATE2). */
  created?: readonly IndexedCreation[]
}

/** A contract a transaction created (20-byte addresses). */
export interface IndexedCreation {
  address: Uint8Array
  /** The direct creator: the sender, or the contract that ran CREATE/CREATE2. */
  creator: Uint8Array
}

/** A contract's creation. */
export interface Creation {
  /** Packed position of the creating transaction (src/blocks/tx-position-key.ts). */
  position: number
  /** The direct creator (20 bytes; a copy). */
  creator: Uint8Array
}

/** Placeholder sender of a transaction slot before its sender is read (every indexed transaction has one). */
const NO_ADDRESS = new Uint8Array(20)

/** See the module documentation. */
export class AddressIndex {
  private readonly touched = new Postings(20)
  private readonly sent = new Postings(20)
  private readonly created = new Postings(20)
  private creationPosition = new Float64Array(16)
  private creators = new Uint8Array(16 * 20)
  private creations = 0
  private last = -1

  /** The last block appended (−1 when none). */
  get lastBlock(): number {
    return this.last
  }

  /** (address, transaction) entries of the touched lists. */
  get size(): number {
    return this.touched.size
  }

  /** Distinct addresses with touched entries. */
  get addressCount(): number {
    return this.touched.keyCount
  }

  /** Bytes held by the index's typed arrays (allocated), for memory reports. */
  get byteSize(): number {
    return (
      this.touched.byteSize +
      this.sent.byteSize +
      this.created.byteSize +
      this.creationPosition.byteLength +
      this.creators.byteLength
    )
  }

  /**
   * Indexes the transactions of block `number`.
   * @param number the block number, above every block appended before (blocks without transactions may be skipped)
   * @param txs its transactions in block order (index i = transaction index i)
   * @throws RangeError when `number` is not above {@link lastBlock}, or an address is not 20 bytes
   */
  append(number: number, txs: readonly IndexedTx[]): void {
    if (!(Number.isInteger(number) && number > this.last)) {
      throw new RangeError(`block ${number} appended after block ${this.last}`)
    }
    for (let i = 0; i < txs.length; i++) {
      const tx = txs[i]!
      const position = txPositionKey(number, i)
      this.touched.add(tx.from, position, number)
      for (const a of tx.touched) this.touched.add(a, position, number)
      this.sent.add(tx.from, position, number)
      for (const c of tx.created ?? []) {
        this.touched.add(c.address, position, number)
        this.touched.add(c.creator, position, number)
        this.addCreation(c.address, c.creator, position, number)
      }
    }
    this.last = number
  }

  /**
   * Forgets the blocks above `number` (evm_revert, a reset to a block, a reorg). Cost: proportional to the entries
   * forgotten plus a binary search; nothing per entry kept.
   */
  truncateAbove(number: number): void {
    this.touched.truncateAbove(number)
    this.sent.truncateAbove(number)
    this.created.truncateAbove(number)
    while (this.creations > 0 && txPositionNumber(this.creationPosition[this.creations - 1]!) > number) {
      this.creations--
    }
    if (this.last > number) this.last = Math.max(number, -1)
  }

  /** Forgets everything. */
  clear(): void {
    this.touched.clear()
    this.sent.clear()
    this.created.clear()
    this.creations = 0
    this.last = -1
  }

  /**
   * Otterscan's `ots_searchTransactionsBefore` page for `address` (rules: src/blocks/address-index-pages.ts).
   * @param block block number; transactions of blocks strictly below it (0 = from the newest)
   * @param pageSize transactions wanted; the page finishes its last block
   * @param floor blocks at or below it count as absent (their receipts were pruned); −1 = none
   */
  before(address: Uint8Array, block: number, pageSize: number, floor = -1): SearchPage {
    return pageBefore(this.touched.list(address), block, pageSize, floor)
  }

  /**
   * Otterscan's `ots_searchTransactionsAfter` page for `address`, newest first.
   * @param block block number; transactions of blocks strictly above it (0 = from the oldest)
   * @param pageSize transactions wanted; the page finishes its last block
   * @param floor blocks at or below it count as absent (their receipts were pruned); −1 = none
   */
  after(address: Uint8Array, block: number, pageSize: number, floor = -1): SearchPage {
    return pageAfter(this.touched.list(address), block, pageSize, floor)
  }

  /** Positions of the transactions that touched `address`, ascending (a reader valid until the next change). */
  touchedBy(address: Uint8Array): { count: number; at: (i: number) => number } {
    return this.touched.list(address)
  }

  /** Positions of the transactions `sender` sent, ascending (a reader valid until the next change). */
  sentBy(sender: Uint8Array): { count: number; at: (i: number) => number } {
    return this.sent.list(sender)
  }

  /**
   * The transaction `sender` sent with nonce `nonce`: a binary search over its sent transactions (≤ 17 reads of
   * `nonceOf` for 100 000). Do not append meanwhile (the caller runs it in the chain's queue).
   * @param nonceOf the nonce of the transaction at a packed position (read from the block store, possibly `--db`)
   * @returns its packed position, or undefined when `sender` sent no transaction with that nonce
   */
  async findSentByNonce(
    sender: Uint8Array,
    nonce: bigint,
    nonceOf: (position: number) => Promise<bigint>,
  ): Promise<number | undefined> {
    const list = this.sent.list(sender)
    let lo = 0
    let hi = list.count
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if ((await nonceOf(list.at(mid))) < nonce) lo = mid + 1
      else hi = mid
    }
    return lo < list.count && (await nonceOf(list.at(lo))) === nonce ? list.at(lo) : undefined
  }

  /**
   * The latest creation of contract `address` (its current incarnation), or undefined when no indexed transaction
   * created it. `ots_getContractCreator` answers null for an account without code (Erigon's rule): a contract that
   * self-destructed keeps its creation here, so the caller checks the code at the head first.
   */
  creation(address: Uint8Array): Creation | undefined {
    const list = this.created.list(address)
    if (list.count === 0) return undefined
    const k = list.at(list.count - 1)
    return { position: this.creationPosition[k]!, creator: this.creators.slice(k * 20, k * 20 + 20) }
  }

  /**
   * What was appended, block by block: the transactions of each indexed block as {@link append} would take them
   * again (the sender first in `touched`, then the addresses in the order first filed; creations in order). For
   * state-file dumps. Cost: linear in the index's entries.
   * @returns block number → its transactions in block order
   */
  blockRecords(): Map<number, IndexedTx[]> {
    const out = new Map<number, IndexedTx[]>()
    const txOf = (position: number): IndexedTx & { touched: Uint8Array[]; created: IndexedCreation[] } => {
      const n = txPositionNumber(position)
      let txs = out.get(n)
      if (txs === undefined) out.set(n, (txs = []))
      const i = txPositionIndex(position)
      for (let j = txs.length; j <= i; j++) txs.push({ from: NO_ADDRESS, touched: [], created: [] })
      return txs[i] as IndexedTx & { touched: Uint8Array[]; created: IndexedCreation[] }
    }
    this.sent.forEachEntry((_, key, position) => {
      txOf(position).from = key.slice()
    })
    this.touched.forEachEntry((_, key, position) => {
      txOf(position).touched.push(key.slice())
    })
    this.created.forEachEntry((_, key, k) => {
      const c = k * 20
      txOf(this.creationPosition[k]!).created.push({ address: key.slice(), creator: this.creators.slice(c, c + 20) })
    })
    return out
  }

  private addCreation(address: Uint8Array, creator: Uint8Array, position: number, number: number): void {
    if (creator.length !== 20) throw new RangeError(`creator of ${creator.length} bytes`)
    const k = this.creations
    if (!this.created.add(address, k, number)) return
    if (k === this.creationPosition.length) {
      const p = new Float64Array(k * 2)
      p.set(this.creationPosition)
      this.creationPosition = p
      const c = new Uint8Array(k * 40)
      c.set(this.creators)
      this.creators = c
    }
    this.creationPosition[k] = position
    this.creators.set(creator, k * 20)
    this.creations++
  }
}
