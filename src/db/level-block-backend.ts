/**
 * The `--db` block backend: the blocks the chain's database holds (docs/architecture.md#storage).
 */
import { RLP } from '@ethereumjs/rlp'
import { prunedBlockDerived, type EncodedBlock } from '../blocks/block-codec.js'
import type { BlockBackend, TxPosition } from '../blocks/block-backend.js'
import type { ChainStorage } from './chain-storage.js'

/** The `--db` backend: the chain database's block and index records (src/db/chain-storage.ts). */
export class LevelBlockBackend implements BlockBackend {
  readonly indexesTxsInMemory = false

  constructor(private readonly storage: ChainStorage) {}

  append(): void {
    // written by the chain's batch (ChainStorage.writeBlock) before the block is appended
  }

  encoded(number: bigint): Promise<EncodedBlock | undefined> {
    return this.storage.encoded(number)
  }

  async hashOf(number: bigint): Promise<Uint8Array | undefined> {
    // the first field of the derived record: no block decode
    const enc = await this.storage.encoded(number)
    return enc && (RLP.decode(enc.derived) as unknown as Uint8Array[])[0]
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
    if (enc !== undefined) await this.storage.pruneReceipts(number, prunedBlockDerived(enc.derived), txHashes)
  }

  encodedRange(from: bigint, to: bigint): AsyncIterable<{ number: bigint } & EncodedBlock> {
    return this.storage.encodedRange(from, to)
  }
}
