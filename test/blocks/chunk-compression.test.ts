/**
 * Compressed chunks of the in-memory block backend (docs/architecture.md#storage; src/blocks/block-chunks.ts,
 * memory-block-backend.ts): every read answers the same before a block's chunk is closed, after it is compressed
 * and after its inflated copy left the read cache; reads racing a compression, a receipt pruning or a truncation
 * answer as the backend is; `--transaction-block-keeper` pruning compacts compressed chunks and compresses them
 * again.
 *
 * The node's backend is swapped at start for one with 4 KB chunks (a few blocks each, instead of ~210) and two
 * inflated chunks cached, so that a short chain spans many compressed chunks. The compressed chunks go to arenas
 * (src/blocks/zipped-arenas.ts); tests of their compaction use arenas of a few chunks.
 */
import { RLP } from '@ethereumjs/rlp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Node } from '../../src/index.js'
import type { BlockBackend } from '../../src/blocks/block-backend.js'
import type { EncodedBlock } from '../../src/blocks/block-codec.js'
import { ChunkStore } from '../../src/blocks/block-chunks.js'
import { ZippedArenas } from '../../src/blocks/zipped-arenas.js'
import { MemoryBlockBackend } from '../../src/blocks/memory-block-backend.js'
import { keccak256 } from '../../src/crypto/keccak.js'
import { buildChain, observe } from '../helpers/chain-fixture.js'
import { internals, rpc, startNode } from '../helpers/node.js'
import { q } from '../rpc/shapes.js'

const CHUNK = 4 * 1024
/** Blocks read through the node: the fixture's contracts, logs, multi-transaction block, impersonation, empty blocks. */
const UP_TO = 16
let node: Node
let backend: MemoryBlockBackend
let probeAddress: string
/** The fixture chain's blocks 0 … 36 as the node's backend holds them. */
let stored: { enc: EncodedBlock; hash: Uint8Array; txHashes: Uint8Array[] }[]

/** The block store's cache of decoded blocks (emptied instead of mining a thousand blocks past it). */
function decodedCache(n: Node): { clear(): void } {
  return (internals(n).chain as unknown as { parts: { blocks: { cache: { clear(): void } } } }).parts.blocks.cache
}

/** Replaces the in-memory backend of a node that holds only its genesis by one with small chunks. */
async function smallChunks(n: Node): Promise<MemoryBlockBackend> {
  const store = (internals(n).chain as unknown as { parts: { blocks: { backend: BlockBackend } } }).parts.blocks
  const genesis = (await store.backend.encoded(0n))!
  const small = new MemoryBlockBackend(new ChunkStore(CHUNK, 2))
  small.append(0n, genesis, (await store.backend.hashOf(0n))!, [])
  store.backend = small
  return small
}

function txHashesOf(rlp: Uint8Array): Uint8Array[] {
  const [, txs] = RLP.decode(rlp) as unknown as [unknown, Uint8Array[]]
  return txs.map((t) => keccak256(RLP.encode(t)))
}

/**
 * A fresh backend holding blocks 0 … `upTo` of the fixture chain.
 * @param segmentBytes compressed segments' size (default: the node's, larger than a 4 KB chunk: one segment each)
 */
function archiveOf(upTo: number, chunkBytes = CHUNK, arenas?: ZippedArenas, segmentBytes?: number): MemoryBlockBackend {
  const a = new MemoryBlockBackend(new ChunkStore(chunkBytes, 2, arenas, segmentBytes))
  for (let n = 0; n <= upTo; n++) a.append(BigInt(n), stored[n]!.enc, stored[n]!.hash, stored[n]!.txHashes)
  return a
}

/** The index of the chunk holding block `n` (the backend's slot table: 6 fields per block, the chunk first). */
function chunkOf(a: MemoryBlockBackend, n: number): number {
  return (a as unknown as { slots: Uint32Array }).slots[n * 6]!
}

/** Encodings as hex strings (compared far faster than byte arrays). */
function hex(enc: EncodedBlock | undefined): string {
  return enc === undefined
    ? 'none'
    : `${Buffer.from(enc.rlp).toString('hex')}/${Buffer.from(enc.derived).toString('hex')}`
}

