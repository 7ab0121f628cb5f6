// --memory (node-cli without --db): memory per block. The node runs in a child process through the library API
// (memory-node.mjs, node --expose-gc); one value transfer to a new address per block (automine; --memory-to same:
// always to one address; --memory-to token: an ERC-20 transfer to a new holder, as the --sustain load), and at each of
// the --memory-blocks points (5 000 and 25 000 by default): RSS as it runs, then after two full GCs RSS, V8's
// heapUsed, and the memory outside the heap (external, arrayBuffers: Uint8Array backing stores). The growth
// between the two points, per block, is the figure.
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { log } from './log.mjs'
import { checkRecorder, peerAvailable } from './section.mjs'
import { balanceOfData, tokenTransferTx } from './erc20.mjs'
import { deployToken, devAccount, sendAndWait } from './peer-client.mjs'
import { benchDir, root } from './paths.mjs'
import { rssMiB, spawnChild } from './proc.mjs'
import { Rpc } from './rpc.mjs'

const MiB = 2 ** 20
const { heapGrowingOption } = createRequire(import.meta.url)('../../bin/start-settings.js')
/** What one block's transfer is, by --memory-to. */
const LOADS = {
  new: 'one value transfer per block, to a new address',
  same: 'one value transfer per block, to the same address',
  token: 'one ERC-20 transfer per block, to a new holder',
}
/**
 * The block's one transfer goes to a new address each time (`--memory-to new`, and the token's new holder with
 * `token`) or always to the first one (`same`).
 */
const recipientOf = (to) => (i) => '0x' + (0xf0000000 + (to === 'same' ? 0 : i)).toString(16).padStart(40, '0')

/** The next IPC message of `h` for which `pick(message)` is not undefined, within `timeoutMs`. */
function nextMessage(h, pick, timeoutMs) {
  return new Promise((resolve, reject) => {
    const onMessage = (m) => {
      const v = pick(m)
      if (v === undefined) return
      done()
      resolve(v)
    }
    const onExit = () => {
      done()
      reject(new Error(`the memory node exited:\n${h.tail()}`))
    }
    const timer = setTimeout(() => {
      done()
      reject(new Error(`no answer from the memory node within ${timeoutMs / 1000} s`))
    }, timeoutMs)
    const done = () => {
      clearTimeout(timer)
      h.child.off('message', onMessage)
      h.child.off('exit', onExit)
    }
    h.child.on('message', onMessage)
    h.child.on('exit', onExit)
  })
}

/**
 * Runs the memory row for `peer` (node-cli: its dev key and chain) up to opts.memoryBlocks = [A, B] blocks.
 * Returns { name, version, status, error, points [{ blocks, rssMiB (running), rssAfterGcMiB, heapUsedMiB,
 * externalMiB, arrayBuffersMiB, txPerSec (of the slice before) }], perBlock { blocks, rssBytes, rssAfterGcBytes,
 * heapUsedBytes, externalBytes } (growth from A to B ÷ (B − A)), checks, notes }.
 */
