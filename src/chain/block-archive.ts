/**
 * Where the encoded blocks live (docs/architecture.md#storage): one interface, two archives.
 * - MemoryBlockArchive (no `--db`; src/chain/memory-block-archive.ts): the encodings, zero runs packed, back to
 *   back in byte chunks compressed once full; flat hash arrays and prefix-keyed indexes.
 * - {@link LevelBlockArchive} (`--db`): reads the records the chain's database holds (src/chain/storage.ts); the
 *   chain's per-block batch wrote them, so appending is bookkeeping only and memory stays flat.
 * Decoded blocks are cached by the block store (src/chain/block-store.ts), not here.
 */
import { RLP } from '@ethereumjs/rlp'
import { prunedBlockExtra, type EncodedBlock } from './block-codec.js'
import type { ChainStorage } from './storage.js'

/** Where a transaction is: its block's number and its index in the block. */
export interface TxPosition {
  number: bigint
  index: number
}

/** A store of encoded canonical blocks 0 … top with hash and transaction indexes. */
export interface BlockArchive {
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
  /** Forgets the blocks above `number` (the level archive's records are deleted by the chain's rewind batch). */
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

/** The `--db` archive: the chain database's block and index records (src/chain/storage.ts). */
export class LevelBlockArchive implements BlockArchive {
  constructor(private readonly storage: ChainStorage) {}

  append(): void {
    // written by the chain's batch (ChainStorage.writeBlock) before the block is appended
  }

  encoded(number: bigint): Promise<EncodedBlock | undefined> {
    return this.storage.encoded(number)
  }

  async hashOf(number: bigint): Promise<Uint8Array | undefined> {
    // the first field of the extra record: no block decode
    const enc = await this.storage.encoded(number)
    return enc && (RLP.decode(enc.extra) as unknown as Uint8Array[])[0]
  }

  async numbersOfHash(hash: Uint8Array): Promise<bigint[]> {
    const n = await this.storage.numberOfHash(hash)
    return n === undefined ? [] : [n]
  }

  async txPositions(hash: Uint8Array): Promise<TxPosition[]> {
    const p = await this.storage.txLocation(hash)
    return p === undefined ? [] : [p]
  }

  truncateAbove(): void {
    // deleted by the chain's rewind batch (ChainStorage.rewind)
  }

  async pruneReceipts(number: bigint, txHashes: readonly Uint8Array[]): Promise<void> {
    const enc = await this.storage.encoded(number)
    if (enc !== undefined) await this.storage.pruneReceipts(number, prunedBlockExtra(enc.extra), txHashes)
  }

  encodedRange(from: bigint, to: bigint): AsyncIterable<{ number: bigint } & EncodedBlock> {
    return this.storage.encodedRange(from, to)
  }
}
