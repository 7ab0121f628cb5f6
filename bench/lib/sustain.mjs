// --sustain: a fresh instance under a sustained mixed load (reads on many connections, a steady stream of
// transfers, eth_getLogs every 5 s), every answer checked, RSS and throughput sampled over time, per-window
// latency (bench/README.md, "--sustain"); node-cli also with --db. The read side is in sustain-load.mjs, the
// samples in sustain-sampler.mjs, the windows in sustain-windows.mjs, the analysis in sustain-analysis.mjs, the
// printing in sustain-report.mjs, the machine-speed canary in canary.mjs.
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
  tokenTransferTx,
  topicAddr,
  transferData,
  variedAmount,
} from './erc20.mjs'
import { CLIENT_BOUND_PCT, autocannon, preflight } from './load.mjs'
import { fmtMin, fmtMs, log } from './log.mjs'
import { checkRecorder, peerAvailable } from './section.mjs'
import { PEER_TIMEOUT_MS, deployToken, devAccount, sendAndWait, start } from './peer-client.mjs'
import { dirBytes, rssMiB, sleep, tempDir } from './proc.mjs'
import { median } from './stats.mjs'
import { startCanary } from './canary.mjs'
import { Rpc, body } from './rpc.mjs'
import { analyze as analyzeSustain, verdict as sustainVerdict } from './sustain-analysis.mjs'
import { logsLoop, readMix, sleepUntil } from './sustain-load.mjs'
import { sampleLine, takeSample } from './sustain-sampler.mjs'
import { WindowRecorder, windowGrowth } from './sustain-windows.mjs'

/** Seconds between samples. */
export const SUSTAIN_SAMPLE_S = 15
const SUSTAIN_LOGS_EVERY_S = 5
/** The flat verdict's band around the median RSS (±%). */
export const SUSTAIN_FLAT_PCT = 10
/** Transfer i of the sustained load goes to a fresh address (state grows like a test suite's), never one the reads use. */
const sustainRecipient = (i) => '0x' + (0xc0000000 + i).toString(16).padStart(40, '0')
const sustainAmount = (i) => BigInt((i % 1000) + 1)

/**
 * A fresh instance of `peer`: deploy the token, seed LOAD_SAMPLES transfers, then for opts.sustain minutes
 * (a) autocannon on opts.connections connections cycling eth_blockNumber, eth_call balanceOf (new address
 * each), eth_estimateGas (new amount each), eth_getBlockByNumber(full) and eth_getTransactionReceipt (over
 * the seeded transfers), every response checked; (b) sequential ERC-20 transfers signed on the fly at
 * opts.sustainTps, every receipt checked; (c) eth_getLogs over the last 1000 blocks every 5 s, checked
 * against the transfers sent. RSS, peak RSS, req/s, tx/s and height every 15 s, and per window (1 min; a
 * quarter of runs shorter than 4 min) the blocks mined and p50/p99 latency of the reads and of the transfers.
 * With `db`, the node runs with --db <a temp dir> (named "<peer> --db"). `opts` from parseArgs.
 */
