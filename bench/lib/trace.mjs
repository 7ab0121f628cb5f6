// The tracing row: debug_traceTransaction of one ERC-20 transfer with the call tracer and with struct logs
// (each peer's default opcode tracer: node-cli's is the reference's rskTracer, Anvil's and Hardhat's geth's
// struct logger), median latency of TRACE_RUNS sequential requests on a fresh instance started with the
// peer's `traceArgs` (Anvil: --steps-tracing, without which it records no opcode steps).
import { performance } from 'node:perf_hooks'
import { RECIPIENT, tokenTransferTx } from './erc20.mjs'
import { log } from './log.mjs'
import { deployToken, devAccount, sendAndWait, start } from './peer-client.mjs'
import { median } from './stats.mjs'
import { Rpc } from './rpc.mjs'

/** Sequential requests per tracer; the median is reported. */
export const TRACE_RUNS = 20

/**
 * Fills res.metrics.traceCallMs / traceStructMs (median ms) and their checks and details.
 * @param {Record<string, any>} peer
 * @param {object} res the peer's result record (metrics, checks, notes, details)
 * @param {object} ctx { instance } for the watchdog
 */
export async function traceRow(peer, res, ctx) {
  const check = (metric, what, ok, detail) => {
    res.checks.push({ metric, what, ok: !!ok, detail: detail ?? null })
    if (!ok) log(`   CHECK FAILED [${metric}] ${what}${detail ? `: ${detail}` : ''}`)
  }
  const inst = await start(peer, ctx, { extraArgs: peer.traceArgs ?? [] })
  const rpc = new Rpc(inst.url, { timeoutMs: 60_000 })
  try {
    const { wallet, chainId, gasPrice } = await devAccount(peer, rpc)
    const { token } = await deployToken(peer, rpc, { wallet, chainId, gasPrice })
    const nonce = Number(BigInt(await rpc.call('eth_getTransactionCount', [wallet.address, 'latest'])))
    const raw = await wallet.signTransaction(
      tokenTransferTx({ chainId, nonce, gasPrice, token, to: RECIPIENT, amount: 1234n }),
    )
    const { receipt } = await sendAndWait(rpc, raw)
    const hash = receipt.transactionHash
    const measure = async (metric, label, params, ok) => {
      const times = []
      let last
      try {
        for (let i = 0; i < TRACE_RUNS; i++) {
          const t = performance.now()
          last = await rpc.call('debug_traceTransaction', [hash, ...params])
          times.push(performance.now() - t)
        }
      } catch (err) {
        // a peer without that tracer (Hardhat 2 has only its default one) gets a note, not a failed check
        if (/only supports the default tracer|not supported|unsupported/i.test(err.message)) {
          res.notes.push(`${label}: not supported (${err.message.slice(0, 120)})`)
          log(`   ${label}: not supported by ${peer.name}`)
        } else check(metric, `${label} answers`, false, err.message.slice(0, 200))
        return
      }
      const verdict = ok(last)
      check(metric, `${label}: the expected trace`, verdict === true, verdict === true ? null : verdict)
      res.metrics[metric] = median(times)
      res.details[metric] = { runsMs: times.map((x) => +x.toFixed(2)), bytes: JSON.stringify(last).length }
      log(
        `   ${label}: median ${res.metrics[metric].toFixed(2)} ms over ${TRACE_RUNS} (${res.details[metric].bytes} bytes)`,
      )
    }
    await measure('traceCallMs', 'debug_traceTransaction callTracer', [{ tracer: 'callTracer' }], (t) =>
      t?.type === 'CALL' && t.to?.toLowerCase() === token.toLowerCase()
        ? true
        : `got ${JSON.stringify(t).slice(0, 200)}`,
    )
    await measure('traceStructMs', 'debug_traceTransaction struct logs', [], (t) => {
      const ops = (t?.structLogs ?? []).map((l) => l.op)
      return ops.includes('SSTORE') && ops.includes('LOG3') ? true : `${ops.length} struct logs, no SSTORE/LOG3`
    })
  } finally {
    rpc.close()
    await inst.stop()
  }
}
