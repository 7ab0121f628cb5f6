// Analysis and printing for `--sustain`: is the node's RSS flat over a sustained mixed load,
// how steep is it, and how much of the growth the chain's own growth explains.
import { fmtMin } from './log.mjs'
import { median, slope } from './stats.mjs'

/** Samples at or after this many seconds count for the verdict: 1 min, or a quarter of a run shorter than 4 min. */
export const warmupSeconds = (totalS) => Math.min(60, totalS / 4)

/**
 * The spread of `values` (MiB): { medianMiB, minMiB, maxMiB, maxDeviationPct (the largest distance from the median,
 * in % of it) }, rounded to 0.1.
 */
function spread(values) {
  const m = median(values)
  return {
    medianMiB: +m.toFixed(1),
    minMiB: +Math.min(...values).toFixed(1),
    maxMiB: +Math.max(...values).toFixed(1),
    maxDeviationPct: +Math.max(...values.map((x) => (Math.abs(x - m) / m) * 100)).toFixed(1),
  }
}

/**
 * samples: [{ t (s), rssMiB, txs (transfers mined so far), height }]; chainBytesPerTx: the JSON size of one
 * transfer's block (full) + receipt, a rough floor for the data an in-memory chain must keep per transfer.
 * Returns the verdict and the growth figures (all plain numbers, for results.json).
 */
export function analyze(samples, { totalS, flatPct = 10, chainBytesPerTx = null }) {
  const warmupS = warmupSeconds(totalS)
  const post = samples.filter((s) => s.t >= warmupS - 1e-6 && s.rssMiB != null)
  const out = {
    warmupS: +warmupS.toFixed(1),
    flatPct,
    postWarmupSamples: post.length,
    medianMiB: null,
    minMiB: null,
    maxMiB: null,
    maxDeviationPct: null,
    flat: null,
  }
  if (post.length === 0) return out
  const rss = post.map((s) => s.rssMiB)
  const med = median(rss)
  Object.assign(out, spread(rss))
  // one sample is no trend: a verdict needs at least two after the warm-up
  out.flat = post.length >= 2 ? rss.every((r) => Math.abs(r - med) <= (med * flatPct) / 100) : null
  // the same spread for each part of RSS: private memory (RssAnon) and mapped files (RssFile: the binaries and,
  // with --db, LevelDB's mapped tables, which the node bounds) — which part moved
  for (const [part, field] of [
    ['anon', 'rssAnonMiB'],
    ['file', 'rssFileMiB'],
    ['malloc', 'mallocHeapMiB'],
  ]) {
    const v = post.map((s) => s[field]).filter((x) => x != null)
    if (v.length === 0) continue
    out[part] = spread(v)
  }

  const first = post[0]
  const last = post[post.length - 1]
  const minutes = (last.t - first.t) / 60
  const k = slope(
    post.map((s) => s.t / 60),
    rss,
  )
  out.slopeMiBPerMin = k == null ? null : +k.toFixed(2)
  out.windowMin = +minutes.toFixed(2)
  out.txsInWindow = last.txs - first.txs
  out.blocksInWindow = last.height - first.height
  out.fittedGrowthMiB = k == null ? null : +(k * minutes).toFixed(1)
  // the fitted growth spread over the transfers mined meanwhile
  out.kibPerTx = k == null || out.txsInWindow <= 0 ? null : +((k * minutes * 1024) / out.txsInWindow).toFixed(2)
  if (chainBytesPerTx != null) {
    out.chainBytesPerTx = Math.round(chainBytesPerTx)
    out.chainDataMiB = +((out.txsInWindow * chainBytesPerTx) / 2 ** 20).toFixed(2)
    // how much of the fitted growth the chain data (blocks + receipts, as JSON) accounts for
    out.explainedPct =
      k == null || out.fittedGrowthMiB <= 0 ? null : Math.round((out.chainDataMiB / (k * minutes)) * 100)
  }
  return out
}

