// Memory and speed of the address index (src/blocks/address-index.ts), run with `node bench/address-index.mjs`
// after `npm run build`: bytes per (address, transaction) entry on a realistic mix, per new address and on long
// lists, against a Map-of-arrays baseline; the time of a first page over an address with ~100 000 transactions, of a
// middle page and of a 10-block truncation (what a revert costs).
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { existsSync } from 'node:fs'

// dist/ (npm run build) is read at run time, not type-checked here
const dist = new URL('../dist/', import.meta.url)
if (!existsSync(new URL('blocks/address-index.js', dist))) throw new Error('dist/ missing: run `npm run build` first')
const { AddressIndex } = await import(new URL('blocks/address-index.js', dist).href)
const { txPositionKey } = await import(new URL('blocks/tx-position-key.js', dist).href)
const { toHex } = await import(new URL('util/bytes.js', dist).href)

/**
 * Address `i`: half random-looking, half sharing their first 16 bytes (like the native contracts).
 * @param {number} i
 */
function address(i) {
  const a = new Uint8Array(20)
  if (i % 2 === 0) {
    new DataView(a.buffer).setUint32(16, 0x01000000 + i)
  } else {
    const v = new DataView(a.buffer)
    for (let w = 0; w < 5; w++) v.setUint32(w * 4, Math.imul(i ^ (w << 28), 0x9e3779b1) ^ Math.imul(i, 0x85ebca77 + w))
  }
  return a
}

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc')
// after a full GC, V8 frees array buffers' memory in the background: wait for it before reading
const heap = async () => {
  gc()
  await new Promise((resolve) => setTimeout(resolve, 300))
  gc()
  const u = process.memoryUsage()
  return u.heapUsed + u.arrayBuffers
}
const MiB = (n) => `${(n / 2 ** 20).toFixed(1)} MiB`
const r = (n) => Math.floor(Math.random() * n)
const busy = address(1000001)
// a realistic mix: 10 txs a block, senders from 5 000 accounts, a recipient that is the busy address (1 in 5), a
// fresh address (1 in 5) or one of 50 000 known ones; 1e6 (address, tx) entries
const blocks = []
let entries = 0
let fresh = 0
while (entries < 1_000_000) {
  const txs = []
  for (let i = 0; i < 10; i++) {
    const k = r(5)
    const to = k === 0 ? busy : k === 1 ? address(1_000_000 + 2 * ++fresh) : address(2 * r(50_000) + 1)
    txs.push({ from: address(2 * r(5000)), touched: [to] })
    entries += 2
  }
  blocks.push(txs)
}
let base = await heap()
const index = new AddressIndex()
blocks.forEach((txs, i) => index.append(i + 1, txs))
const indexBytes = (await heap()) - base
// the Map-of-arrays baseline over the same data (hex string keys, number arrays; touched and sent), to compare
base = await heap()
const naive = new Map()
const naiveSent = new Map()
const put = (map, a, p) => {
  const k = toHex(a)
  const l = map.get(k)
  if (l === undefined) map.set(k, [p])
  else l.push(p)
}
blocks.forEach((txs, b) =>
  txs.forEach((tx, i) => {
    const p = txPositionKey(b + 1, i)
    for (const a of [tx.from, ...tx.touched]) put(naive, a, p)
    put(naiveSent, tx.from, p)
  }),
)
const naiveBytes = (await heap()) - base
// per new address: 100 000 addresses with one entry each, in a fresh index
base = await heap()
const sparse = new AddressIndex()
for (let b = 0; b < 20_000; b++) {
  sparse.append(
    b + 1,
    Array.from({ length: 5 }, (_, i) => ({ from: address(4_000_001 + 2 * (b * 5 + i)), touched: [] })),
  )
}
const sparseBytes = (await heap()) - base
// per entry of long lists: 500 000 transactions among 100 addresses (touched + sent: 1e6 entries)
base = await heap()
const dense = new AddressIndex()
for (let b = 0; b < 50_000; b++) {
  dense.append(
    b + 1,
    Array.from({ length: 10 }, () => ({ from: address(2 * r(50)), touched: [address(2 * r(50) + 1)] })),
  )
}
const denseBytes = (await heap()) - base
const denseEntries = dense.size + 500_000

const busyCount = index.touchedBy(busy).count
let best = Infinity
let worst = 0
let page
for (let k = 0; k < 200; k++) {
  const t0 = performance.now()
  page = index.before(busy, 0, 25)
  const ms = performance.now() - t0
  best = Math.min(best, ms)
  worst = Math.max(worst, ms)
}
const t1 = performance.now()
const mid = index.after(busy, Math.floor(blocks.length / 2), 25)
const midMs = performance.now() - t1
const t2 = performance.now()
index.truncateAbove(blocks.length - 10) // a revert of the last 10 blocks (what a Hardhat suite pays per test)
const truncMs = performance.now() - t2
console.log(
  `address index, ${entries} touched entries (+ ${entries / 2} sent) over ${index.addressCount} addresses: ${MiB(indexBytes)} measured ` +
    `(${(indexBytes / entries).toFixed(1)} B/entry all in; typed arrays allocated ${MiB(index.byteSize)}), ` +
    `Map-of-arrays (touched + sent) ${MiB(naiveBytes)} (${(naiveBytes / entries).toFixed(1)} B/entry); ` +
    `100 000 one-entry addresses: ${MiB(sparseBytes)} (${(sparseBytes / 1e5).toFixed(1)} B/address, sent list ` +
    `included); long lists (100 addresses, ${denseEntries} entries): ${MiB(denseBytes)} ` +
    `(${(denseBytes / denseEntries).toFixed(1)} B/entry); busy address ${busyCount} txs: first page best ${best.toFixed(4)} ms / worst ${worst.toFixed(4)} ` +
    `ms of 200 (${page.positions.length} txs), a middle after-page ${midMs.toFixed(4)} ms (${mid.positions.length} txs); truncate of 10 blocks ${truncMs.toFixed(4)} ms`,
)
