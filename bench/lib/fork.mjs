// @ts-check
/**
 * --fork: what forking costs, node-cli against `anvil --fork-url`, both pointed at the same upstream (a node-cli
 * of network 33 started here, with the bench ERC-20 deployed and a funded holder) through a proxy that adds
 * --fork-latency ms to every HTTP request and counts requests and calls (fork-proxy.mjs). Per forking node a cold
 * run (empty disk cache) and a second run on the cache the first one left: start → first answer, the first and
 * the repeated eth_call, the first ERC-20 transfer by the impersonated holder and the average of the next ones,
 * each with its remote HTTP requests and JSON-RPC calls (fork-workload.mjs).
 */
import { join } from 'node:path'
import { fmtMs, log } from './log.mjs'
import { checkRecorder, peerAvailable } from './section.mjs'
import { tempDir } from './proc.mjs'
import { startForkProxy } from './fork-proxy.mjs'
import { HOLDER, forkWorkload, startUpstream } from './fork-workload.mjs'

/** Peers the --fork section can run (Hardhat and Ganache fork other chains' nodes only through their own rules). */
export const FORK_PEERS = ['node-cli', 'anvil']

/**
 * The command-line arguments and environment of a forking run of `peer`.
 * @param {Record<string, any>} peer
 * @param {{ url: string, head: number, cacheDir: string }} f the proxy's URL, the fork block, the run's cache
 *   directory (node-cli: --fork-cache; Anvil: its HOME, whose ~/.foundry/cache/rpc holds its cache)
 * @returns {{ peer: Record<string, any>, extraArgs: string[] }} the peer with its environment set, and the arguments
 */
function forkingPeer(peer, { url, head, cacheDir }) {
  if (peer.name === 'node-cli')
    return {
      peer,
      extraArgs: ['--fork-url', url, '--fork-block-number', String(head), '--fork-cache', join(cacheDir, 'fork')],
    }
  // Anvil: no rate limit (its default assumes a paid provider's compute units), its cache under a HOME of its own
  return {
    peer: {
      ...peer,
      command: (port) => {
        const c = peer.command(port)
        return { ...c, env: { ...(c.env ?? process.env), HOME: cacheDir } }
      },
    },
    extraArgs: ['--fork-url', url, '--fork-block-number', String(head), '--no-rate-limit'],
  }
}

/**
 * Runs the --fork section: the upstream (node-cli), the proxy, then for each of `peers` (node-cli, anvil) a cold
 * and a cached run. `opts`: forkLatencyMs (added per HTTP request, ms), forkTransfers (transfers after the first).
 * Returns { latencyMs, transfers, upstream { version, head, token, holder, deployBlock }, runs [{ name, run
 * ('cold' | 'cached'), version, status, error, args, …the workload's figures }], checks, notes, status, error }.
 * @param {any} nodeCli the node-cli peer from definePeers (also the upstream)
 * @param {any[]} peers the forking peers from definePeers, in order
 * @param {Record<string, any>} opts from parseArgs
 */
export async function runFork(nodeCli, peers, opts) {
  const out = /** @type {Record<string, any>} */ ({
    name: 'fork',
    version: null,
    status: 'ok',
    error: null,
    latencyMs: opts.forkLatencyMs,
    transfers: opts.forkTransfers,
    upstream: null,
    runs: [],
    checks: [],
    notes: [],
  })
  if (!peerAvailable(/** @type {any} */ (out), nodeCli, '--fork')) return out
  log(
    `\n== --fork: ${peers.map((p) => p.name).join(', ')} forking a node-cli upstream through a proxy adding ${opts.forkLatencyMs} ms per HTTP request; 1 + ${opts.forkTransfers} ERC-20 transfers per run`,
  )
  const check = checkRecorder(/** @type {any} */ (out), 'fork')
  const ctx = { instance: null }
  /** @type {import('./fork-proxy.mjs').ForkProxy | null} */
  let proxy = null
  try {
    const up = await startUpstream(nodeCli, ctx)
    out.upstream = { version: out.version, head: up.head, token: up.token, holder: HOLDER, deployBlock: up.deployBlock }
    proxy = await startForkProxy({ upstream: up.inst.url, latencyMs: opts.forkLatencyMs })
    log(`   upstream node-cli at block ${up.head} (token ${up.token}, holder ${HOLDER}); proxy ${proxy.url}`)
    for (const peer of peers) {
      const cacheDir = tempDir(`node-cli-bench-fork-${peer.name}-`)
      for (const run of ['cold', 'cached']) {
        const r = /** @type {Record<string, any>} */ ({
          name: peer.name,
          run,
          version: null,
          status: 'ok',
          error: null,
        })
        out.runs.push(r)
        if (!peerAvailable(/** @type {any} */ (r), peer, `--fork ${peer.name}`)) break
        const f = forkingPeer(peer, { url: proxy.url, head: up.head, cacheDir })
        r.args = f.extraArgs
        try {
          Object.assign(
            r,
            await forkWorkload(
              f.peer,
              { proxy, token: up.token, transfers: opts.forkTransfers, extraArgs: f.extraArgs },
              check,
            ),
          )
          log(
            `   ${peer.name} ${run}: start ${fmtMs(r.startupMs)}, first eth_call ${fmtMs(r.firstCall.ms)} (${r.firstCall.remote.calls} calls), again ${r.cachedCall.ms} ms, first transfer ${fmtMs(r.firstTransfer.ms)} (${r.firstTransfer.remote.calls} calls), then ${r.nextTransfers.callsPerTx} calls/transfer; ${r.total.http} HTTP requests, ${r.total.calls} calls in all`,
          )
        } catch (err) {
          r.status = 'failed'
          r.error = err.message
          log(
            `   ${peer.name} ${run} FAILED: ${String(err.message)
              .replace(/\s*\n\s*/g, ' | ')
              .slice(0, 600)}`,
          )
          break
        }
      }
    }
    const nc = out.runs.find((r) => r.name === 'node-cli' && r.run === 'cached' && r.status === 'ok')
    if (nc)
      check(
        'node-cli on its disk cache asks the remote nothing for the same workload',
        nc.total.calls === 0,
        `${nc.total.http} HTTP requests, ${nc.total.calls} calls: ${JSON.stringify(nc.total.methods)}`,
      )
  } catch (err) {
    out.status = 'failed'
    out.error = err.message
    log(`   --fork FAILED: ${err.message}`)
  } finally {
    await proxy?.close()
    await ctx.instance?.stop()
  }
  return out
}