async function allEncoded(a: MemoryBlockBackend, upTo = 36): Promise<string[]> {
  const out: string[] = []
  for (let n = 0; n <= upTo; n++) out.push(hex(await a.encoded(BigInt(n))))
  return out
}

async function rangeEncoded(a: MemoryBlockBackend, upTo = 36): Promise<string[]> {
  const out: string[] = []
  for await (const { rlp, derived } of a.encodedRange(0n, BigInt(upTo))) out.push(hex({ rlp, derived }))
  return out
}

beforeAll(async () => {
  // every state kept, so that old blocks can still be traced
  node = await startNode({ clock: () => 1_700_000_000_000, stateHistory: 0 })
  backend = await smallChunks(node)
  ;({ probeAddress } = await buildChain(node.url))
  stored = []
  for (let n = 0; n <= 36; n++) {
    const enc = (await backend.encoded(BigInt(n)))!
    stored.push({ enc, hash: (await backend.hashOf(BigInt(n)))!, txHashes: txHashesOf(enc.rlp) })
  }
})

afterAll(async () => {
  await node?.close()
})

describe('a node whose blocks are in compressed chunks', () => {
  it('answers every read as when the blocks were fresh, inflating each chunk once per scan', async () => {
    const fresh = await observe(node.url, probeAddress, { upTo: UP_TO, states: false })
    expect(fresh.probeLogs).not.toEqual([])
    // every chunk of blocks 0 … UP_TO closed and compressed, and the blocks out of the decoded-block cache
    await rpc(node.url, 'anvil_mine', [q(16)])
    await backend.compressed()
    const stats = backend.chunkStats()
    expect(chunkOf(backend, UP_TO)).toBeLessThan(stats.chunks - 1)
    expect(stats.compressed).toBe(stats.chunks - 1)
    expect(stats.heldBytes).toBeLessThan(stats.usedBytes)
    decodedCache(node).clear()
    // blocks 0 … UP_TO span more chunks than the two kept inflated: reading them all cycles the cache
    expect(await observe(node.url, probeAddress, { upTo: UP_TO, states: false })).toEqual(fresh)
    // a log scan over old blocks inflates each of their chunks once
    decodedCache(node).clear()
    const first = backend.chunkStats().inflates
    const logs = await rpc<unknown[]>(node.url, 'eth_getLogs', [{ fromBlock: '0x0', toBlock: q(UP_TO) }])
    expect(logs).toEqual(fresh.logs)
    const chunksOfRange = new Set<number>()
    for (let n = 1; n <= UP_TO; n++) chunksOfRange.add(chunkOf(backend, n))
    expect(backend.chunkStats().inflates - first).toBeLessThanOrEqual(chunksOfRange.size)
    expect(chunksOfRange.size).toBeGreaterThan(2)
  })
})

