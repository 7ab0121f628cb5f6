/**
 * WebSocket subscriptions: eth_subscribe newHeads | logs | newPendingTransactions | syncing, eth_unsubscribe,
 * notifications as docs/reference-rules.md#rule-subscriptions states
 * (`{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription", "result"}}`). Ids are 16 random bytes in hex
 * (docs/reference-rules.md#rule-subscriptions). Logs of blocks undone by a snapshot revert or reorg are re-sent with
 * `removed: true`. Closing the socket drops its subscriptions.
 *
 * The payload formatting is injected (the RPC layer's format functions), so this module stays transport- and
 * JSON-shape-agnostic.
 */
import { randomBytes } from 'node:crypto'
import type { Chain } from '../chain/chain.js'
import type { BlockRecord } from '../types/records.js'
import { blockLogs, type LogCriteria, type LogMatch } from './log-query.js'

/** The subscription kinds (docs/reference-rules.md#rule-subscriptions). */
export type SubscriptionKind = 'newHeads' | 'logs' | 'newPendingTransactions' | 'syncing'

/** Where notifications go: a connection's push, and its close hook. */
export interface Subscriber {
  push(message: string): void
  onClose(callback: () => void): void
}

/** Turns domain events into notification payloads (JSON-ready values). */
export interface NotificationFormatter {
  head(block: BlockRecord): unknown
  log(match: LogMatch, removed: boolean): unknown
}

interface Subscription {
  id: string
  kind: SubscriptionKind
  criteria?: LogCriteria
  subscriber: Subscriber
}

/**
 * Keeps subscriptions per connection and pushes chain events to them.
 */
export class SubscriptionManager {
  private readonly subs = new Map<string, Subscription>()
  private readonly bySubscriber = new Map<Subscriber, Set<string>>()

  /**
   * @param isLocal whether a sender's key is held by the node: `newPendingTransactions` notifies only those
   *   transactions (docs/reference-rules.md#rule-subscriptions)
   */
  constructor(
    chain: Chain,
    private readonly format: NotificationFormatter,
    private readonly isLocal: (from: Uint8Array) => boolean = () => true,
  ) {
    chain.on('block', (b: BlockRecord) => this.onBlock(b, false))
    chain.on('removedBlocks', (blocks: BlockRecord[]) => {
      for (const b of blocks) this.onBlock(b, true)
    })
    chain.wantRemovedBlocks(() => {
      for (const s of this.subs.values()) if (s.kind === 'logs') return true
      return false
    })
    chain.on('pendingTransaction', (hash: Uint8Array, from: Uint8Array) => {
      if (!this.isLocal(from)) return
      const hex = '0x' + Buffer.from(hash).toString('hex')
      for (const s of this.subs.values()) if (s.kind === 'newPendingTransactions') this.notify(s, hex)
    })
  }

  /** Number of active subscriptions. */
  get size(): number {
    return this.subs.size
  }

  /**
   * Adds a subscription for a connection.
   * @param criteria address/topic filter for `logs` (empty = all logs)
   * @returns the subscription id (0x + 32 hex digits)
   */
  subscribe(subscriber: Subscriber, kind: SubscriptionKind, criteria?: LogCriteria): string {
    const id = '0x' + randomBytes(16).toString('hex')
    this.subs.set(id, { id, kind, criteria, subscriber })
    let set = this.bySubscriber.get(subscriber)
    if (!set) {
      set = new Set()
      this.bySubscriber.set(subscriber, set)
      subscriber.onClose(() => this.dropSubscriber(subscriber))
    }
    set.add(id)
    return id
  }

  /**
   * Cancels a subscription of this connection.
   * @returns true when it existed and belonged to the connection
   */
  unsubscribe(subscriber: Subscriber, id: string): boolean {
    const s = this.subs.get(id.toLowerCase())
    if (!s || s.subscriber !== subscriber) return false
    this.subs.delete(s.id)
    this.bySubscriber.get(subscriber)?.delete(s.id)
    return true
  }

  private dropSubscriber(subscriber: Subscriber): void {
    for (const id of this.bySubscriber.get(subscriber) ?? []) this.subs.delete(id)
    this.bySubscriber.delete(subscriber)
  }

  private notify(s: Subscription, result: unknown): void {
    s.subscriber.push(
      JSON.stringify({ jsonrpc: '2.0', method: 'eth_subscription', params: { subscription: s.id, result } }),
    )
  }

  private onBlock(block: BlockRecord, removed: boolean): void {
    if (this.subs.size === 0) return
    let head: unknown
    for (const s of this.subs.values()) {
      if (s.kind === 'newHeads' && !removed) {
        head ??= this.format.head(block)
        this.notify(s, head)
      } else if (s.kind === 'logs') {
        for (const match of blockLogs(block, s.criteria)) this.notify(s, this.format.log(match, removed))
      }
    }
  }
}
