// The main run's figures: each metric's label, unit and direction, node-cli's targets, and the ratios
// (node-cli ÷ peer) the table and results.json report.

/** key, label, unit, direction (higher|lower is better), digits */
export const METRICS = [
  ['startupMs', 'startup: spawn → eth_chainId (median of 5)', 'ms', 'lower', 0],
  ['startupNoExtraCaMs', 'startup without NODE_EXTRA_CA_CERTS (median of 5)', 'ms', 'lower', 0],
  ['blockNumberRps', 'eth_blockNumber', 'req/s', 'higher', 0],
  ['callRps', 'eth_call balanceOf', 'req/s', 'higher', 0],
  ['estimateGasRps', 'eth_estimateGas transfer', 'req/s', 'higher', 0],
  ['callVariedRps', 'eth_call balanceOf, new address each request', 'req/s', 'higher', 0],
  ['callFreshRps', 'eth_call balanceOf, new random holder each request', 'req/s', 'higher', 0],
  ['estimateVariedRps', 'eth_estimateGas, new amount each request', 'req/s', 'higher', 0],
  ['transferTps', 'ERC-20 transfers, sequential, automine (after the warm-up)', 'tx/s', 'higher', 1],
  ['plainTps', 'value transfers (1 wei), sequential, automine (after 500 warm-up)', 'tx/s', 'higher', 1],
  ['transferColdTps', 'the warm-up: the first ERC-20 transfers after start-up', 'tx/s', 'higher', 1],
  ['getLogsMs', 'eth_getLogs over 1000 blocks (median of 5, after 10 warm-up calls)', 'ms', 'lower', 1],
  ['getLogsFirstMs', 'eth_getLogs over 1000 blocks, the first call', 'ms', 'lower', 1],
  ['getLogsSparse10kMs', 'eth_getLogs {address} 0-latest, 10k blocks, 1% with a log (median of 7)', 'ms', 'lower', 1],
  ['getLogsSparseTopic10kMs', 'the same + a topic (10% of those logs), 10k blocks', 'ms', 'lower', 1],
  ['getLogsSparseWindow10kMs', 'eth_getLogs {address} last 5001 of 10k blocks, 1% with a log', 'ms', 'lower', 1],
  ['getLogsSparse30kMs', 'eth_getLogs {address} 0-latest, 30k blocks (--logs-sparse only)', 'ms', 'lower', 1],
  ['getLogsSparseTopic30kMs', 'the same + a topic (10% of those logs), 30k blocks', 'ms', 'lower', 1],
  ['getLogsSparseWindow30kMs', 'eth_getLogs {address} last 5001 of 30k blocks, 1% with a log', 'ms', 'lower', 1],
  ['blockFullRps', 'eth_getBlockByNumber (full txs)', 'req/s', 'higher', 0],
  ['receiptRps', 'eth_getTransactionReceipt', 'req/s', 'higher', 0],
  ['rssIdleMiB', 'RSS idle (after start)', 'MiB', 'lower', 1],
  ['rssAfterMiB', 'RSS after the workload', 'MiB', 'lower', 1],
  ['traceCallMs', 'debug_traceTransaction callTracer, ERC-20 transfer (median of 20)', 'ms', 'lower', 2],
  ['traceStructMs', 'debug_traceTransaction struct logs, ERC-20 transfer (median of 20)', 'ms', 'lower', 2],
]
export const METRIC = Object.fromEntries(
  METRICS.map(([k, label, unit, dir, digits]) => [k, { label, unit, dir, digits }]),
)

/**
 * node-cli's targets: [metric, peer, comparison, factor, label].
 * @type {Array<[metric: string, peer: string, cmp: '<=' | '>=', factor: number, label: string]>}
 */
export const TARGETS = [
  ['startupMs', 'anvil', '<=', 2, 'startup <= 2x Anvil'],
  ['startupNoExtraCaMs', 'anvil', '<=', 2, 'startup <= 2x Anvil (without NODE_EXTRA_CA_CERTS)'],
  ['blockNumberRps', 'anvil', '>=', 1, 'eth_blockNumber req/s >= 1x Anvil'],
  ['callRps', 'hardhat', '>=', 1, 'eth_call req/s >= 1x Hardhat'],
  ['estimateGasRps', 'hardhat', '>=', 1, 'eth_estimateGas req/s >= 1x Hardhat'],
  ['transferTps', 'hardhat', '>=', 1.1, 'sequential automined ERC-20 transfers >= 1.1x Hardhat'],
  ['plainTps', 'hardhat', '>=', 1.1, 'sequential automined value transfers >= 1.1x Hardhat'],
  ['getLogsMs', 'anvil', '<=', 0.8, 'eth_getLogs ms <= 0.8x Anvil'],
  ['callFreshRps', 'anvil', '>=', 1, 'eth_call (fresh holder) req/s >= 1x Anvil'],
  ['rssAfterMiB', 'hardhat', '<=', 1, 'RSS after workload <= Hardhat'],
]

/** Whether a check of `key` failed for the peer result `r`. */
export const failedMetric = (r, key) => r.checks.some((c) => c.metric === key && !c.ok)

/** node-cli value / peer value, or null when either is missing or a check failed. */
export function ratio(results, key, peerName) {
  const nc = results.find((r) => r.name === 'node-cli')
  const p = results.find((r) => r.name === peerName)
  if (!nc || !p) return null
  const a = nc.metrics[key]
  const b = p.metrics[key]
  if (a == null || b == null || b === 0 || failedMetric(nc, key) || failedMetric(p, key)) return null
  return a / b
}

/** '*' when the load generator bounded `key` on node-cli or the peer, else ''. */
export const boundStar = (results, key, peerName) =>
  results.some((r) => (r.name === 'node-cli' || r.name === peerName) && r.clientBound.includes(key)) ? '*' : ''

/** The TARGETS with node-cli's ratio to the peer and whether each is met (null: no ratio). */
export function evaluateTargets(results) {
  const out = []
  for (const [key, peer, cmp, factor, label] of TARGETS) {
    const x = ratio(results, key, peer)
    const met = x == null ? null : cmp === '<=' ? x <= factor : x >= factor
    out.push({
      target: label,
      metric: key,
      peer,
      ratio: x == null ? null : +x.toFixed(3),
      met,
      loadGeneratorBound: boundStar(results, key, peer) === '*',
    })
  }
  return out
}
