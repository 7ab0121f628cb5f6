/**
 * The in-memory block backend (no `--db`; docs/architecture.md#storage): each block's two encodings, zero runs
 * packed, back to back in byte chunks that are compressed once full (src/blocks/block-chunks.ts); the block hashes
 * in one flat byte array; the hash and transaction indexes as typed-array multimaps from a 30-bit hash prefix to
 * block numbers and transaction positions (src/blocks/hash-prefix-index.ts) — a few hundred bytes per block with a
 * transfer, and no object per block on the heap.
 */
import { RLP } from '@ethereumjs/rlp'
import { keccak256 } from '../crypto/keccak.js'
import { prunedBlockExtra, type EncodedBlock } from './block-codec.js'
import { ChunkStore, packZeros, unpackZeros, type ChunkStats } from './block-chunks.js'
import type { BlockBackend, TxPosition } from './block-backend.js'
import { HashPrefixIndex } from './hash-prefix-index.js'

/** The 30-bit prefix of a hash, the key of the hash indexes (the full hash is checked on every lookup). */
function prefixKey(h: Uint8Array): number {
  return (h[0]! << 22) | (h[1]! << 14) | (h[2]! << 6) | (h[3]! >>> 2)
}

/**
 * A transaction position packed in one number, the transaction index's value (exact in its Float64Array): block
 * number × 16 + index for the first 16 transactions of blocks below 2^26; any other position is
 * −(number × 2^20 + index) − 1 (a block holds far fewer than 2^20 transactions).
 */
function txPositionKey(n: number, index: number): number {
  return index < 16 && n < 2 ** 26 ? n * 16 + index : -(n * 2 ** 20 + index) - 1
}

function txPositionOf(key: number): TxPosition {
  if (key >= 0) return { number: BigInt(Math.floor(key / 16)), index: key % 16 }
  const wide = -key - 1
  return { number: BigInt(Math.floor(wide / 2 ** 20)), index: wide % 2 ** 20 }
}

