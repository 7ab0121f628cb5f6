// Per-window figures of --sustain: windows of one minute (a quarter of the run when it is shorter than 4
// minutes, the same span as the verdict's warm-up), each with the node's RSS and peak RSS at its end, the blocks
// mined, transfers and reads per second, and p50/p99 latency of the reads and of the transfers; and the derived
// growth figures: RSS bytes per block after the first window, and the last window against the first.
import { performance } from 'node:perf_hooks'
import { warmupSeconds } from './sustain-analysis.mjs'
import { fittedChange, quantile, slope } from './stats.mjs'

const MiB = 2 ** 20

/** Window length in seconds for a run of `totalS` seconds: 60, or a quarter of a run shorter than 4 minutes. */
export const windowSeconds = (totalS) => warmupSeconds(totalS)

const ms = (x) => (x == null ? null : +x.toFixed(2))

/**
 * Collects the latencies of one sustained run by window (by the time each answer arrived) and turns two
 * cumulative marks into a window record.
 */
export class WindowRecorder {
  /**
   * @param {number} t0 performance.now() at the start of the load @param {number} totalS run length (s)
   * @param {{ cpuMsBetween(from: number, to: number): number | null } | null} canary the machine-speed canary
   *   (./canary.mjs), or null
   */
  constructor(t0, totalS, canary = null) {
    this.t0 = t0
    this.canary = canary
    this.totalS = totalS
    this.W = windowSeconds(totalS)
    this.n = Math.max(1, Math.ceil(totalS / this.W - 1e-9))
    /** @type {number[][]} */
    this.reads = Array.from({ length: this.n }, () => [])
    /** @type {number[][]} */
    this.txs = Array.from({ length: this.n }, () => [])
  }

  /** The window of the current time. */
  index() {
    return Math.min(this.n - 1, Math.max(0, Math.floor((performance.now() - this.t0) / 1000 / this.W)))
  }

  /** A read answered now after `latencyMs`. */
  read(latencyMs) {
    this.reads[this.index()].push(latencyMs)
  }

  /** A transfer whose receipt arrived now, `latencyMs` after it was sent. */
  tx(latencyMs) {
    this.txs[this.index()].push(latencyMs)
  }

  /** The windows' end times (s): W, 2W, …, and the run's end. */
  boundaries() {
    const b = []
    for (let k = 1; k < this.n; k++) b.push(Math.round(k * this.W * 1000) / 1000)
    b.push(this.totalS)
    return b
  }

  /**
   * Window `k` from the cumulative marks `a` (its start) and `b` (its end), each { t (s), wall (ms), reads (correct
   * answers so far), txs (transfers so far), height, cpu (node CPU s, all threads), mainCpu (its main thread's),
   * rssMiB, peakMiB }. Frees its latencies. Besides the rates and percentiles: mainCpuMsPerKReq — the main thread's
   * CPU time per 1 000 reads (ms; it also mines the transfers and answers eth_getLogs, a steady share); canaryCpuMs
   * — the median CPU time of the canary's fixed work in the window (./canary.mjs); readCost — the first divided by
   * the second: the main thread's work per 1 000 reads in runs of the fixed work, which a change of the machine's
   * speed does not move.
   */
  close(k, a, b) {
    const dt = (b.wall - a.wall) / 1000
    const reqPerSec = (b.reads - a.reads) / dt
    const mainCpuPct = a.mainCpu != null && b.mainCpu != null ? ((b.mainCpu - a.mainCpu) / dt) * 100 : null
    const mainCpuMsPerKReq = mainCpuPct == null || reqPerSec <= 0 ? null : (mainCpuPct * 10_000) / reqPerSec
    const canaryCpuMs = this.canary ? this.canary.cpuMsBetween(a.wall, b.wall) : null
    const w = {
      window: k + 1,
      fromS: a.t,
      toS: b.t,
      rssMiB: b.rssMiB == null ? null : +b.rssMiB.toFixed(1),
      peakRssMiB: b.peakMiB == null ? null : +b.peakMiB.toFixed(1),
      // not exposed by the CLI; the --memory row measures the heap through the library API
      heapUsedMiB: null,
      height: b.height,
      blocks: b.height - a.height,
      txPerSec: +((b.txs - a.txs) / dt).toFixed(2),
      reqPerSec: +reqPerSec.toFixed(1),
      readP50Ms: ms(quantile(this.reads[k], 0.5)),
      readP99Ms: ms(quantile(this.reads[k], 0.99)),
      txP50Ms: ms(quantile(this.txs[k], 0.5)),
      txP99Ms: ms(quantile(this.txs[k], 0.99)),
      nodeCpuPct: a.cpu != null && b.cpu != null ? Math.round(((b.cpu - a.cpu) / dt) * 100) : null,
      mainCpuPct: mainCpuPct == null ? null : Math.round(mainCpuPct),
      mainCpuMsPerKReq: mainCpuMsPerKReq == null ? null : +mainCpuMsPerKReq.toFixed(1),
      canaryCpuMs,
      readCost: mainCpuMsPerKReq == null || !canaryCpuMs ? null : +(mainCpuMsPerKReq / canaryCpuMs).toFixed(2),
    }
    this.reads[k] = []
    this.txs[k] = []
    return w
  }
}

