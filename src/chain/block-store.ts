/**
 * The canonical block list and its indexes: blocks by number and by hash, mined transactions by hash. In memory;
 * the database copy (src/chain/storage.ts) is written by the chain before a block gets here. Pure bookkeeping:
 * no events, no state, no queue — the chain (src/chain/chain.ts) calls it from inside its single writer.
 */
import { toKey } from '../util/bytes.js'
import type { BlockRecord, TxRecord } from '../types/records.js'

/** Where a transaction sits. */
export interface TxLocation {
  block: BlockRecord
  tx: TxRecord
}

/** The canonical chain: an append-only list (truncated only by a rewind) with hash and transaction indexes. */
export class BlockStore {
  private readonly blocks: BlockRecord[] = []
  private readonly byHash = new Map<string, BlockRecord>()
  private readonly txIndex = new Map<string, TxLocation>()

  /** Number of blocks, genesis included (the head's number + 1). */
  get length(): number {
    return this.blocks.length
  }

  /** The genesis block. @throws TypeError before the genesis is added */
  get genesis(): BlockRecord {
    return this.blocks[0]!
  }

  /** The canonical head block (the genesis must have been added). */
  get head(): BlockRecord {
    return this.blocks[this.blocks.length - 1]!
  }

  /** Canonical block by number, or undefined. */
  byNumber(n: bigint): BlockRecord | undefined {
    return n >= 0n && n < BigInt(this.blocks.length) ? this.blocks[Number(n)] : undefined
  }

  /** Canonical block by 32-byte hash, or undefined. */
  byBlockHash(hash: Uint8Array): BlockRecord | undefined {
    return this.byHash.get(toKey(hash))
  }

  /** A mined transaction by 32-byte hash, or undefined. */
  transaction(hash: Uint8Array): TxLocation | undefined {
    return this.txIndex.get(toKey(hash))
  }

  /** Blocks 1 … head (a copy; for state dumps). */
  afterGenesis(): BlockRecord[] {
    return this.blocks.slice(1)
  }

  /** Adds a block on top of the head and indexes it and its transactions (the caller checked it follows). */
  add(block: BlockRecord): void {
    this.blocks.push(block)
    this.byHash.set(block.hashKey, block)
    for (const tx of block.transactions) this.txIndex.set(toKey(tx.hash), { block, tx })
  }

  /**
   * Removes the blocks above `number` from the list and the indexes.
   * @returns the removed blocks, lowest first (empty when `number` is the head's)
   */
  truncateAbove(number: bigint): BlockRecord[] {
    const removed = this.blocks.splice(Number(number) + 1)
    for (const b of removed) {
      this.byHash.delete(b.hashKey)
      for (const tx of b.transactions) this.txIndex.delete(toKey(tx.hash))
    }
    return removed
  }
}
