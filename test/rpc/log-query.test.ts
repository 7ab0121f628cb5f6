/**
 * The eth_getLogs fast path at unit level: the block walk with block- and receipt-bloom pre-checks (a
 * receipt whose bloom rules the criteria out is skipped, everything else still goes through logMatches),
 * the log limit, the query letting other work run every QUERY_SLICE_MS, RawJson's single-join envelope and the
 * eth_getLogs answer written as bytes (logsJson).
 */
import { describe, expect, it } from 'vitest'
import type { ChainReads } from '../../src/chain/chain-reads.js'
import type { BlockRecord, LogRecord, TxRecord } from '../../src/types/records.js'
import {
  blockLogs,
  MAX_LOGS_TO_RETURN,
  QUERY_SLICE_MS,
  queryLogs,
  type LogCriteria,
} from '../../src/events/log-query.js'
import { formatLog, RawJson } from '../../src/rpc/format.js'
import { logsJson } from '../../src/rpc/log-json.js'
import { keccak256 } from '../../src/crypto/keccak.js'
import { logsBloom, orBlooms } from '../../src/rsk/receipt-rlp.js'

const bytes = (n: number, len: number): Uint8Array => new Uint8Array(len).fill(n)
const A = bytes(0xaa, 20)
const B = bytes(0xbb, 20)
const T1 = bytes(1, 32)
const T2 = bytes(2, 32)
const T3 = bytes(3, 32)

const log = (address: Uint8Array, topics: Uint8Array[], logIndex: number): LogRecord => ({
  address,
  topics,
  data: new Uint8Array(0),
  logIndex,
})

/** A block from per-transaction log lists; blooms computed as the executor does (or given, to test the pre-check). */
function block(number: number, txLogs: LogRecord[][], receiptBlooms?: Uint8Array[]): BlockRecord {
  const txs = txLogs.map(
    (logs, index) =>
      ({
        index,
        hash: bytes(index, 32),
        receipt: { logs, logsBloom: receiptBlooms?.[index] ?? logsBloom(logs) },
      }) as unknown as TxRecord,
  )
  return {
    hash: bytes(number, 32),
    header: { number: BigInt(number), logsBloom: orBlooms(txs.map((t) => t.receipt.logsBloom)) },
    transactions: txs,
  } as unknown as BlockRecord
}

/** The block source queryLogs reads: the chain's blocksWithBloom over a list of blocks. */
type LogSource = Pick<ChainReads, 'blocksWithBloom'> & { at(n: bigint): BlockRecord | undefined }

const chainOf = (blocks: BlockRecord[]): LogSource =>
  ({
    at: (n: bigint) => (n >= 0n && n < BigInt(blocks.length) ? blocks[Number(n)] : undefined),
    // the chain's contract: blocks of the range whose header bloom may match, in order, in batches (here of 2)
    async *blocksWithBloom(from: bigint, to: bigint, mayMatch: (bloom: Uint8Array) => boolean) {
      let batch: BlockRecord[] = []
      for (let n = from; n <= to && n < BigInt(blocks.length); n++) {
        if (mayMatch(blocks[Number(n)]!.header.logsBloom)) batch.push(blocks[Number(n)]!)
        if (batch.length === 2) {
          yield batch
          batch = []
        }
      }
      if (batch.length > 0) yield batch
    },
  }) as unknown as LogSource

const where = (addresses: Uint8Array[], topics: (Uint8Array[] | null)[] = []): LogCriteria => ({ addresses, topics })
const ids = async (chain: LogSource, c: LogCriteria): Promise<string[]> =>
  (await queryLogs(chain, 0n, 10n, c, keccak256)).map((m) => `${m.block.header.number}:${m.tx.index}:${m.log.logIndex}`)

describe('queryLogs', () => {
  // block 1: a one-log tx of A and a "system" tx with several logs of B (like the Remasc payments)
  const chain = chainOf([
    block(0, []),
    block(1, [[log(A, [T1], 0)], [log(B, [T2], 1), log(B, [T2, T3], 2), log(B, [T3], 3)]]),
    block(2, [[log(B, [T1], 0), log(A, [T1, T2], 1)]]),
  ])

  it('matches in chain, transaction and log order', async () => {
    expect(await ids(chain, where([]))).toEqual(['1:0:0', '1:1:1', '1:1:2', '1:1:3', '2:0:0', '2:0:1'])
    expect(await ids(chain, where([A]))).toEqual(['1:0:0', '2:0:1'])
    expect(await ids(chain, where([B], [[T2]]))).toEqual(['1:1:1', '1:1:2'])
    expect(await ids(chain, where([A, B], [null, [T3, T2]]))).toEqual(['1:1:2', '2:0:1'])
    expect(await ids(chain, where([], [[T1, T3]]))).toEqual(['1:0:0', '1:1:3', '2:0:0', '2:0:1'])
    // a topic list longer than a log's topics never matches it, even all wildcards (rskj matchesExactly)
    expect(await ids(chain, where([], [null]))).toEqual(['1:0:0', '1:1:1', '1:1:2', '1:1:3', '2:0:0', '2:0:1'])
    expect(await ids(chain, where([], [null, null]))).toEqual(['1:1:2', '2:0:1'])
    expect(await ids(chain, where([], [[T2], null]))).toEqual(['1:1:2'])
    expect(await ids(chain, where([], [null, null, null]))).toEqual([])
    // an empty alternative list matches nothing (the `[null]` topic position after decoding)
    expect(await ids(chain, where([], [[]]))).toEqual([])
  })

  it('skips a multi-log receipt whose bloom rules the criteria out, unread', async () => {
    // a (deliberately wrong) empty receipt bloom hides B's logs from B queries; the block bloom still lets the block in
    const lying = chainOf([
      block(0, []),
      block(
        1,
        [[log(A, [T1], 0)], [log(B, [T2], 1), log(B, [T2], 2)]],
        [logsBloom([log(A, [T1], 0), log(B, [T2], 0)]), new Uint8Array(256)],
      ),
    ])
    expect(await ids(lying, where([B]))).toEqual([])
    // without criteria there is nothing to check a bloom against: every log
    expect(await ids(lying, where([]))).toEqual(['1:0:0', '1:1:1', '1:1:2'])
    // filters and subscriptions walk without blooms
    expect(blockLogs(lying.at(1n)!, where([B])).map((m) => m.log.logIndex)).toEqual([1, 2])
  })

  it('-32012 past the log limit', async () => {
    const many = chainOf([block(0, [Array.from({ length: MAX_LOGS_TO_RETURN + 1 }, (_, i) => log(A, [], i))])])
    await expect(queryLogs(many, 0n, 0n, where([A]), keccak256)).rejects.toThrow(
      `Filter returned more than ${MAX_LOGS_TO_RETURN} logs.`,
    )
  })
})

