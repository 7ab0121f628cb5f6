/**
 * The pages of Otterscan's address history search (`ots_searchTransactionsBefore` / `ots_searchTransactionsAfter`,
 * API level 8) cut from one address's ascending transaction positions (src/blocks/tx-position-key.ts), with the
 * rules of Erigon's implementation (its otterscan_search_v3.go, read for facts):
 *
 * - before(block, pageSize): the transactions of blocks strictly below `block`, newest first; block 0 means "from
 *   the newest" and only then is `firstPage` true. after(block, pageSize): those of blocks strictly above `block`,
 *   collected oldest first and returned newest first; block 0 means "from the oldest" (block 0 included) and only
 *   then is `lastPage` true.
 * - A page takes transactions in its walking direction until it holds `pageSize`, then finishes the block it is in
 *   (a block's transactions are never split; a page may exceed `pageSize`). pageSize 0 acts as 1 (one block).
 * - before: `lastPage` = nothing older is left; after: `firstPage` = nothing newer is left.
 * - One deliberate difference: Erigon's before with block 1 decrements it to 0, which its code then reads as "from
 *   the newest" (a page of the newest transactions); here before(1) is the transactions of block 0 (none on a real
 *   chain), an empty last page.
 */
import { txPositionKey, txPositionNumber } from './tx-position-key.js'

/** A reader of ascending positions: `at(i)` for i in 0 … count − 1. */
export interface PositionList {
  count: number
  at: (i: number) => number
}

/** One page of a search. */
export interface SearchPage {
  /** Packed positions (src/blocks/tx-position-key.ts), newest first; whole blocks only. */
  positions: number[]
  /** The page holds the address's newest transactions (see the module documentation for when it is set). */
  firstPage: boolean
  /** The page holds the address's oldest transactions (idem). */
  lastPage: boolean
}

/** Index of the first position ≥ `key` in `list` (its count when none is). */
export function lowerBound(list: PositionList, key: number): number {
  let lo = 0
  let hi = list.count
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (list.at(mid) < key) lo = mid + 1
    else hi = mid
  }
  return lo
}

/**
 * The page before `block` (see the module documentation).
 * @param list the address's positions, ascending
 * @param block a block number (0 = from the newest)
 * @param pageSize transactions wanted (the page finishes its last block)
 * @param floor blocks at or below it count as absent (−1: none)
 */
export function pageBefore(list: PositionList, block: number, pageSize: number, floor = -1): SearchPage {
  let i = (block === 0 ? list.count : lowerBound(list, txPositionKey(block, 0))) - 1
  const end = floor < 0 ? -1 : lowerBound(list, txPositionKey(floor + 1, 0)) - 1
  const positions: number[] = []
  while (i > end) {
    const p = list.at(i)
    if (positions.length >= pageSize && positions.length > 0) {
      if (txPositionNumber(p) !== txPositionNumber(positions[positions.length - 1]!)) break
    }
    positions.push(p)
    i--
  }
  return { positions, firstPage: block === 0, lastPage: i <= end }
}

/**
 * The page after `block` (see the module documentation).
 * @param list the address's positions, ascending
 * @param block a block number (0 = from the oldest, block 0 included)
 * @param pageSize transactions wanted (the page finishes its last block)
 * @param floor blocks at or below it count as absent (−1: none)
 */
export function pageAfter(list: PositionList, block: number, pageSize: number, floor = -1): SearchPage {
  let i = lowerBound(list, txPositionKey(Math.max(block === 0 ? 0 : block + 1, floor + 1), 0))
  const positions: number[] = []
  while (i < list.count) {
    const p = list.at(i)
    if (positions.length >= pageSize && positions.length > 0) {
      if (txPositionNumber(p) !== txPositionNumber(positions[positions.length - 1]!)) break
    }
    positions.push(p)
    i++
  }
  return { positions: positions.reverse(), firstPage: i >= list.count, lastPage: block === 0 }
}