const pct = (a, b) => (a == null || b == null || a === 0 ? null : +(((b - a) / a) * 100).toFixed(1))

/**
 * The derived figures of a run from its windows and samples ([{ t, rssMiB, height }]):
 * rssBytesPerBlock — RSS growth from the end of the first window to the last sample ÷ the blocks mined meanwhile;
 * rssBytesPerBlockFit — the least-squares slope of RSS (bytes) over the height across those samples;
 * rssAnonBytesPerBlock, rssFileBytesPerBlock — the same end-point growth of its two parts (RssAnon: private memory;
 * RssFile: mapped files such as LevelDB's tables, which the kernel can drop) and mallocHeapBytesPerBlock, that of
 * malloc's main heap (`[heap]`, part of RssAnon);
 * firstVsLast — the last window against the first in % (txPerSec, reqPerSec, read and transfer p50/p99);
 * fittedTrend — the same change read off a least-squares line through every window (the line's value at the last
 * window against its value at the first, in %) with each series' spread around that line (residual standard
 * deviation in % of its mean): one window's rate or p99 swings with the machine, the line over all of them much less;
 * also of the main thread's CPU per 1 000 reads, of the canary's CPU time and of their ratio (`readCost`, see
 * WindowRecorder.close): requests per second falling with readCost flat is the machine slowing, not the node.
 */
export function windowGrowth(windows, samples, totalS) {
  const W = windowSeconds(totalS)
  const post = samples.filter((s) => s.t >= W - 1e-6 && s.rssMiB != null)
  const out = {
    afterS: +W.toFixed(1),
    blocks: null,
    rssBytesPerBlock: null,
    rssBytesPerBlockFit: null,
    rssAnonBytesPerBlock: null,
    rssFileBytesPerBlock: null,
    mallocHeapBytesPerBlock: null,
    firstVsLast: null,
    fittedTrend: null,
  }
  if (post.length >= 2) {
    const first = post[0]
    const last = post[post.length - 1]
    out.blocks = last.height - first.height
    if (out.blocks > 0) {
      const per = (a, b) => (a == null || b == null ? null : Math.round(((b - a) * MiB) / out.blocks))
      out.rssBytesPerBlock = per(first.rssMiB, last.rssMiB)
      out.rssAnonBytesPerBlock = per(first.rssAnonMiB, last.rssAnonMiB)
      out.rssFileBytesPerBlock = per(first.rssFileMiB, last.rssFileMiB)
      out.mallocHeapBytesPerBlock = per(first.mallocHeapMiB, last.mallocHeapMiB)
    }
    const k = slope(
      post.map((s) => s.height),
      post.map((s) => s.rssMiB * MiB),
    )
    out.rssBytesPerBlockFit = k == null ? null : Math.round(k)
  }
  if (windows.length >= 2) {
    const f = windows[0]
    const l = windows[windows.length - 1]
    out.firstVsLast = {
      txPerSecPct: pct(f.txPerSec, l.txPerSec),
      reqPerSecPct: pct(f.reqPerSec, l.reqPerSec),
      readP50Pct: pct(f.readP50Ms, l.readP50Ms),
      readP99Pct: pct(f.readP99Ms, l.readP99Ms),
      txP50Pct: pct(f.txP50Ms, l.txP50Ms),
      txP99Pct: pct(f.txP99Ms, l.txP99Ms),
    }
  }
  if (windows.length >= 3)
    out.fittedTrend = {
      reqPerSec: fittedChange(windows.map((w) => w.reqPerSec)),
      readP99: fittedChange(windows.map((w) => w.readP99Ms)),
      txP99: fittedChange(windows.map((w) => w.txP99Ms)),
      mainCpuPerKReq: fittedChange(windows.map((w) => w.mainCpuMsPerKReq)),
      canaryCpuMs: fittedChange(windows.map((w) => w.canaryCpuMs)),
      readCost: fittedChange(windows.map((w) => w.readCost)),
    }
  return out
}

