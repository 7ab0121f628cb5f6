/**
 * RSKIP144 transaction sublists as the reference miner builds them (rskj master,
 * J/co/rsk/core/bc/ParallelizeTransactionHandler.java, BlockUtils.getSublistGasLimit,
 * BlockExecutor.executeForMiningAfterRSKIP144):
 * - a block has 2 parallel sublists and 1 sequential one; each executed transaction is placed by the
 *   state keys it read and wrote (conflicting with one parallel sublist → that one; with two → the
 *   sequential one; none → the parallel sublist with the least gas used), by its sender (same sender →
 *   same sublist) and by gas (a sublist must have room for the transaction's gas limit; parallel
 *   overflow falls back to the sequential sublist; no room there → the transaction is left out);
 * - transactions calling the Remasc or Bridge contracts go to the sequential sublist
 *   (RskSystemProperties.concurrentContractsDisallowed); the Remasc transaction is always last in it;
 * - the block lists the parallel sublists' transactions first, then the sequential ones; the header's
 *   `edges` are the cumulative end indexes of the non-empty parallel sublists; a receipt's
 *   cumulativeGasUsed is the gas used so far in its own sublist.
 *
 * State keys are tracked per transaction at the level of account, code, storage-marker and storage-cell
 * trie keys ({@link KeyTracker}); the reference tracks every trie access of its repository, so exotic
 * access patterns may be placed differently (see the consensus report).
 */
import type { Address } from '@ethereumjs/util'
import type { UnitrieStateManager } from '../state/unitrie-state-manager.js'
import { toKey } from '../util/bytes.js'

/** Constants.TX_EXECUTION_THREADS: the number of parallel sublists. */
export const PARALLEL_SUBLISTS = 2

/**
 * BlockUtils.getSublistGasLimit: gas limit of a parallel or the sequential sublist.
 * @param minSequential Constants.minSequentialSetGasLimit (6 800 000 on regtest, 10 000 000 elsewhere)
 */
export function sublistGasLimit(blockGasLimit: bigint, sequential: boolean, minSequential: bigint): bigint {
  const threads = BigInt(PARALLEL_SUBLISTS)
  const total = threads + 1n
  if (blockGasLimit / total >= minSequential) {
    const parallel = blockGasLimit / total
    return sequential ? blockGasLimit - threads * parallel : parallel
  }
  if (blockGasLimit <= minSequential) return sequential ? blockGasLimit : 0n
  const parallel = (blockGasLimit - minSequential) / threads
  return sequential ? blockGasLimit - parallel * threads : parallel
}

class Sublist {
  readonly txs: number[] = []
  gasUsed = 0n
  constructor(
    readonly gasLimit: bigint,
    readonly sequential: boolean,
  ) {}
  hasRoom(txGasLimit: bigint): boolean {
    return this.gasUsed + txGasLimit <= this.gasLimit
  }
  add(tx: number, gasUsed: bigint): void {
    this.txs.push(tx)
    this.gasUsed += gasUsed
  }
}

/** ParallelizeTransactionHandler: places executed transactions (by their index in the batch) into sublists. */
export class SublistScheduler {
  private readonly sublists: Sublist[] = []
  private readonly writtenBy = new Map<string, Sublist>()
  private readonly readBy = new Map<string, Set<Sublist>>()
  private readonly senderSublist = new Map<string, Sublist>()

  constructor(blockGasLimit: bigint, minSequential: bigint) {
    const par = sublistGasLimit(blockGasLimit, false, minSequential)
    for (let i = 0; i < PARALLEL_SUBLISTS; i++) this.sublists.push(new Sublist(par, false))
    this.sublists.push(new Sublist(sublistGasLimit(blockGasLimit, true, minSequential), true))
  }

  private get sequential(): Sublist {
    return this.sublists[this.sublists.length - 1]!
  }

  /** Gas used so far by the sequential sublist (TransactionExecutor's gasConsumed while mining). */
  get sequentialGasUsed(): bigint {
    return this.sequential.gasUsed
  }

  /** max(sequential, parallel) limit: what a single transaction's gas limit is checked against while mining. */
  get maxSublistGas(): bigint {
    return this.sequential.gasLimit > this.sublists[0]!.gasLimit ? this.sequential.gasLimit : this.sublists[0]!.gasLimit
  }

