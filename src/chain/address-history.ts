/**
 * The chain's address history: the address index (src/blocks/address-index.ts) kept in step with the chain —
 * filed as each block is appended, cut back by evm_revert and resets, carried by state files — and, with `--db`,
 * rebuilt from the blocks' stored records ('a', src/db/storage-layout.ts) the first time it is asked, so a restart
 * reads nothing for it. Blocks without a record (the genesis, a fork block, blocks stored or dumped before the
 * index existed) are simply not in it. Every method that changes it runs inside the chain's queue.
 */
import { AddressIndex, type IndexedTx } from '../blocks/address-index.js'
import { decodeBlockAddresses } from '../blocks/address-index-record.js'
import type { ChainStorage } from '../db/chain-storage.js'
import { StorageCorruptError } from '../errors/storage-errors.js'

/** See the module documentation. */
export class AddressHistory {
  private readonly index = new AddressIndex()
  /** Whether {@link index} holds every recorded block (false with `--db` until the first {@link ready}). */
  private loaded: boolean

  /** @param storage the `--db` storage whose records are loaded on first use; undefined in memory */
  constructor(private readonly storage: ChainStorage | undefined) {
    this.loaded = storage === undefined
  }

  /** Whether the index is in memory (queries then need no {@link ready}). */
  get isLoaded(): boolean {
    return this.loaded
  }

  /**
   * Files the transactions of block `number` (in block order, Remasc last). With `--db` before the first
   * {@link ready} nothing is held: the block's stored record is read then.
   */
  append(number: bigint, txs: readonly IndexedTx[]): void {
    if (this.loaded) this.index.append(Number(number), txs)
  }

  /** Forgets the blocks above `number` (evm_revert, a reset). */
  truncateAbove(number: bigint): void {
    if (this.loaded) this.index.truncateAbove(Number(number))
  }

  /**
   * The index, complete: with `--db` the first call reads every stored record (inside the chain's queue).
   * @throws StorageCorruptError when a stored record does not decode
   */
  async ready(): Promise<AddressIndex> {
    if (!this.loaded) {
      const storage = this.storage!
      await storage.forEachAddressRecord((n, record) => {
        let txs: IndexedTx[]
        try {
          txs = decodeBlockAddresses(record)
        } catch (err) {
          throw new StorageCorruptError(`${storage.label}: the address record of block ${n}: ${(err as Error).message}`)
        }
        this.index.append(Number(n), txs)
      })
      this.loaded = true
    }
    return this.index
  }

  /** The index's records block by block (for a state dump; see AddressIndex.blockRecords). */
  async blockRecords(): Promise<Map<number, IndexedTx[]>> {
    return (await this.ready()).blockRecords()
  }
}
