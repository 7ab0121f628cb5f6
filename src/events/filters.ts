/**
 * Polled filters: eth_newFilter, eth_newBlockFilter, eth_newPendingTransactionFilter, eth_getFilterChanges,
 * eth_getFilterLogs, eth_uninstallFilter (docs/reference-rules.md#rule-filters). Reference behaviour
 * (rskj J/org/ethereum/rpc/FilterManager.java, docs/reference-rules.md#rule-filters): a filter expires after 5 minutes
 * without a poll; its id is `0x` + the hex of a 36-character UUID string (72 hex digits); an unknown id is
 * {@link FilterNotFoundError} (-32000 "filter not found" at the RPC).
 */
import { randomUUID } from 'node:crypto'
import type { Chain } from '../chain/chain.js'
import { FilterNotFoundError } from '../errors/domain-errors.js'
import type { BlockRecord } from '../types/records.js'
import { blockLogs, collect, queryLogs, type LogCriteria, type LogMatch } from './log-query.js'
import { bytesEqual } from '../util/bytes.js'

/** How long (ms) a filter lives without a poll. */
export const FILTER_TIMEOUT_MS = 5 * 60 * 1000

/** Block range of a log filter: a fixed number, or "follows the head" (latest/pending/unset). */
export type RangeBound = bigint | 'head'

/** What a log filter selects. */
export interface LogFilterSpec extends LogCriteria {
  /** Inclusive start; `head` = the head at installation time onward. */
  from: RangeBound
  /** Inclusive end; `head` = no end. */
  to: RangeBound
  /** Single-block filter by hash (exclusive with from/to). */
  blockHash?: Uint8Array
}

/** A change delivered by eth_getFilterChanges. */
export type FilterChange =
  | { kind: 'log'; match: LogMatch; removed: boolean }
  | { kind: 'block'; hash: Uint8Array }
  | { kind: 'pendingTx'; hash: Uint8Array }

type Filter =
  | { kind: 'log'; spec: LogFilterSpec; installedAt: bigint; changes: FilterChange[]; lastPoll: number }
  | { kind: 'block'; changes: FilterChange[]; lastPoll: number }
  | { kind: 'pendingTx'; changes: FilterChange[]; lastPoll: number }

/** Options for {@link FilterManager}. */
export interface FilterManagerOptions {
  /** Milliseconds clock (injectable for expiry tests). Default Date.now. */
  clock?: () => number
  /** Filter lifetime without a poll, ms. Default 5 minutes. */
  timeoutMs?: number
  /** keccak256, for bloom pre-checks in log queries. */
  keccak: (data: Uint8Array) => Uint8Array
  /** Most blocks a log query may span (queryLogs' `blockLimit`; default the reference's 5000, null: none). */
  logBlockLimit?: bigint | null
}

/**
 * Keeps installed filters and feeds them from the chain's events.
 * Listens to `block` (new canonical block), `pendingTransaction` (hash entering the pool) and
 * `removedBlocks` (blocks undone by a snapshot revert / reorg: their logs are re-sent with removed=true).
 */
export class FilterManager {
  private readonly filters = new Map<string, Filter>()
  private readonly clock: () => number
  private readonly timeoutMs: number

  constructor(
    private readonly chain: Chain,
    private readonly opts: FilterManagerOptions,
  ) {
    this.clock = opts.clock ?? Date.now
    this.timeoutMs = opts.timeoutMs ?? FILTER_TIMEOUT_MS
    chain.on('block', (block: BlockRecord) => this.onBlock(block, false))
    chain.on('removedBlocks', (blocks: BlockRecord[]) => {
      for (const b of blocks) this.onBlock(b, true)
    })
    chain.wantRemovedBlocks(() => {
      this.expire()
      for (const f of this.filters.values()) if (f.kind === 'log') return true
      return false
    })
    chain.on('pendingTransaction', (hash: Uint8Array) => {
      this.expire()
      for (const f of this.filters.values()) if (f.kind === 'pendingTx') f.changes.push({ kind: 'pendingTx', hash })
    })
  }

  /** Number of installed filters (after expiring stale ones). */
  get size(): number {
    this.expire()
    return this.filters.size
  }

