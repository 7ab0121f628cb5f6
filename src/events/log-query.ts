/**
 * Log matching and range queries for eth_getLogs and log filters (docs/reference-rules.md#rule-log-matching;
 * reference limits rpc.logs.maxBlocksToQuery = 5000 and maxLogsToReturn = 20 000 → {@link LogQueryLimitError}, -32012
 * at the RPC).
 */
import type { ChainReads } from '../chain/chain-reads.js'
import { LogQueryLimitError } from '../errors/domain-errors.js'
import type { LogBlock, LogRecord, LogTx } from '../types/records.js'
import { bytesEqual } from '../util/bytes.js'
import { SLICE_MS, yieldThread } from '../util/time-slices.js'

/** Address/topic criteria of a log filter. */
export interface LogCriteria {
  /** Empty = any address. */
  addresses: Uint8Array[]
  /**
   * Per position: null = wildcard, else any of the alternatives. A shorter list matches any later topics; a
   * longer list than the log has never matches (rskj AddressesTopicsFilter.matchesExactly).
   */
  topics: (Uint8Array[] | null)[]
}

/** A matched log with its transaction and block. */
export interface LogMatch {
  log: LogRecord
  tx: LogTx
  block: LogBlock
}

/** Reference limits. */
export const MAX_BLOCKS_TO_QUERY = 5000n
export const MAX_LOGS_TO_RETURN = 20_000

/** True when `log` satisfies the address and topic criteria. */
export function logMatches(log: LogRecord, c: LogCriteria): boolean {
  // plain loops, no `.some` closures: this runs per log of every block in range, and the first eth_getLogs
  // calls run it interpreted
  const addresses = c.addresses
  if (addresses.length > 0 && !anyEqual(addresses, log.address)) return false
  const topics = c.topics
  const logTopics = log.topics
  // a criteria list longer than the log's topics never matches, wildcards included (rskj
  // AddressesTopicsFilter.matchesExactly: [A, null, null, null] does not match a 3-topic log)
  if (topics.length > logTopics.length) return false
  for (let i = 0; i < topics.length; i++) {
    const alts = topics[i]
    if (alts === null || alts === undefined) continue
    if (!anyEqual(alts, logTopics[i]!)) return false
  }
  return true
}

/** Whether `b` equals one of `alts`. */
function anyEqual(alts: readonly Uint8Array[], b: Uint8Array): boolean {
  for (let i = 0; i < alts.length; i++) if (bytesEqual(alts[i]!, b)) return true
  return false
}

/**
 * The bloom bits the criteria need, as flat [byte index, bit mask] pairs (3 per value: Ethereum's 2048-bit
 * bloom of keccak(value)). `all`: the bits of every single-valued criterion, which must all be set;
 * `any`: per multi-valued position, one pair list per alternative, one of which must be set.
 * Precomputed once per query, so the per-block check is one flat loop: the first eth_getLogs calls run
 * interpreted (before TurboFan, a 1000-block query takes 5-12 ms), and per-hash helper calls multiplied that.
 */
interface BloomBits {
  all: number[]
  any: number[][][]
}

function bloomPairs(hash: Uint8Array, out: number[] = []): number[] {
  for (let i = 0; i < 6; i += 2) {
    const bit = ((hash[i]! << 8) | hash[i + 1]!) & 2047
    out.push(255 - (bit >> 3), 1 << (bit & 7))
  }
  return out
}

function bloomBits(c: LogCriteria, keccak: (b: Uint8Array) => Uint8Array): BloomBits {
  const bits: BloomBits = { all: [], any: [] }
  const add = (alts: Uint8Array[] | null): void => {
    if (alts === null || alts.length === 0) return // wildcard; an empty list matches nothing (left to logMatches)
    if (alts.length === 1) bloomPairs(keccak(alts[0]!), bits.all)
    else bits.any.push(alts.map((v) => bloomPairs(keccak(v))))
  }
  add(c.addresses)
  for (const alts of c.topics) add(alts)
  return bits
}

/** Whether a bloom (a block's or a receipt's) may contain a match (false positives allowed). */
function bloomMayMatch(bloom: Uint8Array, bits: BloomBits): boolean {
  const all = bits.all
  for (let k = 0; k < all.length; k += 2) if ((bloom[all[k]!]! & all[k + 1]!) === 0) return false
  const any = bits.any
  for (let g = 0; g < any.length; g++) {
    const alts = any[g]!
    let found = false
    for (let a = 0; a < alts.length && !found; a++) {
      const pairs = alts[a]!
      found = true
      for (let k = 0; k < pairs.length; k += 2) {
        if ((bloom[pairs[k]!]! & pairs[k + 1]!) === 0) {
          found = false
          break
        }
      }
    }
    if (!found) return false
  }
  return true
}

