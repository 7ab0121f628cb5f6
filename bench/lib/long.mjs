// --long (node-cli only): a fresh instance, N transfers (100 000 by default) in ten slices, RSS and tx/s after
// each slice (signing between slices is not timed).
import { performance } from 'node:perf_hooks'
import { DEPLOY_GAS, RECIPIENT, SUPPLY, TRANSFER_GAS, balanceOfData, transferData } from './erc20.mjs'
import { log } from './log.mjs'
import { sendAndWait, start } from './peer-client.mjs'
import { benchDir, root, rootRequire } from './paths.mjs'
import { rssMiB, sleep } from './proc.mjs'
import { Rpc } from './rpc.mjs'
import { loadToken } from './token.mjs'

const { Wallet, AbiCoder, getAddress } = rootRequire('ethers')

/**
 * Runs opts.longN transfers on `peer`. Returns { n, samples [{ txs, rssMiB, txPerSec }], error, checks }.
 */
export async function runLong(peer, opts) {
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
    const ctor = AbiCoder.defaultAbiCoder()
      .encode(['string', 'string', 'uint256'], ['Bench Token', 'BENCH', SUPPLY])
      .slice(2)
    const { receipt } = await sendAndWait(
      rpc,
      await wallet.signTransaction({
        type: 0,
        chainId,
        nonce: nonce++,
        gasPrice: 0n,
        gasLimit: DEPLOY_GAS,
        data: art.bytecode + ctor,
      }),
    )
    const token = getAddress(receipt.contractAddress)
    out.samples.push({ txs: 0, rssMiB: rssMiB(inst.pid), txPerSec: null })
    log(`   0 txs: RSS ${out.samples[0].rssMiB.toFixed(1)} MiB`)
    let bad = 0
    let sent = 0
    for (let done = 0; done < TOTAL; done += STEP) {
      const raws = []
      const batch = Math.min(STEP, TOTAL - done)
      for (let i = 0; i < batch; i++) {
        raws.push(
          await wallet.signTransaction({
            type: 0,
            chainId,
            nonce: nonce++,
            gasPrice: 0n,
            gasLimit: TRANSFER_GAS,
            to: token,
            data: transferData(RECIPIENT, 1n),
          }),
        )
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
    out.checks.push({
      what: 'recipient balance = number of transfers',
      ok: bal === BigInt(sent),
      detail: `${bal} (want ${sent})`,
    })
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

/** The --long summary lines under the table. */
export function printLong(long, opts) {
  log('')
  log(
    `--long (node-cli, ${long.n ?? opts.longN} transfers), RSS: ${long.error ? `FAILED: ${long.error}` : long.samples.map((s) => `${s.txs / 1000}k ${s.rssMiB.toFixed(0)} MiB`).join(', ')}`,
  )
  if (long.samples?.length > 1)
    log(
      `  tx/s per slice: ${long.samples
        .slice(1)
        .map((s) => s.txPerSec)
        .join(', ')}; checks: ${long.checks.map((c) => `${c.ok ? '✓' : '✗'} ${c.what}`).join('; ')}`,
    )
}
