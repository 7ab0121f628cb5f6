// Otterscan's address search over real HTTP, run with `npm run bench:ots` (builds first): a node-cli chain where one
// address received 100 000 transactions (from the dev accounts, 16 per sender per block, mined with evm_mine), then
// the time of ots_searchTransactionsBefore / After's first page (pageSize 25, what Otterscan asks for), of a page in
// the middle, and of ots_getTransactionBySenderAndNonce; medians of repeated calls, with the node's RSS. The search
// is answered from the address index (src/blocks/address-index.ts), so it should not grow with the chain.
//
//   node bench/otterscan-search.mjs [--txs 100000] [--runs 50]
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { performance } from 'node:perf_hooks'
import { parseArgs } from 'node:util'

const { values } = parseArgs({
  options: { txs: { type: 'string', default: '100000' }, runs: { type: 'string', default: '50' } },
})
const TXS = Number(values.txs)
const RUNS = Number(values.runs)
const BUSY = '0x00000000000000000000000000000000000b05e5'
/** Pool admission takes nonces up to 16 ahead of the account's. */
const PER_SENDER = 16

const bin = new URL('../bin/node-cli.js', import.meta.url).pathname
const child = spawn(process.execPath, [bin, '--port', '0', '--silent', '--no-console-log'], {
  stdio: ['ignore', 'pipe', 'inherit'],
})
process.on('exit', () => child.kill())
const url = await new Promise((resolve, reject) => {
  let out = ''
  child.on('exit', (code) => reject(new Error(`node-cli exited with ${code}`)))
  child.stdout.on('data', (d) => {
    out += d
    const m = /(http:\/\/\S+)/.exec(out)
    if (m) resolve(m[1])
  })
})

let id = 0
/**
 * Posts one JSON-RPC request object, or a batch (an array of them).
 * @param {unknown} body
 * @returns {Promise<any>} the parsed answer
 */
async function call(body) {
  const r = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  return r.json()
}
async function rpc(method, params = []) {
  const res = await call({ jsonrpc: '2.0', id: ++id, method, params })
  if (res.error) throw new Error(`${method}: ${res.error.message}`)
  return res.result
}
const rss = () => {
  const status = readFileSync(`/proc/${child.pid}/status`, 'utf8')
  return Number(/VmRSS:\s+(\d+)/.exec(status)[1]) / 1024
}

const accounts = await rpc('eth_accounts')
const balances = await Promise.all(accounts.map((a) => rpc('eth_getBalance', [a, 'latest'])))
const senders = accounts.filter((_, i) => BigInt(balances[i]) > 10n ** 18n)
await rpc('evm_setAutomine', [false])
const rssBefore = rss()
const t0 = performance.now()
let sent = 0
while (sent < TXS) {
  const batch = []
  for (const from of senders) {
    for (let i = 0; i < PER_SENDER && sent < TXS; i++, sent++) {
      batch.push({
        jsonrpc: '2.0',
        id: ++id,
        method: 'eth_sendTransaction',
        params: [{ from, to: BUSY, value: '0x1', gas: '0x5208' }],
      })
    }
  }
  // the node answers batches of up to 50 requests (the reference's max_batch_requests_size)
  for (let i = 0; i < batch.length; i += 50) {
    const answers = await call(batch.slice(i, i + 50))
    const failed = answers.find((a) => a.error)
    if (failed) throw new Error(`eth_sendTransaction: ${failed.error.message}`)
  }
  await rpc('evm_mine')
}
const built = (performance.now() - t0) / 1000
const head = Number(await rpc('eth_blockNumber'))

/** Median ms of RUNS calls of `fn`, after 5 warm-up calls. */
async function median(fn) {
  for (let i = 0; i < 5; i++) await fn()
  const times = []
  for (let i = 0; i < RUNS; i++) {
    const s = performance.now()
    await fn()
    times.push(performance.now() - s)
  }
  times.sort((a, b) => a - b)
  return times[Math.floor(times.length / 2)]
}
const first = await rpc('ots_searchTransactionsBefore', [BUSY, 0, 25])
if (first.txs.length < 25 || !first.firstPage) throw new Error('the first page is not a full first page')
const middle = Math.floor(head / 2)
const rows = {
  'ots_searchTransactionsBefore first page (25)': await median(() =>
    rpc('ots_searchTransactionsBefore', [BUSY, 0, 25]),
  ),
  'ots_searchTransactionsAfter first page (25)': await median(() => rpc('ots_searchTransactionsAfter', [BUSY, 0, 25])),
  'ots_searchTransactionsBefore middle page (25)': await median(() =>
    rpc('ots_searchTransactionsBefore', [BUSY, middle, 25]),
  ),
  'ots_getTransactionBySenderAndNonce (middle nonce)': await median(() =>
    rpc('ots_getTransactionBySenderAndNonce', [senders[0], Math.floor(TXS / senders.length / 2)]),
  ),
  'eth_blockNumber (the HTTP round trip alone)': await median(() => rpc('eth_blockNumber')),
}
console.log(`node-cli, ${TXS} transactions to ${BUSY} in ${head} blocks (built in ${built.toFixed(1)} s)`)
console.log(`RSS ${rssBefore.toFixed(0)} MiB before, ${rss().toFixed(0)} MiB after`)
for (const [name, ms] of Object.entries(rows)) console.log(`${name.padEnd(52)} ${ms.toFixed(2)} ms`)
child.kill()
process.exit(0)