describe('the backend alone, on the fixture chain’s encodings', () => {
  it('reads of blocks whose chunks are being compressed answer the uncompressed bytes, then the same', async () => {
    const a = archiveOf(36)
    // the append that opened the last chunk closed the one before: its compression has not finished
    const before = a.chunkStats()
    expect(before.chunks).toBeGreaterThan(3)
    expect(before.compressed).toBe(0)
    const expected = stored.map((s) => hex(s.enc))
    // these reads wait for microtasks only: no compression can finish meanwhile
    expect(await allEncoded(a)).toEqual(expected)
    expect(await rangeEncoded(a)).toEqual(expected)
    expect(a.chunkStats().compressed).toBe(0)
    // a scan that started before the compressions ended and goes on after
    const scan = a.encodedRange(0n, 36n)[Symbol.asyncIterator]()
    const first = (await scan.next()).value as EncodedBlock
    await a.compressed()
    expect(a.chunkStats().compressed).toBe(before.chunks - 1)
    const rest: string[] = []
    for (let r = await scan.next(); !r.done; r = await scan.next()) rest.push(hex(r.value))
    expect([hex(first), ...rest]).toEqual(expected)
    expect(await allEncoded(a)).toEqual(expected)
    expect(await rangeEncoded(a)).toEqual(expected)
    for (const [n, s] of stored.entries()) {
      expect(await a.numbersOfHash(s.hash)).toContain(BigInt(n))
      for (const [i, h] of s.txHashes.entries())
        expect(await a.txPositions(h)).toContainEqual({ number: BigInt(n), index: i })
    }
  })

  it('a scan holding a block of a compressed chunk while its receipts are pruned reads the pruned block', async () => {
    const a = archiveOf(36)
    await a.compressed()
    const n = 3 // logs: its receipt is not empty
    const scan = a.encodedRange(BigInt(n), 36n)[Symbol.asyncIterator]()
    const held = (await scan.next()).value as EncodedBlock
    await a.pruneReceipts(BigInt(n), stored[n]!.txHashes)
    const pruned = (await a.encoded(BigInt(n)))!
    expect(pruned.derived.length).toBeLessThan(stored[n]!.enc.derived.length)
    expect(hex({ ...pruned, derived: stored[n]!.enc.derived })).toBe(hex(stored[n]!.enc))
    // the derived RLP is read when asked: after the prune
    expect(hex(held)).toBe(hex(pruned))
    expect(hex((await scan.next()).value as EncodedBlock)).toBe(hex(stored[n + 1]!.enc))
    expect(await a.txPositions(stored[n]!.txHashes[0]!)).toEqual([])
  })

  it('keeper pruning over compressed chunks: compacted, compressed again, the blocks read the same', async () => {
    const a = archiveOf(36)
    const reference = archiveOf(36, 1 << 20)
    await a.compressed()
    const usedBefore = a.chunkStats().usedBytes
    for (let n = 1; n <= 30; n++) {
      await a.pruneReceipts(BigInt(n), stored[n]!.txHashes)
      await reference.pruneReceipts(BigInt(n), stored[n]!.txHashes)
    }
    await a.compressed()
    const stats = a.chunkStats()
    // all but the open chunk and the one block 31 shares with pruned blocks (kept inflated until all are pruned)
    const partlyPruned = chunkOf(a, 30) === chunkOf(a, 31) && chunkOf(a, 31) !== stats.chunks - 1
    expect(stats.compressed).toBe(stats.chunks - 1 - (partlyPruned ? 1 : 0))
    expect(stats.usedBytes).toBeLessThan(usedBefore)
    const expected = await allEncoded(reference)
    expect(await allEncoded(a)).toEqual(expected)
    expect(await rangeEncoded(a)).toEqual(expected)
    expect(await a.txPositions(stored[3]!.txHashes[0]!)).toEqual([])
  })

  it('keeper pruning as blocks are mined (3 kept): every chunk it finished is compressed, reads as a reference', async () => {
    const a = archiveOf(0)
    const reference = archiveOf(0, 1 << 20)
    for (let n = 1; n <= 36; n++) {
      for (const x of [a, reference]) {
        x.append(BigInt(n), stored[n]!.enc, stored[n]!.hash, stored[n]!.txHashes)
        if (n - 3 >= 1) await x.pruneReceipts(BigInt(n - 3), stored[n - 3]!.txHashes)
      }
    }
    await a.compressed()
    const stats = a.chunkStats()
    // uncompressed: the open chunk, and the chunk of block 33 (the last pruned) when block 34 is in it too
    const partlyPruned = chunkOf(a, 33) === chunkOf(a, 34) && chunkOf(a, 33) !== stats.chunks - 1
    const expectedRaw = 1 + (partlyPruned ? 1 : 0)
    expect(stats.compressed).toBe(stats.chunks - expectedRaw)
    expect(await allEncoded(a)).toEqual(await allEncoded(reference))
    expect(await rangeEncoded(a)).toEqual(await rangeEncoded(reference))
  })

  it('a prune racing the compression of its chunk: kept uncompressed until compacted, reads stay right', async () => {
    const a = archiveOf(6)
    let next = 7
    // append (empty blocks) until a chunk opens: the full one before it is closed and its compression starts
    const chunksBefore = a.chunkStats().chunks
    while (a.chunkStats().chunks === chunksBefore) {
      a.append(BigInt(next), stored[next]!.enc, stored[next]!.hash, stored[next]!.txHashes)
      next++
    }
    const closedLast = next - 2
    const closed = chunkOf(a, closedLast)
    expect(chunkOf(a, closedLast - 1)).toBe(closed)
    const reference = archiveOf(next - 1, 1 << 20)
    const prune = async (b: number) => {
      await a.pruneReceipts(BigInt(b), stored[b]!.txHashes)
      await reference.pruneReceipts(BigInt(b), stored[b]!.txHashes)
    }
    // the chunks before are compacted and compressed; the closed one changed while it was compressed
    for (let b = 1; b < closedLast; b++) await prune(b)
    await a.compressed()
    expect(a.chunkStats().compressed).toBe(closed)
    expect(await allEncoded(a, next - 1)).toEqual(await allEncoded(reference, next - 1))
    // its last block pruned: compacted and compressed
    await prune(closedLast)
    await a.compressed()
    expect(a.chunkStats().compressed).toBe(a.chunkStats().chunks - 1)
    expect(await allEncoded(a, next - 1)).toEqual(await allEncoded(reference, next - 1))
  })

  it('indexes transactions past the 16th of a block (positions packed another way) and finds them', async () => {
    const a = archiveOf(4)
    const many = Array.from({ length: 40 }, (_, i) => keccak256(Uint8Array.of(i, 7)))
    a.append(5n, stored[5]!.enc, stored[5]!.hash, many)
    for (const [i, h] of many.entries()) expect(await a.txPositions(h)).toEqual([{ number: 5n, index: i }])
    await a.pruneReceipts(5n, many)
    for (const h of many) expect(await a.txPositions(h)).toEqual([])
  })

  it('a truncation into a compressed chunk reopens it; the blocks appended again read as before', async () => {
    const a = archiveOf(36)
    await a.compressed()
    a.truncateAbove(10n)
    expect(a.length).toBe(11)
    expect(await a.encoded(11n)).toBeUndefined()
    expect(await a.numbersOfHash(stored[20]!.hash)).toEqual([])
    expect(await a.txPositions(stored[5]!.txHashes[0]!)).toEqual([{ number: 5n, index: 0 }])
    for (let n = 11; n <= 36; n++) a.append(BigInt(n), stored[n]!.enc, stored[n]!.hash, stored[n]!.txHashes)
    await a.compressed()
    const expected = stored.map((s) => hex(s.enc))
    expect(await allEncoded(a)).toEqual(expected)
    expect(await rangeEncoded(a)).toEqual(expected)
    expect(await a.numbersOfHash(stored[20]!.hash)).toEqual([20n])
  })

  it('a scan holding a block whose chunk was compressed and its buffer reused for a new chunk reads it right', async () => {
    const a = archiveOf(36)
    const scan = a.encodedRange(0n, 36n)[Symbol.asyncIterator]()
    // the derived RLP is read when asked, from the bytes the scan got, unless their chunk's version changed
    const held = (await scan.next()).value as EncodedBlock
    await a.compressed()
    // blocks appended after the compressions open chunks in the compressed chunks' buffers
    for (let n = 37; n < 37 + 36; n++) a.append(BigInt(n), stored[n - 36]!.enc, keccak256(Uint8Array.of(n)), [])
    expect(a.chunkStats().chunks).toBeGreaterThan(chunkOf(a, 36) + 2)
    expect(hex(held)).toBe(hex(stored[0]!.enc))
    const rest: string[] = []
    for (let r = await scan.next(); !r.done; r = await scan.next()) rest.push(hex(r.value))
    expect(rest).toEqual(stored.slice(1).map((s) => hex(s.enc)))
  })

  it('keeper pruning empties arenas mostly made of replaced chunks; truncation releases chunks', async () => {
    // arenas of ~3 compressed chunks
    const arenas = new ZippedArenas(3 * 1024)
    const a = archiveOf(36, CHUNK, arenas)
    const reference = archiveOf(36, 1 << 20)
    await a.compressed()
    const before = arenas.stats()
    expect(before.arenas).toBeGreaterThan(1)
    expect(before.liveBytes).toBe(before.usedBytes)
    for (let n = 1; n <= 30; n++) {
      await a.pruneReceipts(BigInt(n), stored[n]!.txHashes)
      await reference.pruneReceipts(BigInt(n), stored[n]!.txHashes)
    }
    await a.compressed()
    const after = arenas.stats()
    expect(after.compactions).toBeGreaterThan(0)
    // holes are at most the arena being filled plus half of every other arena
    expect(after.usedBytes - after.liveBytes).toBeLessThanOrEqual(3 * 1024 + after.usedBytes / 2)
    expect(after.liveBytes).toBe(a.chunkStats().heldBytes - rawBytes(a))
    expect(await allEncoded(a)).toEqual(await allEncoded(reference))
    expect(await rangeEncoded(a)).toEqual(await rangeEncoded(reference))
    a.truncateAbove(5n)
    reference.truncateAbove(5n)
    expect(arenas.stats().liveBytes).toBe(a.chunkStats().heldBytes - rawBytes(a))
    expect(await allEncoded(a, 5)).toEqual(await allEncoded(reference, 5))
  })
})

