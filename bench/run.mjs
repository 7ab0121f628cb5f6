#!/usr/bin/env node
// node-cli side-by-side benchmark: node-cli vs Anvil, Hardhat node and Ganache.
// See bench/README.md. Usage:
//
//   npm run bench                       # all peers, N=2000 transfers, 5 s per load test
//   npm run bench -- --quick            # smoke run: N=500, 2 s per load test, no warm-up
//   npm run bench -- --only node-cli,anvil
//   npm run bench -- --long             # + 100k-transfer memory-growth run on node-cli
//   npm run bench -- --sustain 10       # + 10 min sustained mixed load on node-cli, RSS every 15 s
//
// The peers and the load client live in bench/package.json (exact pins) and are
// installed on first use with `npm ci --prefix bench`.
import { spawnSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { cpus, loadavg, totalmem, release } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'

const benchDir = dirname(fileURLToPath(import.meta.url))
const root = resolve(benchDir, '..')

// ---------------------------------------------------------------- options
const USAGE = `usage: npm run bench -- [--quick] [--long] [--sustain [MIN]] [--only a,b] [--n N] [--duration S] [--connections C]
  --only LIST        peers to run, from: node-cli, anvil, hardhat, ganache (default: all)
  --quick            smoke run: N=500 transfers, 2 s per load test, no warm-up
  --long             also run 100k transfers on node-cli, RSS every 10k (several minutes)
  --long-n N         transfers for --long (default 100000; RSS sampled every N/10)
  --sustain [MIN]    after the main run, MIN minutes (default 10) of sustained mixed load on a fresh
                     node-cli: reads from --connections clients + a steady stream of ERC-20 transfers;
                     RSS, req/s and chain height every 15 s, and a verdict: flat = every sample after
                     the warm-up (1 min; a quarter of the run when shorter than 4 min) within ±10% of their median
  --sustain-peers L  also run the sustained load on these peers (e.g. anvil,hardhat); implies --sustain
  --sustain-tps R    transfer rate of the sustained load, tx/s (default 20)
  --n N              sequential transfers per peer (default 2000; 500 with --quick)
  --duration S       seconds per load test (default 5; 2 with --quick)
  --connections C    concurrent keep-alive connections for the load tests (default 16)
  --out FILE         results file (default bench/results.json)
  --trace            only the tracing row: debug_traceTransaction of an ERC-20 transfer (callTracer, struct logs)`

function parseArgs(argv) {
  const o = { quick: false, long: false, longN: 100_000, sustain: null, sustainPeers: [], sustainTps: 20, only: null, n: null, duration: null, connections: 16, out: join(benchDir, 'results.json') }
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    const val = () => {
      const v = a.includes('=') ? a.slice(a.indexOf('=') + 1) : argv[++i]
      if (v === undefined) die(`${a} needs a value\n${USAGE}`)
      return v
    }
    const num = (v, min) => {
      const n = Number(v)
      if (!Number.isFinite(n) || n < min) die(`${a}: expected a number >= ${min}`)
      return n
    }
    const flag = a.split('=')[0]
    if (flag === '--quick') o.quick = true
    else if (flag === '--long') o.long = true
    else if (flag === '--long-n') o.longN = Math.max(10, Math.floor(num(val(), 10)))
    else if (flag === '--sustain') {
      // optional value: `--sustain`, `--sustain 5`, `--sustain=0.5`
      const next = argv[i + 1]
      if (a.includes('=')) o.sustain = num(val(), 0.1)
      else if (next !== undefined && !next.startsWith('--')) o.sustain = num(argv[++i], 0.1)
      else o.sustain = 10
    } else if (flag === '--sustain-peers') o.sustainPeers = val().split(',').map((s) => s.trim()).filter(Boolean)
    else if (flag === '--sustain-tps') o.sustainTps = num(val(), 0.1)
    else if (flag === '--only') o.only = val().split(',').map((s) => s.trim()).filter(Boolean)
    else if (flag === '--n') o.n = Math.floor(num(val(), 1))
    else if (flag === '--duration') o.duration = num(val(), 0.5)
    else if (flag === '--connections') o.connections = Math.floor(num(val(), 1))
    else if (flag === '--out') o.out = resolve(val())
    else if (flag === '--trace') o.traceOnly = true
    else if (flag === '--help' || flag === '-h') {
      console.log(USAGE)
      process.exit(0)
    } else die(`unknown option ${a}\n${USAGE}`)
  }
  if (o.sustainPeers.length) o.sustain ??= 10
  // the tracing row alone does not replace the full run's results
  if (o.traceOnly && !argv.some((a) => a.split('=')[0] === '--out')) o.out = join(benchDir, 'results-trace.json')
  o.n ??= o.quick ? 500 : 2000
  o.duration ??= o.quick ? 2 : 5
  o.warmup = o.quick ? 0 : 1
  o.settleMs = o.quick ? 300 : 1000
  return o
}

function die(msg) {
  console.error(`bench: ${msg}`)
  process.exit(2)
}

const opts = parseArgs(process.argv.slice(2))

// ---------------------------------------------------------------- bench deps (first use)
// bench/package.json pins the peers and the load client; they are installed into
// bench/node_modules (not the project's) the first time, or when a pin changed.
function staleBenchDeps() {
  const pins = JSON.parse(readFileSync(join(benchDir, 'package.json'), 'utf8')).dependencies
  return Object.entries(pins).filter(([name, version]) => {
    try {
      return JSON.parse(readFileSync(join(benchDir, 'node_modules', ...name.split('/'), 'package.json'), 'utf8')).version !== version
    } catch {
      return true
    }
  })
}
function ensureBenchDeps() {
  const stale = staleBenchDeps()
  if (stale.length === 0) return
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'
  const run = (args) => spawnSync(npm, args, { stdio: 'inherit', cwd: root, timeout: 15 * 60_000 }).status === 0
  console.log(`bench: installing the benchmark's own dependencies (${stale.map(([n, v]) => `${n}@${v}`).join(', ')}): npm ci --prefix bench`)
  if (!run(['ci', '--prefix', benchDir, '--no-audit', '--no-fund'])) {
    // npm ci refuses a lock file that lacks an optional dependency the registry does not serve
    // (e.g. a mirror with only this platform's @foundry-rs/anvil-* binary). Same pins, lock file untouched:
    console.log('bench: npm ci failed; retrying with npm install --no-save --prefix bench (same pinned versions, package-lock.json not rewritten)')
    if (!run(['install', '--no-save', '--prefix', benchDir, '--no-audit', '--no-fund'])) die('installing bench dependencies failed')
  }
  const still = staleBenchDeps()
  if (still.length) die(`bench dependencies still missing or at other versions after install: ${still.map(([n]) => n).join(', ')}`)
}
ensureBenchDeps()

const { installCleanup, spawnChild, freePort, rssMiB, childPids, median, sleep } = await import('./lib/proc.mjs')
const { Rpc, body, hex } = await import('./lib/rpc.mjs')
const { loadToken, cancunOpcodes } = await import('./lib/token.mjs')
const { definePeers, JUNK_MNEMONIC } = await import('./lib/peers.mjs')
const { traceRow } = await import('./lib/trace.mjs')
const { analyze: analyzeSustain, report: sustainReport, verdict: sustainVerdict, fmtMin } = await import('./lib/sustain.mjs')
installCleanup()

const benchRequire = createRequire(join(benchDir, 'package.json'))
const rootRequire = createRequire(join(root, 'package.json'))
const autocannon = benchRequire('autocannon')
// ethers v6 and solc come from the project's devDependencies (not duplicated in bench/).
const { Wallet, HDNodeWallet, Interface, AbiCoder, keccak256, zeroPadValue, getAddress } = rootRequire('ethers')

// ---------------------------------------------------------------- workload constants
const SUPPLY = 10n ** 27n
const RECIPIENT = '0x00000000000000000000000000000000000bE4C5'
const TRANSFER_GAS = 100_000n
const DEPLOY_GAS = 3_000_000n
const LOG_RANGE = 1000n
const LOAD_SAMPLES = 64 // distinct blocks / receipts cycled through by the load tests
const STARTUP_TIMEOUT_MS = 60_000
const STARTUP_RUNS = 5
/**
 * Node reads the file NODE_EXTRA_CA_CERTS names at boot, before any JavaScript runs (~45 ms on the 2-core
 * sandbox, whose environment sets it; a developer machine usually does not). When it is set, start-up is also
 * measured without it, for every peer, as a second row.
 */
const EXTRA_CA = process.env.NODE_EXTRA_CA_CERTS
const GETLOGS_RUNS = 5
const PEER_TIMEOUT_MS = 15 * 60_000
const POLL_MS = Number(process.env.BENCH_POLL_MS ?? 1)
const BUSY_WARN_PCT = 10 // other processes' share of the machine that earns a warning
const CLIENT_BOUND_PCT = 90 // load generator at >= 90% of a core: the figure is a floor, not the node's ceiling

