/**
 * The addresses each mined transaction touched, for Otterscan's address-history search (ots_searchTransactions*,
 * ots_getContractCreator): collected while a block is applied (./block-application.ts), never for eth_call or
 * eth_estimateGas, and handed on each transaction's outcome (AppliedTx.addresses, ./execution-types.ts).
 *
 * What counts, as Erigon's call-trace index counts it (its call tracer records the from and to of every frame it
 * enters, whatever the frame's outcome): the caller and the account of every message — the transaction's own, each
 * CALL, CALLCODE, DELEGATECALL, STATICCALL (precompiles and native contracts included), each CREATE/CREATE2 with
 * the address it creates (also when the creation fails) — the code address of a DELEGATECALL or CALLCODE, and
 * the contract and beneficiary of each SELFDESTRUCT. Frames inside reverted sub-calls count too.
 *
 * Cost: a `beforeMessage` and an `afterMessage` listener (the EVM emits both events for every message anyway)
 * that return after one flag check outside block application, and the SELFDESTRUCT gas function's hook
 * (./hooks.ts); no `step` listener. About 0.3 µs per single-message transaction while mining.
 * Deduplication scans the few addresses a transaction touches, a set once there are many.
 */
import type { EVMResult, Message } from '@ethereumjs/evm'
import type { ExecutionHooks, SelfdestructObserver } from './hooks.js'
import type { TraceEvents } from './tracers/types.js'
import { bytesEqual, toKey } from '../util/bytes.js'

/** A contract a transaction created, with its direct creator (the factory contract for an inner CREATE). */
export interface CreatedContract {
  /** 20 bytes. */
  address: Uint8Array
  /** 20 bytes: the transaction's sender for a top-level creation, else the contract that ran CREATE/CREATE2. */
  creator: Uint8Array
}

/** The addresses one applied transaction touched. */
export interface TxAddresses {
  /** 20-byte addresses, each once, in the order first met (sender first, then the transaction's `to`). */
  touched: Uint8Array[]
  /**
   * Contracts the transaction created and that still exist after it: a creation that failed, or ran inside a
   * frame that failed, is left out (its address is still in `touched`). In the order the creations finished.
   */
  created: CreatedContract[]
}

/** Past this many addresses the deduplication keeps a set instead of scanning. */
const SCAN_LIMIT = 16

/**
 * Collects the addresses of the transactions of one block application, one transaction at a time: attach it to
 * the live EVM once ({@link listen}), {@link start} it before a block, {@link begin} each transaction, {@link take}
 * its addresses after it, {@link stop} it after the block (also after a failure). One execution at a time (the
 * chain's queue).
 */
export class TouchedAddressCollector implements SelfdestructObserver {
  private touched: Uint8Array[] = []
  private keys: Set<string> | undefined
  private created: CreatedContract[] = []
  /** Per open message: its caller when it is a creation, else undefined. */
  private readonly creators: (Uint8Array | undefined)[] = []
  /** Per open message: how many creations were recorded when it started (a failed frame undoes those after). */
  private readonly marks: number[] = []
  /** Between {@link start} and {@link stop}: the listeners ignore messages outside a block application. */
  private collecting = false

  /** Starts a transaction: forgets anything left over and records its sender and recipient (20 bytes each). */
  begin(from: Uint8Array, to: Uint8Array | undefined): void {
    this.touched = []
    this.keys = undefined
    this.created = []
    this.creators.length = 0
    this.marks.length = 0
    this.add(from)
    if (to !== undefined) this.add(to)
  }

  /** The addresses of the transaction since {@link begin} (the collector starts empty again). */
  take(): TxAddresses {
    const out = { touched: this.touched, created: this.created }
    this.touched = []
    this.keys = undefined
    this.created = []
    return out
  }

  /** Adds one 20-byte address (kept by reference: callers pass bytes nobody mutates). */
  add(a: Uint8Array): void {
    const list = this.touched
    const keys = this.keys
    if (keys !== undefined) {
      const k = toKey(a)
      if (keys.has(k)) return
      keys.add(k)
      list.push(a)
      return
    }
    for (let i = 0; i < list.length; i++) if (bytesEqual(list[i]!, a)) return
    list.push(a)
    if (list.length > SCAN_LIMIT) this.keys = new Set(list.map(toKey))
  }

  onSelfdestruct(address: Uint8Array, beneficiary: Uint8Array): void {
    this.add(address)
    this.add(beneficiary)
  }

  private readonly onBefore = (m: Message): void => {
    if (!this.collecting) return
    this.add(m.caller.bytes)
    const to = m.to
    if (to === undefined) {
      this.creators.push(m.caller.bytes)
    } else {
      this.add(to.bytes)
      // (the getter throws for creations only)
      const code = m.codeAddress
      if (code !== to) this.add(code.bytes)
      this.creators.push(undefined)
    }
    this.marks.push(this.created.length)
  }

  private readonly onAfter = (r: EVMResult): void => {
    if (!this.collecting) return
    const creator = this.creators.pop()
    const mark = this.marks.pop()
    const failed = r.execResult.exceptionError !== undefined
    // what a failed frame created is gone with it
    if (failed && mark !== undefined) this.created.length = mark
    const address = r.createdAddress?.bytes
    if (creator !== undefined && address !== undefined) {
      this.add(address)
      if (!failed) this.created.push({ address, creator })
    }
  }

  /**
   * Listens to the live EVM's messages, once for its lifetime: the listeners return at once outside
   * {@link start}/{@link stop}. (Not added and removed per block: removing an event's listener from Node's
   * EventEmitter deletes a property of its listener table, which then stays in V8's slower dictionary mode.)
   */
  listen(events: TraceEvents): void {
    events.on('beforeMessage', this.onBefore)
    events.on('afterMessage', this.onAfter)
  }

  /** Starts collecting (a block application that commits): messages and the SELFDESTRUCT hook. */
  start(hooks: ExecutionHooks): void {
    this.collecting = true
    hooks.addresses = this
  }

  /** Stops collecting (after the block's transactions, also after a failure). */
  stop(hooks: ExecutionHooks): void {
    this.collecting = false
    if (hooks.addresses === this) hooks.addresses = undefined
  }
}