const pad = (v, w) => String(v).padStart(w)

/** The samples table and the verdict lines for one peer (array of lines). */
export function report(r) {
  const lines = []
  const warm = r.analysis?.warmupS ?? 0
  lines.push(
    `  ${'min'.padStart(5)}  ${'RSS MiB'.padStart(8)}  ${'anon'.padStart(6)}  ${'malloc'.padStart(6)}  ${'file'.padStart(6)}  ${'req/s'.padStart(7)}  ${'tx/s'.padStart(5)}  ${'height'.padStart(7)}  ${'node CPU'.padStart(8)}`,
  )
  for (const s of r.samples) {
    const mark = s.t < warm - 1e-6 ? '  (warm-up)' : ''
    lines.push(
      `  ${pad((s.t / 60).toFixed(2), 5)}  ${pad(s.rssMiB == null ? '—' : s.rssMiB.toFixed(1), 8)}  ${pad(s.rssAnonMiB ?? '—', 6)}  ${pad(s.mallocHeapMiB ?? '—', 6)}  ${pad(s.rssFileMiB ?? '—', 6)}  ${pad(s.reqPerSec == null ? '—' : s.reqPerSec.toFixed(0), 7)}  ${pad(s.txPerSec == null ? '—' : s.txPerSec.toFixed(1), 5)}  ${pad(s.height, 7)}  ${pad(s.nodeCpuPct == null ? '—' : `${s.nodeCpuPct}%`, 8)}${mark}`,
    )
  }
  const a = r.analysis
  if (!a || a.medianMiB == null) return lines
  lines.push(
    `  RSS after the ${fmtMin(a.warmupS / 60)} warm-up: median ${a.medianMiB} MiB, ${a.minMiB}–${a.maxMiB} MiB, max deviation ${a.maxDeviationPct}% (${a.postWarmupSamples} samples)`,
  )
  if (a.anon != null && a.file != null) {
    lines.push(
      `    of which private (RssAnon): median ${a.anon.medianMiB} MiB, ${a.anon.minMiB}–${a.anon.maxMiB} MiB, max deviation ${a.anon.maxDeviationPct}%; mapped files (RssFile): median ${a.file.medianMiB} MiB, ${a.file.minMiB}–${a.file.maxMiB} MiB`,
    )
  }
  if (a.malloc != null) {
    lines.push(
      `    malloc's main heap ([heap], part of RssAnon): median ${a.malloc.medianMiB} MiB, ${a.malloc.minMiB}–${a.malloc.maxMiB} MiB`,
    )
  }
  if (a.slopeMiBPerMin != null) {
    let growth = `  RSS slope ${a.slopeMiBPerMin >= 0 ? '+' : ''}${a.slopeMiBPerMin} MiB/min (least squares, ${a.fittedGrowthMiB >= 0 ? '+' : ''}${a.fittedGrowthMiB} MiB over ${a.windowMin} min) while ${a.txsInWindow} transfers were mined (${a.blocksInWindow} blocks)`
    if (a.kibPerTx != null) growth += `: ${a.kibPerTx} KiB per mined tx`
    lines.push(growth)
    if (a.chainDataMiB != null) {
      lines.push(
        `  chain data ≈ ${(a.chainBytesPerTx / 1024).toFixed(2)} KiB per transfer (JSON of its full block + receipt) → ${a.chainDataMiB} MiB in the window` +
          (a.explainedPct == null ? ' (RSS did not grow)' : `, ${a.explainedPct}% of the fitted growth`),
      )
    }
  }
  return lines
}

/** 'flat' | 'not flat' | 'no verdict' | 'invalid' (a check failed) | 'failed'. */
export function verdict(r) {
  if (r.status === 'failed') return 'failed'
  if (r.checks.some((c) => !c.ok)) return 'invalid'
  if (r.analysis?.flat == null) return 'no verdict'
  return r.analysis.flat ? 'flat' : 'not flat'
}