const iface = new Interface([
  'function balanceOf(address) view returns (uint256)',
  'function transfer(address,uint256) returns (bool)',
  'function name() view returns (string)',
  'function symbol() view returns (string)',
  'event Transfer(address indexed from, address indexed to, uint256 value)',
])
const TRANSFER_TOPIC = iface.getEvent('Transfer').topicHash
const topicAddr = (a) => zeroPadValue(a, 32).toLowerCase()
const balanceOfData = (a) => iface.encodeFunctionData('balanceOf', [a])
const transferData = (to, amount) => iface.encodeFunctionData('transfer', [to, amount])
/** A distinct, never-funded address per i (the varied eth_call balanceOf). */
const someAddress = (i) => '0x' + (0xb0000000 + i).toString(16).padStart(40, '0')
/**
 * The varied eth_estimateGas amount: one non-zero byte in every amount (at most 2^72, below every balance), so
 * the calldata gas stays the same; 2286 distinct amounts cycle, more than node-cli's 2048-entry result memo.
 */
const variedAmount = (i) => BigInt((i % 254) + 2) << BigInt(8 * (Math.floor(i / 254) % 9))
const junkKey = HDNodeWallet.fromPhrase(JUNK_MNEMONIC, undefined, "m/44'/60'/0'/0/0").privateKey

const PEERS = definePeers({ root, benchDir, benchRequire, junkKey })
const NAMES = PEERS.map((p) => p.name)
if (opts.only) {
  const bad = opts.only.filter((n) => !NAMES.includes(n))
  if (bad.length) die(`--only: unknown peer(s) ${bad.join(', ')} (known: ${NAMES.join(', ')})`)
}
const selected = PEERS.filter((p) => !opts.only || opts.only.includes(p.name))
{
  const bad = opts.sustainPeers.filter((n) => !NAMES.includes(n))
  if (bad.length) die(`--sustain-peers: unknown peer(s) ${bad.join(', ')} (known: ${NAMES.join(', ')})`)
}
// node-cli always, then the --sustain-peers in the usual order
const sustainSelected = opts.sustain == null ? [] : PEERS.filter((p) => p.name === 'node-cli' || opts.sustainPeers.includes(p.name))

// ---------------------------------------------------------------- metrics
/** key, label, unit, direction (higher|lower is better), digits */
const METRICS = [
  ['startupMs', 'startup: spawn → eth_chainId (median of 5)', 'ms', 'lower', 0],
  ['startupNoExtraCaMs', 'startup without NODE_EXTRA_CA_CERTS (median of 5)', 'ms', 'lower', 0],
  ['blockNumberRps', 'eth_blockNumber', 'req/s', 'higher', 0],
  ['callRps', 'eth_call balanceOf', 'req/s', 'higher', 0],
  ['estimateGasRps', 'eth_estimateGas transfer', 'req/s', 'higher', 0],
  ['callVariedRps', 'eth_call balanceOf, new address each request', 'req/s', 'higher', 0],
  ['estimateVariedRps', 'eth_estimateGas, new amount each request', 'req/s', 'higher', 0],
  ['transferTps', 'ERC-20 transfers, sequential, automine', 'tx/s', 'higher', 1],
  ['getLogsMs', 'eth_getLogs over 1000 blocks (median of 5)', 'ms', 'lower', 1],
  ['blockFullRps', 'eth_getBlockByNumber (full txs)', 'req/s', 'higher', 0],
  ['receiptRps', 'eth_getTransactionReceipt', 'req/s', 'higher', 0],
  ['rssIdleMiB', 'RSS idle (after start)', 'MiB', 'lower', 1],
  ['rssAfterMiB', 'RSS after the workload', 'MiB', 'lower', 1],
  ['traceCallMs', 'debug_traceTransaction callTracer, ERC-20 transfer (median of 20)', 'ms', 'lower', 2],
  ['traceStructMs', 'debug_traceTransaction struct logs, ERC-20 transfer (median of 20)', 'ms', 'lower', 2],
]
const METRIC = Object.fromEntries(METRICS.map(([k, label, unit, dir, digits]) => [k, { label, unit, dir, digits }]))

/** node-cli's targets: [metric, peer, comparison, factor]. */
/** @type {Array<[metric: string, peer: string, cmp: '<=' | '>=', factor: number, label: string]>} */
const TARGETS = [
  ['startupMs', 'anvil', '<=', 2, 'startup <= 2x Anvil'],
  ['startupNoExtraCaMs', 'anvil', '<=', 2, 'startup <= 2x Anvil (without NODE_EXTRA_CA_CERTS)'],
  ['blockNumberRps', 'anvil', '>=', 1, 'eth_blockNumber req/s >= 1x Anvil'],
  ['callRps', 'hardhat', '>=', 1, 'eth_call req/s >= 1x Hardhat'],
  ['estimateGasRps', 'hardhat', '>=', 1, 'eth_estimateGas req/s >= 1x Hardhat'],
  ['transferTps', 'hardhat', '>=', 1, 'sequential automined transfers >= 1x Hardhat'],
  ['getLogsMs', 'anvil', '<=', 1, 'eth_getLogs ms <= 1x Anvil'],
  ['rssAfterMiB', 'hardhat', '<=', 1, 'RSS after workload <= Hardhat'],
]

// ---------------------------------------------------------------- helpers
const log = (...a) => console.log(...a)
const fmtMs = (ms) => (ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${ms.toFixed(0)} ms`)

/** Starts a peer and polls eth_chainId until it answers; returns the instance with startupMs. */
async function start(peer, ctx, { withoutExtraCa = false, extraArgs = [] } = {}) {
  const port = await freePort()
  const { cmd, args: baseArgs, cwd, env: peerEnv } = peer.command(port)
  const args = [...baseArgs, ...extraArgs]
  let env = peerEnv
  if (withoutExtraCa) {
    env = { ...(peerEnv ?? process.env) }
    delete env.NODE_EXTRA_CA_CERTS
  }
  const url = `http://127.0.0.1:${port}`
  const probe = new Rpc(url, { timeoutMs: 2000 })
  const t0 = performance.now()
  const h = spawnChild(cmd, args, { cwd, env })
  ctx.instance = h
  let lastErr = null
  try {
    for (;;) {
      if (!h.isAlive()) {
        const e = await h.exited
        throw new Error(`exited during startup (${e.error?.message ?? `code ${e.code}, signal ${e.signal}`})${h.tail() ? `:\n${h.tail()}` : ''}`)
      }
      try {
        const chainId = await probe.call('eth_chainId')
        return { ...h, url, port, chainId, startupMs: performance.now() - t0 }
      } catch (err) {
        lastErr = err
      }
      if (performance.now() - t0 > STARTUP_TIMEOUT_MS) {
        await h.stop(1000)
        throw new Error(`no eth_chainId answer within ${STARTUP_TIMEOUT_MS / 1000} s (last error: ${lastErr?.message})${h.tail() ? `:\n${h.tail()}` : ''}`)
      }
      await sleep(5)
    }
  } finally {
    probe.close()
  }
}

/** Sends a raw tx and polls its receipt (automine); checks the returned hash. */
async function sendAndWait(rpc, raw, timeoutMs = 30_000) {
  const hash = await rpc.call('eth_sendRawTransaction', [raw])
  const expected = keccak256(raw)
  if (String(hash).toLowerCase() !== expected) throw new Error(`eth_sendRawTransaction returned ${hash}, expected ${expected}`)
  let polls = 0
  const t0 = performance.now()
  for (;;) {
    const r = await rpc.call('eth_getTransactionReceipt', [hash])
    if (r) return { receipt: r, polls }
    polls++
    const waited = performance.now() - t0
    if (waited > timeoutMs) throw new Error(`no receipt for ${hash} after ${timeoutMs} ms`)
    // Re-poll every ~1 ms (busy re-polling slows a node that mines in the background), 10 ms after 1 s.
    await sleep(waited > 1000 ? 10 : POLL_MS)
  }
}

/**
 * One autocannon run over `reqs` (each { body, expect, resultJson }) cycled per connection.
 * Every response is checked: identical bytes to the validated preflight answer, or the same `result`.
 */
async function load(inst, reqs) {
  const url = inst.url
  let counter = 0
  const make = (c) =>
    reqs.map((r) => ({
      method: 'POST',
      path: '/',
      headers: { 'content-type': 'application/json' },
      body: r.body,
      // `vary(i)` gives every request a different body (nothing a node could memoize)
      ...(r.vary ? { setupRequest: (req) => ({ ...req, body: r.vary(counter++) }) } : {}),
      onResponse: (status, text) => {
        if (status === 200 && (text === r.expect || sameResult(text, r.resultJson) || r.accept?.(text))) c.ok++
        else {
          c.bad++
          c.sample ??= `HTTP ${status}: ${String(text).slice(0, 200)}`
        }
      },
    }))
  const base = { url, connections: opts.connections, pipelining: 1, timeout: 10 }
  if (opts.warmup > 0) await autocannon({ ...base, duration: opts.warmup, requests: make({ ok: 0, bad: 0 }) })
  const c = { ok: 0, bad: 0, sample: null }
  const server0 = cpuSeconds(inst.pid)
  const client0 = process.cpuUsage()
  const w0 = performance.now()
  const r = await autocannon({ ...base, duration: opts.duration, requests: make(c) })
  const wall = (performance.now() - w0) / 1000
  const client = process.cpuUsage(client0)
  const server1 = cpuSeconds(inst.pid)
  return {
    rps: c.ok / r.duration,
    // CPU use in % of one core over the run: the load generator (this process) and the node.
    clientCpuPct: Math.round(((client.user + client.system) / 1e6 / wall) * 100),
    serverCpuPct: server0 == null || server1 == null ? null : Math.round(((server1 - server0) / wall) * 100),
    ok: c.ok,
    bad: c.bad,
    errors: r.errors,
    timeouts: r.timeouts,
    sample: c.sample,
    latencyMs: { p50: r.latency.p50, p99: r.latency.p99 },
  }
}

