/**
 * Opcode-level traces ("struct logs") in two shapes:
 *
 * - `rsk` — the reference's default tracer (rskj DetailedProgramTrace / Op): entries
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
import { ResponseTooLargeError } from '../../errors/domain-errors.js'
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

/** Thrown from the `step` listener when the budget is exceeded (-32011 at the RPC). */
export class TraceTooLargeError extends ResponseTooLargeError {
  constructor(limit: number) {
    super(
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

/** Per-frame storage view (rsk: the contract's storage; geth: slots touched so far). */
interface FrameStorage {
  address: Uint8Array
  map: Record<string, string>
  /** rsk: JSON text of `map` (recomputed when it changes; most opcodes repeat it). */
  json: string
  /** rsk: slot of the previous SLOAD/SSTORE, applied at the next opcode of the frame. */
  pendingKey?: string
  /** SSTORE's value (SLOAD's is read from the next opcode's stack top). */
  pendingValue?: string
}

/** A JSON string literal of hex digits (no escaping needed). */
const q = (h: string): string => '"' + h + '"'

/** JSON array text of memory as 32-byte words, hex without 0x. */
function memoryJson(m: Uint8Array): string {
  let out = '['
  for (let k = 0; k < m.length; k += 32) out += (k === 0 ? '"' : ',"') + hex(m, k, Math.min(m.length, k + 32)) + '"'
  return out + ']'
}

/**
 * Collects struct logs; see the module doc. Entries are kept as JSON text (the result is written out as is,
 * see {@link structLogsJson}): a trace is mostly repeated stack, memory and storage, which as objects cost
 * several times their text in memory and had to be serialized again for the response.
 */
export class StructLogCollector implements ExecutionTracer {
  /** The entries' JSON texts. */
  readonly entries: string[] = []
  /** rsk: the top frame's storage at the start. */
  initStorage: Record<string, string> = {}
  /** rsk: the top frame's storage view at the end. */
  currentStorage: Record<string, string> = {}
  private readonly budget: TraceBudget
  private readonly frames: FrameStorage[] = []
  /** geth: per contract, the slots touched so far. */
  private readonly touched = new Map<string, Record<string, string>>()
  /** geth: an SLOAD entry waiting for the loaded value (the next opcode's stack top). */
  private deferred: { index: number; text: (value: string) => string; frame: FrameStorage; key: string } | undefined
  private lastReturn: Uint8Array = new Uint8Array(0)
  private overflow = false

  constructor(
    private readonly opts: StructLogOptions,
    private readonly sm: UnitrieStateManager,
  ) {
    this.budget = opts.budget ?? traceBudget()
  }

  private add(text: string): void {
    const b = this.budget
    b.used += text.length + 1
    if (b.used > b.limit) {
      this.overflow = true
      throw new TraceTooLargeError(b.limit)
    }
    this.entries.push(text)
  }

  /** Completes a deferred geth SLOAD entry with `value` (64 hex digits). */
  private settle(value: string): void {
    const d = this.deferred!
    this.deferred = undefined
    d.frame.map[d.key] = value
    this.entries[d.index] = d.text(value)
  }

  private readonly onStep = (s: InterpreterStep): void => {
    if (this.overflow) throw new TraceTooLargeError(this.budget.limit)
    const o = this.opts
    const frame = this.frames[this.frames.length - 1]
    const op = s.opcode.code
    const stack = s.stack
    const n = stack.length
    const gasCost = s.opcode.dynamicFee ?? BigInt(s.opcode.fee)
    if (o.shape === 'rsk') {
      if (frame !== undefined && frame.pendingKey !== undefined) {
        const v = frame.pendingValue ?? word64(stack[n - 1] ?? 0n)
        const map = { ...frame.map }
        if (/^0+$/.test(v)) delete map[frame.pendingKey]
        else map[frame.pendingKey] = v
        frame.map = map
        frame.json = JSON.stringify(map)
        frame.pendingKey = frame.pendingValue = undefined
      }
      if (frame !== undefined && (op === 0x54 || op === 0x55)) {
        frame.pendingKey = word64(stack[n - 1]!)
        if (op === 0x55) frame.pendingValue = word64(stack[n - 2]!)
      }
      const name = s.opcode.name
      let t =
        '{"op":"' +
        (RSK_NAMES[name] ?? name) +
        '","depth":' +
        s.depth +
        ',"pc":' +
        s.pc +
        ',"gas":' +
        s.gasLeft +
        ',"gasCost":' +
        gasCost
      if (!o.disableMemory) t += ',"memory":' + memoryJson(s.memory)
      if (!o.disableStack) {
        t += ',"stack":['
        for (let i = 0; i < n; i++) t += (i === 0 ? '"' : ',"') + word64(stack[i]!) + '"'
        t += ']'
      }
      if (!o.disableStorage) t += ',"storage":' + (frame?.json ?? '{}')
      this.add(t + '}')
      return
    }
    // geth
    if (this.deferred !== undefined) this.settle(word64(stack[n - 1] ?? 0n))
    let t =
      '{"pc":' +
      s.pc +
      ',"op":"' +
      s.opcode.name +
      '","gas":' +
      s.gasLeft +
      ',"gasCost":' +
      gasCost +
      ',"depth":' +
      (s.depth + 1)
    if (!o.disableStack) {
      t += ',"stack":['
      for (let i = 0; i < n; i++) t += (i === 0 ? '"0x' : ',"0x') + stack[i]!.toString(16) + '"'
      t += ']'
    }
    if (o.enableMemory && !o.disableMemory) t += ',"memory":' + memoryJson(s.memory)
    if (o.enableReturnData) t += ',"returnData":"0x' + hex(this.lastReturn) + '"'
    const refund = s.gasRefund > 0n ? ',"refund":' + s.gasRefund : ''
    if (!o.disableStorage && frame !== undefined && (op === 0x54 || op === 0x55)) {
      const key = word64(stack[n - 1]!)
      if (op === 0x55) {
        frame.map[key] = word64(stack[n - 2]!)
        this.add(t + ',"storage":' + JSON.stringify(frame.map) + refund + '}')
      } else {
        // SLOAD: the storage shown includes the loaded value, known at the next opcode (or at the end)
        const head = t
        const map = frame.map
        const text = (value: string): string =>
          head + ',"storage":' + JSON.stringify({ ...map, [key]: value }) + refund + '}'
        this.add(text(word64(0n)))
        this.deferred = { index: this.entries.length - 1, text, frame, key }
      }
      return
    }
    this.add(t + refund + '}')
  }

  private readonly onBefore = (m: Message, done?: () => void): void => {
    const address = m.to?.bytes ?? new Uint8Array(20)
    const top = this.frames.length === 0
    const key = Buffer.from(address).toString('hex')
    if (this.opts.shape === 'geth') {
      let map = this.touched.get(key)
      if (map === undefined) this.touched.set(key, (map = {}))
      this.frames.push({ address, map, json: '{}' })
      done?.()
      return
    }
    // rsk: each frame starts from its contract's stored cells (rskj loads them up to vmTraceInitStorageLimit)
    const frame: FrameStorage = { address, map: {}, json: '{}' }
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
        frame.json = JSON.stringify(frame.map)
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
    // an SLOAD as the last opcode (the frame then failed): no later opcode shows the value
    if (this.deferred !== undefined) this.deferred = undefined
    events.off('step', this.onStep)
    events.off('beforeMessage', this.onBefore)
    events.off('afterMessage', this.onAfter)
  }
}

/**
 * The JSON text of a struct-log result.
 * - rsk: {contractAddress, initStorage, structLogs, result, error, reverted, storageSize, currentStorage}
 * - geth: {gas, failed, returnValue, structLogs}
 * @param outcome the run's gas (receipt gas for a transaction), return data and EVM error
 * @param contract the called or created contract (rsk `contractAddress`)
 */
export function structLogsJson(
  c: StructLogCollector,
  shape: 'rsk' | 'geth',
  outcome: { gasUsed: bigint; returnValue: Uint8Array; error?: string },
  contract: Uint8Array | undefined,
): string {
  const logs = '[' + c.entries.join(',') + ']'
  const ret = hex(outcome.returnValue)
  if (shape === 'geth') {
    return (
      '{"gas":' +
      outcome.gasUsed +
      ',"failed":' +
      (outcome.error !== undefined) +
      ',"returnValue":"' +
      ret +
      '","structLogs":' +
      logs +
      '}'
    )
  }
  const current = c.currentStorage
  const error = outcome.error === undefined || outcome.error === 'revert' ? '' : outcome.error
  return (
    '{"contractAddress":' +
    q(hex(contract ?? new Uint8Array(20))) +
    ',"initStorage":' +
    JSON.stringify(c.initStorage) +
    ',"structLogs":' +
    logs +
    ',"result":' +
    q(ret) +
    ',"error":' +
    JSON.stringify(error) +
    ',"reverted":' +
    (outcome.error === 'revert') +
    ',"storageSize":' +
    Object.keys(current).length +
    ',"currentStorage":' +
    JSON.stringify(current) +
    '}'
  )
}
