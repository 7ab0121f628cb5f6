/**
 * The in-memory block backend (no `--db`; docs/architecture.md#storage): each block's two encodings, zero runs
 * packed, back to back in byte chunks that are compressed once full (src/blocks/block-chunks.ts); the block hashes
 * in one flat byte array; the hash and transaction indexes as typed-array multimaps from a 30-bit hash prefix
 * (src/util/hash-prefix.ts) to block numbers and packed transaction positions (src/blocks/hash-prefix-index.ts,
 * src/blocks/tx-position-key.ts) — a few hundred bytes per block with a transfer, and no object per block on the heap.
 */
import { RLP } from '@ethereumjs/rlp'
import { LRUCache } from 'lru-cache'
import { keccak256 } from '../crypto/keccak.js'
import { prunedBlockDerived, type EncodedBlock } from './block-codec.js'
import { ChunkStore, type ChunkStats } from './block-chunks.js'
import { packZeros, unpackZeros } from './zero-runs.js'
import type { BlockBackend, TxPosition } from './block-backend.js'
import { HashPrefixIndex } from './hash-prefix-index.js'
import { txPositionIndex, txPositionKey, txPositionNumber } from './tx-position-key.js'
import { hashPrefix } from '../util/hash-prefix.js'

/** A transaction position as the transaction index stores it (src/blocks/tx-position-key.ts). */
function txPositionOf(key: number): TxPosition {
  return { number: BigInt(txPositionNumber(key)), index: txPositionIndex(key) }
}

/** Transaction hashes of a block RLP (keccak256 of each transaction's RLP). */
function txHashesOf(rlp: Uint8Array): Uint8Array[] {
  const [, txs] = RLP.decode(rlp) as unknown as [unknown, Uint8Array[]]
  return txs.map((t) => keccak256(RLP.encode(t)))
}

/**
 * Bytes of the blocks last read one at a time out of compressed chunks, kept packed (copies; ~1.1 KB for an empty
 * block, ~1.25 KB with a transfer, so ~200 blocks): a query reading a few blocks here and there — a sparse
 * eth_getLogs, whose log index names the blocks — reads them again without inflating their segments. Scans
 * (encodedRange) do not go through it; they read each segment once from the chunks' cache of inflated segments.
 */
export const RECENT_READ_BYTES = 256 * 1024

/** Fields per block in {@link MemoryBlockBackend}'s slot table. */
const SLOT = 6

function grow<T extends Uint8Array | Uint32Array>(a: T): T {
  const bigger = new (a.constructor as new (n: number) => T)(a.length * 2)
  bigger.set(a)
  return bigger
}

/** The in-memory backend (see the module documentation). */
export class MemoryBlockBackend implements BlockBackend {
  readonly indexesTxsInMemory = true
  private readonly chunks: ChunkStore
  /** Per block: chunk index, offset, packed RLP length, packed derived length, RLP length, derived length. */
  private slots = new Uint32Array(SLOT * 1024)
  private hashes = new Uint8Array(32 * 1024)
  private count = 0
  private readonly byHash = new HashPrefixIndex()
  private readonly byTx = new HashPrefixIndex()
  /**
   * Packed bytes of blocks read by {@link encoded} from compressed chunks, by number ({@link RECENT_READ_BYTES}): a
   * block leaves it when its receipts are pruned, all leave on a truncation (a compaction moves bytes, never changes
   * them).
   */
  private readonly recentReads = new LRUCache<number, Uint8Array>({
    maxSize: RECENT_READ_BYTES,
    sizeCalculation: (bytes) => Math.max(1, bytes.length),
  })

  /** @param chunks where the encodings are written (default: 256 KB chunks, 4 inflated chunks cached) */
  constructor(chunks = new ChunkStore()) {
    this.chunks = chunks
  }

  /** Number of blocks held. */
  get length(): number {
    return this.count
  }