/** Busy CPU seconds of the whole machine (/proc/stat, all cores), or null. */
function machineBusySeconds() {
  try {
    const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number)
    // user nice system idle iowait irq softirq steal …: everything but idle and iowait
    return (f[0] + f[1] + f[2] + f[5] + f[6] + f[7]) / 100
  } catch {
    return null
  }
}

/** Starts measuring the CPU used by other processes (not this one, not the node) until the returned function is called. */
function foreignCpu(pid) {
  const m0 = machineBusySeconds()
  const n0 = cpuSeconds(pid)
  const c0 = process.cpuUsage()
  const w0 = performance.now()
  return () => {
    const m1 = machineBusySeconds()
    const n1 = cpuSeconds(pid)
    if (m0 == null || m1 == null || n0 == null || n1 == null) return null
    const c = process.cpuUsage(c0)
    const wall = (performance.now() - w0) / 1000
    const foreign = m1 - m0 - (n1 - n0) - (c.user + c.system) / 1e6
    return Math.max(0, Math.round((foreign / wall / cpus().length) * 100))
  }
}

/** utime + stime of a process in seconds (/proc/<pid>/stat, 100 ticks/s), or null. */
function cpuSeconds(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(f[11]) + Number(f[12])) / 100
  } catch {
    return null
  }
}

function sameResult(text, resultJson) {
  try {
    return JSON.stringify(JSON.parse(text).result) === resultJson
  } catch {
    return false
  }
}

/** Sends `b` once, validates the result with `check(result)` (throws/false = bad), returns a load request. */
async function preflight(rpc, b, check, what) {
  const text = await rpc.raw(b)
  const j = JSON.parse(text)
  if (j.error) throw new Error(`${what}: ${JSON.stringify(j.error)}`)
  let ok
  try {
    ok = check(j.result)
  } catch (e) {
    ok = false
  }
  if (!ok) throw new Error(`${what}: unexpected result ${JSON.stringify(j.result).slice(0, 300)}`)
  return { body: b, expect: text, resultJson: JSON.stringify(j.result) }
}

const evenly = (xs, k) => (xs.length <= k ? xs : Array.from({ length: k }, (_, i) => xs[Math.floor((i * xs.length) / k)]))

/** The peer's funded dev account: { wallet, sender, chainId, gasPrice } (throws when it has no balance). */
async function devAccount(peer, rpc) {
  const wallet = new Wallet(peer.key)
  const sender = wallet.address
  const chainId = BigInt(await rpc.call('eth_chainId'))
  const gasPrice = peer.gasPrice === 'zero' ? 0n : BigInt(await rpc.call('eth_gasPrice'))
  const ethBalance = BigInt(await rpc.call('eth_getBalance', [sender, 'latest']))
  if (ethBalance === 0n) throw new Error(`dev key ${sender} has no balance on this node`)
  return { wallet, sender, chainId, gasPrice }
}

/**
 * Deploys the bench ERC-20 (the Cancun fixture; the Token.sol build for the peer's `maxEvm` when the
 * fixture fails there and uses Cancun opcodes) and checks its code, name() and balanceOf(deployer).
 * Returns { token, block, info (for results.json), note (the fallback, or null) }.
 */
async function deployToken(peer, rpc, { wallet, chainId, gasPrice }) {
  const sender = wallet.address
  const getNonce = async () => Number(BigInt(await rpc.call('eth_getTransactionCount', [sender, 'latest'])))
  let nonce = await getNonce()
  const tryDeploy = async (evm) => {
    const art = loadToken(root, benchDir, evm)
    const ctor = AbiCoder.defaultAbiCoder().encode(['string', 'string', 'uint256'], ['Bench Token', 'BENCH', SUPPLY]).slice(2)
    const raw = await wallet.signTransaction({ type: 0, chainId, nonce, gasPrice, gasLimit: DEPLOY_GAS, data: art.bytecode + ctor, value: 0n })
    try {
      const { receipt } = await sendAndWait(rpc, raw)
      if (receipt.status !== '0x1') throw new Error(`deploy receipt status ${receipt.status}`)
      const addr = getAddress(receipt.contractAddress)
      if ((await rpc.call('eth_getCode', [addr, 'latest'])) === '0x') throw new Error('no code at the contract address')
      const name = iface.decodeFunctionResult('name', await rpc.call('eth_call', [{ to: addr, data: iface.encodeFunctionData('name') }, 'latest']))[0]
      const bal = BigInt(await rpc.call('eth_call', [{ to: addr, data: balanceOfData(sender) }, 'latest']))
      if (name !== 'Bench Token' || bal !== SUPPLY) throw new Error(`token sanity: name ${name}, balance ${bal}`)
      return { addr, art, block: Number(BigInt(receipt.blockNumber)) }
    } finally {
      nonce = await getNonce()
    }
  }
  try {
    const d = await tryDeploy('cancun')
    return { token: d.addr, block: d.block, info: { artifact: 'fixtures/contracts/Token.json', evmVersion: 'cancun' }, note: null }
  } catch (err) {
    const cancunOps = cancunOpcodes(loadToken(root, benchDir, 'cancun').bytecode)
    if (peer.maxEvm === 'cancun' || cancunOps.length === 0) throw new Error(`token deploy failed: ${err.message}`)
    const d = await tryDeploy(peer.maxEvm)
    return {
      token: d.addr,
      block: d.block,
      info: { artifact: `bench/contracts/Token.${peer.maxEvm}.json`, evmVersion: peer.maxEvm, cancunFixtureError: err.message },
      note: `Cancun Token.json fails here (${err.message.slice(0, 120)}; it uses ${cancunOps.join(', ')}): used Token compiled with evmVersion ${peer.maxEvm}${d.art.compiledNow ? ' (compiled now)' : ''}`,
    }
  }
}

// ---------------------------------------------------------------- one peer
async function runPeer(peer) {
  const res = { name: peer.name, version: null, status: 'ok', error: null, metrics: {}, checks: [], notes: [], clientBound: [], details: {} }
  try {
    res.version = peer.version()
  } catch {}
  const why = peer.unavailable()
  if (why) {
    res.status = 'skipped'
    res.error = why
    log(`\n== ${peer.name}: skipped — ${why}`)
    return res
  }
  log(`\n== ${peer.name} ${res.version ?? ''}`)
  const ctx = { instance: null }
  let timedOut = false
  const watchdog = setTimeout(() => {
    timedOut = true
    ctx.instance?.stop(500)
  }, PEER_TIMEOUT_MS)
  try {
    if (!opts.traceOnly) await workload(peer, res, ctx)
    await ctx.instance?.stop()
    log('   tracing row (fresh instance)')
    await traceRow(
      { start, devAccount, deployToken, sendAndWait, transferData, RECIPIENT, TRANSFER_GAS, Rpc, median, log },
      peer,
      res,
      ctx,
    )
  } catch (err) {
    res.status = 'failed'
    res.error = timedOut ? `gave up after ${PEER_TIMEOUT_MS / 60000} min (${err.message})` : err.message
    log(`   ${peer.name} FAILED: ${res.error}`)
  } finally {
    clearTimeout(watchdog)
    await ctx.instance?.stop()
  }
  return res
}