describe('queryLogs slices', () => {
  it('a query that keeps the thread longer than QUERY_SLICE_MS lets work queued meanwhile run before it ends', async () => {
    // blocks that are all at hand (a decoded cache, a batch read), handed over in one batch: the walk itself never
    // waits for I/O, and reading each block's logs is slow (stood in for by a busy wait)
    const busyPerBlock = Math.ceil(QUERY_SLICE_MS / 4)
    const blocks = Array.from({ length: 12 }, (_, n) => {
      const b = block(n, [[log(A, [T1], 0)]])
      const txs = b.transactions
      return Object.defineProperty(b, 'transactions', {
        get() {
          const until = Date.now() + busyPerBlock
          while (Date.now() < until);
          return txs
        },
      })
    })
    const slow = {
      async *blocksWithBloom(from: bigint, to: bigint) {
        yield blocks.slice(Number(from), Number(to) + 1)
      },
    } as unknown as LogSource
    const order: string[] = []
    setImmediate(() => order.push('other request'))
    const matches = await queryLogs(slow, 0n, 11n, where([A]), keccak256)
    order.push('query done')
    expect(matches).toHaveLength(12)
    expect(order).toEqual(['other request', 'query done'])
  })
})

describe('RawJson', () => {
  it('wraps a text or an element list in one string, and can be read again', () => {
    expect(new RawJson('{"a":1}').wrap('<', '>')).toBe('<{"a":1}>')
    expect(new RawJson([]).wrap('<', '>')).toBe('<[]>')
    expect(new RawJson(['1']).wrap('<', '>')).toBe('<[1]>')
    const r = new RawJson(['1', '{"b":2}', '3'])
    expect(r.wrap('<', '>')).toBe('<[1,{"b":2},3]>')
    expect(r.wrap('(', ')')).toBe('([1,{"b":2},3])')
    expect(JSON.parse(r.json)).toEqual([1, { b: 2 }, 3])
  })
})

describe('logsJson', () => {
  const matches = [
    block(1, [[log(A, [T1], 0)], [log(B, [T2], 1), log(B, [T2, T3], 2)]]),
    block(2, [[log(B, [], 0)]]),
  ].flatMap((b) => b.transactions.flatMap((tx) => tx.receipt.logs.map((l) => ({ log: l, tx, block: b }))))
  const text = JSON.stringify(matches.map((m) => formatLog(m.log, m.tx, m.block)))
  const utf8 = (b: string | Uint8Array): string => (typeof b === 'string' ? b : Buffer.from(b).toString('utf8'))

  it('is the JSON array of the formatted logs, as text and as the bytes the transport sends', () => {
    expect(logsJson(matches).json).toBe(text)
    expect(logsJson([]).json).toBe('[]')
    const body = logsJson(matches).body('{"jsonrpc":"2.0","id":1,"result":', '}')
    expect(body).toBeInstanceOf(Uint8Array)
    expect(utf8(body)).toBe('{"jsonrpc":"2.0","id":1,"result":' + text + '}')
  })

  it('takes any envelope: one longer than the room kept for it, non-ASCII ids, a second envelope', () => {
    const r = logsJson(matches)
    const long = '{"jsonrpc":"2.0","id":"' + 'é'.repeat(100) + '","result":'
    expect(utf8(r.body(long, '}'))).toBe(long + text + '}')
    const first = r.body('{"id":"ü",', '}')
    const second = r.body('{"id":2,"result":', '}')
    // the second envelope is a copy: the first answer's bytes stay as they were
    expect(utf8(first)).toBe('{"id":"ü",' + text + '}')
    expect(utf8(second)).toBe('{"id":2,"result":' + text + '}')
    expect(JSON.parse(utf8(logsJson([]).body('{"a":', '}')))).toEqual({ a: [] })
  })
})
