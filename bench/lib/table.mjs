// Printing the main run: the metrics table with node-cli's ratios, the legend, each peer's checks and notes,
// and node-cli's targets.
import { log } from './log.mjs'
import { CLIENT_BOUND_PCT } from './load.mjs'
import { METRIC, METRICS, boundStar, failedMetric, ratio } from './metrics.mjs'

/** A metric value with its digits, or — when missing. */
function fmtVal(key, v) {
  if (v === undefined || v === null || Number.isNaN(v)) return '—'
  return v.toLocaleString('en-US', {
    minimumFractionDigits: METRIC[key].digits,
    maximumFractionDigits: METRIC[key].digits,
  })
}

/** The main table (metrics × peers, then node-cli ÷ each peer), its legend, and each peer's checks and notes. */
export function printTable(results) {
  const peers = results
  const others = peers.filter((r) => r.name !== 'node-cli')
  const hasNc = peers.some((r) => r.name === 'node-cli')
  const header = [
    'metric',
    'unit',
    'better',
    ...peers.map((r) => r.name),
    ...(hasNc ? others.map((r) => `node-cli/${r.name}`) : []),
  ]
  const rows = []
  for (const [key, label, unit, dir] of METRICS) {
    const cells = [label, unit, dir]
    for (const r of peers) {
      if (r.status === 'skipped') cells.push('skipped')
      else if (r.refused?.includes(key)) cells.push('refused')
      else {
        const v = fmtVal(key, r.metrics[key])
        const star = r.clientBound.includes(key) ? '*' : ''
        cells.push(
          failedMetric(r, key) ? `✗ ${v}` : r.metrics[key] == null && r.status === 'failed' ? 'failed' : v + star,
        )
      }
    }
    if (hasNc) {
      for (const r of others) {
        const x = ratio(results, key, r.name)
        const nc = results.find((q) => q.name === 'node-cli')
        cells.push(
          x == null
            ? failedMetric(nc, key) || failedMetric(r, key)
              ? 'check ✗'
              : '—'
            : `${x.toFixed(2)}x${boundStar(results, key, r.name)}`,
        )
      }
    }
    rows.push(cells)
  }
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)))
  const line = (cells) =>
    cells.map((c, i) => (i < 3 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join('  ')
  log('')
  log(line(header))
  log(widths.map((w) => '-'.repeat(w)).join('  '))
  for (const r of rows) log(line(r))
  log('')
  log(
    `ratios are node-cli ÷ peer (for "higher" metrics > 1 means node-cli is faster; for "lower" metrics < 1 means node-cli is better)`,
  )
  log(`✗ = a correctness check failed for that figure (no ratio is given for it)`)
  if (peers.some((r) => r.refused?.length))
    log(`refused = the node answered with its query limit (e.g. -32012 beyond 5000 blocks), see its notes`)
  log(
    `* = the load generator (autocannon, this process) used >= ${CLIENT_BOUND_PCT}% of a core: the figure is a floor set by the client on this machine, not the node's ceiling`,
  )
  for (const r of peers) {
    const fails = r.checks.filter((c) => !c.ok)
    const head = `${r.name} ${r.version ?? ''}`.trim()
    if (r.status !== 'ok')
      log(
        `- ${head}: ${r.status.toUpperCase()}: ${String(r.error)
          .replace(/\s*\n\s*/g, ' | ')
          .slice(0, 400)}`,
      )
    else log(`- ${head}: ${r.checks.length - fails.length}/${r.checks.length} checks passed`)
    for (const c of fails) log(`    ✗ [${c.metric}] ${c.what}: ${c.detail}`)
    for (const n of r.notes) log(`    note: ${n}`)
  }
}

/** node-cli's targets (from evaluateTargets) as ✓ / ✗ / ? lines. */
export function printTargets(targets) {
  log('')
  log('node-cli targets:')
  for (const t of targets) {
    const r = t.ratio == null ? 'n/a' : `${t.ratio.toFixed(2)}x${t.loadGeneratorBound ? '*' : ''}`
    log(`  ${t.met == null ? '?' : t.met ? '✓' : '✗'} ${t.target.padEnd(46)} ${r}`)
  }
}
