// The client side every measurement shares: start a peer and wait for its first answer, send a raw transaction
// and wait for its receipt, find the peer's funded dev account, deploy the bench ERC-20.
import { performance } from 'node:perf_hooks'
import { DEPLOY_GAS, SUPPLY, balanceOfData, iface } from './erc20.mjs'
import { rootRequire, benchDir, root } from './paths.mjs'
import { freePort, sleep, spawnChild } from './proc.mjs'
import { Rpc } from './rpc.mjs'
import { cancunOpcodes, loadToken } from './token.mjs'

const { Wallet, AbiCoder, keccak256, getAddress } = rootRequire('ethers')

/** Longest wait for a started peer's first answer (ms). */
export const STARTUP_TIMEOUT_MS = 60_000
/** Longest one peer's run may take before its node is stopped (ms). */
export const PEER_TIMEOUT_MS = 15 * 60_000
/** Receipt re-poll interval (ms; BENCH_POLL_MS overrides). */
const POLL_MS = Number(process.env.BENCH_POLL_MS ?? 1)

/**
 * Starts a peer on a free port and polls eth_chainId every 5 ms until it answers. `ctx.instance` is set to the
 * process at once (for a watchdog). Returns the spawnChild handle with { url, port, chainId, startupMs (ms from
 * spawn to the first answer) }. Throws when the process exits first or nothing answers within 60 s.
 * With `until(probe)` the poll is that function instead (resolving to a value other than undefined = ready; it
 * may throw while the node is not ready); its value is returned as `ready`, and `chainId` is not asked.
 * @param {Record<string, any>} peer from definePeers
 * @param {{ instance: any }} ctx
 * @param {{ withoutExtraCa?: boolean, extraArgs?: string[], until?: (probe: Rpc) => Promise<any>, timeoutMs?: number }} [o]
 *   drop NODE_EXTRA_CA_CERTS; extra command-line arguments; the readiness poll; the start-up deadline (ms)
 */
export async function start(
  peer,
  ctx,
  { withoutExtraCa = false, extraArgs = [], until = null, timeoutMs = STARTUP_TIMEOUT_MS } = {},
) {
  const port = await freePort()
  const { cmd, args: baseArgs, cwd, env: peerEnv } = peer.command(port)
  const args = [...baseArgs, ...extraArgs]
  let env = peerEnv
  if (withoutExtraCa) {
    env = { ...(peerEnv ?? process.env) }
    delete env.NODE_EXTRA_CA_CERTS
  }
  const url = `http://127.0.0.1:${port}`
  const probe = new Rpc(url, { timeoutMs: 2000 })
  const t0 = performance.now()
  const h = spawnChild(cmd, args, { cwd, env })
  ctx.instance = h
  let lastErr = null
  try {
    for (;;) {
      if (!h.isAlive()) {
        const e = await h.exited
        throw new Error(
          `exited during startup (${e.error?.message ?? `code ${e.code}, signal ${e.signal}`})${h.tail() ? `:\n${h.tail()}` : ''}`,
        )
      }
      try {
        if (until) {
          const ready = await until(probe)
          if (ready !== undefined)
            return { ...h, url, port, chainId: undefined, ready, startupMs: performance.now() - t0 }
        } else {
          const chainId = await probe.call('eth_chainId')
          return { ...h, url, port, chainId, startupMs: performance.now() - t0 }
        }
      } catch (err) {
        lastErr = err
      }
      if (performance.now() - t0 > timeoutMs) {
        await h.stop(1000)
        throw new Error(
          `no ${until ? 'ready' : 'eth_chainId'} answer within ${timeoutMs / 1000} s (last error: ${lastErr?.message})${h.tail() ? `:\n${h.tail()}` : ''}`,
        )
      }
      await sleep(5)
    }
  } finally {
    probe.close()
  }
}

/**
 * Sends a raw tx and polls its receipt (automine); checks the returned hash = keccak256(raw).
 * Returns { receipt, polls (extra receipt polls before it existed) }; throws after `timeoutMs` without one.
 */
export async function sendAndWait(rpc, raw, timeoutMs = 30_000) {
  const hash = await rpc.call('eth_sendRawTransaction', [raw])
  const expected = keccak256(raw)
  if (String(hash).toLowerCase() !== expected)
    throw new Error(`eth_sendRawTransaction returned ${hash}, expected ${expected}`)
  let polls = 0
  const t0 = performance.now()
  for (;;) {
    const r = await rpc.call('eth_getTransactionReceipt', [hash])
    if (r) return { receipt: r, polls }
    polls++
    const waited = performance.now() - t0
    if (waited > timeoutMs) throw new Error(`no receipt for ${hash} after ${timeoutMs} ms`)
    // Re-poll every ~1 ms (busy re-polling slows a node that mines in the background), 10 ms after 1 s.
    await sleep(waited > 1000 ? 10 : POLL_MS)
  }
}

