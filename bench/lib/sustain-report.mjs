// Printing --sustain: each run's verdict, samples, per-window table and checks, and node-cli's median RSS
// against each peer's.
import { fmtMin, log } from './log.mjs'
import { report } from './sustain-analysis.mjs'
import { windowReport } from './sustain-windows.mjs'

/**
 * The --sustain summary under the table: each peer's verdict, samples and checks, and node-cli's median RSS
 * against each peer's (also stored as `nodeCliRssRatio` on the peer's record; not against node-cli --db).
 */
export function printSustain(sustain) {
  log('')
  log(
    `--sustain: ${fmtMin(sustain.minutes)} of mixed reads on ${sustain.connections} connections + ${sustain.targetTps} transfers/s; RSS every ${sustain.sampleEveryS} s`,
  )
  for (const r of sustain.peers) {
    const v = r.verdict
    const mark = v === 'flat' ? '✓' : v === 'not flat' || v === 'invalid' || v === 'failed' ? '✗' : '?'
    log(
      `${mark} ${r.name} ${r.version ?? ''}: ${v.toUpperCase()}${r.status === 'ok' && r.analysis?.maxDeviationPct != null ? ` (max deviation ${r.analysis.maxDeviationPct}% from the median ${r.analysis.medianMiB} MiB; flat = within ±${sustain.flatPct}%)` : ''}`,
    )
    if (r.status === 'skipped' || r.status === 'failed') {
      log(
        `    ${r.status}: ${String(r.error)
          .replace(/\s*\n\s*/g, ' | ')
          .slice(0, 400)}`,
      )
      continue
    }
    for (const l of report(r)) log(`  ${l}`)
    for (const l of windowReport(r)) log(`  ${l}`)
    const reqs = Object.entries(r.requests).map(([k, n]) => `${k} ${n.ok}${n.bad ? ` (${n.bad} ✗)` : ''}`)
    log(
      `    requests: ${reqs.join(', ')}; transfers ${r.transfers?.sent} (${r.transfers?.txPerSec} tx/s); eth_getLogs ${r.getLogs?.ok}/${r.getLogs?.calls} (median ${r.getLogs?.medianMs} ms)`,
    )
    const fails = r.checks.filter((c) => !c.ok)
    log(`    ${r.checks.length - fails.length}/${r.checks.length} checks passed`)
    for (const c of fails) log(`    ✗ ${c.what}: ${c.detail}`)
    for (const n of r.notes) log(`    note: ${n}`)
  }
  // node-cli's level against each peer's (median after the warm-up)
  const nc = sustain.peers.find((r) => r.name === 'node-cli')
  for (const r of sustain.peers) {
    if (r === nc || r.db || !nc?.analysis?.medianMiB || !r.analysis?.medianMiB) continue
    const x = nc.analysis.medianMiB / r.analysis.medianMiB
    r.nodeCliRssRatio = +x.toFixed(3)
    log(
      `  node-cli/${r.name} median RSS under sustained load: ${x.toFixed(2)}x${nc.verdict === 'invalid' || r.verdict === 'invalid' ? ' (a check failed)' : ''}`,
    )
  }
}
