// --restart (node-cli only): what a restart costs on a long chain kept with --db, and whether a kill -9 loses
// acknowledged blocks. Builds a chain of --restart-blocks blocks (anvil_mine in chunks, with an ERC-20 deploy,
// token transfers and value transfers spread over it), stops the node with SIGTERM, then times spawn → the
// first eth_blockNumber that answers the right head (median of 3 restarts, RSS after each); then kill -9
// rounds: SIGKILL while an anvil_mine runs (once another connection has seen the head move), restart, head ≥
// the last block acknowledged (the last one eth_blockNumber answered before the kill).
import { performance } from 'node:perf_hooks'
import { SUPPLY, balanceOfData, tokenTransferTx } from './erc20.mjs'
import { fmtMs, log } from './log.mjs'
import { checkRecorder, peerAvailable } from './section.mjs'
import { deployToken, devAccount, sendAndWait, start } from './peer-client.mjs'
import { dirBytes, peakRssMiB, rssMiB, sleep, tempDir } from './proc.mjs'
import { median } from './stats.mjs'
import { Rpc, hex } from './rpc.mjs'

/** Empty blocks per anvil_mine call while building the chain. */
const MINE_CHUNK = 10_000
/** Timed restarts (the median is reported). */
const RESTART_RUNS = 3
/** Each kill -9 round kills the node once eth_blockNumber shows this many blocks of the running anvil_mine. */
const KILL_AFTER_BLOCKS = [10, 300, 2000]
/** Blocks the killed anvil_mine asks for (node-cli's cap; more than are mined before the kill). */
const KILL_MINE_BLOCKS = 10_000
/** Longest wait for a restarted node to answer (ms): loading a long chain is what is measured. */
const RESTART_TIMEOUT_MS = 300_000

const tokenRecipient = (i) => '0x' + (0xd0000000 + i).toString(16).padStart(40, '0')
const valueRecipient = (i) => '0x' + (0xe0000000 + i).toString(16).padStart(40, '0')

/**
 * Runs the restart row on `peer` (node-cli) with opts.restartBlocks blocks and opts.settleMs before the RSS
 * reading. Returns { name, version, status, error, blocks, build {…}, stopMs (SIGTERM → exit), dbBytes,
 * dbBytesPerBlock, restarts [{ ms, rssMiB, peakMiB, wrongHeads }], restartMs (median), restartsWithoutExtraCa [ms]
 * and restartMsWithoutExtraCa (median; only when the environment sets NODE_EXTRA_CA_CERTS), rssAfterRestartMiB
 * (median), peakRssMiB (median VmHWM at the first right answer), kill9 [{ killAfterBlocks, ackedHead (the
 * last head answered before the kill), headAfter, inflightMine, restartMs }], checks [{ what, ok, detail }], notes }.
 */
