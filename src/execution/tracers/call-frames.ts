/**
 * The call tree of one execution: every message (CALL, CALLCODE, DELEGATECALL, STATICCALL, CREATE, CREATE2,
 * precompile calls) and SELFDESTRUCT as a frame with its gas, input, output, error and logs. callTracer
 * (src/rpc/call-trace-format.ts) and the parity traces of trace_* (src/rpc/methods/trace.ts) are built from it.
 *
 * No `step` listener: the opcode that opened a child frame and SELFDESTRUCTs come from the frame opcodes' gas
 * functions (./frame-hook.ts), the logs from each message's result, so the fast opcode loop keeps running.
 */
import type { EVMResult, Log, Message } from '@ethereumjs/evm'
import type { ExecutionHooks } from '../hooks.js'
import type { FrameHook } from './frame-hook.js'
import type { ExecutionTracer, TraceEvents } from './types.js'

/** Kinds of frames, by the opcode (or transaction) that opened them. */
export type FrameKind = 'CALL' | 'CALLCODE' | 'DELEGATECALL' | 'STATICCALL' | 'CREATE' | 'CREATE2' | 'SELFDESTRUCT'

/** A log emitted inside a frame; `seq` orders logs across the execution. */
export interface FrameLog {
  seq: number
  address: Uint8Array
  topics: Uint8Array[]
  data: Uint8Array
}

/** One frame of the call tree. Addresses are 20 bytes; gas and value are bigint. */
export interface CallFrame {
  kind: FrameKind
  /** The caller (for DELEGATECALL: the contract whose context runs the code, as the reference reports it). */
  from: Uint8Array
  /** The account whose context runs (for CREATE*: the created address once known; SELFDESTRUCT: the beneficiary). */
  to?: Uint8Array
  /** The code's address (differs from `to` for DELEGATECALL and CALLCODE). */
  codeAddress?: Uint8Array
  /** Wei (SELFDESTRUCT: the balance sent to the beneficiary). */
  value: bigint
  /** Gas handed to the frame. */
  gas: bigint
  gasUsed: bigint
  input: Uint8Array
  output: Uint8Array
  /** EVM error name (`revert`, `out of gas`, …), absent on success. */
  error?: string
  depth: number
  calls: CallFrame[]
  logs: FrameLog[]
}

const EMPTY = new Uint8Array(0)

/**
 * Collects the call tree of one execution (a transaction or a call). After the run, {@link finish} gives the
 * top frame; its gas figures are the EVM message's (the formatters report the receipt's gas where the
 * reference does). Attach it right before the execution and detach it right after: while attached it is the
 * node's {@link FrameHook}.
 */
export class CallFrameCollector implements ExecutionTracer, FrameHook {
  root: CallFrame | undefined
  private readonly stack: CallFrame[] = []
  private nextOp: FrameKind | undefined
  /** Each frame's logs as its message result listed them (its own and its children's, in order). */
  private readonly resultLogs = new Map<CallFrame, Log[]>()

  onFrameOpcode(op: FrameKind): void {
    this.nextOp = op
  }

  onSelfdestruct(address: Uint8Array, beneficiary: Uint8Array, balance: bigint): void {
    const frame = this.stack[this.stack.length - 1]
    if (frame === undefined) return
    frame.calls.push({
      kind: 'SELFDESTRUCT',
      from: address,
      to: beneficiary,
      value: balance,
      gas: 0n,
      gasUsed: 0n,
      input: EMPTY,
      output: EMPTY,
      depth: frame.depth + 1,
      calls: [],
      logs: [],
    })
  }

  private readonly onBefore = (m: Message): void => {
    const parent = this.stack[this.stack.length - 1]
    const create = m.to === undefined
    let kind: FrameKind
    if (parent === undefined) kind = create ? 'CREATE' : 'CALL'
    else kind = this.nextOp ?? (create ? 'CREATE' : m.delegatecall ? 'DELEGATECALL' : 'CALL')
    this.nextOp = undefined
    const codeAddress = create ? undefined : m.codeAddress.bytes
    const frame: CallFrame = {
      kind,
      // DELEGATECALL runs in the caller's context: the reference reports the executing contract as `from`
      from: kind === 'DELEGATECALL' ? m.to!.bytes : m.caller.bytes,
      to: create ? undefined : kind === 'DELEGATECALL' ? codeAddress : m.to!.bytes,
      codeAddress,
      value: m.value,
      gas: m.gasLimit,
      gasUsed: 0n,
      // (a copy: the caller's memory the data is a view of changes afterwards)
      input: m.data.slice(),
      output: EMPTY,
      depth: m.depth,
      calls: [],
      logs: [],
    }
    if (parent === undefined) this.root = frame
    else parent.calls.push(frame)
    this.stack.push(frame)
  }

  private readonly onAfter = (r: EVMResult): void => {
    const frame = this.stack.pop()
    if (frame === undefined) return
    const e = r.execResult
    frame.gasUsed = e.executionGasUsed
    frame.output = e.returnValue
    if (e.exceptionError !== undefined) frame.error = e.exceptionError.error
    this.resultLogs.set(frame, e.logs ?? [])
    if (r.createdAddress !== undefined) frame.to = r.createdAddress.bytes
  }

  attach(events: TraceEvents, hooks: ExecutionHooks): void {
    events.on('beforeMessage', this.onBefore)
    events.on('afterMessage', this.onAfter)
    hooks.frames = this
  }

  detach(events: TraceEvents, hooks: ExecutionHooks): void {
    events.off('beforeMessage', this.onBefore)
    events.off('afterMessage', this.onAfter)
    if (hooks.frames === this) hooks.frames = undefined
  }

  /**
   * The top frame, with each frame's own logs (those its result lists and none of its children's; `seq` is the
   * position among the execution's logs). A failed frame's logs are empty, as the EVM discards them.
   */
  async finish(): Promise<CallFrame | undefined> {
    const root = this.root
    if (root === undefined) return undefined
    const seq = new Map<Log, number>()
    ;(this.resultLogs.get(root) ?? []).forEach((l, i) => seq.set(l, i))
    const assign = (f: CallFrame): void => {
      const fromChildren = new Set<Log>()
      for (const c of f.calls) for (const l of this.resultLogs.get(c) ?? []) fromChildren.add(l)
      f.logs = (this.resultLogs.get(f) ?? [])
        .filter((l) => !fromChildren.has(l) && seq.has(l))
        .map((l) => ({ seq: seq.get(l)!, address: l[0], topics: l[1], data: l[2] }))
      f.calls.forEach(assign)
    }
    assign(root)
    return root
  }
}

/** The logs of a frame tree in emission order (what a receipt would list), for numbering. */
export function orderedLogs(frame: CallFrame, out: FrameLog[] = []): FrameLog[] {
  out.push(...frame.logs)
  for (const c of frame.calls) orderedLogs(c, out)
  return out.sort((a, b) => a.seq - b.seq)
}
