/**
 * Records rebuilt from their stored encodings (src/blocks/stored-block.ts): the block store caches these, not the
 * records blocks are built as, so each must answer exactly as its built record did — block JSON with full
 * transactions, receipts, logs, transaction objects (an impersonated sender's too), header hash — and be compact
 * (its byte fields views into one owned copy). Also: a fork's block keeps the header format of its height.
 */
import { RLP } from '@ethereumjs/rlp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Node } from '../../src/index.js'
import type { BlockRecord } from '../../src/types/records.js'
import { blockDerived, encodeBlock } from '../../src/blocks/block-codec.js'
import { StorageCorruptError } from '../../src/errors/storage-errors.js'
import { compactRecord, decodeStoredBlock } from '../../src/blocks/stored-block.js'
import { bigIntToBytes } from '../../src/util/bytes.js'
import { encodeReceipt } from '../../src/rsk/block-encoding.js'
import { blockEncoding, headerHash } from '../../src/rsk/block-encoding.js'
import { formatBlock, formatReceipt } from '../../src/rpc/format.js'
import { buildChain, probe } from '../helpers/chain-fixture.js'
import { sendTx } from '../rpc/shapes.js'
import { internals, rpc, startNode } from '../helpers/node.js'
import { seededRandom } from '../helpers/seeded.js'

let node: Node
let probeAddress: string
/** Every block as built (the chain's `block` event), genesis excluded. */
const built: BlockRecord[] = []

beforeAll(async () => {
  node = await startNode()
  internals(node).chain.on('block', (b: BlockRecord) => built.push(b))
  ;({ probeAddress } = await buildChain(node.url))
  // a log of the probe's in a block whose Remasc transaction has logs too (it has from a few blocks on)
  await sendTx(node.url, { to: probeAddress, data: probe.encodeFunctionData('setValue', [6]) })
  await rpc(node.url, 'evm_mine')
})

afterAll(async () => {
  await node.close()
})

const json = (x: unknown): string =>
  JSON.stringify(x, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v instanceof Uint8Array ? [...v] : v))

