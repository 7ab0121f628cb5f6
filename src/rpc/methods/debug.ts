/**
 * debug_traceTransaction, debug_traceBlockByHash, debug_traceBlockByNumber and debug_traceCall (rskj
 * DebugModuleImpl, RskTracer, CallTracer, TraceOptions). Tracers, selected by `tracer`:
 *
 * - default (`rskTracer`): the reference's struct logs {contractAddress, initStorage, structLogs, result, error,
 *   reverted, storageSize, currentStorage} (src/execution/tracers/struct-logs.ts, shape `rsk`);
 *   `disableMemory`, `disableStack`, `disableStorage`;
 * - `callTracer`: the reference's call tree (../call-trace-format.ts; geth's frame shape under the Hardhat and
 *   Anvil profiles); `onlyTopCall`, `withLog` (in `tracerConfig` or at the top level, as the reference reads them);
 * - `structLogger` (geth's default format, not in the reference): {gas, failed, returnValue, structLogs};
 *   `enableMemory`, `enableReturnData`, `disableStack`, `disableStorage`;
 * - `prestateTracer` (`diffMode`) and `4byteTracer` (geth's; not in the reference).
 *
 * Blocks answer [{txHash, result}] for every transaction, the Remasc transaction included (an empty trace:
 * the reference runs it natively). Unknown transaction or block → null. A struct-log trace past 10 MB →
 * -32011 (the reference's maxResponseSize).
 */
import type { Chain } from '../../chain/chain.js'
import { ErrorCode, invalidParams, RpcError } from '../rpc-error.js'
import type { BlockRecord, TxRecord } from '../../types/records.js'
import { overrideContext } from '../../execution/state-override.js'
import { CallFrameCollector } from '../../execution/tracers/call-frames.js'
import { PrestateCollector } from '../../execution/tracers/prestate.js'
import { isRemascTx, traceBlockTxs, traceCallAt } from '../../execution/tracers/replay.js'
import {
  StructLogCollector,
  structLogsJson,
  traceBudget,
  type StructLogOptions,
  type TraceBudget,
} from '../../execution/tracers/struct-logs.js'
import type { ExecutionTracer, TracedOutcome } from '../../execution/tracers/types.js'
import type { UnitrieStateManager } from '../../state/unitrie-state-manager.js'
import { toHex } from '../../util/bytes.js'
import { callTracerJson, fourByteJson, remascCallFrame } from '../call-trace-format.js'
import { RawJson } from '../format.js'
import { method, type MethodSpec } from '../method-table.js'
import { decodeBlockOverride, decodeStateOverride } from '../override-params.js'
import { LATEST, optional, P, param } from '../params.js'
import { requireBlock, resolveBlock, type Services } from '../services.js'

/** Decoded trace options. */
export interface TraceOptions {
  tracer: 'rskTracer' | 'callTracer' | 'structLogger' | 'prestateTracer' | '4byteTracer'
  onlyTopCall: boolean
  withLog: boolean
  /** callTracer frames in geth's shape (the node's compatibility profile decides; ../call-trace-format.ts). */
  gethCallTracer?: boolean
  diffMode: boolean
  structLogs: Omit<StructLogOptions, 'shape'>
}

const TRACERS = new Set(['rskTracer', 'callTracer', 'structLogger', 'prestateTracer', '4byteTracer'])
const DEFAULT_OPTIONS: TraceOptions = {
  tracer: 'rskTracer',
  onlyTopCall: false,
  withLog: false,
  diffMode: false,
  structLogs: {
    disableMemory: false,
    disableStack: false,
    disableStorage: false,
    enableMemory: false,
    enableReturnData: false,
  },
}

/** The opcode tracer used when a request names none: the reference's, or geth's struct logger. */
export type DefaultTracer = 'rskTracer' | 'structLogger'

/**
 * Decodes the trace options object (rskj TraceOptions + geth's names). Booleans must be booleans.
 * @param defaultTracer the tracer when `tracer` is absent or empty
 * @throws RpcError -32602 for an unknown tracer (JavaScript tracers are not supported) or a malformed option
 */
