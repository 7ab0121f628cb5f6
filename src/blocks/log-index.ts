/**
 * The log index behind sparse eth_getLogs queries and log filters: per emitting contract and per event signature
 * (a log's first topic), the blocks holding such a log, so a query naming a contract or an event reads only the
 * blocks that may match instead of every block's bloom in its range (src/events/log-query.ts). Stored in the same
 * postings lists as the address index (src/blocks/address-index-postings.ts), with block numbers as the values.
 *
 * Only the first topic is indexed: it is the event signature (few distinct values, so a few keys), while the other
 * topics are mostly indexed event arguments — an ERC-20 transfer's recipient is a new key for every new holder, at
 * ~80 bytes a key. A query whose only criteria are later topics is answered by the bloom scan as before.
 *
 * The index covers the blocks from {@link LogIndex.indexedFrom} on: all of them in memory; with `--db` those mined
 * since the node started (the stored chain is not re-read for it: older blocks are scanned); after a state file is
 * loaded, those mined after it. Reverts and resets cut it back with the blocks.
 */
import { Postings, type PostingList } from './address-index-postings.js'
import { lowerBound } from './address-index-pages.js'

/** A log as the index reads it. */
export interface IndexedLog {
  /** The emitting contract (20 bytes). */
  address: Uint8Array
  /** Its topics (32 bytes each); only the first is indexed. */
  topics: readonly Uint8Array[]
}

/** The criteria the index can narrow a query with (each an OR of its values; absent = any). */
export interface LogKeys {
  /** Emitting contracts, any of them (empty = any). */
  addresses: readonly Uint8Array[]
  /** First topics (event signatures), any of them; null = any. */
  topic0: readonly Uint8Array[] | null
}

/** The ascending union of the values of `lists` within [from, to]. */
function unionIn(lists: readonly PostingList[], from: number, to: number): number[] {
  const out: number[] = []
  for (const list of lists) {
    for (let i = lowerBound(list, from); i < list.count; i++) {
      const v = list.at(i)
      if (v > to) break
      out.push(v)
    }
  }
  if (lists.length > 1) {
    out.sort((a, b) => a - b)
    let w = 0
    for (let i = 0; i < out.length; i++) if (i === 0 || out[i] !== out[i - 1]) out[w++] = out[i]!
    out.length = w
  }
  return out
}

/**
 * The values both ascending lists hold, ascending (one merge walk: a binary search of the other group's lists per
 * block was ~11 list reads a block, most of the index's share of a first, unoptimised eth_getLogs).
 */
function intersect(a: readonly number[], b: readonly number[]): number[] {
  const out: number[] = []
  let j = 0
  for (let i = 0; i < a.length && j < b.length; i++) {
    const v = a[i]!
    while (j < b.length && b[j]! < v) j++
    if (j < b.length && b[j] === v) out.push(v)
  }
  return out
}

/** Whether the ascending list holds `n`. */
function holds(list: PostingList, n: number): boolean {
  const i = lowerBound(list, n)
  return i < list.count && list.at(i) === n
}

/**
 * Up to how many times as many values as it has candidates another group may hold in their span for
 * {@link LogIndex.candidates} to merge the two lists rather than search each candidate (a search reads ~log2 of the
 * list's length values).
 */
const MERGE_RATIO = 16

/** See the module documentation. */
export class LogIndex {
  private readonly emitters = new Postings(20)
  private readonly signatures = new Postings(32)
  private from: number

  /** @param indexedFrom the first block it will hold (the next block to be appended) */
  constructor(indexedFrom: number) {
    this.from = indexedFrom
  }

  /** The first block the index covers; blocks below it are not in it (queries scan them). */
  get indexedFrom(): number {
    return this.from
  }

  /** Bytes held by its typed arrays, for memory reports. */
  get byteSize(): number {
    return this.emitters.byteSize + this.signatures.byteSize
  }

  /**
   * Files the logs of block `number`, given as its transactions' receipts (blocks must come in increasing order; a
   * block below {@link indexedFrom} is ignored).
   */
  append(number: number, transactions: readonly { receipt: { logs: readonly IndexedLog[] } }[]): void {
    if (number < this.from) return
    for (const t of transactions) {
      for (const log of t.receipt.logs) {
        this.emitters.add(log.address, number, number)
        const t0 = log.topics[0]
        if (t0 !== undefined && t0.length === 32) this.signatures.add(t0, number, number)
      }
    }
  }

  /** Forgets the blocks above `number` (evm_revert, a reset). */
  truncateAbove(number: number): void {
    this.emitters.truncateAbove(number)
    this.signatures.truncateAbove(number)
    if (this.from > number + 1) this.from = number + 1
  }

  /** Forgets everything; the index covers the blocks from `indexedFrom` on (after a state file's blocks, say). */
  restartAt(indexedFrom: number): void {
    this.emitters.clear()
    this.signatures.clear()
    this.from = indexedFrom
  }

  /**
   * The blocks in [from, to] that may hold a log matching `keys` (a superset: the caller still matches each log),
   * ascending; undefined when `keys` names nothing the index holds (no address, no first topic), or when `from` is
   * below {@link indexedFrom}.
   */
  candidates(keys: LogKeys, from: number, to: number): number[] | undefined {
    if (from < this.from) return undefined
    const groups: PostingList[][] = []
    if (keys.addresses.length > 0) groups.push(keys.addresses.map((a) => this.emitters.list(a)))
    if (keys.topic0 !== null && keys.topic0.length > 0) {
      groups.push(keys.topic0.filter((t) => t.length === 32).map((t) => this.signatures.list(t)))
    }
    if (groups.length === 0) return undefined
    // the smallest group first, then keep the blocks every other group also holds
    const sized = groups
      .map((lists) => ({ lists, count: lists.reduce((n, l) => n + l.count, 0) }))
      .sort((a, b) => a.count - b.count)
    let blocks = unionIn(sized[0]!.lists, from, to)
    for (let g = 1; g < sized.length && blocks.length > 0; g++) {
      const lists = sized[g]!.lists
      const lo = blocks[0]!
      const hi = blocks[blocks.length - 1]!
      let between = 0
      for (const l of lists) between += lowerBound(l, hi + 1) - lowerBound(l, lo)
      // a merge walk when the other group holds about as many blocks in that span, else a binary search a block
      // (a few candidates against a long list)
      blocks =
        between <= blocks.length * MERGE_RATIO
          ? intersect(blocks, unionIn(lists, lo, hi))
          : blocks.filter((n) => lists.some((l) => holds(l, n)))
    }
    return blocks
  }
}