  /** Whether the sequential sublist can still take `txGasLimit` (if not, placing may fail). */
  sequentialHasRoom(txGasLimit: bigint): boolean {
    return this.sequential.hasRoom(txGasLimit)
  }

  /**
   * Places transaction `tx` (addTransaction / addTxToSequentialSublist).
   * @returns the cumulative gas of its sublist after it, or undefined when no sublist has room
   */
  add(
    tx: number,
    sender: Uint8Array,
    txGasLimit: bigint,
    gasUsed: bigint,
    reads: ReadonlySet<string>,
    writes: ReadonlySet<string>,
    sequentialRequired: boolean,
  ): bigint | undefined {
    const senderKey = toKey(sender)
    let target: Sublist
    if (sequentialRequired) {
      target = this.sequential
      if (!target.hasRoom(txGasLimit)) return undefined
    } else {
      target = this.candidate(senderKey, txGasLimit, reads, writes)
      if (!target.hasRoom(txGasLimit)) {
        if (target.sequential) return undefined
        target = this.sequential
        if (!target.hasRoom(txGasLimit)) return undefined
      }
    }
    target.add(tx, gasUsed)
    for (const k of reads) {
      let s = this.readBy.get(k)
      if (s === undefined) this.readBy.set(k, (s = new Set()))
      s.add(target)
    }
    if (target.sequential) this.senderSublist.set(senderKey, target)
    else if (!this.senderSublist.has(senderKey)) this.senderSublist.set(senderKey, target)
    for (const k of writes) this.writtenBy.set(k, target)
    return target.gasUsed
  }

  /** The Remasc transaction: always the sequential sublist. @returns its cumulative gas */
  addRemasc(tx: number): bigint {
    this.sequential.add(tx, 0n)
    return this.sequential.gasUsed
  }

  private candidate(
    senderKey: string,
    txGasLimit: bigint,
    reads: ReadonlySet<string>,
    writes: ReadonlySet<string>,
  ): Sublist {
    let candidate = this.senderSublist.get(senderKey)
    if (candidate?.sequential) return candidate
    for (const k of reads) {
      const s = this.writtenBy.get(k)
      if (s === undefined) continue
      if (s.sequential) return s
      if (candidate === undefined) candidate = s
      else if (candidate !== s) return this.sequential
    }
    for (const k of writes) {
      const s = this.writtenBy.get(k)
      if (s !== undefined) {
        if (s.sequential) return s
        if (candidate === undefined) candidate = s
        else if (candidate !== s) return this.sequential
      }
      const readers = this.readBy.get(k)
      if (readers !== undefined) {
        if (readers.size > 1) return this.sequential
        const r = readers.values().next().value!
        if (candidate === undefined) candidate = r
        else if (candidate !== r) return this.sequential
      }
    }
    if (candidate !== undefined) return candidate
    let best: Sublist | undefined
    for (const s of this.sublists) {
      if (!s.sequential && s.hasRoom(txGasLimit) && (best === undefined || s.gasUsed < best.gasUsed)) best = s
    }
    return best ?? this.sequential
  }

  /**
   * Transaction indexes in block order: parallel sublists, then the sequential one.
   * @param below only the indexes below this one (the block's own transactions, not the Remasc transaction's index)
   */
  order(below = Infinity): number[] {
    // (loops, not flatMap + filter: one array, no callbacks; this runs for every block)
    const out: number[] = []
    for (const s of this.sublists) for (const i of s.txs) if (i < below) out.push(i)
    return out
  }

  /** ParallelizeTransactionHandler.getTransactionsPerSublistInOrder: the header's edges. */
  edges(): number[] {
    const out: number[] = []
    let end = 0
    for (const s of this.sublists) {
      if (s.sequential || s.txs.length === 0) continue
      end += s.txs.length
      out.push(end)
    }
    return out
  }
}

type AnyAddress = Address | Uint8Array

function addrHex(a: AnyAddress): string {
  return toKey(a instanceof Uint8Array ? a : a.bytes)
}

