/**
 * The bounded cache of decoded blocks (docs/architecture.md#storage): the recent blocks by number, and apart from
 * them the older blocks read most recently. Keeping the two apart means reads of older blocks — a client that keeps
 * asking for a few early blocks or receipts, a scan of an old range — never push recent blocks out, so a client
 * polling `eth_getLogs` over the last 1 000 blocks finds all of them decoded whatever else is read. With one LRU
 * over both, 64 early blocks read over and over (the bench's `--sustain` load) left the oldest ~40 blocks of every
 * poll to be read back from the backend and decoded again on every poll.
 */
import { LRUCache } from 'lru-cache'
import type { BlockRecord } from '../types/records.js'

/**
 * Decoded blocks kept by number below the newest one set (each ~6 KB for a block with a transfer,
 * src/blocks/stored-block.ts, so ~6 MB): enough for the fork detection data of the next block (RSKIP110: blocks up
 * to 448 below the head) to stay decoded while mining, and for a client polling eth_getLogs over the last 1000
 * blocks to find them decoded.
 */
export const RECENT_DECODED_BLOCKS = 1024

/** Decoded blocks kept besides the recent ones: the older blocks read most recently (~1 MB). */
export const OLDER_DECODED_BLOCKS = 128

/**
 * Decoded blocks by number: the window of the {@link RECENT_DECODED_BLOCKS} numbers ending at the highest number
 * set so far (a block leaves it as newer ones are set), and an LRU of {@link OLDER_DECODED_BLOCKS} blocks below
 * that window. `onDrop(number, block)` is called for every block that leaves the cache, whatever the reason.
 */
export class DecodedBlockCache {
  private readonly recent = new Map<number, BlockRecord>()
  private readonly older: LRUCache<number, BlockRecord>
  /** The highest number set (the recent window ends there); -1 before the first. */
  private top = -1

  /**
   * @param onDrop called with each block that leaves the cache (its number and record), once
   * @param recentSize how many numbers the recent window spans (blocks)
   * @param olderSize how many older blocks are kept (blocks)
   */
  constructor(
    private readonly onDrop: (n: number, block: BlockRecord) => void,
    private readonly recentSize = RECENT_DECODED_BLOCKS,
    olderSize = OLDER_DECODED_BLOCKS,
  ) {
    this.older = new LRUCache<number, BlockRecord>({ max: olderSize, dispose: (block, n) => onDrop(n, block) })
  }

  /** Block `n`, or undefined; a hit in the older blocks makes it their most recently used. */
  get(n: number): BlockRecord | undefined {
    return this.recent.get(n) ?? this.older.get(n)
  }

  /** Block `n`, or undefined, without changing the older blocks' order (log scans). */
  peek(n: number): BlockRecord | undefined {
    return this.recent.get(n) ?? this.older.peek(n)
  }

  /**
   * Keeps block `n`: in the recent window when `n` is less than the window's size (recentSize) below the highest
   * number set (a new highest number moves the window up and drops the blocks it leaves), else among the older.
   */
  set(n: number, block: BlockRecord): void {
    if (n > this.top) this.moveWindow(n)
    if (n > this.top - this.recentSize) {
      const before = this.recent.get(n)
      this.recent.set(n, block)
      if (before !== undefined && before !== block) this.onDrop(n, before)
    } else {
      this.older.set(n, block)
    }
  }

  /** Drops block `n` if it is kept. */
  delete(n: number): void {
    const block = this.recent.get(n)
    if (block !== undefined) {
      this.recent.delete(n)
      this.onDrop(n, block)
    } else {
      this.older.delete(n)
    }
  }

  /** Drops every block (the recent window stays where it ends). */
  clear(): void {
    for (const k of [...this.recent.keys()]) this.delete(k)
    this.older.clear()
  }

  /** Drops the blocks above `n` (a rewind) and ends the recent window at `n`. */
  truncateAbove(n: number): void {
    for (const k of [...this.recent.keys()]) if (k > n) this.delete(k)
    for (const k of [...this.older.keys()]) if (k > n) this.older.delete(k)
    this.top = Math.min(this.top, n)
  }

  /**
   * Ends the recent window at `n` when that is above where it ends (the head of a chain read back from the
   * database, before any block of it is decoded): the blocks at or below `n − RECENT_DECODED_BLOCKS` leave it.
   */
  endWindowAt(n: number): void {
    if (n > this.top) this.moveWindow(n)
  }

  private moveWindow(n: number): void {
    const floor = n - this.recentSize
    if (n - this.top <= this.recentSize) {
      // consecutive blocks: only the numbers between the old and the new window's bottom
      for (let k = this.top - this.recentSize + 1; k <= floor; k++) if (this.recent.has(k)) this.delete(k)
    } else {
      for (const k of [...this.recent.keys()]) if (k <= floor) this.delete(k)
    }
    this.top = n
  }
}