/**
 * Longest stretch, in ms, a log query keeps the thread before it lets other requests run once (the node's time
 * slice): a 1000-block query is decoded from batches of blocks read at once (or from the decoded cache), which would
 * otherwise hold every request that arrives meanwhile for the whole query (tens of ms under load, with `--db` about
 * a hundred).
 */
export const QUERY_SLICE_MS = SLICE_MS

/**
 * All logs matching `c` in canonical blocks `from..to` (inclusive), in chain order; yields the thread every
 * {@link QUERY_SLICE_MS}.
 * @param blockLimit most blocks a query may span beyond its first (default {@link MAX_BLOCKS_TO_QUERY}, the
 *   reference's; null: no limit, a compatibility profile's choice, src/rpc/compat.ts)
 * @throws LogQueryLimitError beyond the limits (-32012)
 */
export async function queryLogs(
  chain: Pick<ChainReads, 'blocksWithBloom'>,
  from: bigint,
  to: bigint,
  c: LogCriteria,
  keccak: (b: Uint8Array) => Uint8Array,
  blockLimit: bigint | null = MAX_BLOCKS_TO_QUERY,
): Promise<LogMatch[]> {
  if (blockLimit !== null && to - from > blockLimit) {
    throw new LogQueryLimitError(`Cannot query more than ${blockLimit} blocks at once`)
  }
  const bits = bloomBits(c, keccak)
  const out: LogMatch[] = []
  // the header blooms are read from the encoded blocks: blocks they rule out are never decoded
  const mayMatch = (bloom: Uint8Array): boolean => bloomMayMatch(bloom, bits)
  // blocks read in one batch are handed over without a turn of the event loop: let other requests in meanwhile.
  // The clock is read here rather than through an async helper awaited per block: a promise and a microtask per
  // block were ~0.2 ms (5-10%) of the node's CPU time for a warm 1000-block query (measured)
  let sliceStart = Date.now()
  // the contracts and event signatures let the log index name the blocks to read (src/blocks/log-index.ts)
  const keys = { addresses: c.addresses, topic0: c.topics[0] ?? null }
  // (blocks come in batches, src/blocks/block-store.ts LOG_BATCH: a generator step per block cost promises and
  // microtasks, 16% of a warm 1000-block query's CPU time in a prototype)
  for await (const batch of chain.blocksWithBloom(from, to, mayMatch, mayMatch, keys)) {
    for (let i = 0; i < batch.length; i++) {
      const block = batch[i]!
      if (block.transactions.length === 0) continue
      walkBlock(block, c, bits, out)
      if (out.length > MAX_LOGS_TO_RETURN) throw logLimitError()
      if (Date.now() - sliceStart >= QUERY_SLICE_MS) {
        await yieldThread()
        sliceStart = Date.now()
      }
    }
  }
  return out
}

/**
 * Appends the logs of `block` matching `c` (all when undefined) to `out`. With `bits`, a transaction whose receipt
 * bloom rules the criteria out is skipped unread: every RSK block's Remasc transaction carries 5 payment logs, so
 * a 1000-block query otherwise compares ~6000 scattered logs (cache misses) for ~1000 hits (warm query 1.13 →
 * 0.71 ms), and a cached block's receipt decodes its logs only when first read (src/blocks/stored-block.ts).
 */
function walkBlock(block: LogBlock, c: LogCriteria | undefined, bits: BloomBits | undefined, out: LogMatch[]): void {
  const txs = block.transactions
  for (let i = 0; i < txs.length; i++) {
    const tx = txs[i]!
    const receipt = tx.receipt
    if (bits !== undefined && !bloomMayMatch(receipt.logsBloom, bits)) continue
    const logs = receipt.logs
    if (logs.length === 0) continue
    for (let j = 0; j < logs.length; j++) {
      const log = logs[j]!
      if (c === undefined || logMatches(log, c)) out.push({ log, tx, block })
    }
  }
}

function logLimitError(): LogQueryLimitError {
  return new LogQueryLimitError(`Filter returned more than ${MAX_LOGS_TO_RETURN} logs.`)
}

/**
 * The logs of one block that match `c` (all of them when `c` is undefined), in block order: the one walk
 * queries, filters and subscriptions share. An array, not a generator: a generator object and its resumes per
 * block were ~0.45 ms of a warm 1000-block eth_getLogs (~2 ms then; scratch/gl-micro.mjs).
 */
export function blockLogs(block: LogBlock, c: LogCriteria | undefined): LogMatch[] {
  const out: LogMatch[] = []
  walkBlock(block, c, undefined, out)
  return out
}

/** Appends the matching logs of one block to `out`. @throws LogQueryLimitError past the log limit */
export function collect(block: LogBlock, c: LogCriteria, out: LogMatch[]): void {
  walkBlock(block, c, undefined, out)
  if (out.length > MAX_LOGS_TO_RETURN) throw logLimitError()
}
