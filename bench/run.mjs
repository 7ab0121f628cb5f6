#!/usr/bin/env node
// node-cli side-by-side benchmark: node-cli vs Anvil, Hardhat node and Ganache.
// See bench/README.md. Usage:
//
//   npm run bench                       # all peers, N=2000 transfers, 5 s per load test
//   npm run bench -- --quick            # smoke run: N=500, 2 s per load test, no warm-up
//   npm run bench -- --only node-cli,anvil
//   npm run bench -- --long             # + 100k-transfer memory-growth run on node-cli
//   npm run bench -- --sustain 10       # + 10 min sustained mixed load on node-cli (in memory, then --db)
//   npm run bench -- --restart          # only the restart row: 100k blocks with --db, restart time, kill -9
//   npm run bench -- --memory           # only the memory-per-block row (5 000 and 25 000 blocks)
//   npm run bench -- --fork             # only the forking row: node-cli and Anvil forking a node-cli upstream
//
// The peers and the load client live in bench/package.json (exact pins) and are
// installed on first use with `npm ci --prefix bench`.
//
// This file only orchestrates: options (lib/options.mjs), the main run per peer (lib/workload.mjs), the extra
// rows (lib/long.mjs, lib/sustain.mjs, lib/restart.mjs, lib/memory.mjs, lib/fork.mjs), the table (lib/table.mjs) and the
// results file (lib/results.mjs).
import { cpus, loadavg, totalmem, release } from 'node:os'
import { performance } from 'node:perf_hooks'
import { ensureBenchDeps } from './lib/deps.mjs'
import { die, parseArgs } from './lib/options.mjs'

const opts = parseArgs(process.argv.slice(2))
ensureBenchDeps()

// after ensureBenchDeps: these load autocannon and the peers from bench/node_modules
const { installCleanup } = await import('./lib/proc.mjs')
const { benchDir, benchRequire, root, rootRequire } = await import('./lib/paths.mjs')
const { definePeers, JUNK_MNEMONIC } = await import('./lib/peers.mjs')
const { log, fmtMin } = await import('./lib/log.mjs')
const { runPeer } = await import('./lib/workload.mjs')
const { runLong, printLong } = await import('./lib/long.mjs')
const { runSustain, SUSTAIN_SAMPLE_S, SUSTAIN_FLAT_PCT } = await import('./lib/sustain.mjs')
const { printSustain } = await import('./lib/sustain-report.mjs')
const { runRestart, printRestart } = await import('./lib/restart.mjs')
const { runMemory, printMemory } = await import('./lib/memory.mjs')
const { FORK_PEERS, runFork } = await import('./lib/fork.mjs')
const { printFork } = await import('./lib/fork-report.mjs')
const { evaluateTargets } = await import('./lib/metrics.mjs')
const { printTable, printTargets } = await import('./lib/table.mjs')
const { writeResults } = await import('./lib/results.mjs')
installCleanup()

const { HDNodeWallet } = rootRequire('ethers')
const junkKey = HDNodeWallet.fromPhrase(JUNK_MNEMONIC, undefined, "m/44'/60'/0'/0/0").privateKey

// ---------------------------------------------------------------- which peers
const PEERS = definePeers({ root, benchDir, benchRequire, junkKey, cpuProf: opts.cpuProf })
const NAMES = PEERS.map((p) => p.name)
if (opts.only) {
  const bad = opts.only.filter((n) => !NAMES.includes(n))
  if (bad.length) die(`--only: unknown peer(s) ${bad.join(', ')} (known: ${NAMES.join(', ')})`)
}
const selected = opts.main ? PEERS.filter((p) => !opts.only || opts.only.includes(p.name)) : []
{
  const bad = opts.sustainPeers.filter((n) => !NAMES.includes(n))
  if (bad.length) die(`--sustain-peers: unknown peer(s) ${bad.join(', ')} (known: ${NAMES.join(', ')})`)
}
// node-cli always (in memory and/or with --db, as --sustain-db says), then the --sustain-peers in the usual order
const nodeCli = PEERS.find((p) => p.name === 'node-cli')
/** @type {Array<{ peer: Record<string, any>, db: boolean }>} */
const sustainRuns = []
if (opts.sustain != null) {
  if (opts.sustainDb !== 'only') sustainRuns.push({ peer: nodeCli, db: false })
  if (opts.sustainDb !== 'off') sustainRuns.push({ peer: nodeCli, db: true })
  for (const p of PEERS)
    if (p !== nodeCli && opts.sustainPeers.includes(p.name)) sustainRuns.push({ peer: p, db: false })
}
const sustainNames = sustainRuns.map((x) => (x.db ? `${x.peer.name} --db` : x.peer.name))