describe('a block decoded from its encodings answers as the block it was built as', () => {
  it('block JSON with full transactions, receipts, logs, transaction objects and the header hash', () => {
    const { common } = internals(node).chain.reads
    expect(built.length).toBeGreaterThan(30)
    let logs = 0
    for (const b of built) {
      const enc = encodeBlock(b)
      const d = decodeStoredBlock(enc.rlp, enc.derived, common, true)
      expect(json(formatBlock(d, true))).toBe(json(formatBlock(b, true)))
      expect(d.transactions).toHaveLength(b.transactions.length)
      b.transactions.forEach((t, i) => {
        const dt = d.transactions[i]!
        expect(json(formatReceipt(dt, d))).toBe(json(formatReceipt(t, b)))
        expect(json(dt.receipt.logs)).toBe(json(t.receipt.logs))
        logs += t.receipt.logs.length
        expect(dt.tx.serialize()).toEqual(t.tx.serialize())
        expect(dt.tx.getSenderAddress().bytes).toEqual(t.tx.getSenderAddress().bytes)
      })
      expect(headerHash(d.header)).toEqual(b.hash)
      expect(d.size).toBe(b.size)
      expect(d.totalDifficulty).toBe(b.totalDifficulty)
    }
    // the fixture's logs (set, emitMany ×3, a block with several transactions) and the Remasc transaction's
    expect(logs).toBeGreaterThan(6)
  })

  it("the derived RLP written in place is RLP.encode's of the same items, byte for byte", () => {
    let entries = 0
    for (const b of built) {
      const expected = RLP.encode([
        b.hash,
        b.hashForMergedMining,
        bigIntToBytes(b.totalDifficulty),
        b.transactions.map((t) => [
          t.from,
          t.receipt.contractAddress ?? new Uint8Array(0),
          encodeReceipt(t.receipt),
          bigIntToBytes(BigInt(t.receipt.logs[0]?.logIndex ?? 0)),
        ]),
      ])
      expect(blockDerived(b)).toEqual(expected)
      entries += b.transactions.length
    }
    expect(entries).toBeGreaterThan(built.length)
  })

  it('the compact record made from a built block answers as the record decoded from its encodings', () => {
    const { common } = internals(node).chain.reads
    for (const b of built) {
      const enc = encodeBlock(b)
      const c = compactRecord(b, enc, common)
      const d = decodeStoredBlock(enc.rlp, enc.derived, common)
      expect(json(formatBlock(c, true))).toBe(json(formatBlock(d, true)))
      c.transactions.forEach((t, i) => {
        const dt = d.transactions[i]!
        expect(t.hash).toEqual(dt.hash)
        expect(t.from).toEqual(dt.from)
        expect(json(formatReceipt(t, c))).toBe(json(formatReceipt(dt, d)))
        expect(json(t.receipt.logs)).toBe(json(dt.receipt.logs))
        expect(t.tx.serialize()).toEqual(dt.tx.serialize())
      })
      // the Remasc transaction is recognised without its RLP being compared
      expect(c.transactions.at(-1)!.from).toBe(d.transactions.at(-1)!.from)
      // compact as a decoded one: the receipt blooms are views into the record's own copy of the encodings
      const buffers = new Set(
        [c.header.logsBloom, ...c.transactions.map((t) => t.receipt.logsBloom)].map((f) => f.buffer),
      )
      expect(buffers.size).toBe(1)
      expect([...buffers][0]).not.toBe(enc.rlp.buffer)
      expect(() => compactRecord({ ...b, transactions: b.transactions.slice(1) }, enc, common)).toThrow(
        StorageCorruptError,
      )
    }
  })

  it('is compact: its byte fields are views into one buffer, and the cache holds it, not the built record', async () => {
    const { chain } = internals(node)
    const b = built.find((x) => x.transactions.length > 2)!
    const cached = (await chain.reads.blockByNumber(b.header.number))!
    expect(cached).not.toBe(b)
    const fields = [
      cached.hash,
      cached.hashForMergedMining,
      cached.header.parentHash,
      cached.header.stateRoot,
      cached.header.logsBloom,
      ...cached.transactions.flatMap((t) => [t.receipt.logsBloom, ...t.receipt.logs.map((l) => l.data)]),
    ]
    const buffers = new Set(fields.map((f) => f.buffer))
    expect(buffers.size).toBe(1)
    expect([...buffers][0]!.byteLength).toBeLessThan(4 * b.size)
  })

  it("a log query reads the logs only of receipts whose bloom may match: the Remasc transaction's stay encoded", async () => {
    const { chain } = internals(node)
    const head = Number(await rpc<string>(node.url, 'eth_blockNumber'))
    const decoded = (r: unknown): unknown => (r as { decodedLogs?: unknown }).decodedLogs
    const records = (await Promise.all(built.map((b) => chain.reads.blockByNumber(b.header.number)))).filter(
      (b): b is BlockRecord => b !== undefined && b.header.number < BigInt(head),
    )
    // the blocks the query walks (their header bloom has the probe's logs): the Remasc receipt is last in each
    const walked = records.filter((b) => b.transactions.slice(0, -1).some((t) => t.receipt.logsBloom.some((x) => x)))
    const remasc = walked.map((b) => b.transactions.at(-1)!.receipt).filter((r) => r.logsBloom.some((x) => x !== 0))
    expect(remasc.length).toBeGreaterThanOrEqual(1)
    const byAddress = await rpc<unknown[]>(node.url, 'eth_getLogs', [
      { fromBlock: '0x1', toBlock: 'latest', address: probeAddress },
    ])
    expect(byAddress.length).toBeGreaterThan(3)
    for (const r of remasc) expect(decoded(r)).toBeUndefined()
    const all = await rpc<unknown[]>(node.url, 'eth_getLogs', [{ fromBlock: '0x1', toBlock: 'latest' }])
    expect(all.length).toBeGreaterThan(byAddress.length)
    for (const r of remasc) expect(decoded(r)).toBeDefined()
  })

  it("a fork's block keeps the header format of its height; without it the stored hash does not verify", () => {
    const { common } = internals(node).chain.reads
    const b = built[3]!
    const format = { umm: false, version: 0, edges: false, rskip92: true } as const
    const header = { ...b.header, format }
    const record: BlockRecord = { ...b, header, hash: headerHash(header), transactions: [] }
    const rlp = blockEncoding(header, [])
    const derived = blockDerived(record)
    const d = decodeStoredBlock(rlp, derived, common, true, () => format)
    expect(d.header.format).toEqual(format)
    expect(headerHash(d.header)).toEqual(record.hash)
    expect(() => decodeStoredBlock(rlp, derived, common, true)).toThrow(StorageCorruptError)
  })

  it('any corruption of either encoding raises StorageCorruptError or decodes: never another error', () => {
    const { common } = internals(node).chain.reads
    // a block with several transactions and logs; a seeded generator, so a failure replays
    const enc = encodeBlock(built.find((x) => x.transactions.length > 2)!)
    const next = seededRandom(0x2545f491)
    let corrupt = 0
    for (let i = 0; i < 3000; i++) {
      const rlp = enc.rlp.slice()
      const derived = enc.derived.slice()
      const target = i % 2 === 0 ? rlp : derived
      for (let k = 1 + next(3); k > 0; k--) target[next(target.length)] = next(256)
      try {
        const d = decodeStoredBlock(rlp, derived, common, true)
        for (const t of d.transactions) void t.receipt.logs
      } catch (err) {
        expect(err).toBeInstanceOf(StorageCorruptError)
        corrupt++
      }
    }
    expect(corrupt).toBeGreaterThan(1000)
  })

  it('malformed encodings raise StorageCorruptError, never a crash or a wrong record', () => {
    const { common } = internals(node).chain.reads
    const enc = encodeBlock(built[2]!)
    const cut = (b: Uint8Array, n: number): Uint8Array => b.subarray(0, b.length - n)
    expect(() => decodeStoredBlock(cut(enc.rlp, 1), enc.derived, common)).toThrow(StorageCorruptError)
    expect(() => decodeStoredBlock(enc.rlp, cut(enc.derived, 1), common)).toThrow(StorageCorruptError)
    expect(() => decodeStoredBlock(enc.rlp, Uint8Array.of(0xc0), common)).toThrow(StorageCorruptError)
    expect(() => decodeStoredBlock(Uint8Array.of(0x80), enc.derived, common)).toThrow(StorageCorruptError)
    // well-formed RLP of the wrong shape: a transaction's entry a byte string instead of a list of four
    const b = built[2]!
    const entries = b.transactions.map(() => Uint8Array.of(5))
    const wrongShape = RLP.encode([b.hash, b.hashForMergedMining, Uint8Array.of(1), entries])
    expect(() => decodeStoredBlock(enc.rlp, wrongShape, common)).toThrow(StorageCorruptError)
  })
})
