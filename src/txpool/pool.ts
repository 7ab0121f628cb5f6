/**
 * The transaction pool: transactions by sender and nonce, split into pending (executable: contiguous from the
 * account's nonce) and queued (after a nonce gap). Same-nonce replacement needs the reference price bump
 * (rskj J/co/rsk/core/bc/TransactionPoolImpl.java: a replacement must raise the gas price by at least
 * 40% (transaction.gasPriceBump) and be strictly higher; otherwise it is rejected: "gas price not enough to bump
 * transaction"). A transaction that waits too long is dropped, as the reference drops it (see {@link OutdatedRule}).
 */
import type { LegacyTx } from '@ethereumjs/tx'
import { TxRejectedError } from '../errors/domain-errors.js'
import { toKey } from '../util/bytes.js'

/** Minimum gas price increase of a same-nonce replacement, in percent. */
export const PRICE_BUMP_PERCENT = 40n

/** A transaction waiting in the pool. */
export interface PoolTx {
  tx: LegacyTx
  /** 32-byte hash. */
  hash: Uint8Array
  /** 20-byte sender. */
  from: Uint8Array
  /** Insertion order (tie-breaker for ordering). */
  seq: number
  /** When it entered the pool: the head's block number then, and the wall-clock time (ms since the epoch). */
  added: PoolEntryTime
}

/** When a transaction entered the pool (see {@link isOutdated}). */
export interface PoolEntryTime {
  /** The head's block number. */
  block: bigint
  /** Wall-clock time, milliseconds since the epoch. */
  ms: number
}

/**
 * How long a transaction may wait in the pool (docs/reference-rules.md#rule-pool-outdated; reference
 * co/rsk/core/bc/TransactionPoolImpl.java removeObsoleteTransactions, reference.conf `transaction.outdated.*`).
 */
export interface OutdatedRule {
  /** Blocks: a transaction added when the head was N is dropped once the head passes N + blocks. */
  blocks: number
  /** Seconds of wall-clock time (whole seconds, as the reference counts them); 0: no time limit. */
  seconds: number
}

/** The reference's defaults: 10 blocks or 650 s. */
export const REFERENCE_OUTDATED_RULE: OutdatedRule = { blocks: 10, seconds: 650 }

/** The newest entry time that is outdated at a given moment (see {@link outdatedCutoff}). */
export interface OutdatedCutoff {
  /** Entered when the head's number was below this: outdated. */
  block: bigint
  /** Entered at this whole second (since the epoch) or before: outdated; -Infinity without a time limit. */
  second: number
}

/**
 * What is outdated now under `rule` — computed once, then checked per transaction with {@link isOutdated}. The
 * reference's removeObsoleteTransactions (co/rsk/core/bc/TransactionPoolImpl.java): `block < best − threshold`,
 * `entry second <= now second − timeout`.
 * @param head the head's block number now
 * @param nowMs wall-clock time now (ms since the epoch)
 * @param rule the limits (blocks; whole seconds, 0 for none)
 * @returns the cutoff: `block` = head − rule.blocks, `second` = now's whole second − rule.seconds (-Infinity when
 *   rule.seconds is 0)
 */
export function outdatedCutoff(head: bigint, nowMs: number, rule: OutdatedRule): OutdatedCutoff {
  return {
    block: head - BigInt(rule.blocks),
    second: rule.seconds > 0 ? Math.floor(nowMs / 1000) - rule.seconds : -Infinity,
  }
}

/** Whether a pool transaction entered before `cutoff` ({@link outdatedCutoff}). */
export function isOutdated(p: PoolTx, cutoff: OutdatedCutoff): boolean {
  return p.added.block < cutoff.block || Math.floor(p.added.ms / 1000) <= cutoff.second
}

/** Reads an account's current nonce (at the head state). */
export type NonceOf = (address: Uint8Array) => bigint

/**
 * Pool keyed by sender and nonce.
 */
export class TxPool {
  private readonly bySender = new Map<string, Map<bigint, PoolTx>>()
  private readonly byHash = new Map<string, PoolTx>()
  private seq = 0
  /** Increases on every change (add, remove, clear): a cheap "did the pool change" check. */
  version = 0

  /** Number of transactions in the pool (pending + queued). */
  get size(): number {
    return this.byHash.size
  }

  /** Every pool transaction (any order). */
  all(): IterableIterator<PoolTx> {
    return this.byHash.values()
  }

  /** The pool transaction with this hash, or undefined. */
  get(hash: Uint8Array): PoolTx | undefined {
    return this.byHash.get(toKey(hash))
  }

  /** The transaction a sender has at a nonce, or undefined. */
  at(from: Uint8Array, nonce: bigint): PoolTx | undefined {
    return this.bySender.get(toKey(from))?.get(nonce)
  }