export async function runMemory(peer, opts) {
  const [A, B] = opts.memoryBlocks
  const recipient = recipientOf(opts.memoryTo)
  const out = {
    name: `${peer.name} (library API, --expose-gc)`,
    recipient: opts.memoryTo,
    version: null,
    status: 'ok',
    error: null,
    points: [],
    perBlock: null,
    checks: [],
    notes: [],
  }
  if (!peerAvailable(out, peer, `--memory`)) return out
  log(`\n== --memory: ${peer.name} in memory, ${LOADS[opts.memoryTo]}, memory at ${A} and ${B} blocks`)
  const check = checkRecorder(out, `memory`)
  // V8's old-generation growth bounded as the CLI's launcher does at start (bin/start-settings.js:
  // --heap-growing-percent=50, or NODE_CLI_HEAP_GROWING_PERCENT), so that RSS behaves as the CLI's
  const heapGrowing = heapGrowingOption({ env: process.env, execArgv: process.execArgv })
  const nodeArgs = ['--expose-gc', ...(heapGrowing ? [heapGrowing] : [])]
  const h = spawnChild(process.execPath, [...nodeArgs, join(benchDir, 'lib', 'memory-node.mjs')], {
    cwd: root,
    ipc: true,
  })
  let rpc = null
  try {
    const url = await nextMessage(h, (m) => m?.url, 60_000)
    rpc = new Rpc(url)
    const { wallet, sender, chainId, gasPrice } = await devAccount(peer, rpc)
    let head = Number(BigInt(await rpc.call('eth_blockNumber')))
    const start = head
    // token: the deploy is the first block, so the points stay at the same heights (just after a state pack)
    const token = opts.memoryTo === 'token' ? (await deployToken(peer, rpc, { wallet, chainId, gasPrice })).token : null
    if (token) head = Number(BigInt(await rpc.call('eth_blockNumber')))
    let nonce = Number(BigInt(await rpc.call('eth_getTransactionCount', [sender, 'latest'])))
    let bad = 0
    const measure = async (blocks, txPerSec) => {
      const running = rssMiB(h.pid)
      h.child.send({ measure: blocks })
      const { memory: m, resident } = await nextMessage(h, (x) => (x?.memory ? x : undefined), 300_000)
      const p = {
        blocks,
        rssMiB: running == null ? null : +running.toFixed(1),
        rssAfterGcMiB: +(m.rss / MiB).toFixed(1),
        heapUsedMiB: +(m.heapUsed / MiB).toFixed(2),
        heapTotalMiB: +(m.heapTotal / MiB).toFixed(2),
        externalMiB: +(m.external / MiB).toFixed(2),
        arrayBuffersMiB: +(m.arrayBuffers / MiB).toFixed(2),
        txPerSec,
      }
      if (resident) p.resident = resident
      out.points.push(p)
      log(
        `   ${blocks} blocks: RSS ${p.rssMiB} MiB, after GC: RSS ${p.rssAfterGcMiB} MiB, heapUsed ${p.heapUsedMiB} MiB (heapTotal ${p.heapTotalMiB} MiB), external ${p.externalMiB} MiB (arrayBuffers ${p.arrayBuffersMiB} MiB)${txPerSec ? `; ${txPerSec} tx/s` : ''}`,
      )
      if (resident) log(`      resident by mapping: ${JSON.stringify(resident)}`)
      return { p, m }
    }
    await measure(0, null)
    const at = {}
    for (const target of [A, B]) {
      const t0 = performance.now()
      const from = head - start
      for (let i = from; i < target; i++) {
        const raw = await wallet.signTransaction(
          token
            ? tokenTransferTx({ chainId, nonce: nonce++, gasPrice, token, to: recipient(i), amount: 1n })
            : { type: 0, chainId, nonce: nonce++, gasPrice, gasLimit: 21_000n, to: recipient(i), value: 1n },
        )
        const { receipt } = await sendAndWait(rpc, raw)
        const block = Number(BigInt(receipt.blockNumber))
        if (receipt.status !== '0x1' || block !== head + 1) bad++
        head = block
      }
      at[target] = await measure(target, +((target - from) / ((performance.now() - t0) / 1000)).toFixed(1))
    }
    check('every transfer mined in its own block with status 1', bad === 0, `${bad} of ${B} not`)
    const last = BigInt(
      token
        ? await rpc.call('eth_call', [{ to: token, data: balanceOfData(recipient(B - 1)) }, 'latest'])
        : await rpc.call('eth_getBalance', [recipient(B - 1), 'latest']),
    )
    const expected = opts.memoryTo === 'same' ? BigInt(B) : 1n
    check(`the last recipient holds ${expected} ${token ? 'token units' : 'wei'}`, last === expected, `${last}`)
    const n = B - A
    const per = (f) => Math.round((f(at[B]) - f(at[A])) / n)
    out.perBlock = {
      blocks: n,
      rssBytes: at[A].p.rssMiB == null || at[B].p.rssMiB == null ? null : per((x) => x.p.rssMiB * MiB),
      rssAfterGcBytes: per((x) => x.m.rss),
      heapUsedBytes: per((x) => x.m.heapUsed),
      externalBytes: per((x) => x.m.external),
    }
    log(
      `   from ${A} to ${B} blocks, per block: heapUsed ${out.perBlock.heapUsedBytes} B, external ${out.perBlock.externalBytes} B, RSS ${out.perBlock.rssBytes} B (after GC ${out.perBlock.rssAfterGcBytes} B)`,
    )
  } catch (err) {
    out.status = 'failed'
    out.error = err.message
    log(`   --memory FAILED: ${err.message}`)
  } finally {
    rpc?.close()
    if (h.isAlive()) {
      h.child.send('close')
      const t = setTimeout(() => h.stop(1000), 10_000)
      await h.exited
      clearTimeout(t)
    }
  }
  return out
}

/** The --memory summary lines under the table. */
export function printMemory(r) {
  log('')
  log(
    `--memory (${r.name} ${r.version ?? ''}, no --db; ${LOADS[r.recipient]})${
      r.status === 'ok'
        ? ''
        : `: ${r.status.toUpperCase()}: ${String(r.error)
            .replace(/\s*\n\s*/g, ' | ')
            .slice(0, 400)}`
    }`,
  )
  if (r.points.length) {
    log(
      `  ${'blocks'.padStart(7)}  ${'RSS MiB'.padStart(8)}  ${'after GC: RSS'.padStart(13)}  ${'heapUsed'.padStart(8)}  ${'external'.padStart(8)}  ${'arrayBuf'.padStart(8)}  ${'tx/s'.padStart(6)}`,
    )
    for (const p of r.points) {
      const f = (x, d) => (x == null ? '—' : x.toFixed(d))
      log(
        `  ${String(p.blocks).padStart(7)}  ${f(p.rssMiB, 1).padStart(8)}  ${f(p.rssAfterGcMiB, 1).padStart(13)}  ${f(p.heapUsedMiB, 2).padStart(8)}  ${f(p.externalMiB, 2).padStart(8)}  ${f(p.arrayBuffersMiB, 2).padStart(8)}  ${f(p.txPerSec, 1).padStart(6)}`,
      )
    }
  }
  const b = r.perBlock
  if (b)
    log(
      `  per block (${r.points.at(-2)?.blocks} → ${r.points.at(-1)?.blocks}): heapUsed ${b.heapUsedBytes} B, external ${b.externalBytes} B, RSS ${b.rssBytes} B (after GC ${b.rssAfterGcBytes} B)`,
    )
  const fails = r.checks.filter((c) => !c.ok)
  log(`  ${r.checks.length - fails.length}/${r.checks.length} checks passed`)
  for (const c of fails) log(`    ✗ ${c.what}: ${c.detail}`)
}
