/**
 * Opcode-level traces ("struct logs") in two shapes:
 *
 * - `rsk` — the reference's default tracer (rskj DetailedProgramTrace / Op; facts §6): entries
 *   {op, depth, pc, gas, gasCost, memory, stack, storage} with depth 0 at the top frame, memory as 32-byte words
 *   and stack words as 64-digit hex, both without 0x; `storage` is the executing contract's storage as the
 *   reference tracks it (its storage at frame start, then each SLOAD/SSTORE slot as read or written, shown from
 *   the opcode after it); opcode names as the reference spells them (SHA3, DIFFICULTY, SUICIDE).
 * - `geth` — geth's default struct logger: entries {pc, op, gas, gasCost, depth (1 at the top), stack (0x
 *   quantities), memory (only with enableMemory), storage (on SLOAD/SSTORE: the slots touched so far),
 *   returnData (with enableReturnData), refund, error}.
 *
 * Memory is bounded: the JSON size of the entries is counted as they are made, and past
 * {@link MAX_TRACE_BYTES} recording stops and the run is aborted (the RPC answers -32011, like the reference's
 * maxResponseSize) instead of growing to gigabytes.
 */
import type { EVMResult, InterpreterStep, Message } from '@ethereumjs/evm'
import { Address } from '@ethereumjs/util'
import { ErrorCode, RpcError } from '../../chain/errors.js'
import type { UnitrieStateManager } from '../../state/unitrie-state-manager.js'
import { MAX_TRACE_BYTES, type ExecutionTracer, type TraceEvents } from './types.js'

/** Options common to both shapes (rskj TraceOptions; geth's logger config). */
export interface StructLogOptions {
  shape: 'rsk' | 'geth'
  disableMemory: boolean
  disableStack: boolean
  disableStorage: boolean
  /** geth: memory is off unless enabled. */
  enableMemory: boolean
  /** geth: the last call's return data per entry. */
  enableReturnData: boolean
  /**
   * The byte budget, shared by the collectors of one response (a block's transactions): defaults to a fresh
   * {@link MAX_TRACE_BYTES} budget.
   */
  budget?: TraceBudget
}

/** Bytes of JSON a response may still take (see {@link StructLogOptions.budget}). */
export interface TraceBudget {
  used: number
  readonly limit: number
}

/** A fresh budget of the reference's maxResponseSize. */
export const traceBudget = (limit = MAX_TRACE_BYTES): TraceBudget => ({ used: 0, limit })

/** Thrown from the `step` listener when the budget is exceeded; the replay turns it into -32011. */
export class TraceTooLargeError extends RpcError {
  constructor(limit: number) {
    super(
      ErrorCode.Timeout,
      `Response size exceeded: the trace is larger than ${limit / 1024 / 1024} MB (maxResponseSize); ` +
        'use disableMemory/disableStack/disableStorage or tracer "callTracer"',
    )
  }
}

/** The reference's opcode names where they differ from @ethereumjs's. */
const RSK_NAMES: Record<string, string> = { KECCAK256: 'SHA3', PREVRANDAO: 'DIFFICULTY', SELFDESTRUCT: 'SUICIDE' }

const HEX: string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'))

function hex(b: Uint8Array, from = 0, to = b.length): string {
  let s = ''
  for (let i = from; i < to; i++) s += HEX[b[i]!]
  return s
}

const word64 = (v: bigint): string => v.toString(16).padStart(64, '0')

/** Memory as 32-byte words, hex without 0x. */
function memoryWords(m: Uint8Array): string[] {
  const out: string[] = []
  for (let k = 0; k < m.length; k += 32) out.push(hex(m, k, Math.min(m.length, k + 32)))
  return out
}

/** Per-frame storage view (rsk: the contract's storage; geth: slots touched so far). */
interface FrameStorage {
  address: Uint8Array
  map: Record<string, string>
  /** JSON length of `map`. */
  size: number
  /** rsk: slot of the previous SLOAD/SSTORE, applied at the next opcode of the frame. */
  pendingKey?: string
  /** SSTORE's value (SLOAD's is read from the next opcode's stack top). */
  pendingValue?: string
  /** geth: the SLOAD entry whose storage waits for the loaded value. */
  pendingEntry?: Record<string, string>
}

/** Collects struct logs; see the module doc. */
export class StructLogCollector implements ExecutionTracer {
  readonly entries: object[] = []
  /** rsk: the top frame's storage at the start. */
  initStorage: Record<string, string> = {}
  /** rsk: the top frame's storage view at the end. */
  currentStorage: Record<string, string> = {}
  private readonly budget: TraceBudget
  private readonly frames: FrameStorage[] = []
  /** geth: per contract, the slots touched so far. */
  private readonly touched = new Map<string, Record<string, string>>()
  private lastReturn: Uint8Array = new Uint8Array(0)
  private overflow = false

  constructor(
    private readonly opts: StructLogOptions,
    private readonly sm: UnitrieStateManager,
  ) {
    this.budget = opts.budget ?? traceBudget()
  }

  /** Whether the budget was exceeded (the run was aborted). */
  get exceeded(): boolean {
    return this.overflow
  }

  private add(entry: object, size: number): void {
    const b = this.budget
    b.used += size
    if (b.used > b.limit) {
      this.overflow = true
      throw new TraceTooLargeError(b.limit)
    }
    this.entries.push(entry)
  }