export async function runSustain(peer, opts, { db = false } = {}) {
  const totalS = opts.sustain * 60
  const name = db ? `${peer.name} --db` : peer.name
  const out = {
    name,
    db,
    version: null,
    status: 'ok',
    error: null,
    minutes: opts.sustain,
    targetTps: opts.sustainTps,
    connections: opts.connections,
    rssIdleMiB: null,
    samples: [],
    windowS: null,
    windows: [],
    growth: null,
    dbBytes: null,
    dbBytesPerBlock: null,
    requests: {},
    transfers: null,
    getLogs: null,
    analysis: null,
    verdict: null,
    checks: [],
    notes: [],
  }
  if (!peerAvailable(out, peer, `--sustain ${name}`)) return out
  log(
    `\n== --sustain: ${fmtMin(opts.sustain)} of sustained mixed load on ${name} ${out.version ?? ''} (${opts.connections} read connections + ${opts.sustainTps} transfers/s, RSS every ${SUSTAIN_SAMPLE_S} s)`,
  )
  const check = checkRecorder(out, `sustain ${name}`)
  const step = (s) => log(`   ${s}`)
  const ctx = { instance: null }
  let timedOut = false
  const watchdog = setTimeout(
    () => {
      timedOut = true
      ctx.instance?.stop(500)
    },
    totalS * 1000 + PEER_TIMEOUT_MS,
  )
  const rpcs = []
  const newRpc = (url) => {
    const r = new Rpc(url)
    rpcs.push(r)
    return r
  }
  try {
    const dir = db ? tempDir('node-cli-bench-sustain-') : null
    const inst = await start(peer, ctx, { extraArgs: db ? ['--db', dir] : [] })
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
    step(
      `started in ${fmtMs(inst.startupMs)} (pid ${inst.pid}), RSS idle ${out.rssIdleMiB?.toFixed(1)} MiB; token ${token} (${dep.info.evmVersion}) in block ${dep.block}`,
    )

    // --- transfers (seed and sustained): signed on the fly, each awaited, each receipt checked
    const transfers = [] // { block, hash, to, amount } in order
    let head = dep.block // highest block known to be mined (a transfer's receipt)
    let badReceipts = 0
    let firstBad = null
    let extraPolls = 0
    let onTransfer = (_ms) => {}
    const sendTransfer = async () => {
      const i = transfers.length
      const to = sustainRecipient(i)
      const amount = sustainAmount(i)
      const raw = await wallet.signTransaction(
        tokenTransferTx({ chainId, nonce: nonce++, gasPrice, token, to, amount }),
      )
      const tSend = performance.now()
      const { receipt: r, polls } = await sendAndWait(txRpc, raw) // checks the returned hash = keccak256(raw)
      onTransfer(performance.now() - tSend)
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
    await preflight(
      rpc,
      body('eth_call', [{ to: token, data: balanceOfData(someAddress(0)) }, 'latest']),
      (r) => BigInt(r) === 0n,
      'eth_call balanceOf',
    )
    step(
      `seeded ${LOAD_SAMPLES} transfers (head ${head}); transfer estimate ${estimate} gas; chain data ≈ ${(chainBytesPerTx / 1024).toFixed(2)} KiB per transfer (JSON of block + receipt)`,
    )

    // --- the read mix: one request of each kind per cycle on every connection, every answer checked
    const mix = readMix({ token, sender, estimate, seeds, head: () => head })
    const counts = mix.counts

    // --- run: the read load, the transfer loop, the eth_getLogs loop and the sampler, side by side
    let stopping = false
    let failure = null
    const stopped = () => stopping
    const fail = (what, err) => {
      failure ??= `${what}: ${err.message}`
      stopping = true
    }
    const canary = startCanary()
    const t0 = performance.now()
    const client0 = process.cpuUsage()
    const windows = new WindowRecorder(t0, totalS, canary)
    out.windowS = +windows.W.toFixed(1)
    onTransfer = (ms) => windows.tx(ms)
    const tracker = autocannon({
      url: inst.url,
      connections: opts.connections,
      pipelining: 1,
      timeout: 10,
      duration: totalS + 30,
      requests: mix.requests,
    })
    tracker.on('response', (_client, _status, _bytes, latencyMs) => windows.read(latencyMs))
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

    let logsRuns = { ok: 0, bad: 0, sample: null, ms: [] }
    // (not the deploy block: its mint log)
    const logsDone = logsLoop({
      rpc: logsRpc,
      token,
      firstBlock: dep.block + 1,
      head: () => head,
      transfers,
      t0,
      everyS: SUSTAIN_LOGS_EVERY_S,
      stopped,
    }).then(
      (r) => {
        logsRuns = r
      },
      (err) => fail('eth_getLogs loop', err),
    )

    // sampler: t = 0 (before any load), every 15 s, at each window's end, and at the end
    const ends = windows.boundaries()
    const ticks = new Set([0, ...ends])
    for (let s = SUSTAIN_SAMPLE_S; s < totalS - 1e-6; s += SUSTAIN_SAMPLE_S) ticks.add(s)
    const at = [...ticks].sort((a, b) => a - b)
    let prev = null
    let windowStart = null
    for (const s of at) {
      if (!(await sleepUntil(t0 + s * 1000, stopped))) break
      if (!inst.isAlive()) {
        fail('node', new Error(`exited during the sustained load:\n${inst.tail()}`))
        break
      }
      const counts = {
        reads: mix.okTotal(),
        txs: transfers.length - seedCount,
        txsTotal: transfers.length,
        height: head,
      }
      const { sample, mark } = takeSample(inst.pid, s, counts, prev)
      out.samples.push(sample)
      prev = mark
      const k = ends.indexOf(s)
      if (k >= 0 && windowStart) out.windows.push(windows.close(k, windowStart, mark))
      if (s === 0 || k >= 0) windowStart = mark
      step(sampleLine(sample))
    }
    stopping = true
    canary.stop()
    tracker.stop()
    const ac = await acDone
    await txLoop
    await logsDone
    const wall = (performance.now() - t0) / 1000
    const client = process.cpuUsage(client0)
    if (failure) throw new Error(failure)

    // --- checks: every read response, every receipt, every eth_getLogs, the final balances
    out.requests = Object.fromEntries(
      Object.entries(counts).map(([k, v]) => [k, { ...v, perSec: +(v.ok / wall).toFixed(1) }]),
    )
    for (const [name, n] of Object.entries(counts))
      check(
        `${name}: every response correct`,
        n.bad === 0 && n.ok > 0,
        `${n.ok} ok, ${n.bad} wrong${n.sample ? `; e.g. ${n.sample}` : ''}`,
      )
    check(
      'load generator: no socket errors or timeouts',
      ac && ac.errors === 0 && ac.timeouts === 0,
      ac ? `${ac.errors} errors, ${ac.timeouts} timeouts` : 'no result',
    )
    const sent = transfers.length - seedCount
    out.transfers = { seeded: seedCount, sent, txPerSec: +(sent / wall).toFixed(2), extraReceiptPolls: extraPolls }
    check(
      'every transfer receipt: status 1, one Transfer log with the right from/to/amount',
      badReceipts === 0 && sent > 0,
      badReceipts ? `${badReceipts} bad; ${firstBad}` : `${transfers.length} receipts`,
    )
    if (sent / wall < opts.sustainTps * 0.9)
      out.notes.push(
        `transfers ran at ${(sent / wall).toFixed(1)} tx/s, below the ${opts.sustainTps} tx/s asked for (the node or this machine could not keep up)`,
      )
    out.getLogs = {
      everyS: SUSTAIN_LOGS_EVERY_S,
      calls: logsRuns.ok + logsRuns.bad,
      ok: logsRuns.ok,
      bad: logsRuns.bad,
      medianMs: logsRuns.ms.length ? +median(logsRuns.ms).toFixed(1) : null,
      maxMs: logsRuns.ms.length ? +Math.max(...logsRuns.ms).toFixed(1) : null,
    }
    check(
      `eth_getLogs over the last ${LOG_RANGE} blocks every ${SUSTAIN_LOGS_EVERY_S} s: exactly the transfers sent there`,
      logsRuns.bad === 0 && logsRuns.ok > 0,
      `${logsRuns.ok} ok, ${logsRuns.bad} wrong${logsRuns.sample ? `; e.g. ${logsRuns.sample}` : ''}`,
    )
    const sum = transfers.reduce((a, x) => a + x.amount, 0n)
    const balS = BigInt(await rpc.call('eth_call', [{ to: token, data: balanceOfData(sender) }, 'latest']))
    const lastT = transfers[transfers.length - 1]
    const balL = BigInt(await rpc.call('eth_call', [{ to: token, data: balanceOfData(lastT.to) }, 'latest']))
    check(
      'final balances: sender = supply - all transfers, last recipient = its amount',
      balS === SUPPLY - sum && balL === lastT.amount,
      `sender ${balS} (want ${SUPPLY - sum}), last recipient ${balL} (want ${lastT.amount})`,
    )
    check('the node is still running', inst.isAlive(), inst.isAlive() ? null : inst.tail())
    out.loadGeneratorCpuPct = Math.round(((client.user + client.system) / 1e6 / wall) * 100)
    if (out.loadGeneratorCpuPct >= CLIENT_BOUND_PCT)
      out.notes.push(
        `this process (autocannon + transfers) used ${out.loadGeneratorCpuPct}% of a core: req/s is bounded by the client`,
      )
    out.analysis = analyzeSustain(out.samples, { totalS, flatPct: SUSTAIN_FLAT_PCT, chainBytesPerTx })
    out.growth = windowGrowth(out.windows, out.samples, totalS)
    if (dir) {
      out.dbBytes = dirBytes(dir)
      out.dbBytesPerBlock = head > 0 ? Math.round(out.dbBytes / head) : null
    }
  } catch (err) {
    out.status = 'failed'
    out.error = timedOut ? `gave up (watchdog) (${err.message})` : err.message
    log(`   --sustain ${name} FAILED: ${out.error}`)
  } finally {
    clearTimeout(watchdog)
    for (const r of rpcs) r.close()
    await ctx.instance?.stop()
  }
  out.verdict = sustainVerdict(out)
  return out
}
