// The fresh-holder eth_call row (bench/README.md, "The workload", step 4): eth_call balanceOf of a new random
// address on every request (nothing a node could answer from a result memo or a warm storage cell), with the load
// generator of the other read rows. `callFreshRow` runs it alone on a fresh instance (`--call-fresh`).
import { randomBytes } from 'node:crypto'
import { CLIENT_BOUND_PCT, load, preflight } from './load.mjs'
import { log } from './log.mjs'
import { deployToken, devAccount, start } from './peer-client.mjs'
import { Rpc } from './rpc.mjs'

/** balanceOf(address)'s selector. */
const BALANCE_OF = '0x70a08231'

/** A JSON-RPC body: eth_call balanceOf(a new random address) on `token` (built by hand: ~1 µs, not ethers' coder). */
const freshCallBody = (token) =>
  `{"jsonrpc":"2.0","id":1,"method":"eth_call","params":[{"to":"${token}","data":"${BALANCE_OF}${'0'.repeat(24)}${randomBytes(20).toString('hex')}"},"latest"]}`

/**
 * The load request of the row: validated once (a random holder has balance 0), then a new body per request.
 * @param {Rpc} rpc a client of the started peer
 * @param {string} token the deployed bench ERC-20
 */
export async function freshCallRequest(rpc, token) {
  return {
    ...(await preflight(rpc, freshCallBody(token), (r) => BigInt(r) === 0n, 'eth_call fresh holder')),
    vary: () => freshCallBody(token),
  }
}

/**
 * Runs the row into res.metrics.callFreshRps (req/s) with its check, res.details.callFreshRps and, when the load
 * generator was the bottleneck, res.clientBound.
 * @param {{ url: string, pid: number }} inst the started peer
 * @param {Rpc} rpc
 * @param {string} token
 * @param {object} res the peer's result record
 * @param {Record<string, any>} opts from parseArgs (duration, warmup, connections)
 */
export async function measureFreshCall(inst, rpc, token, res, opts) {
  const r = await load(inst, [await freshCallRequest(rpc, token)], opts)
  res.metrics.callFreshRps = r.rps
  res.details.callFreshRps = r
  const ok = r.bad === 0 && r.ok > 0 && r.errors === 0 && r.timeouts === 0
  const detail = `${r.ok} ok, ${r.bad} wrong, ${r.errors} errors, ${r.timeouts} timeouts${r.sample ? `; e.g. ${r.sample}` : ''}`
  res.checks.push({
    metric: 'callFreshRps',
    what: 'eth_call balanceOf (fresh holder): every response correct',
    ok,
    detail,
  })
  if (!ok) log(`   CHECK FAILED [callFreshRps] ${detail}`)
  if (r.clientCpuPct >= CLIENT_BOUND_PCT) res.clientBound.push('callFreshRps')
  log(
    `   eth_call balanceOf (fresh random holder): ${r.rps.toFixed(0)} req/s (p50 ${r.latencyMs.p50} ms, p99 ${r.latencyMs.p99} ms; CPU: node ${r.serverCpuPct}%, load generator ${r.clientCpuPct}%)`,
  )
}

/**
 * The row alone on a fresh instance of `peer` (start, deploy the token, the load test).
 * @param {Record<string, any>} peer from definePeers
 * @param {object} res the peer's result record
 * @param {{ instance: any }} ctx for the watchdog
 * @param {Record<string, any>} opts from parseArgs
 */
export async function callFreshRow(peer, res, ctx, opts) {
  const inst = await start(peer, ctx)
  const rpc = new Rpc(inst.url)
  try {
    const { wallet, chainId, gasPrice } = await devAccount(peer, rpc)
    const { token } = await deployToken(peer, rpc, { wallet, chainId, gasPrice })
    await measureFreshCall(inst, rpc, token, res, opts)
  } finally {
    rpc.close()
    await inst.stop()
  }
}
