/**
 * A transaction's position (block number, index in the block) packed in one number, the value the transaction
 * indexes store (src/blocks/memory-block-backend.ts, src/blocks/cached-tx-index.ts): number × 2^20 + index. Exact
 * in a double (and a `Float64Array` slot) for blocks below 2^33; a block holds far fewer than 2^20 transactions
 * (its gas limit allows ~1 400 transfers).
 */

/** Positions per block in a {@link txPositionKey}. */
const SPAN = 2 ** 20

/**
 * Packs a position.
 * @param number the block number (0 … 2^33 − 1)
 * @param index the transaction's index in the block (0 … 2^20 − 1)
 */
export function txPositionKey(number: number, index: number): number {
  return number * SPAN + index
}

/** The block number of a {@link txPositionKey}. */
export function txPositionNumber(key: number): number {
  return Math.floor(key / SPAN)
}

/** The transaction index of a {@link txPositionKey}. */
export function txPositionIndex(key: number): number {
  return key % SPAN
}
