/**
 * trace_transaction, trace_block, trace_filter and trace_get: parity-style traces as the reference emits them
 * (rskj TraceModuleImpl, TraceTransformer, TraceFilterRequest). Built from the call tree of
 * a replay (src/execution/tracers/call-frames.ts):
 *
 * - one item per frame, depth first: {action, blockHash, blockNumber (a JSON number), transactionHash,
 *   transactionPosition, type (call | create | suicide), subtraces, traceAddress, result, error};
 * - call action {callType, from, to, gas, input, value} (each CALL's own input: the reference's 8.1–9.0.2 bug of
 *   repeating the transaction's input is not reproduced), result {gasUsed, output};
 * - create action {from, gas, init, creationMethod (create | create2, inner creations only), value}, result
 *   {gasUsed, code, address}; suicide action {address, refundAddress, balance}, result null;
 * - a failed frame has result null and `error` ("Reverted" for a revert, else the EVM error); the top frame's
 *   gas is the transaction's gas limit and its gasUsed the receipt's (TraceTransformer, ProgramInvokeFactoryImpl);
 *   no reward traces; the Remasc transaction is a plain call with no gas.
 *
 * trace_filter walks fromBlock..toBlock (default earliest..latest; fromBlock must not exceed toBlock), keeps the
 * transactions whose sender is in `fromAddress` and whose recipient is in `toAddress` (when given), then skips
 * `after` traces and returns at most `count` (≤ rpc.trace.maxTracesPerRequest = 10 000, the default).
 * trace_get(hash, [i]) answers the transaction's i-th trace (the reference indexes the block's list instead:
 * the same for a block's first transaction).
 */
import type { Chain } from '../../chain/chain.js'
import { invalidParams, RpcError } from '../rpc-error.js'
import type { BlockRecord, TxRecord } from '../../types/records.js'
import { CallFrameCollector, type CallFrame } from '../../execution/tracers/call-frames.js'
import { isRemascTx, traceBlockTxs } from '../../execution/tracers/replay.js'
import { toHex } from '../../util/bytes.js'
import { quantityHex, remascCallFrame } from '../call-trace-format.js'
import { method, type MethodSpec } from '../method-table.js'
import { decodeAddress, decodeBlockRef, decodeQuantity, P, param, type BlockRef } from '../params.js'
import { resolveBlock, type Services } from '../services.js'

/** rpc.trace.maxTracesPerRequest (reference.conf). */
export const MAX_TRACES_PER_REQUEST = 10_000

/** The reference's answer to `pending` in trace_block (RskJsonRpcRequestException.unimplemented). */
const UNIMPLEMENTED = -32201

const CALL_TYPES: Partial<Record<CallFrame['kind'], string>> = {
  CALL: 'call',
  CALLCODE: 'callcode',
  DELEGATECALL: 'delegatecall',
  STATICCALL: 'staticcall',
}

/** The parity traces of one transaction's call tree. */
function flatten(root: CallFrame, block: BlockRecord, tx: TxRecord): object[] {
  const out: object[] = []
  const common = {
    blockHash: toHex(block.hash),
    blockNumber: Number(block.header.number),
    transactionHash: toHex(tx.hash),
    transactionPosition: tx.index,
  }
  const walk = (f: CallFrame, address: number[], top: boolean): void => {
    const create = f.kind === 'CREATE' || f.kind === 'CREATE2'
    let type: string
    let action: Record<string, unknown>
    let result: Record<string, unknown> | null = null
    let error: string | undefined
    if (f.kind === 'SELFDESTRUCT') {
      type = 'suicide'
      action = { address: toHex(f.from), refundAddress: toHex(f.to!), balance: quantityHex(f.value) }
    } else {
      const gasUsed = quantityHex(top ? tx.receipt.gasUsed : f.gasUsed)
      if (create) {
        type = 'create'
        action = { from: toHex(f.from), gas: quantityHex(top ? tx.tx.gasLimit : f.gas), init: toHex(f.input) }
        if (!top) action.creationMethod = f.kind === 'CREATE2' ? 'create2' : 'create'
        action.value = quantityHex(f.value)
        result = { gasUsed, code: toHex(f.output), address: f.to === undefined ? null : toHex(f.to) }
      } else {
        type = 'call'
        action = {
          callType: CALL_TYPES[f.kind],
          from: toHex(f.from),
          to: toHex(f.to!),
          gas: quantityHex(top ? tx.tx.gasLimit : f.gas),
          input: toHex(f.input),
          value: quantityHex(f.value),
        }
        result = { gasUsed, output: toHex(f.output) }
      }
      if (f.error !== undefined) {
        error = f.error === 'revert' ? 'Reverted' : f.error
        result = null
      }
    }
    const item: Record<string, unknown> = {
      action,
      ...common,
      type,
      subtraces: f.calls.length,
      traceAddress: address,
      result,
    }
    if (error !== undefined) item.error = error
    out.push(item)
    f.calls.forEach((c, i) => walk(c, [...address, i], false))
  }
  walk(root, [], true)
  return out
}

/** The traces of the transactions of `block` that `wanted` selects, in block order. Inside no queue. */
async function blockTraces(
  chain: Chain,
  block: BlockRecord,
  wanted: (tx: TxRecord) => boolean = () => true,
): Promise<object[]> {
  if (block.header.number === 0n) return []
  return chain.queue.run(async () => {
    const traced = await traceBlockTxs(
      chain.reads,
      block,
      (t) => !isRemascTx(t) && wanted(t),
      () => new CallFrameCollector(),
    )
    const byTx = new Map(traced.map((t) => [t.tx, t] as const))
    const out: object[] = []
    for (const tx of block.transactions) {
      if (!wanted(tx)) continue
      if (isRemascTx(tx)) {
        out.push(...flatten(remascCallFrame({ from: tx.from, to: tx.tx.to!.bytes }), block, tx))
        continue
      }
      const root = await byTx.get(tx)?.tracer.finish()
      if (root !== undefined) out.push(...flatten(root, block, tx))
    }
    return out
  })
}