async function workload(peer, res, ctx) {
  const check = (metric, what, ok, detail) => {
    res.checks.push({ metric, what, ok: !!ok, detail: detail ?? null })
    if (!ok) log(`   CHECK FAILED [${metric}] ${what}${detail ? `: ${detail}` : ''}`)
  }
  const step = (s) => log(`   ${s}`)

  // 1. startup (median of 3 spawns; the third one is kept for the workload)
  const runs = []
  let inst
  for (let i = 0; i < STARTUP_RUNS; i++) {
    inst = await start(peer, ctx)
    runs.push(inst.startupMs)
    if (i < STARTUP_RUNS - 1) await inst.stop()
  }
  res.metrics.startupMs = median(runs)
  res.details.startupRunsMs = runs.map((x) => +x.toFixed(1))
  if (EXTRA_CA !== undefined) {
    await inst.stop()
    const bare = []
    for (let i = 0; i < STARTUP_RUNS; i++) {
      inst = await start(peer, ctx, { withoutExtraCa: true })
      bare.push(inst.startupMs)
      if (i < STARTUP_RUNS - 1) await inst.stop()
    }
    res.metrics.startupNoExtraCaMs = median(bare)
    res.details.startupNoExtraCaRunsMs = bare.map((x) => +x.toFixed(1))
    step(`startup without NODE_EXTRA_CA_CERTS ${bare.map((x) => x.toFixed(0)).join(' / ')} ms → median ${res.metrics.startupNoExtraCaMs.toFixed(0)} ms`)
  }
  check('startupMs', 'eth_chainId is the expected chain id', BigInt(inst.chainId) === peer.chainId, `got ${inst.chainId}`)
  step(`startup ${runs.map((x) => x.toFixed(0)).join(' / ')} ms → median ${res.metrics.startupMs.toFixed(0)} ms (${inst.url}, pid ${inst.pid})`)

  // 6a. RSS idle
  await sleep(opts.settleMs)
  res.metrics.rssIdleMiB = rssMiB(inst.pid)
  const kids = childPids(inst.pid)
  if (kids.length) res.notes.push(`pid ${inst.pid} has child processes ${kids.join(',')}: RSS is the parent's only`)

  const rpc = new Rpc(inst.url)
  const others = foreignCpu(inst.pid)
  try {
    const { wallet, sender, chainId, gasPrice } = await devAccount(peer, rpc)
    res.details.gasPrice = gasPrice.toString()
    res.details.sender = sender
    const getNonce = async () => Number(BigInt(await rpc.call('eth_getTransactionCount', [sender, 'latest'])))
    const callBalance = async (who) => BigInt(await rpc.call('eth_call', [{ to: token, data: balanceOfData(who) }, 'latest']))

    // deploy the token (the Cancun fixture; a shanghai build where the peer lacks Cancun opcodes)
    const dep = await deployToken(peer, rpc, { wallet, chainId, gasPrice })
    const token = dep.token
    res.details.token = dep.info
    if (dep.note) res.notes.push(dep.note)
    const nonce = await getNonce()
    step(`token ${token} (${res.details.token.evmVersion}), gas price ${gasPrice} wei`)

    // 2. read-only load: eth_blockNumber, eth_call, eth_estimateGas
    const loadMetric = async (metric, label, reqs) => {
      const r = await load(inst, reqs)
      res.metrics[metric] = r.rps
      res.details[metric] = r
      check(metric, `${label}: every response correct`, r.bad === 0 && r.ok > 0 && r.errors === 0 && r.timeouts === 0, `${r.ok} ok, ${r.bad} wrong, ${r.errors} errors, ${r.timeouts} timeouts${r.sample ? `; e.g. ${r.sample}` : ''}`)
      if (r.clientCpuPct >= CLIENT_BOUND_PCT) res.clientBound.push(metric)
      step(`${label}: ${r.rps.toFixed(0)} req/s (p50 ${r.latencyMs.p50} ms, p99 ${r.latencyMs.p99} ms; CPU: node ${r.serverCpuPct}%, load generator ${r.clientCpuPct}%)`)
    }
    const head0 = BigInt(await rpc.call('eth_blockNumber'))
    await loadMetric('blockNumberRps', 'eth_blockNumber', [await preflight(rpc, body('eth_blockNumber'), (r) => BigInt(r) === head0, 'eth_blockNumber')])
    await loadMetric('callRps', 'eth_call balanceOf', [
      await preflight(rpc, body('eth_call', [{ to: token, data: balanceOfData(sender) }, 'latest']), (r) => BigInt(r) === SUPPLY, 'eth_call'),
    ])
    let estimate = null
    await loadMetric('estimateGasRps', 'eth_estimateGas', [
      await preflight(
        rpc,
        body('eth_estimateGas', [{ from: sender, to: token, data: transferData(RECIPIENT, 1n) }]),
        (r) => {
          estimate = BigInt(r)
          return estimate > 21000n && estimate <= TRANSFER_GAS
        },
        'eth_estimateGas',
      ),
    ])
    res.details.transferEstimate = Number(estimate)
    // the same two reads with a different request every time: raw execution speed, no result reuse possible
    await loadMetric('callVariedRps', 'eth_call balanceOf (varied)', [
      {
        ...(await preflight(rpc, body('eth_call', [{ to: token, data: balanceOfData(someAddress(0)) }, 'latest']), (r) => BigInt(r) === 0n, 'eth_call varied')),
        vary: (i) => body('eth_call', [{ to: token, data: balanceOfData(someAddress(i + 1)) }, 'latest']),
      },
    ])
    await loadMetric('estimateVariedRps', 'eth_estimateGas (varied)', [
      {
        ...(await preflight(rpc, body('eth_estimateGas', [{ from: sender, to: token, data: transferData(RECIPIENT, 2n) }]), (r) => BigInt(r) === estimate, 'eth_estimateGas varied')),
        // a node may estimate a little differently per amount (calldata bytes, search precision): within 5%
        accept: (text) => {
          try {
            const g = BigInt(JSON.parse(text).result)
            return g * 100n >= estimate * 95n && g * 100n <= estimate * 105n
          } catch {
            return false
          }
        },
        vary: (i) => body('eth_estimateGas', [{ from: sender, to: token, data: transferData(RECIPIENT, variedAmount(i)) }]),
      },
    ])

    // 4 (prep). 1000 blocks for eth_getLogs: empty blocks first when N < 1000
    const N = opts.n
    if (BigInt(N) < LOG_RANGE) {
      const fill = LOG_RANGE - BigInt(N)
      const before = BigInt(await rpc.call('eth_blockNumber'))
      const t0 = performance.now()
      await peer.mine(rpc, fill)
      const after = BigInt(await rpc.call('eth_blockNumber'))
      check('getLogsMs', `mining ${fill} empty blocks`, after - before === fill, `head ${before} → ${after}`)
      step(`mined ${fill} empty blocks in ${fmtMs(performance.now() - t0)}`)
    }

    // 3. N pre-signed legacy transfers, one at a time, each awaited
    const amounts = Array.from({ length: N }, (_, i) => BigInt(i + 1))
    const tSign = performance.now()
    const raws = []
    for (let i = 0; i < N; i++) {
      raws.push(
        await wallet.signTransaction({ type: 0, chainId, nonce: nonce + i, gasPrice, gasLimit: TRANSFER_GAS, to: token, data: transferData(RECIPIENT, amounts[i]), value: 0n }),
      )
    }
    step(`signed ${N} transfers in ${fmtMs(performance.now() - tSign)} (not timed)`)
    const receipts = new Array(N)
    let polls = 0
    const t0 = performance.now()
    for (let i = 0; i < N; i++) {
      const r = await sendAndWait(rpc, raws[i])
      receipts[i] = r.receipt
      polls += r.polls
    }
    const secs = (performance.now() - t0) / 1000
    res.metrics.transferTps = N / secs
    res.details.transfers = { n: N, seconds: +secs.toFixed(3), extraReceiptPolls: polls }
    if (polls > 0) res.notes.push(`eth_sendRawTransaction returned before the receipt existed ${polls} time(s) in ${N}: receipts were polled (1 ms apart), counted in tx/s`)
    // validate every receipt
    const hashes = raws.map((r) => keccak256(r))
    let badReceipts = 0
    let firstBad = null
    const blocks = new Set()
    for (let i = 0; i < N; i++) {
      const r = receipts[i]
      blocks.add(r.blockNumber)
      const l = r.logs?.[0]
      const ok =
        r.status === '0x1' &&
        r.transactionHash.toLowerCase() === hashes[i] &&
        r.logs.length === 1 &&
        l.address.toLowerCase() === token.toLowerCase() &&
        l.topics[0] === TRANSFER_TOPIC &&
        l.topics[1].toLowerCase() === topicAddr(sender) &&
        l.topics[2].toLowerCase() === topicAddr(RECIPIENT) &&
        BigInt(l.data) === amounts[i]
      if (!ok) {
        badReceipts++
        firstBad ??= `#${i}: ${JSON.stringify(r).slice(0, 300)}`
      }
    }
    check('transferTps', 'every receipt: status 1, one Transfer log with the right from/to/amount', badReceipts === 0, badReceipts ? `${badReceipts} bad; ${firstBad}` : `${N} receipts`)
    if (blocks.size !== N) res.notes.push(`${N} automined transfers landed in ${blocks.size} blocks (not one block per tx)`)
    step(`${N} transfers: ${res.metrics.transferTps.toFixed(1)} tx/s (${secs.toFixed(2)} s, ${blocks.size} blocks)`)

    // final balances
    const sum = amounts.reduce((a, b) => a + b, 0n)
    const balR = await callBalance(RECIPIENT)
    const balS = await callBalance(sender)
    check('transferTps', 'final token balances: recipient = sum of transfers, sender = supply - sum', balR === sum && balS === SUPPLY - sum, `recipient ${balR} (want ${sum}), sender ${balS} (want ${SUPPLY - sum})`)

    // 4. eth_getLogs over the last 1000 blocks
    const head = BigInt(receipts[N - 1].blockNumber)
    const from = head >= LOG_RANGE - 1n ? head - (LOG_RANGE - 1n) : 0n
    const inRange = receipts.map((r, i) => [r, i]).filter(([r]) => BigInt(r.blockNumber) >= from && BigInt(r.blockNumber) <= head)
    const wantHashes = new Map(inRange.map(([r, i]) => [r.transactionHash.toLowerCase(), amounts[i]]))
    const logsBody = body('eth_getLogs', [{ fromBlock: hex(from), toBlock: hex(head), address: token, topics: [TRANSFER_TOPIC] }])
    const times = []
    let logsOk = true
    let logsDetail = ''
    for (let k = 0; k < GETLOGS_RUNS; k++) {
      const t = performance.now()
      const text = await rpc.raw(logsBody, { timeoutMs: 120_000 })
      times.push(performance.now() - t)
      const j = JSON.parse(text)
      const logs = j.result
      const ok =
        Array.isArray(logs) &&
        logs.length === wantHashes.size &&
        logs.every((l) => wantHashes.get(l.transactionHash.toLowerCase()) === BigInt(l.data) && l.topics[0] === TRANSFER_TOPIC) &&
        new Set(logs.map((l) => l.transactionHash.toLowerCase())).size === wantHashes.size
      if (!ok) {
        logsOk = false
        logsDetail = j.error ? JSON.stringify(j.error) : `got ${Array.isArray(logs) ? logs.length : typeof logs} logs, want ${wantHashes.size}`
      }
    }
    res.metrics.getLogsMs = median(times)
    res.details.getLogs = { fromBlock: Number(from), toBlock: Number(head), logs: wantHashes.size, runsMs: times.map((x) => +x.toFixed(2)) }
    check('getLogsMs', `eth_getLogs returns exactly the ${wantHashes.size} Transfer logs in blocks ${from}-${head}`, logsOk, logsDetail || `${wantHashes.size} logs`)
    step(`eth_getLogs ${from}-${head}: ${wantHashes.size} logs, ${times.map((x) => x.toFixed(1)).join(' / ')} ms`)

    // 5. eth_getBlockByNumber(full) and eth_getTransactionReceipt load over LOAD_SAMPLES transfer blocks
    const sample = evenly(receipts, LOAD_SAMPLES)
    const blockReqs = []
    const receiptReqs = []
    const txCounts = new Set()
    for (const r of sample) {
      blockReqs.push(
        await preflight(
          rpc,
          body('eth_getBlockByNumber', [r.blockNumber, true]),
          // (an RSK block also carries its REMASC system transaction, so "contains", not "is")
          (b) =>
            txCounts.add(b.transactions.length) &&
            b.number === r.blockNumber &&
            b.transactions.every((t) => typeof t === 'object' && t !== null) &&
            b.transactions.some((t) => t.hash.toLowerCase() === r.transactionHash.toLowerCase() && t.input === transferData(RECIPIENT, amounts[receipts.indexOf(r)])),
          `eth_getBlockByNumber ${r.blockNumber}`,
        ),
      )
      receiptReqs.push(
        await preflight(
          rpc,
          body('eth_getTransactionReceipt', [r.transactionHash]),
          (x) => x.status === '0x1' && x.transactionHash === r.transactionHash && x.logs.length === 1,
          `eth_getTransactionReceipt ${r.transactionHash}`,
        ),
      )
    }
    if ([...txCounts].some((c) => c !== 1)) res.notes.push(`a transfer block holds ${[...txCounts].join('/')} transactions (the transfer plus system transactions), not 1`)
    await loadMetric('blockFullRps', 'eth_getBlockByNumber(full)', blockReqs)
    await loadMetric('receiptRps', 'eth_getTransactionReceipt', receiptReqs)

    // 6b. RSS after the workload
    res.metrics.rssAfterMiB = rssMiB(inst.pid)
    step(`RSS idle ${res.metrics.rssIdleMiB?.toFixed(1)} MiB, after ${res.metrics.rssAfterMiB?.toFixed(1)} MiB`)
    if (!inst.isAlive()) throw new Error(`the node exited during the workload:\n${inst.tail()}`)
    const busy = others()
    res.details.otherProcessesCpuPct = busy
    if (busy != null && busy >= BUSY_WARN_PCT) res.notes.push(`other processes used ${busy}% of the machine's CPU during this run: figures are depressed`)
  } finally {
    rpc.close()
  }
}

