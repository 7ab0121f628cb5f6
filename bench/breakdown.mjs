#!/usr/bin/env node
// Where the time of one automined transaction goes in node-cli: runs the CLI under `node --cpu-prof` while the
// bench's sequential ERC-20 transfers and plain value transfers run (one keep-alive client, each transaction sent
// with eth_sendRawTransaction and its receipt fetched, as `npm run bench` does), then attributes the samples of each
// measured window to stages (lib/breakdown-stages.mjs) and prints µs per transaction per stage. See bench/README.md
// ("`npm run bench:breakdown`"). Usage:
//
//   npm run bench:breakdown                      # build, then 1000 warm-up + 3000 measured transactions of each kind
//   npm run bench:breakdown -- --n 5000 --warmup 2000 --interval 100 --keep /tmp/prof --out /tmp/b.json
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { performance } from 'node:perf_hooks'
import { RECIPIENT, tokenTransferTx } from './lib/erc20.mjs'
import { log, step } from './lib/log.mjs'
import { NODE_CLI_KEY } from './lib/peers.mjs'
import { deployToken, devAccount, sendAndWait, start } from './lib/peer-client.mjs'
import { benchDir, root } from './lib/paths.mjs'
import { installCleanup, tempDir } from './lib/proc.mjs'
import { Rpc } from './lib/rpc.mjs'
import { machine } from './lib/results.mjs'
import { STAGE_ORDER, attribute } from './lib/breakdown-stages.mjs'

const USAGE = `usage: npm run bench:breakdown -- [--n N] [--warmup N] [--interval US] [--no-baseline] [--keep DIR] [--out FILE]
  --n N          measured transactions per workload (default 3000)
  --warmup N     transactions per workload before its measured window (default 1000)
  --interval US  the profiler's sampling interval, µs (default 250)
  --no-baseline  skip the same workload on bin/node-cli.js (the bundle) without the profiler
  --keep DIR     write the .cpuprofile there and keep it (default: a temp dir, removed)
  --out FILE     results file (default bench/results-breakdown.json)`

/** Parses argv into { n, warmup, interval, baseline, keep, out }; exits 2 on a bad option. */
function parseArgs(argv) {
  const o = {
    n: 3000,
    warmup: 1000,
    interval: 250,
    baseline: true,
    keep: null,
    out: join(benchDir, 'results-breakdown.json'),
  }
  /** @param {string} msg */
  const die = (msg) => {
    console.error(msg)
    process.exit(2)
  }
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    const val = () => argv[++i] ?? die(`${a} needs a value\n${USAGE}`)
    const num = (v) => (Number.isFinite(+v) && +v >= 1 ? Math.floor(+v) : die(`${a}: bad number`))
    if (a === '--n') o.n = num(val())
    else if (a === '--warmup') o.warmup = num(val())
    else if (a === '--interval') o.interval = num(val())
    else if (a === '--no-baseline') o.baseline = false
    else if (a === '--keep') o.keep = resolve(val())
    else if (a === '--out') o.out = resolve(val())
    else if (a === '--help' || a === '-h') {
      console.log(USAGE)
      process.exit(0)
    } else die(`unknown option ${a}\n${USAGE}`)
  }
  return o
}

/** The monotonic clock in µs: the clock of V8's profile timestamps on Linux (CLOCK_MONOTONIC). */
const nowUs = () => Number(process.hrtime.bigint() / 1000n)

/** A node-cli "peer" for lib/peer-client.mjs: `script` (the bundle's launcher or tsc's entry) with node flags. */
const nodeCli = (script, nodeArgs) => ({
  name: 'node-cli',
  key: NODE_CLI_KEY,
  gasPrice: 'zero',
  maxEvm: 'cancun',
  command: (port) => ({
    cmd: process.execPath,
    args: [...nodeArgs, script, '--host', '127.0.0.1', '--port', String(port), '--silent'],
    cwd: root,
  }),
})

/** Plain value transfer: 1 wei to one address, gas 21 000 (type 0). */
const PLAIN_TO = '0x00000000000000000000000000000000000be4c6'

/**
 * Runs the two workloads on a started node: deploy, then per workload `warmup` + `n` sequential transactions.
 * Returns { erc20, plain }: each { fromUs, toUs (the measured window, monotonic µs), tps, polls }.
 */
async function workloads(inst, peer, { n, warmup }) {
  const rpc = new Rpc(inst.url, { timeoutMs: 60_000 })
  try {
    const { wallet, chainId, gasPrice } = await devAccount(peer, rpc)
    const { token } = await deployToken(peer, rpc, { wallet, chainId, gasPrice })
    let nonce = Number(BigInt(await rpc.call('eth_getTransactionCount', [wallet.address, 'latest'])))
    const kinds = {
      erc20: (i) => tokenTransferTx({ chainId, nonce: nonce++, gasPrice, token, to: RECIPIENT, amount: BigInt(i + 1) }),
      plain: () => ({ type: 0, chainId, nonce: nonce++, gasPrice, gasLimit: 21_000n, to: PLAIN_TO, value: 1n }),
    }
    const out = {}
    for (const [kind, make] of Object.entries(kinds)) {
      const raws = []
      for (let i = 0; i < warmup + n; i++) raws.push(await wallet.signTransaction(make(i)))
      let polls = 0
      for (let i = 0; i < warmup; i++) polls += (await sendAndWait(rpc, raws[i])).polls
      const fromUs = nowUs()
      const t0 = performance.now()
      for (let i = warmup; i < warmup + n; i++) {
        const r = await sendAndWait(rpc, raws[i])
        if (r.receipt.status !== '0x1') throw new Error(`${kind} #${i}: receipt status ${r.receipt.status}`)
        polls += r.polls
      }
      const secs = (performance.now() - t0) / 1000
      out[kind] = { fromUs, toUs: nowUs(), tps: n / secs, polls }
      step(`${kind}: ${n} transactions in ${secs.toFixed(2)} s → ${(n / secs).toFixed(1)} tx/s`)
    }
    return out
  } finally {
    rpc.close()
  }
}

