// The results file (bench/results.json by default): the machine, the options, every peer's figures, checks and
// details, the ratios, node-cli's targets, and the extra rows (--long, --sustain, --restart, --memory, --fork;
// null when not run).
import { writeFileSync } from 'node:fs'
import { cpus, loadavg, release, totalmem } from 'node:os'
import { METRICS, ratio } from './metrics.mjs'
import { benchRequire } from './paths.mjs'

/** The machine the run used (CPU count and model, memory in GiB, Node, kernel, load average now). */
export function machine() {
  return {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model,
    memGiB: +(totalmem() / 2 ** 30).toFixed(1),
    node: process.version,
    kernel: release(),
    loadAverageAtEnd: loadavg(),
  }
}

/**
 * Writes the results as JSON (bigints as decimal strings) to `file`.
 * @param {string} file
 * @param {{ opts: Record<string, any>, sustainPeers: string[], results: any[], targets: any[], long: any, sustain: any, restart: any, memory: any, fork: any, elapsedS: number, ok: boolean }} r
 */
export function writeResults(
  file,
  { opts, sustainPeers, results, targets, long, sustain, restart, memory, fork, elapsedS, ok },
) {
  writeFileSync(
    file,
    JSON.stringify(
      {
        date: new Date().toISOString(),
        machine: machine(),
        options: {
          quick: opts.quick,
          n: opts.n,
          transferWarmup: opts.transferWarmup,
          durationS: opts.duration,
          warmupS: opts.warmup,
          connections: opts.connections,
          only: opts.only,
          sustainMin: opts.sustain,
          sustainPeers,
          sustainTps: opts.sustainTps,
          main: opts.main,
          restartBlocks: opts.restart ? opts.restartBlocks : null,
          memoryBlocks: opts.memory ? opts.memoryBlocks : null,
          forkLatencyMs: opts.fork ? opts.forkLatencyMs : null,
          forkTransfers: opts.fork ? opts.forkTransfers : null,
        },
        autocannon: benchRequire('autocannon/package.json').version,
        metrics: Object.fromEntries(METRICS.map(([k, label, unit, dir]) => [k, { label, unit, better: dir }])),
        peers: results,
        ratios: Object.fromEntries(
          METRICS.map(([k]) => [
            k,
            Object.fromEntries(
              results.filter((r) => r.name !== 'node-cli').map((r) => [r.name, ratio(results, k, r.name)]),
            ),
          ]),
        ),
        targets,
        long,
        sustain,
        restart,
        memory,
        fork,
        elapsedS: +elapsedS.toFixed(1),
        ok,
      },
      (_k, v) => (typeof v === 'bigint' ? v.toString() : v),
      2,
    ) + '\n',
  )
}
