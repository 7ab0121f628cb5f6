// @ts-check
/**
 * The --fork section's two halves: the upstream (a node-cli of network 33 with the bench ERC-20 deployed, a holder
 * that is no dev account funded with tokens and RBTC, some blocks on top) and the workload one forking node runs
 * against it through the counting proxy (fork-proxy.mjs): the first and the repeated eth_call, then ERC-20
 * transfers sent by the impersonated holder, each step timed and its remote requests counted.
 */
import { performance } from 'node:perf_hooks'
import { SUPPLY, TRANSFER_GAS, balanceOfData, transferData } from './erc20.mjs'
import { deployToken, devAccount, sendAndWait, start } from './peer-client.mjs'
import { sleep } from './proc.mjs'
import { median } from './stats.mjs'
import { Rpc, hex } from './rpc.mjs'
import { countsBetween } from './fork-proxy.mjs'

/** The token holder the forks impersonate: an address no node knows a key of (outside the native contracts' range). */
export const HOLDER = '0x' + (0xa0000001).toString(16).padStart(40, '0')
/** Tokens the upstream gives the holder (base units). */
export const HOLDER_TOKENS = 10n ** 24n
/** RBTC the upstream gives the holder for gas (wei). */
const HOLDER_WEI = 10n ** 19n
/** Empty blocks the upstream mines after the setup (the fork block is not the deploy block). */
const UPSTREAM_BLOCKS = 100n
/** Transfer i of the workload goes to a fresh address (a storage cell no one read before). */
export const forkRecipient = (i) => '0x' + (0xa1000000 + i).toString(16).padStart(40, '0')
/** Amount of transfer i (base units). */
const amount = (i) => BigInt(i + 1)

/**
 * Starts the upstream node-cli (`peer`), deploys the token, funds HOLDER and mines UPSTREAM_BLOCKS on top.
 * @param {Record<string, any>} peer node-cli from definePeers
 * @param {{ instance: any }} ctx set to the running process
 * @returns {Promise<{ inst: any, token: string, head: number, deployBlock: number }>}
 */
export async function startUpstream(peer, ctx) {
  const inst = await start(peer, ctx)
  const rpc = new Rpc(inst.url)
  try {
    const acct = await devAccount(peer, rpc)
    const { wallet, chainId, gasPrice } = acct
    const dep = await deployToken(peer, rpc, acct)
    let nonce = Number(BigInt(await rpc.call('eth_getTransactionCount', [wallet.address, 'latest'])))
    const txs = [
      { to: dep.token, gasLimit: TRANSFER_GAS, data: transferData(HOLDER, HOLDER_TOKENS), value: 0n },
      { to: HOLDER, gasLimit: 21_000n, data: '0x', value: HOLDER_WEI },
    ]
    for (const tx of txs) {
      const raw = await wallet.signTransaction({ type: 0, chainId, nonce: nonce++, gasPrice, ...tx })
      const { receipt } = await sendAndWait(rpc, raw)
      if (receipt.status !== '0x1') throw new Error(`upstream setup transaction failed: ${JSON.stringify(receipt)}`)
    }
    await peer.mine(rpc, UPSTREAM_BLOCKS)
    const head = Number(BigInt(await rpc.call('eth_blockNumber')))
    return { inst, token: dep.token, head, deployBlock: dep.block }
  } finally {
    rpc.close()
  }
}

/**
 * @typedef {import('./fork-proxy.mjs').ProxyCounts} ProxyCounts
 * @typedef {{ ms: number, remote: ProxyCounts }} Step a step's wall time (ms) and what it asked of the remote
 */

/**
 * Starts `peer` forking the proxy at block `head` and runs the workload: (a) eth_call balanceOf(HOLDER) at
 * latest (cold), (b) the same call again, anvil_impersonateAccount(HOLDER), (c) the first transfer
 * (eth_sendTransaction from HOLDER, automined, receipt polled) and `transfers` more, each to a fresh recipient,
 * then balances checked. Every step's wall time (ms) and remote requests are recorded; `startupMs` is spawn → the
 * first eth_chainId answer. The node is stopped with SIGTERM at the end (a disk cache is written then).
 * @param {Record<string, any>} peer the forking peer (its command with the fork arguments in `extraArgs`)
 * @param {{ proxy: import('./fork-proxy.mjs').ForkProxy, token: string, transfers: number, extraArgs: string[] }} w
 * @param {(what: string, ok: unknown, detail?: string) => void} check
 * @returns {Promise<Record<string, any>>} { startupMs, startup, firstCall, cachedCall, impersonate, firstTransfer,
 *   nextTransfers { n, avgMs, medianMs, httpPerTx, callsPerTx, ms [per transfer], calls [per transfer], remote }, verify,
 *   total } (Steps and counts as above)
 */
