/**
 * The reads of the chain's database (./storage.ts): the stored chain's meta, head and live root, block encodings by
 * number and in ranges, the hash and transaction indexes, the pre-state and receipt-pruning records. Keys as laid
 * out in ./storage-layout.ts.
 */
import type { EncodedBlock } from '../blocks/block-codec.js'
import { StorageCorruptError } from '../errors/storage-errors.js'
import {
  BLOCK,
  BY_HASH,
  DERIVED,
  HEAD,
  hashKey,
  LIVE,
  META,
  numberKey,
  PRE_STATE,
  PRUNED,
  readU64,
  TX,
  type ChainDatabase,
  type StoredMeta,
} from './storage-layout.js'

/**
 * How many bytes of records an iterator of {@link StorageReads.encodedRange} reads at once (`level`'s
 * `highWaterMarkBytes`; at most 1000 records per read either way).
 */
const RANGE_READ_BYTES = 1 << 20

/** A stored chain as {@link StorageReads.read} returns it. */
export interface StoredChain {
  meta: StoredMeta
  head: bigint
  liveRoot: Uint8Array
}

/**
 * The record reads of `ChainStorage` (./storage.ts), which adds opening, writes and state roots. Every method
 * must run inside the chain's queue (one writer).
 *
 * Point reads (a block's records, the hash and transaction indexes) use the database's synchronous `getSync` when
 * it has one (`level`, `memory-level`): an asynchronous `get` hands every read to libuv's thread pool and back,
 * measured ~60-70 µs of CPU per read against ~3-5 µs synchronously (a small record, in LevelDB's cache or the OS
 * page cache), and under a read load those round trips queue in front of the block writes, which use the same
 * pool. Range reads stay on one iterator ({@link encodedRange}).
 */
export class StorageReads {
  /** Whether the database reads synchronously (`getSync`); see the class documentation. */
  protected readonly syncReads: boolean

  protected constructor(
    readonly db: ChainDatabase,
    readonly label: string,
  ) {
    // (abstract-level's manifest type does not declare the getSync flag its databases set)
    this.syncReads = (db.supports as { getSync?: boolean }).getSync === true
  }

  /**
   * The value under `key`, or undefined: synchronously while the database is open and reads synchronously, else
   * through the asynchronous `get` (which also reports a closed database).
   */
  protected async getRecord(key: Uint8Array): Promise<Uint8Array | undefined> {
    if (this.syncReads && this.db.status === 'open') return this.db.getSync(key)
    return this.db.get(key)
  }

  /** The stored chain (meta, head number, live root), or undefined for an empty database. */
  async read(): Promise<StoredChain | undefined> {
    const [meta, head, live] = await this.db.getMany([META, HEAD, LIVE])
    if (meta === undefined) return undefined
    if (head === undefined || live === undefined) throw new StorageCorruptError(`${this.label} has no head`)
    return { meta: JSON.parse(Buffer.from(meta).toString('utf8')) as StoredMeta, head: readU64(head), liveRoot: live }
  }

  /**
   * The encodings of blocks `from` … `to` in order, read with one iterator (a consistent snapshot of the database).
   * @throws StorageCorruptError when a block in the range is missing
   */
  async *encodedRange(from: bigint, to: bigint): AsyncGenerator<{ number: bigint } & EncodedBlock> {
    if (to < from) return
    // each of the iterator's reads is a round trip through the thread pool: with `level`'s default of 16 KiB per
    // read a 1000-block range took ~70 of them per iterator (other databases ignore the option)
    const batch = { highWaterMarkBytes: RANGE_READ_BYTES }
    const blocks = this.db.iterator({ gte: numberKey(BLOCK, from), lte: numberKey(BLOCK, to), ...batch })
    const derivedRecords = this.db.iterator({ gte: numberKey(DERIVED, from), lte: numberKey(DERIVED, to), ...batch })
    try {
      let expected = from
      for await (const [key, rlp] of blocks) {
        const number = readU64(key.subarray(1))
        const x = await derivedRecords.next()
        if (number !== expected || x === undefined || readU64(x[0].subarray(1)) !== number) {
          throw new StorageCorruptError(`${this.label}: block ${expected} is missing`)
        }
        yield { number, rlp, derived: x[1] }
        expected++
      }
      if (expected !== to + 1n) throw new StorageCorruptError(`${this.label}: block ${expected} is missing`)
    } finally {
      await Promise.all([blocks.close(), derivedRecords.close()])
    }
  }

  /** The encodings of block `number`, or undefined when it is not stored. */
  async encoded(number: bigint): Promise<EncodedBlock | undefined> {
    const [rlp, derived] =
      this.syncReads && this.db.status === 'open'
        ? [this.db.getSync(numberKey(BLOCK, number)), this.db.getSync(numberKey(DERIVED, number))]
        : await this.db.getMany([numberKey(BLOCK, number), numberKey(DERIVED, number)])
    return rlp === undefined || derived === undefined ? undefined : { rlp, derived }
  }

  /** The state block `number` ran on when it was not its parent's (recorded with the block), or undefined. */
  async preStateRoot(number: bigint): Promise<Uint8Array | undefined> {
    return this.getRecord(numberKey(PRE_STATE, number))
  }

  /** The number of the stored block with this hash, or undefined. */
  async numberOfHash(hash: Uint8Array): Promise<bigint | undefined> {
    const v = await this.getRecord(hashKey(BY_HASH, hash))
    return v === undefined ? undefined : readU64(v)
  }

  /** Block number and index of a stored transaction, or undefined. */
  async txLocation(hash: Uint8Array): Promise<{ number: bigint; index: number } | undefined> {
    const v = await this.getRecord(hashKey(TX, hash))
    if (v === undefined || v.length !== 12) return undefined
    const view = new DataView(v.buffer, v.byteOffset, v.byteLength)
    return { number: view.getBigUint64(0, false), index: view.getUint32(8, false) }
  }

  /** The highest block whose receipts were dropped (`--transaction-block-keeper`), or undefined. */
  async prunedUpTo(): Promise<bigint | undefined> {
    const v = await this.getRecord(PRUNED)
    return v === undefined ? undefined : readU64(v)
  }
}
