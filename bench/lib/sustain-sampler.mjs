// The sampler of --sustain: what is read from /proc about the node at each tick (every 15 s and at each window's
// end) — RSS and its parts, CPU of the whole process and of its main thread — and the rates since the last tick.
import { performance } from 'node:perf_hooks'
import { cpuSeconds, mainThreadCpuSeconds, peakRssMiB, residentByKind, rssMiB, rssPartsMiB } from './proc.mjs'

/**
 * RssAnon and RssFile of `pid` and the resident size of malloc's main heap (`brk` of residentByKind) in MiB,
 * rounded; with the environment's SUSTAIN_SMAPS also the whole split by kind of mapping (`resident`, bytes).
 */
function rssParts(pid) {
  const p = rssPartsMiB(pid)
  let resident = null
  try {
    resident = residentByKind(pid)
  } catch {
    // the process is gone: the sample keeps nulls
  }
  return {
    rssAnonMiB: p.anon == null ? null : +p.anon.toFixed(1),
    rssFileMiB: p.file == null ? null : +p.file.toFixed(1),
    mallocHeapMiB: resident == null ? null : +(resident.brk / 2 ** 20).toFixed(1),
    ...(process.env.SUSTAIN_SMAPS && resident != null ? { resident } : {}),
  }
}

/**
 * One tick at `t` seconds into the load, for the node `pid`. `counts`: the load's counters — reads (correct answers
 * so far), txs (transfers of the load so far), txsTotal (with the seeded ones), height; `prev`: the previous
 * tick's mark, or null. Returns { sample — the record kept in `samples` (RSS, its parts, req/s and tx/s since the
 * last tick, the node's CPU in %), mark — the cumulative counters for the next tick and for
 * WindowRecorder.close: { t, wall, reads, txs, height, cpu (s, all threads), mainCpu (s, its main thread), rssMiB, peakMiB } }.
 */
export function takeSample(pid, t, counts, prev) {
  const wall = performance.now()
  const cpu = cpuSeconds(pid)
  const mark = {
    t,
    wall,
    reads: counts.reads,
    txs: counts.txs,
    height: counts.height,
    cpu,
    mainCpu: mainThreadCpuSeconds(pid),
    rssMiB: rssMiB(pid),
    peakMiB: peakRssMiB(pid),
  }
  const dt = prev ? (wall - prev.wall) / 1000 : null
  const sample = {
    t,
    minute: +(t / 60).toFixed(2),
    rssMiB: mark.rssMiB,
    peakMiB: mark.peakMiB,
    ...rssParts(pid),
    reqPerSec: prev ? +((counts.reads - prev.reads) / dt).toFixed(1) : null,
    txPerSec: prev ? +((counts.txs - prev.txs) / dt).toFixed(1) : null,
    height: counts.height,
    txs: counts.txsTotal,
    nodeCpuPct: prev && cpu != null && prev.cpu != null ? Math.round(((cpu - prev.cpu) / dt) * 100) : null,
  }
  return { sample, mark }
}

/** The progress line of one sample. */
export function sampleLine(s) {
  return (
    `${(s.t / 60).toFixed(2).padStart(5)} min: RSS ${s.rssMiB?.toFixed(1)} MiB (anon ${s.rssAnonMiB} of which malloc ${s.mallocHeapMiB}, file ${s.rssFileMiB})` +
    (s.t > 0 ? `, ${s.reqPerSec.toFixed(0)} req/s, ${s.txPerSec.toFixed(1)} tx/s, node CPU ${s.nodeCpuPct}%` : '') +
    `, height ${s.height}`
  )
}