// ---------------------------------------------------------------- 7. --long: 100k transfers on node-cli
async function runLong(peer) {
  const TOTAL = opts.longN
  const STEP = Math.ceil(TOTAL / 10)
  const out = { n: TOTAL, samples: [], error: null, checks: [] }
  log(`\n== --long: ${TOTAL} transfers on ${peer.name}, RSS every ${STEP}`)
  const ctx = { instance: null }
  let rpc
  try {
    const inst = await start(peer, ctx)
    rpc = new Rpc(inst.url)
    await sleep(opts.settleMs)
    const wallet = new Wallet(peer.key)
    const chainId = BigInt(await rpc.call('eth_chainId'))
    const art = loadToken(root, benchDir, 'cancun')
    let nonce = Number(BigInt(await rpc.call('eth_getTransactionCount', [wallet.address, 'latest'])))
    const ctor = AbiCoder.defaultAbiCoder().encode(['string', 'string', 'uint256'], ['Bench Token', 'BENCH', SUPPLY]).slice(2)
    const { receipt } = await sendAndWait(rpc, await wallet.signTransaction({ type: 0, chainId, nonce: nonce++, gasPrice: 0n, gasLimit: DEPLOY_GAS, data: art.bytecode + ctor }))
    const token = getAddress(receipt.contractAddress)
    out.samples.push({ txs: 0, rssMiB: rssMiB(inst.pid), txPerSec: null })
    log(`   0 txs: RSS ${out.samples[0].rssMiB.toFixed(1)} MiB`)
    let bad = 0
    let sent = 0
    for (let done = 0; done < TOTAL; done += STEP) {
      const raws = []
      const batch = Math.min(STEP, TOTAL - done)
      for (let i = 0; i < batch; i++) {
        raws.push(await wallet.signTransaction({ type: 0, chainId, nonce: nonce++, gasPrice: 0n, gasLimit: TRANSFER_GAS, to: token, data: transferData(RECIPIENT, 1n) }))
      }
      const t0 = performance.now()
      for (const raw of raws) {
        const { receipt: r } = await sendAndWait(rpc, raw)
        if (r.status !== '0x1' || r.logs.length !== 1) bad++
        sent++
      }
      const tps = batch / ((performance.now() - t0) / 1000)
      const s = { txs: done + batch, rssMiB: rssMiB(inst.pid), txPerSec: +tps.toFixed(1) }
      out.samples.push(s)
      log(`   ${s.txs} txs: RSS ${s.rssMiB.toFixed(1)} MiB, ${tps.toFixed(1)} tx/s over the last ${batch}`)
    }
    const bal = BigInt(await rpc.call('eth_call', [{ to: token, data: balanceOfData(RECIPIENT) }, 'latest']))
    out.checks.push({ what: 'every receipt status 1 with one log', ok: bad === 0, detail: `${bad} bad of ${sent}` })
    out.checks.push({ what: 'recipient balance = number of transfers', ok: bal === BigInt(sent), detail: `${bal} (want ${sent})` })
    for (const c of out.checks) if (!c.ok) log(`   CHECK FAILED [long] ${c.what}: ${c.detail}`)
  } catch (err) {
    out.error = err.message
    log(`   --long FAILED: ${err.message}`)
  } finally {
    rpc?.close()
    await ctx.instance?.stop()
  }
  return out
}

// ---------------------------------------------------------------- 8. --sustain: sustained mixed load, RSS over time
const SUSTAIN_SAMPLE_S = 15
const SUSTAIN_LOGS_EVERY_S = 5
const SUSTAIN_FLAT_PCT = 10
/** Transfer i of the sustained load goes to a fresh address (state grows like a test suite's), never one the reads use. */
const sustainRecipient = (i) => '0x' + (0xc0000000 + i).toString(16).padStart(40, '0')
const sustainAmount = (i) => BigInt((i % 1000) + 1)

/** Resolves at performance.now() >= `at`, or early (false) once `stopped()` says so. */
async function sleepUntil(at, stopped) {
  for (;;) {
    if (stopped()) return false
    const left = at - performance.now()
    if (left <= 0) return true
    await sleep(Math.min(left, 250))
  }
}

/**
 * A fresh instance of `peer`: deploy the token, seed LOAD_SAMPLES transfers, then for opts.sustain minutes
 * (a) autocannon on opts.connections connections cycling eth_blockNumber, eth_call balanceOf (new address
 * each), eth_estimateGas (new amount each), eth_getBlockByNumber(full) and eth_getTransactionReceipt (over
 * the seeded transfers), every response checked; (b) sequential ERC-20 transfers signed on the fly at
 * opts.sustainTps, every receipt checked; (c) eth_getLogs over the last 1000 blocks every 5 s, checked
 * against the transfers sent. RSS, req/s, tx/s and height every 15 s.
 */
