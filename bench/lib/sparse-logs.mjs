// The sparse eth_getLogs row (bench/README.md, "The workload", step 12): on a fresh instance, a chain where one
// block in SPARSE_EVERY carries one ERC-20 Transfer of the bench token and the blocks between are empty (mined in
// bulk: anvil_mine / hardhat_mine / evm_mine {blocks}), then eth_getLogs over the whole chain — by address, and by
// address and a topic that one event in TOPIC_EVERY has — at SPARSE_POINTS blocks, median of SPARSE_RUNS calls each.
// Whether a node's log query costs per block or per match shows as the step from the first point to the second.
import { performance } from 'node:perf_hooks'
import { TRANSFER_TOPIC, tokenTransferTx, topicAddr } from './erc20.mjs'
import { fmtMs, log } from './log.mjs'
import { deployToken, devAccount, sendAndWait, start } from './peer-client.mjs'
import { median } from './stats.mjs'
import { Rpc, body, hex } from './rpc.mjs'

/**
 * Chain heights at which the queries run (blocks) and the metric keys of each: the whole chain by address, the same
 * with a topic, and the last WINDOW + 1 blocks by address. The default run stops at the first (Anvil's anvil_mine
 * costs time in proportion to the chain's length per block: 10 000 blocks ~1.5 min there, 30 000 ~13 min); the
 * row alone (`--logs-sparse`) goes on to the second.
 */
export const SPARSE_POINTS = [
  { blocks: 10_000, all: 'getLogsSparse10kMs', topic: 'getLogsSparseTopic10kMs', window: 'getLogsSparseWindow10kMs' },
  { blocks: 30_000, all: 'getLogsSparse30kMs', topic: 'getLogsSparseTopic30kMs', window: 'getLogsSparseWindow30kMs' },
]
/**
 * Blocks the window query spans beyond its first: the reference node's (and node-cli's) largest eth_getLogs range,
 * rpc.logs.maxBlocksToQuery, beyond which it answers -32012 (src/events/log-query.ts).
 */
export const WINDOW = 5000
/** One block in this many carries an event (1%). */
export const SPARSE_EVERY = 100
/** One event in this many goes to RECIPIENT_A, the topic-filtered query's `to`; the others to RECIPIENT_B. */
export const TOPIC_EVERY = 10
/** Timed calls per query; the median is reported. */
export const SPARSE_RUNS = 7
const RECIPIENT_A = '0x00000000000000000000000000000000000a11ce'
const RECIPIENT_B = '0x00000000000000000000000000000000000b0b00'

/**
 * Fills res.metrics (the SPARSE_POINTS keys, ms), their checks and res.details.sparseLogs on a fresh instance of
 * `peer`. A query the node refuses with a block-range limit (JSON-RPC -32012 or a message about the range, as the
 * reference node's 5000-block limit) gets no figure: its key goes to res.refused and the refusal to the notes.
 * Throws (the caller marks the peer failed) when the node stops answering.
 * @param {Record<string, any>} peer from definePeers
 * @param {object} res the peer's result record (metrics, checks, notes, details)
 * @param {{ instance: any }} ctx for the watchdog
 * @param {{ long?: boolean }} [o] long: both SPARSE_POINTS (else the first only)
 */