describe('the backend alone, chunks compressed in segments of ~512 bytes (src/blocks/chunk-segments.ts)', () => {
  const SEGMENT = 512

  it('every read answers as fresh, through keeper pruning, compaction and a truncation', async () => {
    const a = archiveOf(36, CHUNK, undefined, SEGMENT)
    const reference = archiveOf(36, 1 << 20)
    await a.compressed()
    const stats = a.chunkStats()
    expect(stats.compressed).toBe(stats.chunks - 1)
    expect(stats.segments).toBeGreaterThan(2 * stats.compressed)
    const expected = stored.map((s) => hex(s.enc))
    expect(await allEncoded(a)).toEqual(expected)
    expect(await rangeEncoded(a)).toEqual(expected)
    for (let n = 1; n <= 30; n++) {
      await a.pruneReceipts(BigInt(n), stored[n]!.txHashes)
      await reference.pruneReceipts(BigInt(n), stored[n]!.txHashes)
    }
    await a.compressed()
    expect(a.chunkStats().segments).toBeGreaterThan(a.chunkStats().compressed)
    expect(await allEncoded(a)).toEqual(await allEncoded(reference))
    expect(await rangeEncoded(a)).toEqual(await rangeEncoded(reference))
    a.truncateAbove(20n)
    reference.truncateAbove(20n)
    for (let n = 21; n <= 36; n++) {
      for (const x of [a, reference]) x.append(BigInt(n), stored[n]!.enc, stored[n]!.hash, stored[n]!.txHashes)
    }
    await a.compressed()
    expect(await allEncoded(a)).toEqual(await allEncoded(reference))
    expect(await rangeEncoded(a)).toEqual(await rangeEncoded(reference))
  })

  it('a block read one at a time is read again without inflating; its pruning and a truncation drop it', async () => {
    const a = archiveOf(36, CHUNK, undefined, SEGMENT)
    await a.compressed()
    const n = 3 // logs: its receipt is not empty
    expect(hex(await a.encoded(BigInt(n)))).toBe(hex(stored[n]!.enc))
    const inflates = a.chunkStats().inflates
    // every other block read meanwhile evicts the chunks' inflated segments (two chunk sizes), not the block
    for (let b = 4; b <= 36; b++) await a.encoded(BigInt(b))
    const after = a.chunkStats().inflates
    expect(after).toBeGreaterThan(inflates)
    expect(hex(await a.encoded(BigInt(n)))).toBe(hex(stored[n]!.enc))
    expect(a.chunkStats().inflates).toBe(after)
    await a.pruneReceipts(BigInt(n), stored[n]!.txHashes)
    const pruned = (await a.encoded(BigInt(n)))!
    expect(pruned.derived.length).toBeLessThan(stored[n]!.enc.derived.length)
    // block 3 again holds another block's encodings after a truncation below it
    a.truncateAbove(BigInt(n - 1))
    a.append(BigInt(n), stored[n + 1]!.enc, stored[n + 1]!.hash, stored[n + 1]!.txHashes)
    expect(hex(await a.encoded(BigInt(n)))).toBe(hex(stored[n + 1]!.enc))
  })
})

/** Bytes of the chunks held uncompressed (the open one, those thawed or not compressed yet). */
function rawBytes(a: MemoryBlockBackend): number {
  const chunks = (a as unknown as { chunks: { chunks: { raw?: Uint8Array }[] } }).chunks.chunks
  return chunks.reduce((sum, c) => sum + (c.raw?.length ?? 0), 0)
}
