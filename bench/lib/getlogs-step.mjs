// Step 4 of the main run (bench/README.md, "The workload"): eth_getLogs over the last 1000 blocks, each holding one
// of the transfers' Transfer logs; every answer is checked against the transfers sent.
import { performance } from 'node:perf_hooks'
import { LOG_RANGE, TRANSFER_TOPIC } from './erc20.mjs'
import { median } from './stats.mjs'
import { body, hex } from './rpc.mjs'

/** Calls of the query after the warm-up; their median is the figure (steady state). */
const GETLOGS_RUNS = 5
/**
 * Calls before those, checked but not in the median; the first one is the cold figure (`getLogsFirstMs`). A
 * JIT-compiled node answers this query at its steady speed only after ~7-10 calls (node-cli, Node 20: ~13 ms, then
 * 5-10 ms for calls 2-7 while V8 optimises the formatting, ~2.2-3.5 ms from then on; measured on a quiet 2-core
 * machine).
 */
const GETLOGS_WARMUP = 10

/**
 * Times the query GETLOGS_WARMUP + GETLOGS_RUNS times and records `getLogsMs` (the median of the last
 * GETLOGS_RUNS) and `getLogsFirstMs` (the first call), with their check.
 * @param {{ rpc: any, receipts: any[], amounts: bigint[], token: string, res: any,
 *   check: (metric: string, what: string, ok: unknown, detail?: string) => void, step: (s: string) => void }} a
 */
export async function getLogsStep({ rpc, receipts, amounts, token, res, check, step }) {
  const N = receipts.length
  const head = BigInt(receipts[N - 1].blockNumber)
  const from = head >= LOG_RANGE - 1n ? head - (LOG_RANGE - 1n) : 0n
  const inRange = receipts
    .map((r, i) => [r, i])
    .filter(([r]) => BigInt(r.blockNumber) >= from && BigInt(r.blockNumber) <= head)
  const wantHashes = new Map(inRange.map(([r, i]) => [r.transactionHash.toLowerCase(), amounts[i]]))
  const logsBody = body('eth_getLogs', [
    { fromBlock: hex(from), toBlock: hex(head), address: token, topics: [TRANSFER_TOPIC] },
  ])
  const times = []
  let logsOk = true
  let logsDetail = ''
  for (let k = 0; k < GETLOGS_WARMUP + GETLOGS_RUNS; k++) {
    const t = performance.now()
    const text = await rpc.raw(logsBody, { timeoutMs: 120_000 })
    times.push(performance.now() - t)
    const j = JSON.parse(text)
    const logs = j.result
    const ok =
      Array.isArray(logs) &&
      logs.length === wantHashes.size &&
      logs.every(
        (l) => wantHashes.get(l.transactionHash.toLowerCase()) === BigInt(l.data) && l.topics[0] === TRANSFER_TOPIC,
      ) &&
      new Set(logs.map((l) => l.transactionHash.toLowerCase())).size === wantHashes.size
    if (!ok) {
      logsOk = false
      logsDetail = j.error
        ? JSON.stringify(j.error)
        : `got ${Array.isArray(logs) ? logs.length : typeof logs} logs, want ${wantHashes.size}`
    }
  }
  res.metrics.getLogsMs = median(times.slice(GETLOGS_WARMUP))
  res.metrics.getLogsFirstMs = times[0]
  res.details.getLogs = {
    fromBlock: Number(from),
    toBlock: Number(head),
    logs: wantHashes.size,
    warmupRuns: GETLOGS_WARMUP,
    runsMs: times.map((x) => +x.toFixed(2)),
  }
  check(
    'getLogsMs',
    `eth_getLogs returns exactly the ${wantHashes.size} Transfer logs in blocks ${from}-${head}`,
    logsOk,
    logsDetail || `${wantHashes.size} logs`,
  )
  step(`eth_getLogs ${from}-${head}: ${wantHashes.size} logs, ${times.map((x) => x.toFixed(1)).join(' / ')} ms`)
}
