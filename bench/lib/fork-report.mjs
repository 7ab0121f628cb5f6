// @ts-check
/**
 * Printing --fork: one column per run (node-cli cold and on its cache, Anvil likewise), one row per figure, the
 * remote requests as "HTTP requests / JSON-RPC calls", then the calls per method of the transfers, the checks and
 * a failed run's error (e.g. a forking node that cannot read the upstream's blocks).
 */
import { log } from './log.mjs'

const ms = (x) => (x == null ? '—' : x >= 100 ? x.toFixed(0) : x.toFixed(1))
/** @param {{ http: number, calls: number } | undefined} c */
const reqs = (c) => (c == null ? '—' : `${c.http} / ${c.calls}`)

/** Rows of the --fork table: [label, unit, cell of a run]. */
const ROWS = /** @type {Array<[string, string, (r: Record<string, any>) => string]>} */ ([
  ['start → first answer', 'ms', (r) => ms(r.startupMs)],
  ['  remote at start', 'HTTP / calls', (r) => reqs(r.startup)],
  ['first eth_call (cold)', 'ms', (r) => ms(r.firstCall?.ms)],
  ['  remote', 'HTTP / calls', (r) => reqs(r.firstCall?.remote)],
  ['same eth_call again', 'ms', (r) => ms(r.cachedCall?.ms)],
  ['  remote', 'HTTP / calls', (r) => reqs(r.cachedCall?.remote)],
  ['first ERC-20 transfer', 'ms', (r) => ms(r.firstTransfer?.ms)],
  ['  remote', 'HTTP / calls', (r) => reqs(r.firstTransfer?.remote)],
  ['next transfers, average', 'ms', (r) => ms(r.nextTransfers?.avgMs)],
  ['next transfers, median', 'ms', (r) => ms(r.nextTransfers?.medianMs)],
  [
    '  remote per transfer',
    'HTTP / calls',
    (r) => (r.nextTransfers ? `${r.nextTransfers.httpPerTx} / ${r.nextTransfers.callsPerTx}` : '—'),
  ],
  ['whole run, remote', 'HTTP / calls', (r) => reqs(r.total)],
])

/**
 * The --fork summary: the table, the calls per method of the next transfers and of the whole run, the checks.
 * @param {Record<string, any>} f runFork's result
 */
export function printFork(f) {
  log('')
  log(
    `--fork (upstream node-cli ${f.version ?? ''}${f.upstream ? ` at block ${f.upstream.head}` : ''}; proxy adds ${f.latencyMs} ms per HTTP request; 1 + ${f.transfers} transfers)${
      f.status === 'ok' ? '' : `: ${f.status.toUpperCase()}: ${String(f.error).slice(0, 400)}`
    }`,
  )
  const runs = f.runs
  if (runs.length) {
    const header = ['', 'unit', ...runs.map((r) => `${r.name} ${r.run === 'cold' ? 'cold' : 'cache'}`)]
    const rows = ROWS.map(([label, unit, cell]) => [
      label,
      unit,
      ...runs.map((r) => (r.status === 'ok' ? cell(r) : r.status)),
    ])
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)))
    const line = (cells) => cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ')
    log(line(header))
    log(widths.map((w) => '-'.repeat(w)).join('  '))
    for (const row of rows) log(line(row))
    log(`cold = empty disk cache; cache = a second run at the same fork block on the cache the cold run left`)
    log(
      `a transfer is eth_sendTransaction, then eth_getTransactionReceipt polled every 1 ms until it answers: a node that asks its remote for a receipt it does not hold counts that too`,
    )
  }
  for (const r of runs) {
    const head = `${r.name} ${r.run} ${r.version ?? ''}`.trim()
    if (r.status !== 'ok') {
      log(
        `- ${head}: ${r.status.toUpperCase()}: ${String(r.error)
          .replace(/\s*\n\s*/g, ' | ')
          .slice(0, 600)}`,
      )
      continue
    }
    const per = (m) =>
      Object.entries(m)
        .sort((a, b) => b[1] - a[1])
        .map(([k, n]) => `${k} ${n}`)
        .join(', ') || 'none'
    log(`- ${head} (${r.args.join(' ')}):`)
    log(
      `    the upstream node itself took ${r.startup.upstreamMs} ms of the start, ${r.firstCall.remote.upstreamMs} ms of the first eth_call, ${r.firstTransfer.remote.upstreamMs} ms of the first transfer (the proxy's latency not counted)`,
    )
    log(`    next ${r.nextTransfers.n} transfers asked: ${per(r.nextTransfers.remote.methods)}`)
    log(`    whole run asked: ${per(r.total.methods)}`)
  }
  const fails = f.checks.filter((c) => !c.ok)
  log(`  ${f.checks.length - fails.length}/${f.checks.length} checks passed`)
  for (const c of fails) log(`    ✗ ${c.what}: ${c.detail}`)
  for (const n of f.notes) log(`    note: ${n}`)
}