export async function sparseLogsRow(peer, res, ctx, { long = false } = {}) {
  const check = (metric, what, ok, detail) => {
    res.checks.push({ metric, what, ok: !!ok, detail: detail ?? null })
    if (!ok) log(`   CHECK FAILED [${metric}] ${what}${detail ? `: ${detail}` : ''}`)
  }
  log('   sparse eth_getLogs row (fresh instance)')
  const inst = await start(peer, ctx)
  const rpc = new Rpc(inst.url, { timeoutMs: 120_000 })
  try {
    const { wallet, chainId, gasPrice } = await devAccount(peer, rpc)
    const { token, block: deployBlock } = await deployToken(peer, rpc, { wallet, chainId, gasPrice })
    // the deploy's own Transfer (the mint) is in the whole-chain query too
    const mint = await rpc.call('eth_getLogs', [
      { address: token, fromBlock: hex(deployBlock), toBlock: hex(deployBlock) },
    ])
    let nonce = Number(BigInt(await rpc.call('eth_getTransactionCount', [wallet.address, 'latest'])))
    const events = [] // { hash, toA, block }
    const details = { every: SPARSE_EVERY, topicEvery: TOPIC_EVERY, runs: SPARSE_RUNS, points: [] }
    res.details.sparseLogs = details
    let head = BigInt(await rpc.call('eth_blockNumber'))
    const tBuild = performance.now()
    let buildMs = 0
    for (const { blocks, all: keyAll, topic: keyTopic, window: keyWindow } of SPARSE_POINTS.slice(0, long ? 2 : 1)) {
      const t0 = performance.now()
      // up to `blocks`: SPARSE_EVERY - 1 empty blocks, then one block with one transfer
      while (head + BigInt(SPARSE_EVERY) <= BigInt(blocks)) {
        await peer.mine(rpc, BigInt(SPARSE_EVERY - 1))
        const toA = events.length % TOPIC_EVERY === 0
        const amount = BigInt(events.length + 1)
        const raw = await wallet.signTransaction(
          tokenTransferTx({ chainId, nonce: nonce++, gasPrice, token, to: toA ? RECIPIENT_A : RECIPIENT_B, amount }),
        )
        const { receipt } = await sendAndWait(rpc, raw)
        if (receipt.status !== '0x1') throw new Error(`sparse transfer #${events.length}: status ${receipt.status}`)
        events.push({ hash: receipt.transactionHash.toLowerCase(), toA, block: BigInt(receipt.blockNumber) })
        head = BigInt(receipt.blockNumber)
      }
      if (head < BigInt(blocks)) await peer.mine(rpc, BigInt(blocks) - head)
      head = BigInt(await rpc.call('eth_blockNumber'))
      buildMs += performance.now() - t0
      check(keyAll, `chain built to block ${blocks}`, head === BigInt(blocks), `head ${head}`)
      const measure = async (key, label, filter, want) => {
        const times = []
        let bad = null
        for (let k = 0; k < SPARSE_RUNS; k++) {
          const t = performance.now()
          const text = await rpc.raw(body('eth_getLogs', [filter]), { timeoutMs: 120_000 })
          times.push(performance.now() - t)
          const j = JSON.parse(text)
          if (j.error && (j.error.code === -32012 || /block range|blocks at once/i.test(j.error.message))) {
            res.refused = [...(res.refused ?? []), key]
            res.notes.push(`eth_getLogs ${label} at ${blocks} blocks refused: ${j.error.code} ${j.error.message}`)
            log(`   ${label}, ${blocks} blocks: refused (${j.error.code} ${j.error.message})`)
            return { key, refused: j.error }
          }
          const got = Array.isArray(j.result) ? j.result.map((l) => l.transactionHash.toLowerCase()) : null
          const ok =
            got !== null &&
            got.length === want.length &&
            new Set(got).size === want.length &&
            want.every((h) => got.includes(h)) &&
            j.result.every((l) => l.topics[0] === TRANSFER_TOPIC)
          if (!ok)
            bad ??= j.error
              ? JSON.stringify(j.error)
              : `got ${got?.length ?? typeof j.result} logs, want ${want.length}`
        }
        res.metrics[key] = median(times)
        check(
          key,
          `eth_getLogs ${label} at ${blocks} blocks returns exactly the ${want.length} logs`,
          !bad,
          bad ?? `${want.length} logs`,
        )
        log(`   ${label}, ${blocks} blocks: ${want.length} logs, ${times.map((x) => x.toFixed(1)).join(' / ')} ms`)
        return { key, logs: want.length, runsMs: times.map((x) => +x.toFixed(2)) }
      }
      const from = BigInt(blocks - WINDOW)
      const inWindow = events.filter((e) => e.block >= from).map((e) => e.hash)
      const all = [...mint.map((l) => l.transactionHash.toLowerCase()), ...events.map((e) => e.hash)]
      const toA = events.filter((e) => e.toA).map((e) => e.hash)
      details.points.push({
        blocks,
        events: events.length,
        address: await measure(
          keyAll,
          '{address} 0-latest',
          { address: token, fromBlock: '0x0', toBlock: 'latest' },
          all,
        ),
        topic: await measure(
          keyTopic,
          `{address, topics [Transfer, -, to]} 0-latest`,
          {
            address: token,
            fromBlock: '0x0',
            toBlock: 'latest',
            topics: [TRANSFER_TOPIC, null, topicAddr(RECIPIENT_A)],
          },
          toA,
        ),
        window: await measure(
          keyWindow,
          `{address} last ${WINDOW + 1} blocks`,
          { address: token, fromBlock: hex(from), toBlock: 'latest' },
          inWindow,
        ),
      })
    }
    details.buildS = +(buildMs / 1000).toFixed(1)
    log(
      `   sparse chain: ${events.length} events in ${head} blocks, built in ${fmtMs(buildMs)} (${fmtMs(performance.now() - tBuild)} with the queries)`,
    )
    if (!inst.isAlive()) throw new Error(`the node exited during the sparse eth_getLogs row:\n${inst.tail()}`)
  } finally {
    rpc.close()
    await inst.stop()
  }
}