/**
 * `count` type-0 transactions signed by `wallet` with nonces `firstNonce`, `firstNonce + 1`, … (raw hex strings).
 * @param {any} wallet an ethers Wallet
 * @param {{ chainId: bigint, gasPrice: bigint, firstNonce: number, count: number,
 *   tx: (i: number) => { to: string, gasLimit: bigint, data?: string, value: bigint } }} a
 */
export async function signLegacy(wallet, { chainId, gasPrice, firstNonce, count, tx }) {
  const raws = []
  for (let i = 0; i < count; i++)
    raws.push(await wallet.signTransaction({ type: 0, chainId, nonce: firstNonce + i, gasPrice, ...tx(i) }))
  return raws
}

/** The peer's funded dev account: { wallet, sender, chainId, gasPrice (wei) } (throws when it has no balance). */
export async function devAccount(peer, rpc) {
  const wallet = new Wallet(peer.key)
  const sender = wallet.address
  const chainId = BigInt(await rpc.call('eth_chainId'))
  const gasPrice = peer.gasPrice === 'zero' ? 0n : BigInt(await rpc.call('eth_gasPrice'))
  const ethBalance = BigInt(await rpc.call('eth_getBalance', [sender, 'latest']))
  if (ethBalance === 0n) throw new Error(`dev key ${sender} has no balance on this node`)
  return { wallet, sender, chainId, gasPrice }
}

/**
 * Deploys the bench ERC-20 (the Cancun fixture; the Token.sol build for the peer's `maxEvm` when the
 * fixture fails there and uses Cancun opcodes) and checks its code, name() and balanceOf(deployer).
 * Returns { token, block, info (for results.json), note (the fallback, or null) }.
 */
export async function deployToken(peer, rpc, { wallet, chainId, gasPrice }) {
  const sender = wallet.address
  const getNonce = async () => Number(BigInt(await rpc.call('eth_getTransactionCount', [sender, 'latest'])))
  let nonce = await getNonce()
  const tryDeploy = async (evm) => {
    const art = loadToken(root, benchDir, evm)
    const ctor = AbiCoder.defaultAbiCoder()
      .encode(['string', 'string', 'uint256'], ['Bench Token', 'BENCH', SUPPLY])
      .slice(2)
    const raw = await wallet.signTransaction({
      type: 0,
      chainId,
      nonce,
      gasPrice,
      gasLimit: DEPLOY_GAS,
      data: art.bytecode + ctor,
      value: 0n,
    })
    try {
      const { receipt } = await sendAndWait(rpc, raw)
      if (receipt.status !== '0x1') throw new Error(`deploy receipt status ${receipt.status}`)
      const addr = getAddress(receipt.contractAddress)
      if ((await rpc.call('eth_getCode', [addr, 'latest'])) === '0x') throw new Error('no code at the contract address')
      const name = iface.decodeFunctionResult(
        'name',
        await rpc.call('eth_call', [{ to: addr, data: iface.encodeFunctionData('name') }, 'latest']),
      )[0]
      const bal = BigInt(await rpc.call('eth_call', [{ to: addr, data: balanceOfData(sender) }, 'latest']))
      if (name !== 'Bench Token' || bal !== SUPPLY) throw new Error(`token sanity: name ${name}, balance ${bal}`)
      return { addr, art, block: Number(BigInt(receipt.blockNumber)) }
    } finally {
      nonce = await getNonce()
    }
  }
  try {
    const d = await tryDeploy('cancun')
    return {
      token: d.addr,
      block: d.block,
      info: { artifact: 'fixtures/contracts/Token.json', evmVersion: 'cancun' },
      note: null,
    }
  } catch (err) {
    const cancunOps = cancunOpcodes(loadToken(root, benchDir, 'cancun').bytecode)
    if (peer.maxEvm === 'cancun' || cancunOps.length === 0) throw new Error(`token deploy failed: ${err.message}`)
    const d = await tryDeploy(peer.maxEvm)
    return {
      token: d.addr,
      block: d.block,
      info: {
        artifact: `bench/contracts/Token.${peer.maxEvm}.json`,
        evmVersion: peer.maxEvm,
        cancunFixtureError: err.message,
      },
      note: `Cancun Token.json fails here (${err.message.slice(0, 120)}; it uses ${cancunOps.join(', ')}): used Token compiled with evmVersion ${peer.maxEvm}${d.art.compiledNow ? ' (compiled now)' : ''}`,
    }
  }
}
