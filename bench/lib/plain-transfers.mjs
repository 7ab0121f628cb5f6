// Step 6c of the main run (bench/README.md, "The workload"): plain value transfers (1 wei each, gas 21 000), one
// at a time, each awaited, after the ERC-20 transfers: a short warm-up, then N measured. Every receipt and the
// recipient's balance are checked.
import { performance } from 'node:perf_hooks'
import { sendAndWait, signLegacy } from './peer-client.mjs'

/** The recipient of the plain transfers: an address no peer funds or deploys to. */
export const PLAIN_TO = '0x00000000000000000000000000000000000be4c6'

/** Plain transfers sent before the measured ones (the ERC-20 transfers warmed the rest of the mining path). */
const PLAIN_WARMUP = 500

/**
 * Sends PLAIN_WARMUP (0 when `warmup` is false) + `n` value transfers and records `plainTps` (the last `n`).
 * @param {{ rpc: any, wallet: any, chainId: bigint, gasPrice: bigint, nonce: number, n: number, warmup: boolean,
 *   res: any, check: (metric: string, what: string, ok: unknown, detail?: string) => void,
 *   step: (s: string) => void }} a the peer's client and dev wallet, its next nonce, the result record
 */
export async function plainTransfersStep({ rpc, wallet, chainId, gasPrice, nonce, n, warmup, res, check, step }) {
  const W = warmup ? PLAIN_WARMUP : 0
  const T = W + n
  const before = BigInt(await rpc.call('eth_getBalance', [PLAIN_TO, 'latest']))
  const raws = await signLegacy(wallet, {
    chainId,
    gasPrice,
    firstNonce: nonce,
    count: T,
    tx: () => ({ gasLimit: 21_000n, to: PLAIN_TO, value: 1n }),
  })
  let bad = 0
  let firstBad = null
  const blocks = new Set()
  let t0 = performance.now()
  for (let i = 0; i < T; i++) {
    if (i === W) t0 = performance.now()
    const { receipt: r } = await sendAndWait(rpc, raws[i])
    blocks.add(r.blockNumber)
    if (r.status !== '0x1' || BigInt(r.gasUsed) !== 21_000n || r.logs.length !== 0) {
      bad++
      firstBad ??= `#${i}: ${JSON.stringify(r).slice(0, 300)}`
    }
  }
  const secs = (performance.now() - t0) / 1000
  res.metrics.plainTps = n / secs
  res.details.plainTransfers = { n, warmup: W, seconds: +secs.toFixed(3) }
  const after = BigInt(await rpc.call('eth_getBalance', [PLAIN_TO, 'latest']))
  check(
    'plainTps',
    'every receipt: status 1, gas 21 000, no logs; the recipient got 1 wei per transfer',
    bad === 0 && after - before === BigInt(T),
    bad ? `${bad} bad; ${firstBad}` : `balance +${after - before} wei (want ${T})`,
  )
  if (blocks.size !== T) res.notes.push(`${T} automined value transfers landed in ${blocks.size} blocks`)
  step(`${n} value transfers after ${W} warm-up ones: ${res.metrics.plainTps.toFixed(1)} tx/s`)
}
