/**
 * JSON of call trees: the reference's `callTracer` (rskj CallTraceTransformer / TxTraceResult) and
 * geth's `4byteTracer`.
 *
 * callTracer frames: {type, from, to, value, gas, gasUsed, input, output, error, revertReason, calls, logs},
 * nulls and empty lists omitted; quantities and `output` as minimal hex ("stripped of leading zeros"); a
 * creation is type CREATE (CREATE2 too) with the init code as `input` and the created address as `output`; a
 * revert has error "execution reverted", the Error(string) reason in `revertReason` and the revert data in
 * `output`; the top frame's gas is the transaction's gas limit and its gasUsed the receipt's. SELFDESTRUCT is a child
 * frame {type: SELFDESTRUCT, from, to: beneficiary, value} as geth shows it.
 *
 * geth's callTracer instead (`gethCallTracer`, the Hardhat and Anvil compatibility profiles: src/rpc/compat.ts):
 * `output` is the return data as DATA, every byte kept, and left out when empty; a CREATE2 frame has type CREATE2;
 * a creation has the created address as `to` (none when it failed) and the returned runtime code as `output`.
 * Everything else as above.
 */
import { decodeRevertReason } from '../chain/queries/revert.js'
import type { CallFrame, FrameLog } from '../execution/tracers/call-frames.js'
import { orderedLogs } from '../execution/tracers/call-frames.js'
import { toHex } from '../util/bytes.js'

/** Minimal hex of a byte string or number ("0x0" for zero/empty), as rskj HexUtils.toQuantityJsonHex. */
export function quantityHex(v: Uint8Array | bigint): string {
  if (typeof v === 'bigint') return '0x' + v.toString(16)
  const h = Buffer.from(v).toString('hex').replace(/^0+/, '')
  return '0x' + (h === '' ? '0' : h)
}

/** callTracer options (rskj TracerConfig; geth's callTracer config). */
export interface CallTracerOptions {
  onlyTopCall: boolean
  withLog: boolean
  /**
   * geth's frame shape instead of the reference's (see the module comment): full `output` DATA, CREATE2 typed
   * CREATE2, creations with `to`. Set by the node's compatibility profile, not by the request. Default false.
   */
  gethCallTracer?: boolean
}

/**
 * The callTracer JSON of a frame tree.
 * @param receiptGas the transaction's receipt gas, reported as the top frame's gasUsed (reference)
 * @param topGas the transaction's gas limit, reported as the top frame's gas (the reference's top-level
 *   ProgramInvoke carries tx.getGasLimit(); the EVM message itself gets the limit minus the intrinsic gas)
 */
export function callTracerJson(root: CallFrame, opts: CallTracerOptions, receiptGas?: bigint, topGas?: bigint): object {
  const index = new Map<FrameLog, number>()
  if (opts.withLog) orderedLogs(root).forEach((l, i) => index.set(l, i))
  const geth = opts.gethCallTracer === true
  // the return data: minimal hex (reference), or all of it and nothing when empty (geth's omitempty)
  const setOutput = (out: Record<string, unknown>, data: Uint8Array): void => {
    if (!geth) out.output = quantityHex(data)
    else if (data.length > 0) out.output = toHex(data)
  }
  const frame = (f: CallFrame, top: boolean): Record<string, unknown> => {
    const create = f.kind === 'CREATE' || f.kind === 'CREATE2'
    const type = create && !geth ? 'CREATE' : f.kind
    const out: Record<string, unknown> = { type, from: toHex(f.from) }
    // a creation's `to`: geth's created address (none when it failed); the reference has none
    if (f.to !== undefined && (!create || (geth && f.error === undefined))) out.to = toHex(f.to)
    out.value = quantityHex(f.value)
    out.gas = quantityHex(top && topGas !== undefined ? topGas : f.gas)
    out.gasUsed = quantityHex(top && receiptGas !== undefined ? receiptGas : f.gasUsed)
    out.input = toHex(f.input)
    if (f.error === 'revert') {
      setOutput(out, f.output)
      out.error = 'execution reverted'
      const reason = decodeRevertReason(f.output)
      if (reason !== undefined) out.revertReason = reason
    } else if (f.error !== undefined) {
      out.error = f.error
    } else if (create && !geth) {
      if (f.to !== undefined) out.output = toHex(f.to)
    } else if (f.kind !== 'SELFDESTRUCT') {
      setOutput(out, f.output)
    }
    if (!opts.onlyTopCall && f.calls.length > 0) out.calls = f.calls.map((c) => frame(c, false))
    if (opts.withLog && f.logs.length > 0) {
      out.logs = f.logs.map((l) => ({
        index: quantityHex(BigInt(index.get(l) ?? 0)),
        address: toHex(l.address),
        topics: l.topics.map(toHex),
        data: toHex(l.data),
      }))
    }
    return out
  }
  return frame(root, true)
}

/** The Remasc transaction's callTracer frame: a native-contract call with no gas (the reference runs no EVM code). */
export function remascCallFrame(tx: { from: Uint8Array; to: Uint8Array }): CallFrame {
  return {
    kind: 'CALL',
    from: tx.from,
    to: tx.to,
    value: 0n,
    gas: 0n,
    gasUsed: 0n,
    input: new Uint8Array(0),
    output: new Uint8Array(0),
    depth: 0,
    calls: [],
    logs: [],
  }
}

/**
 * geth's 4byteTracer: "0x<selector>-<calldata size after the selector>" → count, over every CALL-family frame
 * with at least 4 bytes of input (creations, SELFDESTRUCT and precompile calls — code addresses below 0x10000 —
 * excluded).
 */
export function fourByteJson(root: CallFrame): Record<string, number> {
  const out: Record<string, number> = {}
  const walk = (f: CallFrame): void => {
    const call = f.kind !== 'CREATE' && f.kind !== 'CREATE2' && f.kind !== 'SELFDESTRUCT'
    const code = f.codeAddress ?? f.to
    const precompile = code !== undefined && code.subarray(0, 18).every((b) => b === 0)
    if (call && !precompile && f.input.length >= 4) {
      const key = `${toHex(f.input.subarray(0, 4))}-${f.input.length - 4}`
      out[key] = (out[key] ?? 0) + 1
    }
    f.calls.forEach(walk)
  }
  walk(root)
  return out
}