// ---------------------------------------------------------------- run
const t0 = performance.now()
if (opts.main)
  log(
    `node-cli bench: ${selected.map((p) => p.name).join(', ')} — N=${opts.n} transfers after ${opts.transferWarmup} warm-up ones, ${opts.duration} s per load test${opts.warmup ? ` (+${opts.warmup} s warm-up)` : ''}, ${opts.connections} connections${opts.quick ? ' [quick]' : ''}`,
  )
else
  log(
    `node-cli bench: no main run; ${[opts.long && '--long', opts.sustain != null && '--sustain', opts.restart && '--restart', opts.memory && '--memory', opts.fork && '--fork'].filter(Boolean).join(', ') || 'nothing to run'}`,
  )
if (sustainRuns.length)
  log(
    `${opts.main ? 'then ' : ''}--sustain: ${fmtMin(opts.sustain)} of sustained load on each of ${sustainNames.join(', ')} (${opts.sustainTps} transfers/s)`,
  )
log(
  `machine: ${cpus().length} × ${cpus()[0]?.model ?? '?'}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, Node ${process.version}, Linux ${release()}, load average ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}`,
)
const results = []
for (const peer of selected) results.push(await runPeer(peer, opts))
let long = null
if (opts.long) {
  const nc = PEERS.find((p) => p.name === 'node-cli')
  long = nc.unavailable() ? { error: nc.unavailable() } : await runLong(nc, opts)
}
let sustain = null
if (sustainRuns.length) {
  sustain = {
    minutes: opts.sustain,
    targetTps: opts.sustainTps,
    connections: opts.connections,
    sampleEveryS: SUSTAIN_SAMPLE_S,
    flatPct: SUSTAIN_FLAT_PCT,
    peers: [],
  }
  for (const { peer, db } of sustainRuns) sustain.peers.push(await runSustain(peer, opts, { db }))
}
const restart = opts.restart ? await runRestart(nodeCli, opts) : null
const memory = opts.memory ? await runMemory(nodeCli, opts) : null
const forkPeers = PEERS.filter((p) => FORK_PEERS.includes(p.name) && (!opts.only || opts.only.includes(p.name)))
const fork = opts.fork ? await runFork(nodeCli, forkPeers, opts) : null

// ---------------------------------------------------------------- report
if (results.length) printTable(results)
const targets = results.some((r) => r.name === 'node-cli') ? evaluateTargets(results) : []
if (targets.length) printTargets(targets)
if (long) printLong(long, opts)
if (sustain) printSustain(sustain)
if (restart) printRestart(restart)
if (memory) printMemory(memory)
if (fork) printFork(fork)
const elapsed = (performance.now() - t0) / 1000
log(`\ntotal ${elapsed.toFixed(0)} s; results in ${opts.out}`)

const anyFail =
  results.some((r) => r.status === 'failed' || r.checks.some((c) => !c.ok)) ||
  (long && (long.error || long.checks?.some((c) => !c.ok))) ||
  (sustain && sustain.peers.some((r) => r.status === 'failed' || r.checks.some((c) => !c.ok))) ||
  [restart, memory, fork].some((r) => r && (r.status === 'failed' || r.checks.some((c) => !c.ok)))
writeResults(opts.out, {
  opts,
  sustainPeers: sustainNames,
  results,
  targets,
  long,
  sustain,
  restart,
  memory,
  fork,
  elapsedS: elapsed,
  ok: !anyFail,
})
process.exit(anyFail ? 1 : 0)
