// The main run on one peer (bench/README.md, "The workload"): start-up, idle RSS, the token deploy, the read
// load tests, sequential ERC-20 transfers, eth_getLogs, the block and receipt load tests, RSS after, sequential
// value transfers; then the tracing row on a fresh instance. Every figure comes with the checks that make it count.
import { performance } from 'node:perf_hooks'
import {
  LOAD_SAMPLES,
  LOG_RANGE,
  RECIPIENT,
  SUPPLY,
  TRANSFER_GAS,
  TRANSFER_TOPIC,
  balanceOfData,
  someAddress,
  topicAddr,
  transferData,
  variedAmount,
} from './erc20.mjs'
import { CLIENT_BOUND_PCT, load, preflight } from './load.mjs'
import { fmtMs, log } from './log.mjs'
import { PEER_TIMEOUT_MS, deployToken, devAccount, sendAndWait, signLegacy, start } from './peer-client.mjs'
import { rootRequire } from './paths.mjs'
import { childPids, foreignCpu, rssMiB, sleep } from './proc.mjs'
import { median } from './stats.mjs'
import { Rpc, body } from './rpc.mjs'
import { traceRow } from './trace.mjs'
import { callFreshRow, measureFreshCall } from './fresh-call.mjs'
import { sparseLogsRow } from './sparse-logs.mjs'
import { getLogsStep } from './getlogs-step.mjs'
import { plainTransfersStep } from './plain-transfers.mjs'

const { keccak256 } = rootRequire('ethers')

const STARTUP_RUNS = 5
/**
 * Node reads the file NODE_EXTRA_CA_CERTS names at boot, before any JavaScript runs (~45 ms on the 2-core
 * sandbox, whose environment sets it; a developer machine usually does not). When it is set, start-up is also
 * measured without it, for every peer, as a second row.
 */
const EXTRA_CA = process.env.NODE_EXTRA_CA_CERTS
/** Other processes' share of the machine that earns a warning (%). */
const BUSY_WARN_PCT = 10

const evenly = (xs, k) =>
  xs.length <= k ? xs : Array.from({ length: k }, (_, i) => xs[Math.floor((i * xs.length) / k)])

/**
 * The result record of one peer: { name, version, status ('ok' | 'skipped' | 'failed'), error, metrics (the
 * METRICS keys), checks [{ metric, what, ok, detail }], notes, clientBound (metrics whose load generator was
 * the bottleneck), details, refused? (keys the node answered with its query limit, lib/sparse-logs.mjs) }.
 * `opts` from parseArgs (traceOnly runs the tracing row alone, rowsOnly the rows asked for with --logs-sparse /
 * --call-fresh).
 */
