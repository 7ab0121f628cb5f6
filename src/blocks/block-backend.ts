/**
 * Where the encoded blocks live (docs/architecture.md#storage): one interface, two backends.
 * - MemoryBlockBackend (no `--db`; src/blocks/memory-block-backend.ts): the encodings, zero runs packed, back to
 *   back in byte chunks compressed once full; flat hash arrays and prefix-keyed indexes.
 * - LevelBlockBackend (`--db`; src/db/level-block-backend.ts): reads the records the chain's database holds
 *   (src/db/chain-storage.ts); the chain's per-block batch wrote them, so appending is bookkeeping only and memory
 *   stays flat.
 * Decoded blocks are cached by the block store (src/blocks/block-store.ts), not here.
 */
import type { EncodedBlock } from './block-codec.js'

/** Where a transaction is: its block's number and its index in the block. */
export interface TxPosition {
  number: bigint
  index: number
}

/** A store of encoded canonical blocks 0 … top with hash and transaction indexes. */
export interface BlockBackend {
  /**
   * Whether {@link txPositions} answers from memory: a backend that reads a database instead (false) has the block
   * store keep an index of its cached blocks' transactions, so a lookup by hash reads only for uncached blocks.
   */
  readonly indexesTxsInMemory: boolean
  /**
   * Records block `number` (one above the current top).
   * @param hash its 32-byte hash; @param txHashes its transaction hashes in block order
   */
  append(number: bigint, enc: EncodedBlock, hash: Uint8Array, txHashes: readonly Uint8Array[]): void
  /** The encodings of block `number` (bytes the caller owns), or undefined. */
  encoded(number: bigint): Promise<EncodedBlock | undefined>
  /** The 32-byte hash of block `number` (the caller owns it), or undefined when it is not held. */
  hashOf(number: bigint): Promise<Uint8Array | undefined>
  /** Numbers of blocks whose hash may be `hash` (the caller checks), lowest first. */
  numbersOfHash(hash: Uint8Array): Promise<bigint[]>
  /** Positions where a transaction with hash `hash` may be (the caller checks). */
  txPositions(hash: Uint8Array): Promise<TxPosition[]>
  /** Forgets the blocks above `number` (the level backend's records are deleted by the chain's rewind batch). */
  truncateAbove(number: bigint): void
  /**
   * Drops the receipts of block `number` and its transactions from the transaction index
   * (`--transaction-block-keeper`); the block itself (header, transactions, senders) stays.
   * @param txHashes its transaction hashes
   */
  pruneReceipts(number: bigint, txHashes: readonly Uint8Array[]): Promise<void>
  /** The encodings of blocks `from` … `to` in order (bytes the caller owns). */
  encodedRange(from: bigint, to: bigint): AsyncIterable<{ number: bigint } & EncodedBlock>
}