  private readonly onStep = (s: InterpreterStep): void => {
    if (this.overflow) throw new TraceTooLargeError(this.budget.limit)
    const o = this.opts
    const frame = this.frames[this.frames.length - 1]
    const op = s.opcode.code
    const stack = s.stack
    const n = stack.length
    if (o.shape === 'rsk') {
      if (frame !== undefined && frame.pendingKey !== undefined) {
        const v = frame.pendingValue ?? word64(stack[n - 1] ?? 0n)
        const map = { ...frame.map }
        if (/^0+$/.test(v)) delete map[frame.pendingKey]
        else map[frame.pendingKey] = v
        frame.map = map
        frame.size = JSON.stringify(map).length
        frame.pendingKey = frame.pendingValue = undefined
      }
      if (frame !== undefined && (op === 0x54 || op === 0x55)) {
        frame.pendingKey = word64(stack[n - 1]!)
        if (op === 0x55) frame.pendingValue = word64(stack[n - 2]!)
      }
      const name = s.opcode.name
      const entry: Record<string, unknown> = { op: RSK_NAMES[name] ?? name, depth: s.depth, pc: s.pc, gas: Number(s.gasLeft), gasCost: Number(s.opcode.dynamicFee ?? BigInt(s.opcode.fee)) }
      let size = 70 + name.length
      if (!o.disableMemory) {
        const words = memoryWords(s.memory)
        entry.memory = words
        size += 12 + s.memory.length * 2 + words.length * 3
      }
      if (!o.disableStack) {
        const st: string[] = new Array(n)
        for (let i = 0; i < n; i++) st[i] = word64(stack[i]!)
        entry.stack = st
        size += 10 + n * 67
      }
      if (!o.disableStorage) {
        entry.storage = frame?.map ?? {}
        size += 12 + (frame?.size ?? 2)
      }
      this.add(entry, size)
      return
    }
    // geth
    if (frame?.pendingEntry !== undefined && frame.pendingKey !== undefined) {
      const v = word64(stack[n - 1] ?? 0n)
      frame.pendingEntry[frame.pendingKey] = v
      frame.map[frame.pendingKey] = v
      frame.pendingEntry = frame.pendingKey = undefined
    }
    const entry: Record<string, unknown> = { pc: s.pc, op: s.opcode.name, gas: Number(s.gasLeft), gasCost: Number(s.opcode.dynamicFee ?? BigInt(s.opcode.fee)), depth: s.depth + 1 }
    let size = 70 + s.opcode.name.length
    if (!o.disableStack) {
      const st: string[] = new Array(n)
      for (let i = 0; i < n; i++) st[i] = '0x' + stack[i]!.toString(16)
      entry.stack = st
      size += 10 + n * 20
    }
    if (o.enableMemory && !o.disableMemory) {
      const words = memoryWords(s.memory)
      entry.memory = words
      size += 12 + s.memory.length * 2 + words.length * 3
    }
    if (o.enableReturnData) {
      entry.returnData = '0x' + hex(this.lastReturn)
      size += 16 + this.lastReturn.length * 2
    }
    if (!o.disableStorage && frame !== undefined && (op === 0x54 || op === 0x55)) {
      const key = word64(stack[n - 1]!)
      if (op === 0x55) frame.map[key] = word64(stack[n - 2]!)
      const snapshot = { ...frame.map }
      if (op === 0x54) {
        frame.pendingKey = key
        frame.pendingEntry = snapshot
      }
      entry.storage = snapshot
      size += 12 + Object.keys(snapshot).length * 134
    }
    if (s.gasRefund > 0n) {
      entry.refund = Number(s.gasRefund)
      size += 14
    }
    this.add(entry, size)
  }

  private readonly onBefore = (m: Message, done?: () => void): void => {
    const address = m.to?.bytes ?? new Uint8Array(20)
    const top = this.frames.length === 0
    const key = Buffer.from(address).toString('hex')
    if (this.opts.shape === 'geth') {
      let map = this.touched.get(key)
      if (map === undefined) this.touched.set(key, (map = {}))
      this.frames.push({ address, map, size: 2 })
      done?.()
      return
    }
    // rsk: each frame starts from its contract's stored cells (rskj loads them up to vmTraceInitStorageLimit)
    const frame: FrameStorage = { address, map: {}, size: 2 }
    this.frames.push(frame)
    if (m.to === undefined || this.opts.disableStorage) {
      done?.()
      return
    }
    this.sm
      .dumpStorage(new Address(address))
      .then((dump) => {
        const entries = Object.entries(dump)
        if (entries.length <= 10_000) {
          for (const [k, v] of entries) frame.map[k.slice(2)] = v.slice(2).padStart(64, '0')
        }
        frame.size = JSON.stringify(frame.map).length
        if (top) this.initStorage = { ...frame.map }
      })
      .finally(() => done?.())
  }

  private readonly onAfter = (r: EVMResult): void => {
    const frame = this.frames.pop()
    this.lastReturn = r.execResult.returnValue
    if (this.frames.length === 0 && frame !== undefined) this.currentStorage = frame.map
  }

  attach(events: TraceEvents): void {
    events.on('step', this.onStep)
    events.on('beforeMessage', this.onBefore)
    events.on('afterMessage', this.onAfter)
  }

  detach(events: TraceEvents): void {
    events.off('step', this.onStep)
    events.off('beforeMessage', this.onBefore)
    events.off('afterMessage', this.onAfter)
  }
}