export async function runPeer(peer, opts) {
  const res = {
    name: peer.name,
    version: null,
    status: 'ok',
    error: null,
    metrics: {},
    checks: [],
    notes: [],
    clientBound: [],
    details: {},
  }
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
    if (!opts.traceOnly && !opts.rowsOnly) await workload(peer, res, ctx, opts)
    await ctx.instance?.stop()
    if (!opts.rowsOnly) log('   tracing row (fresh instance)')
    if (!opts.rowsOnly) await traceRow(peer, res, ctx)
    if (opts.rowsOnly && opts.callFresh) await callFreshRow(peer, res, ctx, opts)
    if (opts.logsSparse && !opts.traceOnly) await sparseLogsRow(peer, res, ctx, { long: opts.rowsOnly })
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

/** Steps 1-9 of the main run on a started `peer`, into `res` (see runPeer). */
async function workload(peer, res, ctx, opts) {
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
    step(
      `startup without NODE_EXTRA_CA_CERTS ${bare.map((x) => x.toFixed(0)).join(' / ')} ms → median ${res.metrics.startupNoExtraCaMs.toFixed(0)} ms`,
    )
  }
  check(
    'startupMs',
    'eth_chainId is the expected chain id',
    BigInt(inst.chainId) === peer.chainId,
    `got ${inst.chainId}`,
  )
  step(
    `startup ${runs.map((x) => x.toFixed(0)).join(' / ')} ms → median ${res.metrics.startupMs.toFixed(0)} ms (${inst.url}, pid ${inst.pid})`,
  )

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
    const callBalance = async (who) =>
      BigInt(await rpc.call('eth_call', [{ to: token, data: balanceOfData(who) }, 'latest']))

    // deploy the token (the Cancun fixture; a shanghai build where the peer lacks Cancun opcodes)
    const dep = await deployToken(peer, rpc, { wallet, chainId, gasPrice })
    const token = dep.token
    res.details.token = dep.info
    if (dep.note) res.notes.push(dep.note)
    const nonce = await getNonce()
    step(`token ${token} (${res.details.token.evmVersion}), gas price ${gasPrice} wei`)

    // 2. read-only load: eth_blockNumber, eth_call, eth_estimateGas
    const loadMetric = async (metric, label, reqs) => {
      const r = await load(inst, reqs, opts)
      res.metrics[metric] = r.rps
      res.details[metric] = r
      check(
        metric,
        `${label}: every response correct`,
        r.bad === 0 && r.ok > 0 && r.errors === 0 && r.timeouts === 0,
        `${r.ok} ok, ${r.bad} wrong, ${r.errors} errors, ${r.timeouts} timeouts${r.sample ? `; e.g. ${r.sample}` : ''}`,
      )
      if (r.clientCpuPct >= CLIENT_BOUND_PCT) res.clientBound.push(metric)
      step(
        `${label}: ${r.rps.toFixed(0)} req/s (p50 ${r.latencyMs.p50} ms, p99 ${r.latencyMs.p99} ms; CPU: node ${r.serverCpuPct}%, load generator ${r.clientCpuPct}%)`,
      )
    }
    const head0 = BigInt(await rpc.call('eth_blockNumber'))
    await loadMetric('blockNumberRps', 'eth_blockNumber', [
      await preflight(rpc, body('eth_blockNumber'), (r) => BigInt(r) === head0, 'eth_blockNumber'),
    ])
    await loadMetric('callRps', 'eth_call balanceOf', [
      await preflight(
        rpc,
        body('eth_call', [{ to: token, data: balanceOfData(sender) }, 'latest']),
        (r) => BigInt(r) === SUPPLY,
        'eth_call',
      ),
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
        ...(await preflight(
          rpc,
          body('eth_call', [{ to: token, data: balanceOfData(someAddress(0)) }, 'latest']),
          (r) => BigInt(r) === 0n,
          'eth_call varied',
        )),
        vary: (i) => body('eth_call', [{ to: token, data: balanceOfData(someAddress(i + 1)) }, 'latest']),
      },
    ])
    if (opts.callFresh) await measureFreshCall(inst, rpc, token, res, opts)
    await loadMetric('estimateVariedRps', 'eth_estimateGas (varied)', [
      {
        ...(await preflight(
          rpc,
          body('eth_estimateGas', [{ from: sender, to: token, data: transferData(RECIPIENT, 2n) }]),
          (r) => BigInt(r) === estimate,
          'eth_estimateGas varied',
        )),
        // a node may estimate a little differently per amount (calldata bytes, search precision): within 5%
        accept: (text) => {
          try {
            const g = BigInt(JSON.parse(text).result)
            return g * 100n >= estimate * 95n && g * 100n <= estimate * 105n
          } catch {
            return false
          }
        },
        vary: (i) =>
          body('eth_estimateGas', [{ from: sender, to: token, data: transferData(RECIPIENT, variedAmount(i)) }]),
      },
    ])

    // 4 (prep). 1000 blocks for eth_getLogs: empty blocks first when fewer than 1000 transfers follow
    const N = opts.n
    if (BigInt(N + opts.transferWarmup) < LOG_RANGE) {
      const fill = LOG_RANGE - BigInt(N + opts.transferWarmup)
      const before = BigInt(await rpc.call('eth_blockNumber'))
      const t0 = performance.now()
      await peer.mine(rpc, fill)
      const after = BigInt(await rpc.call('eth_blockNumber'))
      check('getLogsMs', `mining ${fill} empty blocks`, after - before === fill, `head ${before} → ${after}`)
      step(`mined ${fill} empty blocks in ${fmtMs(performance.now() - t0)}`)
    }

    // 3. W warm-up then N measured pre-signed legacy transfers, one at a time, each awaited: the first W (timed
    //    apart: the cold figure, JIT warm-up included) bring every peer to its steady state before the N of the row
    const W = opts.transferWarmup
    const T = W + N
    const amounts = Array.from({ length: T }, (_, i) => BigInt(i + 1))
    const tSign = performance.now()
    const raws = await signLegacy(wallet, {
      chainId,
      gasPrice,
      firstNonce: nonce,
      count: T,
      tx: (i) => ({ gasLimit: TRANSFER_GAS, to: token, data: transferData(RECIPIENT, amounts[i]), value: 0n }),
    })
    step(`signed ${T} transfers in ${fmtMs(performance.now() - tSign)} (not timed)`)
    const receipts = new Array(T)
    let polls = 0
    /** Sends transfers [from, to) one at a time; returns the seconds they took. */
    const sendRange = async (from, to) => {
      const t0 = performance.now()
      for (let i = from; i < to; i++) {
        const r = await sendAndWait(rpc, raws[i])
        receipts[i] = r.receipt
        polls += r.polls
      }
      return (performance.now() - t0) / 1000
    }
    if (W > 0) {
      const coldSecs = await sendRange(0, W)
      res.metrics.transferColdTps = W / coldSecs
      res.details.transfersCold = { n: W, seconds: +coldSecs.toFixed(3) }
      step(`${W} warm-up transfers (the first after start-up): ${res.metrics.transferColdTps.toFixed(1)} tx/s`)
    }
    const secs = await sendRange(W, T)
    res.metrics.transferTps = N / secs
    res.details.transfers = { n: N, warmup: W, seconds: +secs.toFixed(3), extraReceiptPolls: polls }
    if (polls > 0)
      res.notes.push(
        `eth_sendRawTransaction returned before the receipt existed ${polls} time(s) in ${T}: receipts were polled (1 ms apart), counted in tx/s`,
      )
    // validate every receipt
    const hashes = raws.map((r) => keccak256(r))
    let badReceipts = 0
    let firstBad = null
    const blocks = new Set()
    for (let i = 0; i < T; i++) {
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
    check(
      'transferTps',
      'every receipt: status 1, one Transfer log with the right from/to/amount',
      badReceipts === 0,
      badReceipts ? `${badReceipts} bad; ${firstBad}` : `${T} receipts`,
    )
    if (blocks.size !== T)
      res.notes.push(`${T} automined transfers landed in ${blocks.size} blocks (not one block per tx)`)
    step(
      `${N} transfers after the warm-up: ${res.metrics.transferTps.toFixed(1)} tx/s (${secs.toFixed(2)} s; ${blocks.size} blocks in all)`,
    )

    // final balances
    const sum = amounts.reduce((a, b) => a + b, 0n)
    const balR = await callBalance(RECIPIENT)
    const balS = await callBalance(sender)
    check(
      'transferTps',
      'final token balances: recipient = sum of transfers, sender = supply - sum',
      balR === sum && balS === SUPPLY - sum,
      `recipient ${balR} (want ${sum}), sender ${balS} (want ${SUPPLY - sum})`,
    )

    // 4. eth_getLogs over the last 1000 blocks
    await getLogsStep({ rpc, receipts, amounts, token, res, check, step })

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
            b.transactions.some(
              (t) =>
                t.hash.toLowerCase() === r.transactionHash.toLowerCase() &&
                t.input === transferData(RECIPIENT, amounts[receipts.indexOf(r)]),
            ),
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
    if ([...txCounts].some((c) => c !== 1))
      res.notes.push(
        `a transfer block holds ${[...txCounts].join('/')} transactions (the transfer plus system transactions), not 1`,
      )
    await loadMetric('blockFullRps', 'eth_getBlockByNumber(full)', blockReqs)
    await loadMetric('receiptRps', 'eth_getTransactionReceipt', receiptReqs)

    // 6b. RSS after the workload
    res.metrics.rssAfterMiB = rssMiB(inst.pid)
    step(`RSS idle ${res.metrics.rssIdleMiB?.toFixed(1)} MiB, after ${res.metrics.rssAfterMiB?.toFixed(1)} MiB`)
    if (!inst.isAlive()) throw new Error(`the node exited during the workload:\n${inst.tail()}`)

    // 6c. plain value transfers (after the RSS figure, which stays the ERC-20 workload's)
    await plainTransfersStep({
      rpc,
      wallet,
      chainId,
      gasPrice,
      nonce: nonce + T,
      n: N,
      warmup: W > 0,
      res,
      check,
      step,
    })
    const busy = others()
    res.details.otherProcessesCpuPct = busy
    if (busy != null && busy >= BUSY_WARN_PCT)
      res.notes.push(`other processes used ${busy}% of the machine's CPU during this run: figures are depressed`)
  } finally {
    rpc.close()
  }
}