const opts = parseArgs(process.argv.slice(2))
installCleanup()
log(
  `node-cli automined-path breakdown: ${opts.warmup} warm-up + ${opts.n} measured transactions per workload, sampling every ${opts.interval} µs`,
)
const m = machine()
log(
  `machine: ${m.cpus} × ${m.cpuModel}, Node ${m.node}, load average ${m.loadAverageAtEnd.map((x) => x.toFixed(2)).join(' ')}`,
)

const ctx = { instance: null }
let baseline = null
if (opts.baseline) {
  log('\n== bin/node-cli.js (the bundle), no profiler')
  const inst = await start(nodeCli(join(root, 'bin', 'node-cli.js'), []), ctx)
  try {
    baseline = await workloads(inst, nodeCli('', []), opts)
  } finally {
    await inst.stop()
  }
}

log('\n== dist/cli/main.js (tsc output) under --cpu-prof')
const profDir = opts.keep ?? tempDir('node-cli-breakdown-')
const profArgs = ['--cpu-prof', '--cpu-prof-dir', profDir, '--cpu-prof-interval', String(opts.interval)]
mkdirSync(profDir, { recursive: true })
const before = new Set(readdirSync(profDir))
const spawnUs = nowUs()
const inst = await start(nodeCli(join(benchDir, 'lib', 'breakdown-entry.mjs'), profArgs), ctx)
const readyUs = nowUs()
let windows
try {
  windows = await workloads(inst, nodeCli('', []), opts)
} finally {
  await inst.stop(30_000) // SIGTERM: the CLI exits, Node writes the profile
}
const file = readdirSync(profDir).find((f) => f.endsWith('.cpuprofile') && !before.has(f))
if (!file) throw new Error(`no .cpuprofile in ${profDir} (${inst.tail()})`)
const profile = JSON.parse(readFileSync(join(profDir, file), 'utf8'))
// V8 stamps samples with the same monotonic clock as process.hrtime: the profile starts between spawn and ready
if (!(profile.startTime >= spawnUs && profile.startTime <= readyUs))
  throw new Error(
    `the profile's clock does not match ours: start ${profile.startTime} µs not in [${spawnUs}, ${readyUs}]`,
  )

const report = {}
for (const [kind, w] of Object.entries(windows)) {
  const a = attribute(profile, { root, fromUs: w.fromUs, toUs: w.toUs })
  const perTx = 1e6 / w.tps
  // per transaction: the window's wall time shared by the stages' sample time (samples cover ~all of it)
  const scale = perTx / a.totalUs
  report[kind] = {
    tps: +w.tps.toFixed(1),
    baselineTps: baseline ? +baseline[kind].tps.toFixed(1) : null,
    usPerTx: +perTx.toFixed(1),
    samples: a.samples,
    sampledShareOfWall: +(a.totalUs / (w.toUs - w.fromUs)).toFixed(3),
    stages: Object.fromEntries(
      STAGE_ORDER.map((s) => [
        s,
        { usPerTx: +(a.byStage[s] * scale).toFixed(1), pct: +((100 * a.byStage[s]) / a.totalUs).toFixed(1) },
      ]),
    ),
    top: a.top,
  }
}

const kinds = Object.keys(report)
log('')
log(`${'stage'.padEnd(36)}${kinds.map((k) => `${k} µs/tx`.padStart(14) + 'share'.padStart(8)).join('')}`)
for (const s of STAGE_ORDER)
  log(
    `${s.padEnd(36)}${kinds.map((k) => report[k].stages[s].usPerTx.toFixed(1).padStart(14) + `${report[k].stages[s].pct.toFixed(1)}%`.padStart(8)).join('')}`,
  )
log(
  `${'total = 1e6 / tx/s'.padEnd(36)}${kinds.map((k) => report[k].usPerTx.toFixed(1).padStart(14) + ''.padStart(8)).join('')}`,
)
log(
  `${'tx/s under the profiler'.padEnd(36)}${kinds.map((k) => String(report[k].tps).padStart(14) + ''.padStart(8)).join('')}`,
)
if (baseline)
  log(
    `${'tx/s bundle, no profiler'.padEnd(36)}${kinds.map((k) => String(report[k].baselineTps).padStart(14) + ''.padStart(8)).join('')}`,
  )
log('\ntop self time per stage (first workload):')
for (const s of STAGE_ORDER) {
  const t = report[kinds[0]].top[s]
  if (t) log(`  ${s}: ${t.map(([f, us]) => `${f} ${(us / 1000).toFixed(0)} ms`).join('; ')}`)
}
writeFileSync(
  opts.out,
  JSON.stringify(
    {
      date: new Date().toISOString(),
      machine: machine(),
      options: opts,
      profile: opts.keep ? join(profDir, file) : null,
      report,
    },
    null,
    2,
  ) + '\n',
)
log(`\nresults in ${opts.out}`)
process.exit(0)
