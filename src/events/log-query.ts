/**
 * Log matching and range queries for eth_getLogs and log filters (spec §4 "Logs and filters", topic rule;
 * reference limits rpc.logs.maxBlocksToQuery = 5000 and maxLogsToReturn = 20 000 → -32012).
 */
import type { Chain } from '../chain/chain.js'
import { ErrorCode, RpcError } from '../chain/errors.js'
import type { BlockRecord, LogRecord, TxRecord } from '../chain/types.js'
import { bytesEqual } from '../util/bytes.js'

/** Address/topic criteria of a log filter. */
export interface LogCriteria {
  /** Empty = any address. */
  addresses: Uint8Array[]
  /** Per position: null = wildcard, else any of the alternatives. A shorter list matches any later topics. */
  topics: (Uint8Array[] | null)[]
}

/** A matched log with its transaction and block. */
export interface LogMatch {
  log: LogRecord
  tx: TxRecord
  block: BlockRecord
}

/** Reference limits. */
export const MAX_BLOCKS_TO_QUERY = 5000n
export const MAX_LOGS_TO_RETURN = 20_000

/** True when `log` satisfies the address and topic criteria. */
export function logMatches(log: LogRecord, c: LogCriteria): boolean {
  if (c.addresses.length > 0 && !c.addresses.some((a) => bytesEqual(a, log.address))) return false
  if (c.topics.length > log.topics.length) {
    // positions beyond the log's topics must be wildcards
    for (let i = log.topics.length; i < c.topics.length; i++) if (c.topics[i] !== null) return false
  }
  for (let i = 0; i < c.topics.length && i < log.topics.length; i++) {
    const alts = c.topics[i]
    if (alts === null || alts === undefined) continue
    const t = log.topics[i]!
    if (!alts.some((a) => bytesEqual(a, t))) return false
  }
  return true
}

/** Bloom test for 3 bits of keccak(value) (Ethereum's 2048-bit bloom). */
function bloomMayContain(bloom: Uint8Array, hash: Uint8Array): boolean {
  for (let i = 0; i < 6; i += 2) {
    const bit = ((hash[i]! << 8) | hash[i + 1]!) & 2047
    if ((bloom[256 - 1 - (bit >> 3)]! & (1 << (bit & 7))) === 0) return false
  }
  return true
}

/**
 * Whether a block's bloom may contain a match (a cheap pre-check; false positives allowed).
 * @param hashes precomputed keccak of each address and topic alternative
 */
function blockMayMatch(block: BlockRecord, addrHashes: Uint8Array[], topicHashes: (Uint8Array[] | null)[]): boolean {
  const bloom = block.header.logsBloom
  if (addrHashes.length > 0 && !addrHashes.some((h) => bloomMayContain(bloom, h))) return false
  for (const alts of topicHashes) {
    if (alts !== null && !alts.some((h) => bloomMayContain(bloom, h))) return false
  }
  return true
}

/**
 * All logs matching `c` in canonical blocks `from..to` (inclusive), in chain order.
 * @throws RpcError -32012 beyond the reference limits
 */
export function queryLogs(
  chain: Chain,
  from: bigint,
  to: bigint,
  c: LogCriteria,
  keccak: (b: Uint8Array) => Uint8Array,
): LogMatch[] {
  if (to - from > MAX_BLOCKS_TO_QUERY) {
    throw new RpcError(ErrorCode.LogsLimit, `Cannot query more than ${MAX_BLOCKS_TO_QUERY} blocks at once`)
  }
  const addrHashes = c.addresses.map(keccak)
  const topicHashes = c.topics.map((alts) => (alts === null ? null : alts.map(keccak)))
  const out: LogMatch[] = []
  for (let n = from; n <= to; n++) {
    const block = chain.blockByNumber(n)
    if (!block) break
    if (block.transactions.length === 0 || !blockMayMatch(block, addrHashes, topicHashes)) continue
    collect(block, c, out)
  }
  return out
}

/**
 * The logs of one block that match `c` (all of them when `c` is undefined), in block order: the one walk
 * queries, filters and subscriptions share.
 */
export function* blockLogs(block: BlockRecord, c: LogCriteria | undefined): Generator<LogMatch> {
  for (const tx of block.transactions) {
    for (const log of tx.receipt.logs) {
      if (c === undefined || logMatches(log, c)) yield { log, tx, block }
    }
  }
}

/** Appends the matching logs of one block to `out`. @throws RpcError -32012 past the log limit */
export function collect(block: BlockRecord, c: LogCriteria, out: LogMatch[]): void {
  for (const match of blockLogs(block, c)) {
    out.push(match)
    if (out.length > MAX_LOGS_TO_RETURN) {
      throw new RpcError(ErrorCode.LogsLimit, `Filter returned more than ${MAX_LOGS_TO_RETURN} logs.`)
    }
  }
}