  append(number: bigint, enc: EncodedBlock, hash: Uint8Array, txHashes: readonly Uint8Array[]): void {
    const n = Number(number)
    if (n !== this.count) throw new Error(`block ${number} does not follow block ${this.count - 1}`)
    // packed size is at most the size plus one byte per 255 zeros
    const bound = enc.rlp.length + enc.derived.length + Math.ceil((enc.rlp.length + enc.derived.length) / 255) + 2
    const { index, bytes, at } = this.chunks.reserve(bound)
    const rlpPacked = packZeros(enc.rlp, bytes, at)
    const derivedPacked = packZeros(enc.derived, bytes, at + rlpPacked)
    this.chunks.commit(rlpPacked + derivedPacked)
    if ((n + 1) * SLOT > this.slots.length) this.slots = grow(this.slots)
    if ((n + 1) * 32 > this.hashes.length) this.hashes = grow(this.hashes)
    const s = this.slots
    const i = n * SLOT
    s[i] = index
    s[i + 1] = at
    s[i + 2] = rlpPacked
    s[i + 3] = derivedPacked
    s[i + 4] = enc.rlp.length
    s[i + 5] = enc.derived.length
    this.hashes.set(hash, n * 32)
    this.count++
    this.byHash.add(hashPrefix(hash), n)
    txHashes.forEach((h, i) => this.byTx.add(hashPrefix(h), txPositionKey(n, i)))
  }

  encoded(number: bigint): Promise<EncodedBlock | undefined> {
    const n = Number(number)
    if (!(n >= 0 && n < this.count)) return Promise.resolve(undefined)
    const kept = this.recentReads.get(n)
    if (kept !== undefined) return Promise.resolve(this.unpack(n, kept, 0))
    if (!this.chunks.isCompressed(this.slots[n * SLOT]!)) return Promise.resolve(this.encodedNow(n))
    const { bytes, at } = this.packedOf(n)
    // a copy (Buffer's slice would be a view keeping the whole inflated segment)
    const packed = new Uint8Array(bytes.subarray(at, at + this.packedLength(n)))
    this.recentReads.set(n, packed)
    return Promise.resolve(this.unpack(n, packed, 0))
  }

  /**
   * Block `n`'s encodings, synchronously (inflating the segment of its chunk holding it when it is compressed and
   * not in the chunks' cache).
   */
  private encodedNow(n: number): EncodedBlock {
    const { bytes, at } = this.packedOf(n)
    return this.unpack(n, bytes, at)
  }

  /** Bytes of block `n`'s packed encodings (block RLP, then derived RLP), zero-run packed. */
  private packedLength(n: number): number {
    return this.slots[n * SLOT + 2]! + this.slots[n * SLOT + 3]!
  }

  /**
   * Where block `n`'s packed encodings are: `bytes[at, at + packedLength(n))`, a view into its chunk or into the
   * inflated segment holding it (src/blocks/block-chunks.ts `read`; inflated when compressed and not cached).
   */
  private packedOf(n: number): { bytes: Uint8Array; at: number } {
    const off = this.slots[n * SLOT + 1]!
    return this.chunks.read(this.slots[n * SLOT]!, off, off + this.packedLength(n))
  }

  /** Block `n`'s encodings from its packed bytes at `bytes[at …]`. */
  private unpack(n: number, bytes: Uint8Array, at: number): EncodedBlock {
    const s = this.slots
    const i = n * SLOT
    const rlpEnd = at + s[i + 2]!
    return {
      rlp: unpackZeros(bytes.subarray(at, rlpEnd), s[i + 4]!),
      derived: unpackZeros(bytes.subarray(rlpEnd, rlpEnd + s[i + 3]!), s[i + 5]!),
    }
  }

  numbersOfHash(hash: Uint8Array): Promise<bigint[]> {
    const out: bigint[] = []
    for (const n of this.byHash.get(hashPrefix(hash))) {
      if (Buffer.compare(this.hashes.subarray(n * 32, n * 32 + 32), hash) === 0) out.push(BigInt(n))
    }
    return Promise.resolve(out)
  }

  txPositions(hash: Uint8Array): Promise<TxPosition[]> {
    return Promise.resolve(this.byTx.get(hashPrefix(hash)).map(txPositionOf))
  }

  hashOf(number: bigint): Promise<Uint8Array | undefined> {
    const n = Number(number)
    return Promise.resolve(n >= 0 && n < this.count ? this.hashes.slice(n * 32, n * 32 + 32) : undefined)
  }

