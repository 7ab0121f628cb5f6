// The read side of --sustain: the autocannon request mix (every answer checked) and the eth_getLogs loop, plus
// the clock helper both loops of the sustained load use.
import { performance } from 'node:perf_hooks'
import {
  LOG_RANGE,
  RECIPIENT,
  TRANSFER_TOPIC,
  balanceOfData,
  someAddress,
  topicAddr,
  transferData,
  variedAmount,
} from './erc20.mjs'
import { sameResult } from './load.mjs'
import { sleep } from './proc.mjs'
import { body, hex } from './rpc.mjs'

/** Resolves at performance.now() >= `at` (true), or early (false) once `stopped()` says so. */
export async function sleepUntil(at, stopped) {
  for (;;) {
    if (stopped()) return false
    const left = at - performance.now()
    if (left <= 0) return true
    await sleep(Math.min(left, 250))
  }
}

/**
 * The read mix: one request of each kind per cycle on every connection — eth_blockNumber, eth_call balanceOf of
 * a new address, eth_estimateGas of a transfer with a new amount, eth_getBlockByNumber(full) and
 * eth_getTransactionReceipt over the seeded transfers (`seeds`: [{ blk, rcp }] preflight answers) — every answer
 * checked. `head()` is the highest block known to be mined, `estimate` the validated transfer estimate (gas).
 * Returns { requests (autocannon's), counts { [kind]: { ok, bad, sample } }, okTotal() }.
 */
export function readMix({ token, sender, estimate, seeds, head }) {
  let callN = 1
  let estN = 1
  let blkN = 0
  let rcpN = 0
  const kinds = [
    {
      name: 'eth_blockNumber',
      // the head moves: the answer lies between the head known when the request was built and the head known now + 1 (a transfer in flight)
      build: (c) => {
        c.minHead = head()
        return body('eth_blockNumber')
      },
      check: (res, c) =>
        /^0x[0-9a-f]+$/.test(res) && Number(BigInt(res)) >= c.minHead && Number(BigInt(res)) <= head() + 1,
    },
    {
      name: 'eth_call balanceOf (new address each)',
      build: () => body('eth_call', [{ to: token, data: balanceOfData(someAddress(callN++)) }, 'latest']),
      check: (res) => BigInt(res) === 0n,
    },
    {
      name: 'eth_estimateGas transfer (new amount each)',
      build: () =>
        body('eth_estimateGas', [{ from: sender, to: token, data: transferData(RECIPIENT, variedAmount(estN++)) }]),
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
  return { requests, counts, okTotal: () => okTotal }
}

/**
 * Every `everyS` seconds from `t0` until `stopped()`: eth_getLogs for the token's Transfer topic over the last
 * LOG_RANGE blocks up to `head()` (never below `firstBlock`), checked against `transfers` ([{ block, hash, to,
 * amount }]) — exactly those in the range. Resolves to { ok, bad, sample (a wrong answer), ms (each call's time) }.
 */
export async function logsLoop({ rpc, token, firstBlock, head, transfers, t0, everyS, stopped }) {
  const runs = { ok: 0, bad: 0, sample: null, ms: [] }
  for (let k = 1; ; k++) {
    if (!(await sleepUntil(t0 + k * everyS * 1000, stopped))) break
    const to = head()
    const from = Math.max(firstBlock, to - Number(LOG_RANGE) + 1)
    const want = new Map(transfers.filter((x) => x.block >= from && x.block <= to).map((x) => [x.hash, x]))
    const t = performance.now()
    let ok = false
    let detail = null
    try {
      const text = await rpc.raw(
        body('eth_getLogs', [{ fromBlock: hex(from), toBlock: hex(to), address: token, topics: [TRANSFER_TOPIC] }]),
        { timeoutMs: 60_000 },
      )
      runs.ms.push(performance.now() - t)
      const j = JSON.parse(text)
      const logs = j.result
      ok =
        Array.isArray(logs) &&
        logs.length === want.size &&
        new Set(logs.map((l) => l.transactionHash.toLowerCase())).size === want.size &&
        logs.every((l) => {
          const x = want.get(l.transactionHash.toLowerCase())
          return (
            x &&
            l.topics[0] === TRANSFER_TOPIC &&
            l.topics[2].toLowerCase() === topicAddr(x.to) &&
            BigInt(l.data) === x.amount
          )
        })
      if (!ok)
        detail = j.error
          ? JSON.stringify(j.error)
          : `blocks ${from}-${to}: got ${Array.isArray(logs) ? logs.length : typeof logs} logs, want ${want.size}`
    } catch (err) {
      detail = `blocks ${from}-${to}: ${err.message}`
    }
    if (ok) runs.ok++
    else {
      runs.bad++
      runs.sample ??= detail
    }
  }
  return runs
}