async function runSustain(peer) {
  const totalS = opts.sustain * 60
  const out = {
    name: peer.name,
    version: null,
    status: 'ok',
    error: null,
    minutes: opts.sustain,
    targetTps: opts.sustainTps,
    connections: opts.connections,
    rssIdleMiB: null,
    samples: [],
    requests: {},
    transfers: null,
    getLogs: null,
    analysis: null,
    verdict: null,
    checks: [],
    notes: [],
  }
  try {
    out.version = peer.version()
  } catch {}
  const why = peer.unavailable()
  if (why) {
    out.status = 'skipped'
    out.error = why
    log(`\n== --sustain ${peer.name}: skipped — ${why}`)
    return out
  }
  log(`\n== --sustain: ${fmtMin(opts.sustain)} of sustained mixed load on ${peer.name} ${out.version ?? ''} (${opts.connections} read connections + ${opts.sustainTps} transfers/s, RSS every ${SUSTAIN_SAMPLE_S} s)`)
  const check = (what, ok, detail) => {
    out.checks.push({ what, ok: !!ok, detail: detail ?? null })
    if (!ok) log(`   CHECK FAILED [sustain ${peer.name}] ${what}${detail ? `: ${detail}` : ''}`)
  }
  const step = (s) => log(`   ${s}`)
  const ctx = { instance: null }
  let timedOut = false
  const watchdog = setTimeout(() => {
    timedOut = true
    ctx.instance?.stop(500)
  }, totalS * 1000 + PEER_TIMEOUT_MS)
  const rpcs = []
  const newRpc = (url) => {
    const r = new Rpc(url)
    rpcs.push(r)
    return r
  }
  try {
    const inst = await start(peer, ctx)
    await sleep(opts.settleMs)
    out.rssIdleMiB = rssMiB(inst.pid)
    const rpc = newRpc(inst.url) // setup, final checks
    const txRpc = newRpc(inst.url) // the transfer loop
    const logsRpc = newRpc(inst.url) // the eth_getLogs loop
    const { wallet, sender, chainId, gasPrice } = await devAccount(peer, rpc)
    const dep = await deployToken(peer, rpc, { wallet, chainId, gasPrice })
    const token = dep.token
    out.token = { address: token, ...dep.info }
    if (dep.note) out.notes.push(dep.note)
    let nonce = Number(BigInt(await rpc.call('eth_getTransactionCount', [sender, 'latest'])))
    step(`started in ${fmtMs(inst.startupMs)} (pid ${inst.pid}), RSS idle ${out.rssIdleMiB?.toFixed(1)} MiB; token ${token} (${dep.info.evmVersion}) in block ${dep.block}`)

    // --- transfers (seed and sustained): signed on the fly, each awaited, each receipt checked
    const transfers = [] // { block, hash, to, amount } in order
    let head = dep.block // highest block known to be mined (a transfer's receipt)
    let badReceipts = 0
    let firstBad = null
    let extraPolls = 0
    const sendTransfer = async () => {
      const i = transfers.length
      const to = sustainRecipient(i)
      const amount = sustainAmount(i)
      const raw = await wallet.signTransaction({ type: 0, chainId, nonce: nonce++, gasPrice, gasLimit: TRANSFER_GAS, to: token, data: transferData(to, amount), value: 0n })
      const { receipt: r, polls } = await sendAndWait(txRpc, raw) // checks the returned hash = keccak256(raw)
      extraPolls += polls
      const l = r.logs?.[0]
      const ok =
        r.status === '0x1' &&
        r.logs.length === 1 &&
        l.address.toLowerCase() === token.toLowerCase() &&
        l.topics[0] === TRANSFER_TOPIC &&
        l.topics[1].toLowerCase() === topicAddr(sender) &&
        l.topics[2].toLowerCase() === topicAddr(to) &&
        BigInt(l.data) === amount
      if (!ok) {
        badReceipts++
        firstBad ??= `#${i}: ${JSON.stringify(r).slice(0, 300)}`
      }
      const block = Number(BigInt(r.blockNumber))
      transfers.push({ block, hash: r.transactionHash.toLowerCase(), to, amount })
      if (block > head) head = block
      return r
    }

    // --- seed: LOAD_SAMPLES transfers whose blocks and receipts the read load cycles through
    const seeds = []
    for (let k = 0; k < LOAD_SAMPLES; k++) {
      const r = await sendTransfer()
      const t = transfers[transfers.length - 1]
      const blk = await preflight(
        rpc,
        body('eth_getBlockByNumber', [r.blockNumber, true]),
        (b) =>
          b.number === r.blockNumber &&
          b.transactions.every((x) => typeof x === 'object' && x !== null) &&
          b.transactions.some((x) => x.hash.toLowerCase() === t.hash && x.input === transferData(t.to, t.amount)),
        `eth_getBlockByNumber ${r.blockNumber}`,
      )
      const rcp = await preflight(
        rpc,
        body('eth_getTransactionReceipt', [r.transactionHash]),
        (x) => x.status === '0x1' && x.transactionHash === r.transactionHash && x.logs.length === 1,
        `eth_getTransactionReceipt ${r.transactionHash}`,
      )
      seeds.push({ blk, rcp })
    }
    // a rough per-transfer size of the chain data: its block (full) + receipt as JSON
    const chainBytesPerTx = seeds.reduce((a, s) => a + s.blk.expect.length + s.rcp.expect.length, 0) / seeds.length
    let estimate = null
    await preflight(
      rpc,
      body('eth_estimateGas', [{ from: sender, to: token, data: transferData(RECIPIENT, variedAmount(0)) }]),
      (r) => {
        estimate = BigInt(r)
        return estimate > 21000n && estimate <= TRANSFER_GAS
      },
      'eth_estimateGas',
    )
    await preflight(rpc, body('eth_call', [{ to: token, data: balanceOfData(someAddress(0)) }, 'latest']), (r) => BigInt(r) === 0n, 'eth_call balanceOf')
    step(`seeded ${LOAD_SAMPLES} transfers (head ${head}); transfer estimate ${estimate} gas; chain data ≈ ${(chainBytesPerTx / 1024).toFixed(2)} KiB per transfer (JSON of block + receipt)`)

    // --- the read mix: one request of each kind per cycle on every connection, every answer checked
    let callN = 1
    let estN = 1
    let blkN = 0
    let rcpN = 0
    const kinds = [
      {
        name: 'eth_blockNumber',
        // the head moves: the answer lies between the head known when the request was built and the head known now + 1 (a transfer in flight)
        build: (c) => {
          c.minHead = head
          return body('eth_blockNumber')
        },
        check: (res, c) => /^0x[0-9a-f]+$/.test(res) && Number(BigInt(res)) >= c.minHead && Number(BigInt(res)) <= head + 1,
      },
      {
        name: 'eth_call balanceOf (new address each)',
        build: () => body('eth_call', [{ to: token, data: balanceOfData(someAddress(callN++)) }, 'latest']),
        check: (res) => BigInt(res) === 0n,
      },
      {
        name: 'eth_estimateGas transfer (new amount each)',
        build: () => body('eth_estimateGas', [{ from: sender, to: token, data: transferData(RECIPIENT, variedAmount(estN++)) }]),
        // within 5% of the validated estimate (calldata bytes, search precision), as in the main run
        check: (res) => {
          const g = BigInt(res)
          return g * 100n >= estimate * 95n && g * 100n <= estimate * 105n
        },
      },
      {
        name: 'eth_getBlockByNumber(full)',
        build: (c) => {
          c.k = blkN++ % seeds.length
          return seeds[c.k].blk.body
        },
        check: (res, c, text) => text === seeds[c.k].blk.expect || sameResult(text, seeds[c.k].blk.resultJson),
      },
      {
        name: 'eth_getTransactionReceipt',
        build: (c) => {
          c.k = rcpN++ % seeds.length
          return seeds[c.k].rcp.body
        },
        check: (res, c, text) => text === seeds[c.k].rcp.expect || sameResult(text, seeds[c.k].rcp.resultJson),
      },
    ]
    const counts = Object.fromEntries(kinds.map((k) => [k.name, { ok: 0, bad: 0, sample: null }]))
    let okTotal = 0
    const requests = kinds.map((k) => ({
      method: 'POST',
      path: '/',
      headers: { 'content-type': 'application/json' },
      body: k.build({}),
      setupRequest: (req, c) => ({ ...req, body: k.build(c) }),
      onResponse: (status, text, c) => {
        const n = counts[k.name]
        let ok = false
        if (status === 200) {
          try {
            const j = JSON.parse(text)
            ok = j.error === undefined && j.result !== undefined && k.check(j.result, c, text)
          } catch {}
        }
        if (ok) {
          n.ok++
          okTotal++
        } else {
          n.bad++
          n.sample ??= `HTTP ${status}: ${String(text).slice(0, 200)}`
        }
      },
    }))

    // --- run: the read load, the transfer loop, the eth_getLogs loop and the sampler, side by side
    let stopping = false
    let failure = null
    const stopped = () => stopping
    const fail = (what, err) => {
      failure ??= `${what}: ${err.message}`
      stopping = true
    }
    const t0 = performance.now()
    const client0 = process.cpuUsage()
    const tracker = autocannon({ url: inst.url, connections: opts.connections, pipelining: 1, timeout: 10, duration: totalS + 30, requests })
    const acDone = Promise.resolve(tracker).catch((err) => fail('autocannon', err))

    const seedCount = transfers.length
    const txLoop = (async () => {
      let next = t0
      while (!stopping) {
        if (!(await sleepUntil(next, stopped))) break
        await sendTransfer()
        // steady rate; after a stall, at most 1 s of missed transfers is caught up
        next = Math.max(next + 1000 / opts.sustainTps, performance.now() - 1000)
      }
    })().catch((err) => fail('transfer loop', err))

    const logsRuns = { ok: 0, bad: 0, sample: null, ms: [] }
    const logsLoop = (async () => {
      for (let k = 1; ; k++) {
        if (!(await sleepUntil(t0 + k * SUSTAIN_LOGS_EVERY_S * 1000, stopped))) break
        const to = head
        const from = Math.max(dep.block + 1, to - Number(LOG_RANGE) + 1) // not the deploy block (its mint log)
        const want = new Map(transfers.filter((x) => x.block >= from && x.block <= to).map((x) => [x.hash, x]))
        const t = performance.now()
        let ok = false
        let detail = null
        try {
          const text = await logsRpc.raw(body('eth_getLogs', [{ fromBlock: hex(from), toBlock: hex(to), address: token, topics: [TRANSFER_TOPIC] }]), { timeoutMs: 60_000 })
          logsRuns.ms.push(performance.now() - t)
          const j = JSON.parse(text)
          const logs = j.result
          ok =
            Array.isArray(logs) &&
            logs.length === want.size &&
            new Set(logs.map((l) => l.transactionHash.toLowerCase())).size === want.size &&
            logs.every((l) => {
              const x = want.get(l.transactionHash.toLowerCase())
              return x && l.topics[0] === TRANSFER_TOPIC && l.topics[2].toLowerCase() === topicAddr(x.to) && BigInt(l.data) === x.amount
            })
          if (!ok) detail = j.error ? JSON.stringify(j.error) : `blocks ${from}-${to}: got ${Array.isArray(logs) ? logs.length : typeof logs} logs, want ${want.size}`
        } catch (err) {
          detail = `blocks ${from}-${to}: ${err.message}`
        }
        if (ok) logsRuns.ok++
        else {
          logsRuns.bad++
          logsRuns.sample ??= detail
        }
      }
    })().catch((err) => fail('eth_getLogs loop', err))

    // sampler: t = 0 (before any load), every 15 s, and at the end
    const at = [0]
    for (let s = SUSTAIN_SAMPLE_S; s < totalS - 1e-6; s += SUSTAIN_SAMPLE_S) at.push(s)
    at.push(totalS)
    let prev = null
    for (const s of at) {
      if (!(await sleepUntil(t0 + s * 1000, stopped))) break
      if (!inst.isAlive()) {
        fail('node', new Error(`exited during the sustained load:\n${inst.tail()}`))
        break
      }
      const now = performance.now()
      const cpu = cpuSeconds(inst.pid)
      const cur = { t: s, wall: now, ok: okTotal, txs: transfers.length - seedCount, cpu }
      const dt = prev ? (now - prev.wall) / 1000 : null
      const sample = {
        t: s,
        minute: +(s / 60).toFixed(2),
        rssMiB: rssMiB(inst.pid),
        reqPerSec: prev ? +((cur.ok - prev.ok) / dt).toFixed(1) : null,
        txPerSec: prev ? +((cur.txs - prev.txs) / dt).toFixed(1) : null,
        height: head,
        txs: transfers.length,
        nodeCpuPct: prev && cpu != null && prev.cpu != null ? Math.round(((cpu - prev.cpu) / dt) * 100) : null,
      }
      out.samples.push(sample)
      prev = cur
      step(
        `${(s / 60).toFixed(2).padStart(5)} min: RSS ${sample.rssMiB?.toFixed(1)} MiB` +
          (s > 0 ? `, ${sample.reqPerSec.toFixed(0)} req/s, ${sample.txPerSec.toFixed(1)} tx/s, node CPU ${sample.nodeCpuPct}%` : '') +
          `, height ${head}`,
      )
    }
    stopping = true
    tracker.stop()
    const ac = await acDone
    await txLoop
    await logsLoop
    const wall = (performance.now() - t0) / 1000
    const client = process.cpuUsage(client0)
    if (failure) throw new Error(failure)

    // --- checks: every read response, every receipt, every eth_getLogs, the final balances
    out.requests = Object.fromEntries(Object.entries(counts).map(([k, v]) => [k, { ...v, perSec: +(v.ok / wall).toFixed(1) }]))
    for (const [name, n] of Object.entries(counts)) check(`${name}: every response correct`, n.bad === 0 && n.ok > 0, `${n.ok} ok, ${n.bad} wrong${n.sample ? `; e.g. ${n.sample}` : ''}`)
    check('load generator: no socket errors or timeouts', ac && ac.errors === 0 && ac.timeouts === 0, ac ? `${ac.errors} errors, ${ac.timeouts} timeouts` : 'no result')
    const sent = transfers.length - seedCount
    out.transfers = { seeded: seedCount, sent, txPerSec: +(sent / wall).toFixed(2), extraReceiptPolls: extraPolls }
    check('every transfer receipt: status 1, one Transfer log with the right from/to/amount', badReceipts === 0 && sent > 0, badReceipts ? `${badReceipts} bad; ${firstBad}` : `${transfers.length} receipts`)
    if (sent / wall < opts.sustainTps * 0.9) out.notes.push(`transfers ran at ${(sent / wall).toFixed(1)} tx/s, below the ${opts.sustainTps} tx/s asked for (the node or this machine could not keep up)`)
    out.getLogs = { everyS: SUSTAIN_LOGS_EVERY_S, calls: logsRuns.ok + logsRuns.bad, ok: logsRuns.ok, bad: logsRuns.bad, medianMs: logsRuns.ms.length ? +median(logsRuns.ms).toFixed(1) : null, maxMs: logsRuns.ms.length ? +Math.max(...logsRuns.ms).toFixed(1) : null }
    check(`eth_getLogs over the last ${LOG_RANGE} blocks every ${SUSTAIN_LOGS_EVERY_S} s: exactly the transfers sent there`, logsRuns.bad === 0 && logsRuns.ok > 0, `${logsRuns.ok} ok, ${logsRuns.bad} wrong${logsRuns.sample ? `; e.g. ${logsRuns.sample}` : ''}`)
    const sum = transfers.reduce((a, x) => a + x.amount, 0n)
    const balS = BigInt(await rpc.call('eth_call', [{ to: token, data: balanceOfData(sender) }, 'latest']))
    const lastT = transfers[transfers.length - 1]
    const balL = BigInt(await rpc.call('eth_call', [{ to: token, data: balanceOfData(lastT.to) }, 'latest']))
    check('final balances: sender = supply - all transfers, last recipient = its amount', balS === SUPPLY - sum && balL === lastT.amount, `sender ${balS} (want ${SUPPLY - sum}), last recipient ${balL} (want ${lastT.amount})`)
    check('the node is still running', inst.isAlive(), inst.isAlive() ? null : inst.tail())
    out.loadGeneratorCpuPct = Math.round(((client.user + client.system) / 1e6 / wall) * 100)
    if (out.loadGeneratorCpuPct >= CLIENT_BOUND_PCT) out.notes.push(`this process (autocannon + transfers) used ${out.loadGeneratorCpuPct}% of a core: req/s is bounded by the client`)
    out.analysis = analyzeSustain(out.samples, { totalS, flatPct: SUSTAIN_FLAT_PCT, chainBytesPerTx })
  } catch (err) {
    out.status = 'failed'
    out.error = timedOut ? `gave up (watchdog) (${err.message})` : err.message
    log(`   --sustain ${peer.name} FAILED: ${out.error}`)
  } finally {
    clearTimeout(watchdog)
    for (const r of rpcs) r.close()
    await ctx.instance?.stop()
  }
  out.verdict = sustainVerdict(out)
  return out
}