/** A decoded trace_filter request. */
interface TraceFilter {
  fromBlock: BlockRef
  toBlock: BlockRef
  fromAddress: Uint8Array[] | undefined
  toAddress: Uint8Array[] | undefined
  after: number
  count: number
}

const addressList = (v: unknown, index: number, name: string): Uint8Array[] | undefined => {
  if (v === undefined || v === null) return undefined
  const list = Array.isArray(v) ? v : [v]
  return list.map((a) => {
    try {
      return decodeAddress(a, index)
    } catch (err) {
      throw invalidParams(
        `invalid argument ${index}: ${name}: ${(err as Error).message.replace(/^invalid argument \d+: /, '')}`,
      )
    }
  })
}

/** Decodes the trace_filter object. @throws RpcError -32602 (after/count out of range, malformed fields) */
export function decodeTraceFilter(value: unknown, index: number): TraceFilter {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw invalidParams(`invalid argument ${index}: expected a trace filter object`)
  const o = value as Record<string, unknown>
  const num = (name: string, fallback: number): number => {
    if (o[name] === undefined || o[name] === null) return fallback
    const n = decodeQuantity(o[name], index)
    if (n > BigInt(MAX_TRACES_PER_REQUEST))
      throw invalidParams(`invalid argument ${index}: ${name} exceeds the maximum of ${MAX_TRACES_PER_REQUEST}`)
    return Number(n)
  }
  return {
    fromBlock:
      o.fromBlock === undefined || o.fromBlock === null
        ? { kind: 'tag', tag: 'earliest' }
        : decodeBlockRef(o.fromBlock, index, false),
    toBlock:
      o.toBlock === undefined || o.toBlock === null
        ? { kind: 'tag', tag: 'latest' }
        : decodeBlockRef(o.toBlock, index, false),
    fromAddress: addressList(o.fromAddress, index, 'fromAddress'),
    toAddress: addressList(o.toAddress, index, 'toAddress'),
    after: num('after', 0),
    count: num('count', MAX_TRACES_PER_REQUEST),
  }
}

const inList = (list: Uint8Array[] | undefined, a: Uint8Array | undefined): boolean =>
  list === undefined || list.length === 0 || (a !== undefined && list.some((x) => Buffer.compare(x, a) === 0))

/** trace_* methods. */
export function traceMethods(s: Services): MethodSpec[] {
  const { chain } = s
  /** A block of trace_block / trace_filter; `pending` is the head (no mined transactions past it). */
  const blockOf = async (ref: BlockRef): Promise<BlockRecord | undefined> => {
    const b = await resolveBlock(chain, ref)
    return b === 'pending' ? chain.reads.head : b
  }
  return [
    method(
      'trace_transaction',
      'trace',
      'parity-style traces of a mined transaction',
      [P.hash('transactionHash')],
      async (_c, hash) => {
        const loc = await chain.reads.transaction(hash)
        if (loc === undefined) return null
        return blockTraces(chain, loc.block, (tx) => tx === loc.tx)
      },
    ),
    method(
      'trace_block',
      'trace',
      'parity-style traces of every transaction of a block (number, tag or hash)',
      [P.block('block')],
      async (_c, ref) => {
        if (ref.kind === 'tag' && ref.tag === 'pending')
          throw new RpcError(UNIMPLEMENTED, "The method don't support 'pending' as a parameter yet")
        const block = await resolveBlock(chain, ref)
        if (block === undefined || block === 'pending') return null
        return blockTraces(chain, block)
      },
    ),
    method(
      'trace_filter',
      'trace',
      'traces of a block range, by sender/recipient, paged with after/count',
      [param('filter', decodeTraceFilter)],
      async (_c, f) => {
        const from = await blockOf(f.fromBlock)
        const to = (await blockOf(f.toBlock)) ?? chain.reads.head
        if (from === undefined) return []
        if (from.header.number > to.header.number)
          throw invalidParams('invalid argument 0: fromBlock must not be greater than toBlock')
        const wanted = (tx: TxRecord): boolean => inList(f.fromAddress, tx.from) && inList(f.toAddress, tx.tx.to?.bytes)
        const out: object[] = []
        let skip = f.after
        for (let n = from.header.number; n <= to.header.number && out.length < f.count; n++) {
          const block = await chain.reads.blockByNumber(n)
          if (block === undefined) break
          const txs = block.transactions.filter(wanted)
          if (txs.length === 0) continue
          const traces = await blockTraces(chain, block, wanted)
          for (const t of traces) {
            if (skip > 0) skip--
            else if (out.length < f.count) out.push(t)
          }
        }
        return out
      },
    ),
    method(
      'trace_get',
      'trace',
      "one trace of a transaction by its position in the transaction's list",
      [
        P.hash('transactionHash'),
        param('indices', (v, i) => {
          if (!Array.isArray(v) || v.length === 0)
            throw invalidParams(`invalid argument ${i}: expected a non-empty array of trace positions`)
          return v.map((x) => Number(decodeQuantity(x, i)))
        }),
      ],
      async (_c, hash, indices) => {
        const loc = await chain.reads.transaction(hash)
        if (loc === undefined) return null
        const traces = await blockTraces(chain, loc.block, (tx) => tx === loc.tx)
        return traces[indices[0]!] ?? null
      },
    ),
  ]
}