  /**
   * Adds a transaction; replaces a same-nonce one when the price bump is met.
   * @param added when it entered the pool (kept as given: a snapshot's transactions keep their own)
   * @returns the replaced transaction, if any
   * @throws TxRejectedError for a duplicate hash or an insufficient price bump
   */
  add(tx: LegacyTx, hash: Uint8Array, from: Uint8Array, added: PoolEntryTime): PoolTx | undefined {
    const key = toKey(hash)
    if (this.byHash.has(key)) throw new TxRejectedError('pending transaction with same hash already exists')
    const senderKey = toKey(from)
    let nonces = this.bySender.get(senderKey)
    if (!nonces) {
      nonces = new Map()
      this.bySender.set(senderKey, nonces)
    }
    const existing = nonces.get(tx.nonce)
    if (existing) {
      // reference: new > old and new >= old * (100 + bump) / 100
      const bumped = (existing.tx.gasPrice * (100n + PRICE_BUMP_PERCENT)) / 100n
      if (!(existing.tx.gasPrice < tx.gasPrice && bumped <= tx.gasPrice)) {
        throw new TxRejectedError('gas price not enough to bump transaction')
      }
      this.byHash.delete(toKey(existing.hash))
    }
    this.version++
    const entry: PoolTx = { tx, hash, from, seq: this.seq++, added }
    nonces.set(tx.nonce, entry)
    this.byHash.set(key, entry)
    return existing
  }

  /** Removes a transaction by hash. @returns it, or undefined when absent */
  remove(hash: Uint8Array): PoolTx | undefined {
    const key = toKey(hash)
    const entry = this.byHash.get(key)
    if (!entry) return undefined
    this.version++
    this.byHash.delete(key)
    const senderKey = toKey(entry.from)
    const nonces = this.bySender.get(senderKey)
    nonces?.delete(entry.tx.nonce)
    if (nonces?.size === 0) this.bySender.delete(senderKey)
    return entry
  }

  /** Drops transactions whose nonce is below the sender's current nonce (mined or made stale). */
  prune(nonceOf: NonceOf): PoolTx[] {
    const dropped: PoolTx[] = []
    for (const nonces of this.bySender.values()) {
      const first = nonces.values().next().value
      if (!first) continue
      const current = nonceOf(first.from)
      for (const [n, entry] of nonces) if (n < current) dropped.push(entry)
    }
    for (const d of dropped) this.remove(d.hash)
    return dropped
  }

  /** The transactions that entered before `cutoff` ({@link outdatedCutoff}); the caller removes them. */
  outdated(cutoff: OutdatedCutoff): PoolTx[] {
    const out: PoolTx[] = []
    for (const p of this.byHash.values()) if (isOutdated(p, cutoff)) out.push(p)
    return out
  }

  /** Removes everything. @returns what was removed */
  clear(): PoolTx[] {
    const all = [...this.byHash.values()]
    this.version++
    this.bySender.clear()
    this.byHash.clear()
    return all
  }

  /**
   * Splits the pool into pending (per sender, contiguous nonces from the account nonce) and queued.
   * @returns both lists, each ordered by sender then nonce
   */
  split(nonceOf: NonceOf): { pending: PoolTx[]; queued: PoolTx[] } {
    const pending: PoolTx[] = []
    const queued: PoolTx[] = []
    for (const nonces of this.bySender.values()) {
      const sorted = [...nonces.values()].sort((a, b) =>
        a.tx.nonce < b.tx.nonce ? -1 : a.tx.nonce > b.tx.nonce ? 1 : 0,
      )
      if (sorted.length === 0) continue
      let expected = nonceOf(sorted[0]!.from)
      for (const entry of sorted) {
        if (entry.tx.nonce === expected) {
          pending.push(entry)
          expected++
        } else if (entry.tx.nonce > expected) queued.push(entry)
      }
    }
    return { pending, queued }
  }

  /**
   * Executable transactions in mining order: highest gas price first, each sender's nonces in order
   * (a sender's next transaction becomes eligible once its previous one is taken), ties by arrival.
   */
  ordered(nonceOf: NonceOf): PoolTx[] {
    const { pending } = this.split(nonceOf)
    const queues = new Map<string, PoolTx[]>()
    for (const p of pending) {
      const k = toKey(p.from)
      let q = queues.get(k)
      if (!q) queues.set(k, (q = []))
      q.push(p)
    }
    const out: PoolTx[] = []
    const heads = [...queues.values()]
    while (heads.length > 0) {
      let best = 0
      for (let i = 1; i < heads.length; i++) {
        const a = heads[i]![0]!
        const b = heads[best]![0]!
        if (a.tx.gasPrice > b.tx.gasPrice || (a.tx.gasPrice === b.tx.gasPrice && a.seq < b.seq)) best = i
      }
      const q = heads[best]!
      out.push(q.shift()!)
      if (q.length === 0) heads.splice(best, 1)
    }
    return out
  }
}