export async function runRestart(peer, opts) {
  const N = opts.restartBlocks
  const out = {
    name: `${peer.name} --db`,
    version: null,
    status: 'ok',
    error: null,
    blocks: N,
    build: null,
    stopMs: null,
    dbBytes: null,
    dbBytesPerBlock: null,
    restarts: [],
    restartMs: null,
    restartsWithoutExtraCa: [],
    restartMsWithoutExtraCa: null,
    rssAfterRestartMiB: null,
    peakRssMiB: null,
    kill9: [],
    checks: [],
    notes: [],
  }
  if (!peerAvailable(out, peer, `--restart`)) return out
  log(
    `\n== --restart: ${N} blocks on ${peer.name} --db, then ${RESTART_RUNS} restarts and ${KILL_AFTER_BLOCKS.length} kill -9 rounds`,
  )
  const check = checkRecorder(out, `restart`)
  const step = (s) => log(`   ${s}`)
  const dir = tempDir('node-cli-bench-restart-')
  const dbArgs = ['--db', dir]
  const ctx = { instance: null }
  /** @type {Rpc} */
  let rpc
  const connect = (inst) => {
    rpc?.close()
    rpc = new Rpc(inst.url, { timeoutMs: 300_000 })
    return rpc
  }
  try {
    // --- build: deploy, then chunks of empty blocks with a share of the transfers after each
    let inst = await start(peer, ctx, { extraArgs: dbArgs })
    connect(inst)
    const acct = await devAccount(peer, rpc)
    const { wallet, sender, chainId, gasPrice } = acct
    const tBuild = performance.now()
    const dep = await deployToken(peer, rpc, acct)
    const token = dep.token
    let nonce = Number(BigInt(await rpc.call('eth_getTransactionCount', [sender, 'latest'])))
    const nToken = Math.min(300, Math.floor(N / 20))
    const nValue = Math.min(100, Math.floor(N / 60))
    // interleaved: 3 token transfers, 1 value transfer, …
    const txs = []
    for (let i = 0, t = 0, v = 0; t < nToken || v < nValue; i++) {
      if ((i % 4 === 3 || t >= nToken) && v < nValue) txs.push({ kind: 'value', i: v++ })
      else txs.push({ kind: 'token', i: t++ })
    }
    let head = Number(BigInt(await rpc.call('eth_blockNumber')))
    const empties = N - head - txs.length
    if (empties < 0) throw new Error(`--restart-blocks ${N} is too small for ${txs.length} transactions`)
    const chunks = Math.max(1, Math.ceil(empties / MINE_CHUNK))
    let badReceipts = 0
    const sendOne = async (tx) => {
      const raw =
        tx.kind === 'token'
          ? await wallet.signTransaction(
              tokenTransferTx({
                chainId,
                nonce: nonce++,
                gasPrice,
                token,
                to: tokenRecipient(tx.i),
                amount: BigInt(tx.i + 1),
              }),
            )
          : await wallet.signTransaction({
              type: 0,
              chainId,
              nonce: nonce++,
              gasPrice,
              gasLimit: 21_000n,
              to: valueRecipient(tx.i),
              value: BigInt(tx.i + 1),
            })
      const { receipt } = await sendAndWait(rpc, raw)
      if (receipt.status !== '0x1') badReceipts++
      head = Number(BigInt(receipt.blockNumber))
    }
    let mined = 0
    for (let k = 0; k < chunks; k++) {
      const n = Math.min(MINE_CHUNK, empties - mined)
      if (n > 0) await peer.mine(rpc, BigInt(n))
      mined += n
      for (const tx of txs.slice(Math.floor((k * txs.length) / chunks), Math.floor(((k + 1) * txs.length) / chunks)))
        await sendOne(tx)
      head = Number(BigInt(await rpc.call('eth_blockNumber')))
      if (chunks > 1) step(`head ${head} / ${N} (${fmtMs(performance.now() - tBuild)})`)
    }
    const buildS = (performance.now() - tBuild) / 1000
    out.build = {
      seconds: +buildS.toFixed(1),
      blocksPerSecond: Math.round(N / buildS),
      emptyBlocks: empties,
      tokenTransfers: nToken,
      valueTransfers: nValue,
      tokenDeployBlock: dep.block,
      mineChunk: MINE_CHUNK,
    }
    check(`the chain has ${N} blocks`, head === N, `head ${head}`)
    check(
      'every transaction of the build mined with status 1',
      badReceipts === 0,
      `${badReceipts} failed of ${txs.length}`,
    )
    const headHash = (await rpc.call('eth_getBlockByNumber', [hex(head), false])).hash
    const lastT = nToken - 1
    const wantToken = nToken > 0 ? BigInt(lastT + 1) : 0n
    const balanceOf = async (who) =>
      BigInt(await rpc.call('eth_call', [{ to: token, data: balanceOfData(who) }, 'latest']))
    const sumToken = (BigInt(nToken) * BigInt(nToken + 1)) / 2n
    const state = async () => ({
      hash: (await rpc.call('eth_getBlockByNumber', [hex(head), false]))?.hash,
      sender: await balanceOf(sender),
      last: nToken > 0 ? await balanceOf(tokenRecipient(lastT)) : 0n,
      value: nValue > 0 ? BigInt(await rpc.call('eth_getBalance', [valueRecipient(nValue - 1), 'latest'])) : 0n,
    })
    const before = await state()
    check(
      'token balances after the build',
      before.sender === SUPPLY - sumToken && before.last === wantToken,
      `sender ${before.sender}, last recipient ${before.last}`,
    )
    step(
      `built ${N} blocks in ${buildS.toFixed(1)} s (${out.build.blocksPerSecond} blocks/s; ${nToken} token transfers, ${nValue} value transfers, ${empties} empty blocks)`,
    )

    // --- SIGTERM, and the directory's size
    let t = performance.now()
    await inst.stop(30_000)
    out.stopMs = +(performance.now() - t).toFixed(1)
    const ex = await inst.exited
    check('SIGTERM: the node exits by itself', ex.signal !== 'SIGKILL', `code ${ex.code}, signal ${ex.signal}`)
    out.dbBytes = dirBytes(dir)
    out.dbBytesPerBlock = Math.round(out.dbBytes / N)
    step(
      `SIGTERM → exit ${fmtMs(out.stopMs)}; on disk ${(out.dbBytes / 2 ** 20).toFixed(1)} MiB (${out.dbBytesPerBlock} bytes/block)`,
    )

    // --- timed restarts: spawn → eth_blockNumber = head
    for (let r = 0; r < RESTART_RUNS; r++) {
      const wrongHeads = new Set()
      const until = async (probe) => {
        const h = Number(BigInt(await probe.call('eth_blockNumber')))
        if (h === head) return h
        wrongHeads.add(h)
        return undefined
      }
      inst = await start(peer, ctx, { extraArgs: dbArgs, until, timeoutMs: RESTART_TIMEOUT_MS })
      const peakMiB = peakRssMiB(inst.pid)
      await sleep(opts.settleMs)
      const run = { ms: +inst.startupMs.toFixed(1), rssMiB: rssMiB(inst.pid), peakMiB, wrongHeads: [...wrongHeads] }
      out.restarts.push(run)
      if (wrongHeads.size)
        check(
          `restart ${r + 1}: no other head answered before ${head}`,
          false,
          `answered ${[...wrongHeads].join(', ')}`,
        )
      connect(inst)
      const after = await state()
      check(
        `restart ${r + 1}: head block hash and balances as before the stop`,
        after.hash === headHash &&
          after.sender === before.sender &&
          after.last === before.last &&
          after.value === before.value,
        JSON.stringify(after, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)),
      )
      step(
        `restart ${r + 1}: eth_blockNumber = ${head} after ${fmtMs(run.ms)}; RSS ${run.rssMiB?.toFixed(1)} MiB (peak so far ${run.peakMiB?.toFixed(1)} MiB)`,
      )
      await inst.stop(30_000)
    }
    // as the main run's start-up row: the same restart without NODE_EXTRA_CA_CERTS (Node reads that CA file at boot)
    if (process.env.NODE_EXTRA_CA_CERTS) {
      for (let r = 0; r < RESTART_RUNS; r++) {
        const until = async (probe) => (Number(BigInt(await probe.call('eth_blockNumber'))) === head ? head : undefined)
        inst = await start(peer, ctx, { extraArgs: dbArgs, until, timeoutMs: RESTART_TIMEOUT_MS, withoutExtraCa: true })
        out.restartsWithoutExtraCa.push(+inst.startupMs.toFixed(1))
        await inst.stop(30_000)
      }
      out.restartMsWithoutExtraCa = +median(out.restartsWithoutExtraCa).toFixed(1)
      step(
        `restart without NODE_EXTRA_CA_CERTS: ${out.restartsWithoutExtraCa.map((x) => x.toFixed(0)).join(' / ')} ms → median ${out.restartMsWithoutExtraCa} ms`,
      )
    }
    out.restartMs = +median(out.restarts.map((x) => x.ms)).toFixed(1)
    out.rssAfterRestartMiB = +median(out.restarts.map((x) => x.rssMiB)).toFixed(1)
    out.peakRssMiB = +median(out.restarts.map((x) => x.peakMiB)).toFixed(1)

    // --- kill -9 while mining: the head after a restart is at least the last block eth_blockNumber answered
    for (const after of KILL_AFTER_BLOCKS) {
      inst = await start(peer, ctx, { extraArgs: dbArgs, timeoutMs: RESTART_TIMEOUT_MS })
      connect(inst)
      const watch = new Rpc(inst.url, { timeoutMs: 10_000 })
      nonce = Number(BigInt(await rpc.call('eth_getTransactionCount', [sender, 'latest'])))
      let lastAckTx = null
      for (let j = 0; j < 5; j++) {
        const raw = await wallet.signTransaction({
          type: 0,
          chainId,
          nonce: nonce++,
          gasPrice,
          gasLimit: 21_000n,
          to: valueRecipient(nValue + j),
          value: 1n,
        })
        lastAckTx = (await sendAndWait(rpc, raw)).receipt.transactionHash
      }
      const base = Number(BigInt(await rpc.call('eth_blockNumber')))
      const inflight = rpc.call('anvil_mine', [hex(KILL_MINE_BLOCKS)]).then(
        () => 'answered before the kill',
        (err) => (err.rpcError ? `error ${JSON.stringify(err.rpcError)}` : 'no answer (killed)'),
      )
      let acked = base
      const tWatch = performance.now()
      while (acked < base + after && performance.now() - tWatch < 120_000) {
        acked = Number(BigInt(await watch.call('eth_blockNumber')))
        if (acked < base + after) await sleep(2)
      }
      inst.child.kill('SIGKILL')
      await inst.exited
      watch.close()
      const answered = await inflight
      t = performance.now()
      inst = await start(peer, ctx, { extraArgs: dbArgs, timeoutMs: RESTART_TIMEOUT_MS })
      const restartMs = performance.now() - t
      connect(inst)
      const headAfter = Number(BigInt(await rpc.call('eth_blockNumber')))
      const receipt = await rpc.call('eth_getTransactionReceipt', [lastAckTx])
      nonce = Number(BigInt(await rpc.call('eth_getTransactionCount', [sender, 'latest'])))
      const raw = await wallet.signTransaction({
        type: 0,
        chainId,
        nonce: nonce++,
        gasPrice,
        gasLimit: 21_000n,
        to: valueRecipient(nValue + 99),
        value: 1n,
      })
      const next = (await sendAndWait(rpc, raw)).receipt
      out.kill9.push({
        killAfterBlocks: after,
        ackedHead: acked,
        headAfter,
        lostBlocks: Math.max(0, acked - headAfter),
        inflightMine: answered,
        restartMs: +restartMs.toFixed(1),
      })
      const what = `kill -9 after ${acked - base} blocks of anvil_mine ${KILL_MINE_BLOCKS}`
      check(
        `${what}: the mine was running when killed`,
        acked >= base + after && answered === 'no answer (killed)',
        `head ${base} → ${acked}; the anvil_mine call: ${answered}`,
      )
      check(
        `${what}: head after restart (${headAfter}) ≥ last acknowledged (${acked})`,
        headAfter >= acked && headAfter <= base + KILL_MINE_BLOCKS,
        null,
      )
      check(
        `${what}: the last acknowledged transfer's receipt is kept, a new transfer mines on top`,
        receipt?.status === '0x1' && next.status === '0x1' && Number(BigInt(next.blockNumber)) === headAfter + 1,
        `receipt ${receipt?.status}, next in block ${next.blockNumber}`,
      )
      step(
        `kill -9 after ${acked - base} blocks of anvil_mine ${KILL_MINE_BLOCKS}: acknowledged ${acked}, head after restart ${headAfter}, restarted in ${fmtMs(restartMs)}`,
      )
      await inst.stop(30_000)
    }
  } catch (err) {
    out.status = 'failed'
    out.error = err.message
    log(`   --restart FAILED: ${err.message}`)
  } finally {
    rpc?.close()
    await ctx.instance?.stop()
  }
  return out
}