export function decodeTraceOptions(
  value: unknown,
  index: number,
  defaultTracer: DefaultTracer = 'rskTracer',
): TraceOptions {
  if (value === undefined || value === null) return { ...DEFAULT_OPTIONS, tracer: defaultTracer }
  if (typeof value !== 'object' || Array.isArray(value))
    throw invalidParams(`invalid argument ${index}: trace options must be an object`)
  const o = value as Record<string, unknown>
  const cfgRaw = o.tracerConfig ?? {}
  if (typeof cfgRaw !== 'object' || cfgRaw === null || Array.isArray(cfgRaw))
    throw invalidParams(`invalid argument ${index}: tracerConfig must be an object`)
  const cfg = cfgRaw as Record<string, unknown>
  const flag = (name: string, ...sources: Record<string, unknown>[]): boolean => {
    for (const src of sources) {
      const v = src[name]
      if (v === undefined || v === null) continue
      if (typeof v !== 'boolean') throw invalidParams(`invalid argument ${index}: ${name} must be a boolean`)
      return v
    }
    return false
  }
  let tracer = o.tracer ?? defaultTracer
  if (tracer === '') tracer = defaultTracer
  if (typeof tracer !== 'string' || !TRACERS.has(tracer)) {
    throw invalidParams(
      `invalid argument ${index}: unknown tracer ${JSON.stringify(tracer)} (supported: ${[...TRACERS].join(', ')})`,
    )
  }
  return {
    tracer: tracer as TraceOptions['tracer'],
    onlyTopCall: flag('onlyTopCall', cfg, o),
    withLog: flag('withLog', cfg, o),
    diffMode: flag('diffMode', cfg, o),
    structLogs: {
      disableMemory: flag('disableMemory', o),
      disableStack: flag('disableStack', o),
      disableStorage: flag('disableStorage', o),
      enableMemory: flag('enableMemory', o),
      enableReturnData: flag('enableReturnData', o),
    },
  }
}

const traceOptionsParam = (d: DefaultTracer, geth: boolean) =>
  optional(
    param('options', (v, i) => ({ ...decodeTraceOptions(v, i, d), gethCallTracer: geth })),
    { ...DEFAULT_OPTIONS, tracer: d, gethCallTracer: geth },
  )

/** The tracer a trace option set runs. */
function makeTracer(
  opts: TraceOptions,
  sm: UnitrieStateManager,
  tx: { from: Uint8Array; to?: Uint8Array },
  budget: TraceBudget,
): ExecutionTracer {
  switch (opts.tracer) {
    case 'rskTracer':
      return new StructLogCollector({ shape: 'rsk', ...opts.structLogs, budget }, sm)
    case 'structLogger':
      return new StructLogCollector({ shape: 'geth', ...opts.structLogs, budget }, sm)
    case 'prestateTracer':
      return new PrestateCollector(sm, tx, opts.diffMode)
    default:
      return new CallFrameCollector()
  }
}

/** The JSON text of one traced execution's result. */
async function resultJson(
  opts: TraceOptions,
  tracer: ExecutionTracer,
  outcome: TracedOutcome,
  to: Uint8Array | undefined,
  receiptGas: bigint | undefined,
  topGas: bigint,
): Promise<string> {
  if (tracer instanceof StructLogCollector) {
    return structLogsJson(
      tracer,
      opts.tracer === 'structLogger' ? 'geth' : 'rsk',
      outcome,
      to ?? outcome.createdAddress,
    )
  }
  if (tracer instanceof PrestateCollector) return JSON.stringify(await tracer.result())
  const root = await (tracer as CallFrameCollector).finish()
  if (root === undefined) return 'null'
  if (opts.tracer === '4byteTracer') return JSON.stringify(fourByteJson(root))
  return JSON.stringify(callTracerJson(root, opts, receiptGas, topGas))
}

/** The trace of the Remasc transaction (not executed by the EVM). */
function remascResult(opts: TraceOptions, tx: TxRecord): unknown {
  const to = tx.tx.to!.bytes
  switch (opts.tracer) {
    case 'callTracer':
      return callTracerJson(remascCallFrame({ from: tx.from, to }), opts, 0n)
    case 'structLogger':
      return { gas: 0, failed: false, returnValue: '', structLogs: [] }
    case 'prestateTracer':
      return opts.diffMode ? { pre: {}, post: {} } : {}
    case '4byteTracer':
      return {}
    default:
      return {
        contractAddress: Buffer.from(to).toString('hex'),
        initStorage: {},
        structLogs: [],
        result: '',
        error: '',
        reverted: false,
        storageSize: 0,
        currentStorage: {},
      }
  }
}

/** A traced transaction: its hash (0x hex) and its result as JSON text. */
interface TxTrace {
  txHash: string
  result: string
}

/** The [{txHash, result}] answer of the block methods, as JSON text. */
const blockAnswer = (traces: TxTrace[]): RawJson =>
  new RawJson(traces.map((t) => '{"txHash":"' + t.txHash + '","result":' + t.result + '}'))