export async function forkWorkload(peer, { proxy, token, transfers, extraArgs }, check) {
  const ctx = { instance: null }
  /** @type {Rpc | null} */
  let rpc = null
  const out = /** @type {Record<string, any>} */ ({})
  const c0 = proxy.counts()
  try {
    const inst = await start(peer, ctx, { extraArgs })
    out.startupMs = +inst.startupMs.toFixed(1)
    out.startup = countsBetween(c0, proxy.counts())
    const node = new Rpc(inst.url, { timeoutMs: 120_000 })
    rpc = node
    /** @type {<T>(fn: () => Promise<T>) => Promise<Step & { value: T }>} */
    const step = async (fn) => {
      const before = proxy.counts()
      const t = performance.now()
      const value = await fn()
      const ms = performance.now() - t
      return { value, ms: +ms.toFixed(2), remote: countsBetween(before, proxy.counts()) }
    }
    const balanceOf = async (who) =>
      BigInt(await node.call('eth_call', [{ to: token, data: balanceOfData(who) }, 'latest']))
    const chainId = BigInt(await node.call('eth_chainId'))
    check(`${peer.name}: chain id of the fork is the upstream's (33)`, chainId === 33n, `${chainId}`)

    const first = await step(() => balanceOf(HOLDER))
    const again = await step(() => balanceOf(HOLDER))
    check(
      `${peer.name}: eth_call balanceOf(holder) answers the upstream's balance, twice`,
      first.value === HOLDER_TOKENS && again.value === HOLDER_TOKENS,
      `${first.value}, ${again.value}`,
    )
    out.firstCall = { ms: first.ms, remote: first.remote }
    out.cachedCall = { ms: again.ms, remote: again.remote }
    const imp = await step(() => node.call('anvil_impersonateAccount', [HOLDER]))
    out.impersonate = { ms: imp.ms, remote: imp.remote }

    const transfer = async (i) => {
      const hash = await node.call('eth_sendTransaction', [
        { from: HOLDER, to: token, data: transferData(forkRecipient(i), amount(i)), gas: hex(TRANSFER_GAS) },
      ])
      for (let polls = 0; ; polls++) {
        const r = await node.call('eth_getTransactionReceipt', [hash])
        if (r) return r
        if (polls > 30_000) throw new Error(`no receipt for transfer ${i} (${hash})`)
        await sleep(1)
      }
    }
    let bad = 0
    const t1 = await step(() => transfer(0))
    if (t1.value.status !== '0x1') bad++
    out.firstTransfer = { ms: t1.ms, remote: t1.remote }
    const rest = []
    for (let i = 1; i <= transfers; i++) {
      const s = await step(() => transfer(i))
      if (s.value.status !== '0x1') bad++
      rest.push(s)
    }
    check(`${peer.name}: every transfer mined with status 1`, bad === 0, `${bad} of ${transfers + 1} not`)
    const sum = (f) => rest.reduce((a, s) => a + f(s), 0)
    /** @type {Record<string, number>} */
    const methods = {}
    for (const s of rest) for (const [m, n] of Object.entries(s.remote.methods)) methods[m] = (methods[m] ?? 0) + n
    out.nextTransfers = {
      n: rest.length,
      avgMs: rest.length ? +(sum((s) => s.ms) / rest.length).toFixed(2) : null,
      medianMs: rest.length ? +median(rest.map((s) => s.ms)).toFixed(2) : null,
      httpPerTx: rest.length ? +(sum((s) => s.remote.http) / rest.length).toFixed(2) : null,
      callsPerTx: rest.length ? +(sum((s) => s.remote.calls) / rest.length).toFixed(2) : null,
      ms: rest.map((s) => s.ms),
      calls: rest.map((s) => s.remote.calls),
      remote: {
        http: sum((s) => s.remote.http),
        calls: sum((s) => s.remote.calls),
        batches: sum((s) => s.remote.batches),
        methods,
        upstreamMs: +sum((s) => s.remote.upstreamMs).toFixed(1),
      },
    }

    const verify = await step(async () => {
      const sent = Array.from({ length: transfers + 1 }, (_, i) => amount(i)).reduce((a, b) => a + b, 0n)
      const holder = await balanceOf(HOLDER)
      const last = await balanceOf(forkRecipient(transfers))
      const supply = BigInt(await node.call('eth_call', [{ to: token, data: '0x18160ddd' }, 'latest']))
      return { holder, last, supply, want: HOLDER_TOKENS - sent }
    })
    check(
      `${peer.name}: balances after the transfers (holder, last recipient, total supply)`,
      verify.value.holder === verify.value.want &&
        verify.value.last === amount(transfers) &&
        verify.value.supply === SUPPLY,
      `holder ${verify.value.holder} (want ${verify.value.want}), last ${verify.value.last}, supply ${verify.value.supply}`,
    )
    out.verify = { ms: verify.ms, remote: verify.remote }
    await inst.stop(30_000)
    out.total = countsBetween(c0, proxy.counts())
    return out
  } finally {
    rpc?.close()
    await ctx.instance?.stop()
  }
}