/** The --restart summary lines under the table. */
export function printRestart(r) {
  log('')
  log(
    `--restart (${r.name} ${r.version ?? ''}, ${r.blocks} blocks)${
      r.status === 'ok'
        ? ''
        : `: ${r.status.toUpperCase()}: ${String(r.error)
            .replace(/\s*\n\s*/g, ' | ')
            .slice(0, 400)}`
    }`,
  )
  if (r.build) {
    log(
      `  build: ${r.build.seconds} s (${r.build.blocksPerSecond} blocks/s; ${r.build.tokenTransfers} ERC-20 transfers, ${r.build.valueTransfers} value transfers, ${r.build.emptyBlocks} empty blocks in anvil_mine chunks of ${r.build.mineChunk})`,
    )
  }
  if (r.dbBytes != null)
    log(
      `  SIGTERM → exit ${r.stopMs} ms; on disk ${(r.dbBytes / 2 ** 20).toFixed(1)} MiB (${r.dbBytesPerBlock} bytes/block)`,
    )
  if (r.restartMs != null) {
    log(
      `  restart: spawn → eth_blockNumber = head ${r.restarts.map((x) => x.ms.toFixed(0)).join(' / ')} ms → median ${r.restartMs} ms; RSS after restart ${r.rssAfterRestartMiB} MiB (VmHWM at the first answer ${r.peakRssMiB} MiB)`,
    )
    if (r.restartMsWithoutExtraCa != null)
      log(
        `  restart without NODE_EXTRA_CA_CERTS: ${r.restartsWithoutExtraCa.map((x) => x.toFixed(0)).join(' / ')} ms → median ${r.restartMsWithoutExtraCa} ms`,
      )
  }
  for (const k of r.kill9)
    log(
      `  kill -9 during anvil_mine (≥ ${k.killAfterBlocks} blocks in): last acknowledged head ${k.ackedHead} → ${k.headAfter} after restart (${k.restartMs} ms)`,
    )
  const fails = r.checks.filter((c) => !c.ok)
  log(`  ${r.checks.length - fails.length}/${r.checks.length} checks passed`)
  for (const c of fails) log(`    ✗ ${c.what}: ${c.detail}`)
  for (const n of r.notes) log(`    note: ${n}`)
}