/** Traces the transactions of `block` that `wanted` selects, in block order. */
async function traceBlock(
  chain: Chain,
  block: BlockRecord,
  opts: TraceOptions,
  wanted: (tx: TxRecord) => boolean = () => true,
): Promise<TxTrace[]> {
  return chain.queue.run(async () => {
    // one response: the struct logs of all its transactions share the 10 MB budget
    const budget = traceBudget()
    const traced = await traceBlockTxs(
      chain.reads,
      block,
      (t) => !isRemascTx(t) && wanted(t),
      (sm, tx) => makeTracer(opts, sm, { from: tx.from, to: tx.tx.to?.bytes }, budget),
    )
    const byTx = new Map(traced.map((t) => [t.tx, t] as const))
    const out: TxTrace[] = []
    for (const tx of block.transactions) {
      if (!wanted(tx)) continue
      const t = byTx.get(tx)
      let result: string
      if (isRemascTx(tx)) result = JSON.stringify(remascResult(opts, tx))
      else if (t !== undefined)
        result = await resultJson(opts, t.tracer, t.outcome, tx.tx.to?.bytes, tx.receipt.gasUsed, tx.tx.gasLimit)
      else continue
      out.push({ txHash: toHex(tx.hash), result })
    }
    return out
  })
}

/**
 * debug_trace* methods.
 * @param opts.defaultTracer the tracer of requests that name none (default the reference's `rskTracer`; a
 *   compatibility mode for tools expecting geth's format sets `structLogger`)
 */
export function debugMethods(s: Services, opts: { defaultTracer?: DefaultTracer } = {}): MethodSpec[] {
  const { chain } = s
  const d = opts.defaultTracer ?? 'rskTracer'
  // the Hardhat and Anvil profiles answer geth's callTracer shape (../compat.ts gethCallTracer)
  const geth = s.compat.gethCallTracer
  return [
    method(
      'debug_traceTransaction',
      'debug',
      're-executes a mined transaction with a tracer (default: struct logs)',
      [P.hash('transactionHash'), traceOptionsParam(d, geth)],
      async (_c, hash, opts) => {
        const loc = await chain.reads.transaction(hash)
        if (loc === undefined) return null
        const [t] = await traceBlock(chain, loc.block, opts, (tx) => tx === loc.tx)
        return t === undefined ? null : new RawJson(t.result)
      },
    ),
    method(
      'debug_traceBlockByHash',
      'debug',
      'traces every transaction of a block: [{txHash, result}]',
      [P.hash('blockHash'), traceOptionsParam(d, geth)],
      async (_c, hash, opts) => {
        const block = await chain.reads.blockByHash(hash)
        if (block === undefined) return null
        return block.header.number === 0n ? [] : blockAnswer(await traceBlock(chain, block, opts))
      },
    ),
    method(
      'debug_traceBlockByNumber',
      'debug',
      'traces every transaction of a block: [{txHash, result}]',
      [P.blockNoHash('block'), traceOptionsParam(d, geth)],
      async (_c, ref, opts) => {
        const block = await resolveBlock(chain, ref)
        if (block === 'pending')
          throw new RpcError(ErrorCode.InvalidParams, 'invalid argument 0: the pending block cannot be traced')
        if (block === undefined) return null
        return block.header.number === 0n ? [] : blockAnswer(await traceBlock(chain, block, opts))
      },
    ),
    method(
      'debug_traceCall',
      'debug',
      'runs a call with a tracer (options also take stateOverrides / blockOverrides)',
      [
        P.tx(),
        optional(P.block(), LATEST),
        optional(
          param('options', (v, i) => ({
            opts: { ...decodeTraceOptions(v, i, d), gethCallTracer: geth },
            raw: v as Record<string, unknown> | undefined,
          })),
          { opts: { ...DEFAULT_OPTIONS, tracer: d, gethCallTracer: geth }, raw: undefined },
        ),
      ],
      async (_c, req, ref, { opts, raw }) => {
        const state = decodeStateOverride(raw?.stateOverrides, 2)
        const blockOverride = decodeBlockOverride(raw?.blockOverrides, 2)
        const block = await requireBlock(chain, ref)
        return chain.queue.run(async () => {
          const { ctx, root } = await chain.reads.executionState(block)
          const { tracer, outcome } = await traceCallAt(
            chain.reads,
            req,
            root,
            overrideContext(ctx, blockOverride),
            state,
            (sm) => makeTracer(opts, sm, { from: req.from ?? new Uint8Array(20), to: req.to }, traceBudget()),
          )
          const gas = req.gas !== undefined && req.gas < chain.reads.callGasCap ? req.gas : chain.reads.callGasCap
          return new RawJson(await resultJson(opts, tracer, outcome, req.to, undefined, gas))
        })
      },
    ),
  ]
}
