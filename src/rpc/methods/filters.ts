/**
 * Filters (polled) and subscriptions (pushed over WebSocket): eth_newFilter, eth_newBlockFilter,
 * eth_newPendingTransactionFilter, eth_getFilterChanges, eth_getFilterLogs, eth_uninstallFilter,
 * eth_subscribe, eth_unsubscribe, and eth_pendingTransactions (docs/reference-rules.md#rule-filters,
 * docs/reference-rules.md#rule-subscriptions).
 */
import { ErrorCode, invalidParams, RpcError } from '../rpc-error.js'
import type { BlockRecord } from '../../types/records.js'
import type { FilterManager, RangeBound } from '../../events/filters.js'
import type { SubscriptionManager, SubscriptionKind } from '../../events/subscriptions.js'
import type { LogMatch } from '../../events/log-query.js'
import { quantity, toHex } from '../../util/bytes.js'
import { formatLog, formatTransaction } from '../format.js'
import { method, type MethodSpec } from '../method-table.js'
import { decodeFilter, optional, P, param, type BlockRef } from '../params.js'
import { resolveBlock, type Services } from '../services.js'

/**
 * A log as filter polls and subscriptions deliver it: the log object with `removed` (true for a reverted block's logs).
 */
export function formatFilterLog(m: LogMatch, removed: boolean): Record<string, unknown> {
  return { ...formatLog(m.log, m.tx, m.block), removed }
}

/** The new-head notification payload (docs/reference-rules.md#rule-subscriptions; reference adds baseEvent). */
export function formatHead(b: BlockRecord): Record<string, unknown> {
  const h = b.header
  return {
    difficulty: quantity(h.difficulty),
    extraData: toHex(h.extraData),
    gasLimit: quantity(h.gasLimit),
    gasUsed: quantity(h.gasUsed),
    logsBloom: toHex(h.logsBloom),
    miner: toHex(h.coinbase),
    number: quantity(h.number),
    parentHash: toHex(h.parentHash),
    receiptsRoot: toHex(h.receiptsRoot),
    sha3Uncles: toHex(h.unclesHash),
    stateRoot: toHex(h.stateRoot),
    timestamp: quantity(h.timestamp),
    transactionsRoot: toHex(h.transactionsRoot),
    hash: toHex(b.hash),
    baseEvent: '0x00',
  }
}

const SUBSCRIPTION_KINDS: readonly SubscriptionKind[] = ['newHeads', 'logs', 'newPendingTransactions', 'syncing']

/** The filter, subscription and pending-transaction methods. */
export function filterMethods(s: Services, filters: FilterManager, subs: SubscriptionManager): MethodSpec[] {
  const { chain } = s
  const bound = async (ref: BlockRef | undefined): Promise<RangeBound> => {
    if (!ref || (ref.kind === 'tag' && ref.tag !== 'earliest')) return 'head'
    if (ref.kind === 'tag') return 0n
    if (ref.kind === 'number') return ref.number
    const b = await resolveBlock(chain, ref)
    return b && b !== 'pending' ? b.header.number : 'head'
  }
  const filterId = () =>
    param('filterId', (v, i) => {
      if (typeof v !== 'string' || !/^0x[0-9a-fA-F]+$/.test(v))
        throw invalidParams(`invalid argument ${i}: filter id must be hex`)
      return v
    })

  return [
    method('eth_newFilter', 'eth', 'installs a log filter; returns its id', [P.filter()], async (_c, f) =>
      filters.newLogFilter({
        addresses: f.addresses,
        topics: f.topics,
        blockHash: f.blockHash,
        from: await bound(f.fromBlock),
        to: await bound(f.toBlock),
      }),
    ),
    method('eth_newBlockFilter', 'eth', 'installs a new-block filter', [], () => filters.newBlockFilter()),
    method('eth_newPendingTransactionFilter', 'eth', 'installs a pending-transaction filter', [], () =>
      filters.newPendingTransactionFilter(),
    ),
    method('eth_uninstallFilter', 'eth', 'removes a filter', [filterId()], (_c, id) => filters.uninstall(id)),
    method('eth_getFilterChanges', 'eth', 'entries since the last poll', [filterId()], (_c, id) =>
      filters.changes(id).map((c) => (c.kind === 'log' ? formatFilterLog(c.match, c.removed) : toHex(c.hash))),
    ),
    method('eth_getFilterLogs', 'eth', 'all logs of a log filter', [filterId()], async (_c, id) => {
      const local: unknown[] = (await filters.logs(id)).map((m) => formatFilterLog(m, false))
      // a fork: the remote's logs up to the fork block first, as eth_getLogs (docs/architecture.md#forking)
      const fork = s.fork
      if (fork === undefined) return local
      const { spec, from, to } = filters.logQuery(id)
      const address = spec.addresses.length === 0 ? undefined : spec.addresses.map(toHex)
      const topics = spec.topics.map((t) => (t === null ? null : t.map(toHex)))
      const forkN = fork.point.number
      if (spec.blockHash !== undefined) {
        const b = await chain.reads.blockByHash(spec.blockHash)
        if (b !== undefined && b.header.number > forkN) return local
        return fork.history.logs({ blockHash: spec.blockHash, address, topics })
      }
      if (from > to || from > forkN) return local
      const remote = await fork.history.logs({ fromBlock: from, toBlock: to < forkN ? to : forkN, address, topics })
      return [...remote, ...local]
    }),

    method(
      'eth_subscribe',
      'eth',
      'subscribes to newHeads, logs, newPendingTransactions or syncing (WebSocket only)',
      [P.string('subscription'), optional(P.any('filter'), undefined)],
      (ctx, kind, rawFilter) => {
        if (ctx.connection.transport !== 'ws') {
          throw new RpcError(ErrorCode.MethodNotFound, 'eth_subscribe is only available over WebSocket')
        }
        if (!SUBSCRIPTION_KINDS.includes(kind as SubscriptionKind)) {
          throw invalidParams(`invalid argument 0: unknown subscription type "${kind}"`)
        }
        if (kind === 'logs') {
          const f = decodeFilter(rawFilter, 1)
          return subs.subscribe(ctx.connection, 'logs', { addresses: f.addresses, topics: f.topics })
        }
        return subs.subscribe(ctx.connection, kind as SubscriptionKind)
      },
    ),
    method('eth_unsubscribe', 'eth', 'cancels a subscription', [P.string('subscriptionId')], (ctx, id) =>
      subs.unsubscribe(ctx.connection, id),
    ),

    method('eth_pendingTransactions', 'eth', "pool transactions sent from the node's accounts", [], async () => {
      const { pending, queued } = await chain.poolContent()
      return [...pending, ...queued].filter((p) => s.accounts.has(p.from)).map((p) => formatTransaction(p, undefined))
    }),
  ]
}
