/**
 * Otterscan's view of one execution (API level 8, as Erigon serves it: rpc/jsonrpc/otterscan_trace_transaction.go
 * and otterscan_trace_operations.go in github:erigontech/erigon): the flat frame list of `ots_traceTransaction` and
 * the value movements of `ots_getInternalOperations`, both read off the call tree of ./call-frames.ts.
 *
 * Precompile frames are left out of the frame list, as Erigon leaves them out. Here a precompile is a message the
 * EVM ran as precompiled code (`Message.isCompiled`) other than the chain's native contracts with an ABI — Bridge,
 * HDWalletUtils, BlockHeader and Environment, whose calls are kept (docs/otterscan.md#native-contracts-in-traces).
 */
import type { Message } from '@ethereumjs/evm'
import type { ExecutionHooks } from '../hooks.js'
import { BLOCK_HEADER_ADDRESS } from '../native/block-header.js'
import { BRIDGE_ADDRESS } from '../native/bridge-storage.js'
import { ENVIRONMENT_ADDRESS } from '../native/environment.js'
import { HD_WALLET_UTILS_ADDRESS } from '../native/hd-wallet-utils.js'
import { quantity, toHex } from '../../util/bytes.js'
import { CallFrameCollector, type CallFrame, type FrameKind } from './call-frames.js'
import type { ExecutionTracer, TraceEvents } from './types.js'

/** The native contracts traced as contracts although the EVM runs them as precompiles (lower-case 0x hex). */
const TRACED_NATIVE = new Set(
  [BRIDGE_ADDRESS, HD_WALLET_UTILS_ADDRESS, BLOCK_HEADER_ADDRESS, ENVIRONMENT_ADDRESS].map((a) => a.toLowerCase()),
)

/** The zero address, for a creation that failed before its address was reported. */
const ZERO_ADDRESS = new Uint8Array(20)

/**
 * One entry of `ots_traceTransaction`: `depth` from 0 (the transaction's own frame); `value` minimal hex wei,
 * null for STATICCALL and DELEGATECALL; `input` the call data or init code (`0x` for SELFDESTRUCT); `output` the
 * frame's return or revert data (a creation: the runtime code it returned).
 */
export interface OtsTraceEntry {
  type: FrameKind
  depth: number
  from: string
  to: string
  value: string | null
  input: string
  output: string
}

/** Kinds of `ots_getInternalOperations` entries (Erigon's OperationType). */
export const OtsOperationType = { TRANSFER: 0, SELF_DESTRUCT: 1, CREATE: 2, CREATE2: 3 } as const

/** One entry of `ots_getInternalOperations`: `type` per {@link OtsOperationType}, `value` minimal hex wei. */
export interface OtsInternalOperation {
  type: (typeof OtsOperationType)[keyof typeof OtsOperationType]
  from: string
  to: string
  value: string
}

/** A call tree with the frames the EVM ran as precompiles marked. */
export interface OtsFrames {
  root: CallFrame
  /** Frames left out of the frame list (precompiles other than the traced native contracts). */
  precompiles: ReadonlySet<CallFrame>
}

/**
 * Collects the call tree of one execution (./call-frames.ts) and which of its frames are precompile runs.
 * Attach right before the execution, detach right after, then read {@link finish}.
 */
export class OtterscanFrameTracer implements ExecutionTracer {
  private readonly frames = new CallFrameCollector()
  /** Every message in the order the EVM started them (the call tree's pre-order, SELFDESTRUCTs aside). */
  private readonly messages: Message[] = []

  private readonly onBefore = (m: Message): void => {
    this.messages.push(m)
  }

  attach(events: TraceEvents, hooks: ExecutionHooks): void {
    this.frames.attach(events, hooks)
    events.on('beforeMessage', this.onBefore)
  }

  detach(events: TraceEvents, hooks: ExecutionHooks): void {
    events.off('beforeMessage', this.onBefore)
    this.frames.detach(events, hooks)
  }

  /** The call tree with its precompile frames; undefined when nothing ran (no message started). */
  async finish(): Promise<OtsFrames | undefined> {
    const root = await this.frames.finish()
    if (root === undefined) return undefined
    const precompiles = new Set<CallFrame>()
    let i = 0
    const walk = (f: CallFrame): void => {
      if (f.kind === 'SELFDESTRUCT') return
      // (isCompiled is set when the EVM loads the message's code, before it runs)
      const m = this.messages[i++]
      if (m?.isCompiled === true && !TRACED_NATIVE.has(m.codeAddress.toString().toLowerCase())) precompiles.add(f)
      f.calls.forEach(walk)
    }
    walk(root)
    return { root, precompiles }
  }
}

/** Minimal hex of a wei amount (geth's hexutil.Big). */

/**
 * The `ots_traceTransaction` list of a call tree: every frame in execution order (a frame, then its children),
 * precompile frames (and anything under them) left out. A CALLCODE's `to` is the code's address, a
 * DELEGATECALL's `from` the contract running it and `to` the code's address, a creation's `to` the new address; a
 * SELFDESTRUCT sits one level below the frame that ran it, `to` its beneficiary and `value` the balance sent.
 * @param t the tree from {@link OtterscanFrameTracer.finish}
 */
export function otsTraceEntries(t: OtsFrames): OtsTraceEntry[] {
  const out: OtsTraceEntry[] = []
  const walk = (f: CallFrame): void => {
    if (t.precompiles.has(f)) return
    const noValue = f.kind === 'STATICCALL' || f.kind === 'DELEGATECALL'
    const to = f.kind === 'CALLCODE' ? (f.codeAddress ?? f.to) : f.to
    out.push({
      type: f.kind,
      depth: f.depth,
      from: toHex(f.from),
      to: toHex(to ?? ZERO_ADDRESS),
      value: noValue ? null : quantity(f.value),
      input: toHex(f.input),
      output: toHex(f.output),
    })
    f.calls.forEach(walk)
  }
  walk(t.root)
  return out
}

/**
 * The `ots_getInternalOperations` list of a call tree: among the frames below the top one, in execution order,
 * CALLs moving a non-zero value (TRANSFER), CREATE, CREATE2 and SELFDESTRUCT (its beneficiary as `to`). As Erigon
 * lists them, frames that later failed and precompile calls count too.
 * @param root the top frame
 */
export function otsInternalOperations(root: CallFrame): OtsInternalOperation[] {
  const out: OtsInternalOperation[] = []
  const walk = (f: CallFrame, top: boolean): void => {
    const type = top
      ? undefined
      : f.kind === 'CALL' && f.value !== 0n
        ? OtsOperationType.TRANSFER
        : f.kind === 'CREATE'
          ? OtsOperationType.CREATE
          : f.kind === 'CREATE2'
            ? OtsOperationType.CREATE2
            : f.kind === 'SELFDESTRUCT'
              ? OtsOperationType.SELF_DESTRUCT
              : undefined
    if (type !== undefined)
      out.push({ type, from: toHex(f.from), to: toHex(f.to ?? ZERO_ADDRESS), value: quantity(f.value) })
    for (const c of f.calls) walk(c, false)
  }
  walk(root, true)
  return out
}