/** Transaction hashes of a block RLP (keccak256 of each transaction's RLP). */
function txHashesOf(rlp: Uint8Array): Uint8Array[] {
  const [, txs] = RLP.decode(rlp) as unknown as [unknown, Uint8Array[]]
  return txs.map((t) => keccak256(RLP.encode(t)))
}

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
  /** Per block: chunk index, offset, packed RLP length, packed extra length, RLP length, extra length. */
  private slots = new Uint32Array(SLOT * 1024)
  private hashes = new Uint8Array(32 * 1024)
  private count = 0
  private readonly byHash = new HashPrefixIndex()
  private readonly byTx = new HashPrefixIndex()

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
    const bound = enc.rlp.length + enc.extra.length + Math.ceil((enc.rlp.length + enc.extra.length) / 255) + 2
    const { index, bytes, at } = this.chunks.reserve(bound)
    const rlpPacked = packZeros(enc.rlp, bytes, at)
    const extraPacked = packZeros(enc.extra, bytes, at + rlpPacked)
    this.chunks.commit(rlpPacked + extraPacked)
    if ((n + 1) * SLOT > this.slots.length) this.slots = grow(this.slots)
    if ((n + 1) * 32 > this.hashes.length) this.hashes = grow(this.hashes)
    this.slots.set([index, at, rlpPacked, extraPacked, enc.rlp.length, enc.extra.length], n * SLOT)
    this.hashes.set(hash, n * 32)
    this.count++
    this.byHash.add(prefixKey(hash), n)
    txHashes.forEach((h, i) => this.byTx.add(prefixKey(h), txPositionKey(n, i)))
  }

  encoded(number: bigint): Promise<EncodedBlock | undefined> {
    const n = Number(number)
    return Promise.resolve(n >= 0 && n < this.count ? this.encodedNow(n) : undefined)
  }

  /** {@link encoded}, synchronously (inflating its chunk when it is compressed and not in the cache). */
  private encodedNow(n: number): EncodedBlock {
    return this.unpack(this.chunks.bytes(this.slots[n * SLOT]!), n)
  }

  /** Block `n`'s encodings from its chunk's bytes. */
  private unpack(chunk: Uint8Array, n: number): EncodedBlock {
    const s = this.slots
    const off = s[n * SLOT + 1]!
    const rlpEnd = off + s[n * SLOT + 2]!
    return {
      rlp: unpackZeros(chunk.subarray(off, rlpEnd), s[n * SLOT + 4]!),
      extra: unpackZeros(chunk.subarray(rlpEnd, rlpEnd + s[n * SLOT + 3]!), s[n * SLOT + 5]!),
    }
  }

  numbersOfHash(hash: Uint8Array): Promise<bigint[]> {
    const out: bigint[] = []
    for (const n of this.byHash.get(prefixKey(hash))) {
      if (Buffer.compare(this.hashes.subarray(n * 32, n * 32 + 32), hash) === 0) out.push(BigInt(n))
    }
    return Promise.resolve(out)
  }

  txPositions(hash: Uint8Array): Promise<TxPosition[]> {
    return Promise.resolve(this.byTx.get(prefixKey(hash)).map(txPositionOf))
  }

  hashOf(number: bigint): Promise<Uint8Array | undefined> {
    const n = Number(number)
    return Promise.resolve(n >= 0 && n < this.count ? this.hashes.slice(n * 32, n * 32 + 32) : undefined)
  }

  pruneReceipts(number: bigint, txHashes: readonly Uint8Array[]): Promise<void> {
    const n = Number(number)
    if (!(n >= 0 && n < this.count)) return Promise.resolve()
    const enc = this.encodedNow(n)
    txHashes.forEach((h, i) => this.byTx.delete(prefixKey(h), txPositionKey(n, i)))
    const extra = prunedBlockExtra(enc.extra)
    // in place (a compressed chunk is inflated for it): the pruned extra is never longer than the one it replaces
    const s = this.slots
    const chunk = this.chunks.writable(s[n * SLOT]!)
    const packed = packZeros(extra, chunk, s[n * SLOT + 1]! + s[n * SLOT + 2]!)
    s[n * SLOT + 3] = packed
    s[n * SLOT + 5] = extra.length
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
    let at = 0
    for (let b = first; b <= n; b++) {
      const off = s[b * SLOT + 1]!
      const len = s[b * SLOT + 2]! + s[b * SLOT + 3]!
      compact.set(old.subarray(off, off + len), at)
      s[b * SLOT + 1] = at
      at += len
    }
    this.chunks.replace(index, compact)
  }

  truncateAbove(number: bigint): void {
    const keep = Number(number) + 1
    if (keep >= this.count) return
    for (let n = this.count - 1; n >= keep; n--) {
      this.byHash.delete(prefixKey(this.hashes.subarray(n * 32, n * 32 + 32)), n)
      txHashesOf(this.encodedNow(n).rlp).forEach((h, i) => this.byTx.delete(prefixKey(h), txPositionKey(n, i)))
    }
    this.count = keep
    // the chunk of the last kept block is written again after it (readers get unpacked copies, never views)
    const last = (keep - 1) * SLOT
    const s = this.slots
    this.chunks.truncate(s[last]!, s[last + 1]! + s[last + 2]! + s[last + 3]!)
  }

  async *encodedRange(from: bigint, to: bigint): AsyncGenerator<{ number: bigint } & EncodedBlock> {
    // the consumer may await between blocks: the head may move, a rewind may drop blocks
    for (let n = Number(from); n <= Number(to) && n < this.count; n++) {
      const index = this.slots[n * SLOT]!
      const bytes = this.chunks.bytes(index)
      const version = this.chunks.version(index)
      const s = this.slots
      const i = n * SLOT
      const rlpEnd = s[i + 1]! + s[i + 2]!
      const extraPacked = s[i + 3]!
      const extraLength = s[i + 5]!
      const block = n
      // log scans read every header's bloom but few extras: the extra is unpacked only when asked, from the
      // same bytes unless they changed meanwhile (receipts pruned in place)
      const readExtra = (): Uint8Array =>
        this.chunks.version(index) === version || block >= this.count
          ? unpackZeros(bytes.subarray(rlpEnd, rlpEnd + extraPacked), extraLength)
          : this.encodedNow(block).extra
      let extra: Uint8Array | undefined
      yield {
        number: BigInt(n),
        rlp: unpackZeros(bytes.subarray(s[i + 1]!, rlpEnd), s[i + 4]!),
        get extra(): Uint8Array {
          extra ??= readExtra()
          return extra
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