  pruneReceipts(number: bigint, txHashes: readonly Uint8Array[]): Promise<void> {
    const n = Number(number)
    if (!(n >= 0 && n < this.count)) return Promise.resolve()
    const enc = this.encodedNow(n)
    txHashes.forEach((h, i) => this.byTx.delete(hashPrefix(h), txPositionKey(n, i)))
    this.recentReads.delete(n)
    const derived = prunedBlockDerived(enc.derived)
    // in place (a compressed chunk is inflated for it): the pruned derived RLP is never longer than the one it replaces
    const s = this.slots
    const chunk = this.chunks.writable(s[n * SLOT]!)
    const packed = packZeros(derived, chunk, s[n * SLOT + 1]! + s[n * SLOT + 2]!)
    s[n * SLOT + 3] = packed
    s[n * SLOT + 5] = derived.length
    this.compactChunkOf(n)
    return Promise.resolve()
  }

  /**
   * Once the last block of a chunk (not the one being written) is pruned, copies the chunk's blocks into a
   * buffer of their exact size, so the space pruning freed is given back, and compresses it again.
   */
  private compactChunkOf(n: number): void {
    const s = this.slots
    const index = s[n * SLOT]!
    if (index === this.chunks.length - 1) return
    const next = n + 1
    if (next < this.count && s[next * SLOT] === index) return
    let first = n
    while (first > 0 && s[(first - 1) * SLOT] === index) first--
    let size = 0
    for (let b = first; b <= n; b++) size += s[b * SLOT + 2]! + s[b * SLOT + 3]!
    const old = this.chunks.writable(index)
    const compact = new Uint8Array(size)
    const ends: number[] = []
    let at = 0
    for (let b = first; b <= n; b++) {
      const off = s[b * SLOT + 1]!
      const len = s[b * SLOT + 2]! + s[b * SLOT + 3]!
      compact.set(old.subarray(off, off + len), at)
      s[b * SLOT + 1] = at
      at += len
      ends.push(at)
    }
    this.chunks.replace(index, compact, ends)
  }

  truncateAbove(number: bigint): void {
    const keep = Number(number) + 1
    if (keep >= this.count) return
    for (let n = this.count - 1; n >= keep; n--) {
      this.byHash.delete(hashPrefix(this.hashes.subarray(n * 32, n * 32 + 32)), n)
      txHashesOf(this.encodedNow(n).rlp).forEach((h, i) => this.byTx.delete(hashPrefix(h), txPositionKey(n, i)))
    }
    this.count = keep
    this.recentReads.clear()
    // the chunk of the last kept block is written again after it (readers get unpacked copies, never views)
    const last = (keep - 1) * SLOT
    const s = this.slots
    this.chunks.truncate(s[last]!, s[last + 1]! + s[last + 2]! + s[last + 3]!)
  }

  async *encodedRange(from: bigint, to: bigint): AsyncGenerator<{ number: bigint } & EncodedBlock> {
    // the consumer may await between blocks: the head may move, a rewind may drop blocks
    for (let n = Number(from); n <= Number(to) && n < this.count; n++) {
      const s = this.slots
      const i = n * SLOT
      const index = s[i]!
      const { bytes, at } = this.packedOf(n)
      const version = this.chunks.version(index)
      const rlpEnd = at + s[i + 2]!
      const derivedPacked = s[i + 3]!
      const derivedLength = s[i + 5]!
      const block = n
      // log scans read every header's bloom but few derived RLPs: the derived RLP is unpacked only when asked, from the
      // same bytes unless they changed meanwhile (receipts pruned in place)
      const readDerived = (): Uint8Array =>
        this.chunks.version(index) === version || block >= this.count
          ? unpackZeros(bytes.subarray(rlpEnd, rlpEnd + derivedPacked), derivedLength)
          : this.encodedNow(block).derived
      let derived: Uint8Array | undefined
      yield {
        number: BigInt(n),
        rlp: unpackZeros(bytes.subarray(at, rlpEnd), s[i + 4]!),
        get derived(): Uint8Array {
          derived ??= readDerived()
          return derived
        },
      }
    }
  }

  /** The chunks' counts and sizes (src/blocks/block-chunks.ts). */
  chunkStats(): ChunkStats {
    return this.chunks.stats()
  }

  /** Resolves once no chunk is being compressed (tests, measurements). */
  compressed(): Promise<void> {
    return this.chunks.settled()
  }
}