const pad = (v, w) => String(v ?? '—').padStart(w)
const signed = (x) => (x == null ? '—' : `${x >= 0 ? '+' : ''}${x}%`)

/** The per-window table and the growth lines of one run (array of lines). */
export function windowReport(r) {
  const lines = []
  if (!r.windows?.length) return lines
  const unit = r.windowS === 60 ? 'minute' : `${r.windowS} s`
  lines.push(`  per ${unit} (values at the end of each; blocks mined, rates and latency percentiles within it):`)
  lines.push(
    "  (main: the node's main thread's CPU; ms/kreq: its CPU ms per 1 000 reads; canary: CPU ms of the canary's fixed work; cost: ms/kreq ÷ canary)",
  )
  lines.push(
    `  ${'min'.padStart(5)}  ${'RSS MiB'.padStart(8)}  ${'VmHWM'.padStart(7)}  ${'blocks'.padStart(6)}  ${'height'.padStart(7)}  ${'tx/s'.padStart(6)}  ${'req/s'.padStart(6)}  ${'read p50/p99 ms'.padStart(16)}  ${'tx p50/p99 ms'.padStart(16)}  ${'node CPU'.padStart(8)}  ${'main'.padStart(5)}  ${'ms/kreq'.padStart(7)}  ${'canary'.padStart(6)}  ${'cost'.padStart(5)}`,
  )
  const p50p99 = (a, b) => `${a == null ? '—' : a.toFixed(1)} / ${b == null ? '—' : b.toFixed(1)}`
  for (const w of r.windows) {
    lines.push(
      `  ${pad((w.toS / 60).toFixed(2), 5)}  ${pad(w.rssMiB?.toFixed(1), 8)}  ${pad(w.peakRssMiB?.toFixed(1), 7)}  ${pad(w.blocks, 6)}  ${pad(w.height, 7)}  ${pad(w.txPerSec?.toFixed(1), 6)}  ${pad(w.reqPerSec?.toFixed(0), 6)}  ${pad(p50p99(w.readP50Ms, w.readP99Ms), 16)}  ${pad(p50p99(w.txP50Ms, w.txP99Ms), 16)}  ${pad(w.nodeCpuPct == null ? null : `${w.nodeCpuPct}%`, 8)}  ${pad(w.mainCpuPct == null ? null : `${w.mainCpuPct}%`, 5)}  ${pad(w.mainCpuMsPerKReq?.toFixed(0), 7)}  ${pad(w.canaryCpuMs?.toFixed(1), 6)}  ${pad(w.readCost?.toFixed(1), 5)}`,
    )
  }
  const g = r.growth
  if (g) {
    lines.push(
      `  RSS growth after the first ${unit}: ${g.rssBytesPerBlock ?? '—'} bytes/block (end points; least squares ${g.rssBytesPerBlockFit ?? '—'} bytes/block) over ${g.blocks ?? '—'} blocks (RssAnon ${g.rssAnonBytesPerBlock ?? '—'} of which malloc heap ${g.mallocHeapBytesPerBlock ?? '—'}, RssFile ${g.rssFileBytesPerBlock ?? '—'} bytes/block); heap used: not exposed by the CLI (see --memory)`,
    )
    const f = g.firstVsLast
    if (f)
      lines.push(
        `  last vs first ${unit}: tx/s ${signed(f.txPerSecPct)}, req/s ${signed(f.reqPerSecPct)}, read p99 ${signed(f.readP99Pct)} (p50 ${signed(f.readP50Pct)}), transfer p99 ${signed(f.txP99Pct)} (p50 ${signed(f.txP50Pct)})`,
      )
    const t = g.fittedTrend
    const trend = (x) => (x == null ? '—' : `${signed(x.pct)} (spread ±${x.spreadPct}%)`)
    if (t)
      lines.push(
        `  fitted line through every ${unit}, last vs first: req/s ${trend(t.reqPerSec)}, read p99 ${trend(t.readP99)}, transfer p99 ${trend(t.txP99)}`,
        `    main thread's CPU per 1 000 reads ${trend(t.mainCpuPerKReq)}; the canary's CPU per run (machine speed, lower is faster) ${trend(t.canaryCpuMs)}; their ratio, the work per read ${trend(t.readCost)}`,
      )
  }
  if (r.dbBytes != null)
    lines.push(`  --db directory at the end: ${(r.dbBytes / MiB).toFixed(1)} MiB (${r.dbBytesPerBlock} bytes/block)`)
  return lines
}
