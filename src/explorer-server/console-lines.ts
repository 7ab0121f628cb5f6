/**
 * The Solidity console.log lines of recently mined transactions, for the explorer's transaction page
 * (`GET /explorer-api/console/<hash>`, ./explorer-routes.ts).
 *
 * The chain emits them as `console` events with source `transaction` when a block is committed
 * (src/chain/mining/block-builder.ts), only while decoding is on (`chain.executor.consoleLog`, NodeConfig.consoleLog).
 * They are kept in a bounded LRU: the most recent {@link CONSOLE_TXS_KEPT} transactions that printed, at most
 * {@link CONSOLE_CHARS_KEPT} characters in all; a transaction printing more than that alone is not kept. A transaction
 * mined again after a rewind (evm_revert, a reorg) keeps its latest lines.
 */
import { LRUCache } from 'lru-cache'
import type { Chain, ConsoleLogEvent } from '../chain/chain.js'
import { toHex } from '../util/bytes.js'

/** Most transactions whose lines are kept. */
export const CONSOLE_TXS_KEPT = 10_000

/** Most characters kept over all transactions (each line counts its length plus 16). */
export const CONSOLE_CHARS_KEPT = 8 * 1024 * 1024

/** The console.log lines of recent transactions, captured from one chain's `console` events. */
export class ConsoleLines {
  /** Made on the first line (lru-cache allocates its index arrays for `max` entries up front: ~80 KB). */
  private lines: LRUCache<string, readonly string[]> | undefined
  private readonly listener = (event: ConsoleLogEvent): void => {
    if (event.source !== 'transaction' || event.hash === undefined) return
    this.lines ??= new LRUCache<string, readonly string[]>({
      max: CONSOLE_TXS_KEPT,
      maxSize: CONSOLE_CHARS_KEPT,
      sizeCalculation: (lines) => lines.reduce((n, l) => n + l.length + 16, 16),
    })
    this.lines.set(toHex(event.hash), event.lines)
  }

  /**
   * Starts listening to `chain`'s `console` events.
   * @param chain the node's chain
   */
  constructor(private readonly chain: Chain) {
    chain.on('console', this.listener)
  }

  /**
   * The lines a mined transaction printed.
   * @param hash the transaction hash, `0x` and 64 hex digits (any case)
   * @returns the lines in order, or undefined when none were captured (it printed nothing, decoding was off, it is
   *   not a mined transaction, or it left the LRU)
   */
  get(hash: string): readonly string[] | undefined {
    return this.lines?.get(hash.toLowerCase())
  }

  /** Stops listening and forgets every line. */
  close(): void {
    this.chain.off('console', this.listener)
    this.lines = undefined
  }
}