// ---------------------------------------------------------------- table
function fmtVal(key, v) {
  if (v === undefined || v === null || Number.isNaN(v)) return '—'
  return v.toLocaleString('en-US', { minimumFractionDigits: METRIC[key].digits, maximumFractionDigits: METRIC[key].digits })
}

const failedMetric = (r, key) => r.checks.some((c) => c.metric === key && !c.ok)

/** node-cli value / peer value, or null when either is missing or a check failed. */
function ratio(results, key, peerName) {
  const nc = results.find((r) => r.name === 'node-cli')
  const p = results.find((r) => r.name === peerName)
  if (!nc || !p) return null
  const a = nc.metrics[key]
  const b = p.metrics[key]
  if (a == null || b == null || b === 0 || failedMetric(nc, key) || failedMetric(p, key)) return null
  return a / b
}

const boundStar = (results, key, peerName) =>
  results.some((r) => (r.name === 'node-cli' || r.name === peerName) && r.clientBound.includes(key)) ? '*' : ''

function printTable(results) {
  const peers = results
  const others = peers.filter((r) => r.name !== 'node-cli')
  const hasNc = peers.some((r) => r.name === 'node-cli')
  const header = ['metric', 'unit', 'better', ...peers.map((r) => r.name), ...(hasNc ? others.map((r) => `node-cli/${r.name}`) : [])]
  const rows = []
  for (const [key, label, unit, dir] of METRICS) {
    const cells = [label, unit, dir]
    for (const r of peers) {
      if (r.status === 'skipped') cells.push('skipped')
      else {
        const v = fmtVal(key, r.metrics[key])
        const star = r.clientBound.includes(key) ? '*' : ''
        cells.push(failedMetric(r, key) ? `✗ ${v}` : r.metrics[key] == null && r.status === 'failed' ? 'failed' : v + star)
      }
    }
    if (hasNc) {
      for (const r of others) {
        const x = ratio(results, key, r.name)
        const nc = results.find((q) => q.name === 'node-cli')
        cells.push(x == null ? (failedMetric(nc, key) || failedMetric(r, key) ? 'check ✗' : '—') : `${x.toFixed(2)}x${boundStar(results, key, r.name)}`)
      }
    }
    rows.push(cells)
  }
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)))
  const line = (cells) => cells.map((c, i) => (i < 3 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join('  ')
  log('')
  log(line(header))
  log(widths.map((w) => '-'.repeat(w)).join('  '))
  for (const r of rows) log(line(r))
  log('')
  log(`ratios are node-cli ÷ peer (for "higher" metrics > 1 means node-cli is faster; for "lower" metrics < 1 means node-cli is better)`)
  log(`✗ = a correctness check failed for that figure (no ratio is given for it)`)
  log(`* = the load generator (autocannon, this process) used >= ${CLIENT_BOUND_PCT}% of a core: the figure is a floor set by the client on this machine, not the node's ceiling`)
  for (const r of peers) {
    const fails = r.checks.filter((c) => !c.ok)
    const head = `${r.name} ${r.version ?? ''}`.trim()
    if (r.status !== 'ok') log(`- ${head}: ${r.status.toUpperCase()}: ${String(r.error).replace(/\s*\n\s*/g, ' | ').slice(0, 400)}`)
    else log(`- ${head}: ${r.checks.length - fails.length}/${r.checks.length} checks passed`)
    for (const c of fails) log(`    ✗ [${c.metric}] ${c.what}: ${c.detail}`)
    for (const n of r.notes) log(`    note: ${n}`)
  }
}

function evaluateTargets(results) {
  const out = []
  for (const [key, peer, cmp, factor, label] of TARGETS) {
    const x = ratio(results, key, peer)
    const met = x == null ? null : cmp === '<=' ? x <= factor : x >= factor
    out.push({ target: label, metric: key, peer, ratio: x == null ? null : +x.toFixed(3), met, loadGeneratorBound: boundStar(results, key, peer) === '*' })
  }
  return out
}

// ---------------------------------------------------------------- main
const t0 = performance.now()
log(`node-cli bench: ${selected.map((p) => p.name).join(', ')} — N=${opts.n} transfers, ${opts.duration} s per load test${opts.warmup ? ` (+${opts.warmup} s warm-up)` : ''}, ${opts.connections} connections${opts.quick ? ' [quick]' : ''}`)
if (sustainSelected.length) log(`then --sustain: ${fmtMin(opts.sustain)} of sustained load on each of ${sustainSelected.map((p) => p.name).join(', ')} (${opts.sustainTps} transfers/s)`)
log(`machine: ${cpus().length} × ${cpus()[0]?.model ?? '?'}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, Node ${process.version}, Linux ${release()}, load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}`)
const results = []
for (const peer of selected) results.push(await runPeer(peer))
let long = null
if (opts.long) {
  const nc = PEERS.find((p) => p.name === 'node-cli')
  long = nc.unavailable() ? { error: nc.unavailable() } : await runLong(nc)
}
let sustain = null
if (sustainSelected.length) {
  sustain = { minutes: opts.sustain, targetTps: opts.sustainTps, connections: opts.connections, sampleEveryS: SUSTAIN_SAMPLE_S, flatPct: SUSTAIN_FLAT_PCT, peers: [] }
  for (const peer of sustainSelected) sustain.peers.push(await runSustain(peer))
}

printTable(results)
const targets = results.some((r) => r.name === 'node-cli') ? evaluateTargets(results) : []
if (targets.length) {
  log('')
  log('node-cli targets:')
  for (const t of targets) {
    const r = t.ratio == null ? 'n/a' : `${t.ratio.toFixed(2)}x${t.loadGeneratorBound ? '*' : ''}`
    log(`  ${t.met == null ? '?' : t.met ? '✓' : '✗'} ${t.target.padEnd(46)} ${r}`)
  }
}
if (long) {
  log('')
  log(`--long (node-cli, ${long.n ?? opts.longN} transfers), RSS: ${long.error ? `FAILED: ${long.error}` : long.samples.map((s) => `${s.txs / 1000}k ${s.rssMiB.toFixed(0)} MiB`).join(', ')}`)
  if (long.samples?.length > 1) log(`  tx/s per slice: ${long.samples.slice(1).map((s) => s.txPerSec).join(', ')}; checks: ${long.checks.map((c) => `${c.ok ? '✓' : '✗'} ${c.what}`).join('; ')}`)
}
if (sustain) {
  log('')
  log(`--sustain: ${fmtMin(sustain.minutes)} of mixed reads on ${sustain.connections} connections + ${sustain.targetTps} transfers/s; RSS every ${SUSTAIN_SAMPLE_S} s`)
  for (const r of sustain.peers) {
    const v = r.verdict
    const mark = v === 'flat' ? '✓' : v === 'not flat' || v === 'invalid' || v === 'failed' ? '✗' : '?'
    log(`${mark} ${r.name} ${r.version ?? ''}: ${v.toUpperCase()}${r.status === 'ok' && r.analysis?.maxDeviationPct != null ? ` (max deviation ${r.analysis.maxDeviationPct}% from the median ${r.analysis.medianMiB} MiB; flat = within ±${SUSTAIN_FLAT_PCT}%)` : ''}`)
    if (r.status === 'skipped' || r.status === 'failed') {
      log(`    ${r.status}: ${String(r.error).replace(/\s*\n\s*/g, ' | ').slice(0, 400)}`)
      continue
    }
    for (const l of sustainReport(r)) log(`  ${l}`)
    const reqs = Object.entries(r.requests).map(([k, n]) => `${k} ${n.ok}${n.bad ? ` (${n.bad} ✗)` : ''}`)
    log(`    requests: ${reqs.join(', ')}; transfers ${r.transfers?.sent} (${r.transfers?.txPerSec} tx/s); eth_getLogs ${r.getLogs?.ok}/${r.getLogs?.calls} (median ${r.getLogs?.medianMs} ms)`)
    const fails = r.checks.filter((c) => !c.ok)
    log(`    ${r.checks.length - fails.length}/${r.checks.length} checks passed`)
    for (const c of fails) log(`    ✗ ${c.what}: ${c.detail}`)
    for (const n of r.notes) log(`    note: ${n}`)
  }
  // node-cli's level against each peer's (median after the warm-up)
  const nc = sustain.peers.find((r) => r.name === 'node-cli')
  for (const r of sustain.peers) {
    if (r === nc || !nc?.analysis?.medianMiB || !r.analysis?.medianMiB) continue
    const x = nc.analysis.medianMiB / r.analysis.medianMiB
    r.nodeCliRssRatio = +x.toFixed(3)
    log(`  node-cli/${r.name} median RSS under sustained load: ${x.toFixed(2)}x${nc.verdict === 'invalid' || r.verdict === 'invalid' ? ' (a check failed)' : ''}`)
  }
}
const elapsed = (performance.now() - t0) / 1000
log(`\ntotal ${elapsed.toFixed(0)} s; results in ${opts.out}`)

const anyFail =
  results.some((r) => r.status === 'failed' || r.checks.some((c) => !c.ok)) ||
  (long && (long.error || long.checks?.some((c) => !c.ok))) ||
  (sustain && sustain.peers.some((r) => r.status === 'failed' || r.checks.some((c) => !c.ok)))
writeFileSync(
  opts.out,
  JSON.stringify(
    {
      date: new Date().toISOString(),
      machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model, memGiB: +(totalmem() / 2 ** 30).toFixed(1), node: process.version, kernel: release(), loadAverageAtEnd: loadavg() },
      options: { quick: opts.quick, n: opts.n, durationS: opts.duration, warmupS: opts.warmup, connections: opts.connections, only: opts.only, sustainMin: opts.sustain, sustainPeers: sustainSelected.map((p) => p.name), sustainTps: opts.sustainTps },
      autocannon: benchRequire('autocannon/package.json').version,
      metrics: Object.fromEntries(METRICS.map(([k, label, unit, dir]) => [k, { label, unit, better: dir }])),
      peers: results,
      ratios: Object.fromEntries(
        METRICS.map(([k]) => [k, Object.fromEntries(results.filter((r) => r.name !== 'node-cli').map((r) => [r.name, ratio(results, k, r.name)]))]),
      ),
      targets,
      long,
      sustain,
      elapsedS: +elapsed.toFixed(1),
      ok: !anyFail,
    },
    (_k, v) => (typeof v === 'bigint' ? v.toString() : v),
    2,
  ) + '\n',
)
process.exit(anyFail ? 1 : 0)
