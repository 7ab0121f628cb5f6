/**
 * Otterscan's transaction methods (API level 8; github:otterscan/otterscan docs/custom-jsonrpc.md, served as
 * Erigon serves them: rpc/jsonrpc/otterscan_*.go in github:erigontech/erigon): `ots_traceTransaction`,
 * `ots_getInternalOperations` and `ots_getTransactionError`. Each re-executes the mined transaction on its
 * parent's state (src/execution/tracers/replay.ts, as debug_traceTransaction), within the `--rpc-timeout`
 * deadline (-32011).
 *
 * A hash that names no mined transaction (unknown, or still pending in the pool) is an error, as in Erigon:
 * -32000 "transaction 0x… not found". The Remasc transaction, which the node runs natively and not in the EVM,
 * traces as one top-level CALL from the zero address to 0x…01000008 with no internal operations and no error.
 */
import type { Chain } from '../../chain/chain.js'
import {
  OtterscanFrameTracer,
  otsInternalOperations,
  otsTraceEntries,
  type OtsFrames,
  type OtsInternalOperation,
  type OtsTraceEntry,
} from '../../execution/tracers/otterscan-frames.js'
import { isRemascTx, traceBlockTxs } from '../../execution/tracers/replay.js'
import type { ExecutionTracer, TracedOutcome } from '../../execution/tracers/types.js'
import type { TxRecord } from '../../types/records.js'
import { quantity, toHex } from '../../util/bytes.js'
import { method, type MethodSpec } from '../method-table.js'
import { P } from '../params.js'
import { ErrorCode, RpcError } from '../rpc-error.js'
import type { Services } from '../services.js'

/** A tracer that observes nothing (ots_getTransactionError needs only the run's outcome). */
const NO_TRACER: ExecutionTracer = { attach: () => {}, detach: () => {} }

/** What one re-execution gives: the transaction, its outcome and the frames (undefined for Remasc). */
interface OtsRun {
  tx: TxRecord
  outcome?: TracedOutcome
  frames?: OtsFrames
}

/**
 * Re-executes the mined transaction `hash` (inside the chain's queue).
 * @param withFrames whether to collect the call tree
 * @throws RpcError -32000 when no mined transaction has that hash; -32011 past the deadline; -32600 when the
 *   parent block's state is no longer kept (replay.ts)
 */
async function replayTx(chain: Chain, hash: Uint8Array, withFrames: boolean): Promise<OtsRun> {
  const loc = await chain.reads.transaction(hash)
  if (loc === undefined) throw new RpcError(ErrorCode.Server, `transaction ${toHex(hash)} not found`)
  if (isRemascTx(loc.tx)) return { tx: loc.tx }
  return chain.queue.run(async () => {
    const [t] = await traceBlockTxs(
      chain.reads,
      loc.block,
      (tx) => tx === loc.tx,
      () => (withFrames ? new OtterscanFrameTracer() : NO_TRACER),
    )
    if (t === undefined) throw new RpcError(ErrorCode.Server, `transaction ${toHex(hash)} not found`)
    const frames = t.tracer instanceof OtterscanFrameTracer ? await t.tracer.finish() : undefined
    return { tx: loc.tx, outcome: t.outcome, frames }
  })
}

/** The Remasc transaction's single frame (the node runs it natively: no EVM frames below it). */
function remascEntry(tx: TxRecord): OtsTraceEntry {
  return {
    type: 'CALL',
    depth: 0,
    from: toHex(tx.from),
    to: toHex(tx.tx.to!.bytes),
    value: quantity(tx.tx.value),
    input: toHex(tx.tx.data),
    output: '0x',
  }
}

/** ots_traceTransaction, ots_getInternalOperations and ots_getTransactionError. */
export function otterscanTraceMethods(s: Services): MethodSpec[] {
  const { chain } = s
  return [
    method(
      'ots_traceTransaction',
      'ots',
      "a mined transaction's call frames as a flat list [{type, depth, from, to, value, input, output}]",
      [P.hash('transactionHash')],
      async (_c, hash): Promise<OtsTraceEntry[]> => {
        const run = await replayTx(chain, hash, true)
        if (run.outcome === undefined) return [remascEntry(run.tx)]
        return run.frames === undefined ? [] : otsTraceEntries(run.frames)
      },
    ),
    method(
      'ots_getInternalOperations',
      'ots',
      "a mined transaction's nested value transfers, creations and self-destructs [{type, from, to, value}]",
      [P.hash('transactionHash')],
      async (_c, hash): Promise<OtsInternalOperation[]> => {
        const run = await replayTx(chain, hash, true)
        return run.frames === undefined ? [] : otsInternalOperations(run.frames.root)
      },
    ),
    method(
      'ots_getTransactionError',
      'ots',
      "a mined transaction's revert data (0x when it did not revert)",
      [P.hash('transactionHash')],
      async (_c, hash): Promise<string> => {
        const run = await replayTx(chain, hash, false)
        // Erigon's ExecutionResult.Revert(): the return data of a revert only, nothing for other failures
        return run.outcome?.error === 'revert' ? toHex(run.outcome.returnValue) : '0x'
      },
    ),
  ]
}