  private newId(): string {
    return '0x' + Buffer.from(randomUUID(), 'latin1').toString('hex')
  }

  /** Installs a log filter. @returns its id */
  newLogFilter(spec: LogFilterSpec): string {
    const id = this.newId()
    this.filters.set(id, {
      kind: 'log',
      spec,
      installedAt: this.chain.reads.head.header.number,
      changes: [],
      lastPoll: this.clock(),
    })
    return id
  }

  /** Installs a new-block filter. @returns its id */
  newBlockFilter(): string {
    const id = this.newId()
    this.filters.set(id, { kind: 'block', changes: [], lastPoll: this.clock() })
    return id
  }

  /** Installs a pending-transaction filter. @returns its id */
  newPendingTransactionFilter(): string {
    const id = this.newId()
    this.filters.set(id, { kind: 'pendingTx', changes: [], lastPoll: this.clock() })
    return id
  }

  /** Removes a filter. @returns true when it existed */
  uninstall(id: string): boolean {
    this.expire()
    return this.filters.delete(id.toLowerCase())
  }

  /**
   * Entries since the previous poll (and resets the expiry timer).
   * @throws FilterNotFoundError
   */
  changes(id: string): FilterChange[] {
    const f = this.get(id)
    f.lastPoll = this.clock()
    const out = f.changes
    f.changes = []
    return out
  }

  /**
   * All logs matching a log filter over its range (eth_getFilterLogs).
   * @throws FilterNotFoundError (also for a non-log filter); LogQueryLimitError past the log limits
   */
  async logs(id: string): Promise<LogMatch[]> {
    const f = this.get(id)
    f.lastPoll = this.clock()
    if (f.kind !== 'log') throw new FilterNotFoundError(id)
    const { spec } = f
    if (spec.blockHash) {
      const b = await this.chain.reads.blockByHash(spec.blockHash)
      const out: LogMatch[] = []
      if (b) collect(b, spec, out)
      return out
    }
    const head = this.chain.reads.head.header.number
    const from = spec.from === 'head' ? f.installedAt : spec.from
    const to = spec.to === 'head' || spec.to > head ? head : spec.to
    if (from > to) return []
    return queryLogs(this.chain.reads, from, to, spec, this.opts.keccak, this.opts.logBlockLimit)
  }

  /**
   * What eth_getFilterLogs of log filter `id` reads now: its criteria and inclusive block range (`from` > `to`:
   * none), or its block hash — for a fork, whose blocks at or below the fork block are the remote's
   * (docs/architecture.md#forking).
   * @throws FilterNotFoundError for an unknown id or a filter that is not a log filter
   */
  logQuery(id: string): { spec: LogFilterSpec; from: bigint; to: bigint } {
    const f = this.get(id)
    if (f.kind !== 'log') throw new FilterNotFoundError(id)
    const head = this.chain.reads.head.header.number
    const from = f.spec.from === 'head' ? f.installedAt : f.spec.from
    const to = f.spec.to === 'head' || f.spec.to > head ? head : f.spec.to
    return { spec: f.spec, from, to }
  }

  private get(id: string): Filter {
    this.expire()
    const f = this.filters.get(id.toLowerCase())
    if (!f) throw new FilterNotFoundError(id)
    return f
  }

  /** Drops filters not used within the timeout (reference Filter.hasExpired: accessTime + timeout <= now). */
  expire(): void {
    const now = this.clock()
    for (const [id, f] of this.filters) if (f.lastPoll + this.timeoutMs <= now) this.filters.delete(id)
  }

  private onBlock(block: BlockRecord, removed: boolean): void {
    this.expire()
    const n = block.header.number
    for (const f of this.filters.values()) {
      if (f.kind === 'block') {
        if (!removed) f.changes.push({ kind: 'block', hash: block.hash })
      } else if (f.kind === 'log') {
        const { spec } = f
        if (spec.blockHash) {
          if (!bytesEqual(spec.blockHash, block.hash)) continue
        } else {
          if (spec.from !== 'head' && n < spec.from) continue
          if (spec.to !== 'head' && n > spec.to) continue
        }
        for (const match of blockLogs(block, spec)) f.changes.push({ kind: 'log', match, removed })
      }
    }
  }
}