/**
 * Records the state keys one transaction reads and writes, by wrapping the state manager's methods on the
 * instance while installed (ReadWrittenKeysTracker). Writes are counted when a value changes (an
 * account write that leaves nonce and balance as they were is a read, as the reference's addBalance of
 * 0), storage writes always (the reference's SSTORE always writes). Accesses to `ignored` (the Remasc
 * account, which @ethereumjs credits with each transaction's fee while the reference postpones that
 * payment to the end of the block) are not recorded.
 */
export class KeyTracker {
  reads = new Set<string>()
  writes = new Set<string>()
  private installed = false

  constructor(
    private readonly sm: UnitrieStateManager,
    private readonly ignored: string,
  ) {}

  /** Starts a new transaction's sets. */
  reset(): void {
    this.reads = new Set()
    this.writes = new Set()
  }

  install(): void {
    if (this.installed) return
    this.installed = true
    const sm = this.sm
    const proto = Object.getPrototypeOf(sm) as UnitrieStateManager
    const read = (k: string, a: string) => {
      if (a !== this.ignored) this.reads.add(k)
    }
    const write = (k: string, a: string) => {
      if (a !== this.ignored) this.writes.add(k)
    }
    const self = sm as unknown as Record<string, unknown>
    self.getAccount = (address: Address) => {
      read('a' + addrHex(address), addrHex(address))
      return proto.getAccount.call(sm, address)
    }
    const accountWrite = async (address: Address, nonce: bigint | undefined, balance: bigint | undefined) => {
      const h = addrHex(address)
      const prev = await proto.getAccount.call(sm, address)
      read('a' + h, h)
      if (
        prev === undefined ||
        (nonce !== undefined && prev.nonce !== nonce) ||
        (balance !== undefined && prev.balance !== balance)
      ) {
        write('a' + h, h)
      }
    }
    self.putAccount = async (address: Address, account?: { nonce: bigint; balance: bigint }) => {
      if (account === undefined) write('a' + addrHex(address), addrHex(address))
      else await accountWrite(address, account.nonce, account.balance)
      return proto.putAccount.call(sm, address, account as never)
    }
    self.modifyAccountFields = async (address: Address, fields: { nonce?: bigint; balance?: bigint }) => {
      await accountWrite(address, fields.nonce, fields.balance)
      return proto.modifyAccountFields.call(sm, address, fields as never)
    }
    self.deleteAccount = (address: Address) => {
      write('a' + addrHex(address), addrHex(address))
      return proto.deleteAccount.call(sm, address)
    }
    const codeRead = (address: Address) => {
      const h = addrHex(address)
      read('a' + h, h)
      read('c' + h, h)
    }
    self.getCode = (address: Address) => {
      codeRead(address)
      return proto.getCode.call(sm, address)
    }
    self.getCodeSize = (address: Address) => {
      codeRead(address)
      return proto.getCodeSize.call(sm, address)
    }
    self.putCode = (address: Address, code: Uint8Array) => {
      const h = addrHex(address)
      write('c' + h, h)
      return proto.putCode.call(sm, address, code)
    }
    self.getStorage = (address: Address, key: Uint8Array) => {
      const h = addrHex(address)
      read('s' + h + toKey(key), h)
      return proto.getStorage.call(sm, address, key)
    }
    self.putStorage = (address: Address, key: Uint8Array, value: Uint8Array) => {
      const h = addrHex(address)
      write('s' + h + toKey(key), h)
      return proto.putStorage.call(sm, address, key, value)
    }
    self.clearStorage = (address: Address) => {
      const h = addrHex(address)
      write('a' + h, h)
      write('m' + h, h)
      return proto.clearStorage.call(sm, address)
    }
    self.setupContract = (address: Address) => {
      const h = addrHex(address)
      read('m' + h, h)
      return proto.setupContract.call(sm, address)
    }
  }

  uninstall(): void {
    if (!this.installed) return
    this.installed = false
    const self = this.sm as unknown as Record<string, unknown>
    for (const m of [
      'getAccount',
      'putAccount',
      'modifyAccountFields',
      'deleteAccount',
      'getCode',
      'getCodeSize',
      'putCode',
      'getStorage',
      'putStorage',
      'clearStorage',
      'setupContract',
    ]) {
      delete self[m]
    }
  }
}
