#!/usr/bin/env node
// Fairness under load (docs/architecture.md#fairness): does one client's burst starve the others? node-cli is spawned fresh for each
// scenario and transport (uws and node), on a free loopback port, and three scenarios run against it:
//
//   burst   one WebSocket sends 200 eth_calls at once, each answering 1 MiB (state-override code
//           PUSH3 0x100000 PUSH1 0 RETURN, so ~2 MiB of hex per answer), and reads them; another WebSocket asks
//           eth_blockNumber every 100 ms. Reported: the other client's longest wait for an answer (request sent →
//           answer) and the longest gap between two of its answers while the burst lasts; the answers the burster
//           got (and its close code, if it was closed).
//   paused  20 WebSockets each send 100 of those calls (owed ~2 GB of answers in all) and stop reading (their TCP
//           socket is paused); the other client polls as above for --paused-s seconds. Reported: the node's RSS
//           peak (VmHWM), the other client's longest wait, and, once the paused clients read again, how many were
//           closed and with which code.
//   small   one WebSocket sends 2 000 eth_calls answering 8 KiB (16 KiB of hex) at once; the other client polls.
//
// Usage: npm run bench:fairness [-- --repeat 2 --transports uws,node --scenarios burst,paused,small
//                                   --paused-s 20 --bin <path to bin/node-cli.js> --out <file.json>]
// Bounded in count and time: every scenario stops after --timeout-s (60) seconds whatever happened.
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { root, rootRequire } from './lib/paths.mjs'
import { freePort, installCleanup, sleep, spawnChild } from './lib/proc.mjs'

const WebSocket = rootRequire('ws')
installCleanup()

// ---------------------------------------------------------------- options
const argv = process.argv.slice(2)
const opt = (name, dflt) => {
  const i = argv.indexOf(`--${name}`)
  return i === -1 ? dflt : argv[i + 1]
}
const REPEAT = Number(opt('repeat', '2'))
const TRANSPORTS = opt('transports', 'uws,node').split(',')
const SCENARIOS = opt('scenarios', 'burst,paused,small').split(',')
const PAUSED_S = Number(opt('paused-s', '20'))
const TIMEOUT_MS = Number(opt('timeout-s', '60')) * 1000
const BIN = opt('bin', join(root, 'bin', 'node-cli.js'))
const OUT = opt('out', undefined)

// ---------------------------------------------------------------- the calls
const TARGET = '0x00000000000000000000000000000000000f0000'
/** Runtime code returning `bytes` zero bytes: PUSHn bytes, PUSH1 0, RETURN. */
function returning(bytes) {
  let h = bytes.toString(16)
  if (h.length % 2) h = '0' + h
  const push = (0x5f + h.length / 2).toString(16)
  return `0x${push}${h}6000f3`
}
const callParams = (bytes) => [{ to: TARGET, gas: '0x400000' }, 'latest', { [TARGET]: { code: returning(bytes) } }]
const request = (id, method, params = []) => JSON.stringify({ jsonrpc: '2.0', id, method, params })

// ---------------------------------------------------------------- node process
async function startNodeCli(transport) {
  const port = await freePort()
  const proc = spawnChild(process.execPath, [
    BIN,
    '--host',
    '127.0.0.1',
    '--port',
    String(port),
    '--silent',
    '--transport',
    transport,
  ])
  const url = `http://127.0.0.1:${port}`
  const end = performance.now() + 20_000
  for (;;) {
    try {
      const r = await fetch(url, { method: 'POST', body: request(1, 'eth_chainId') })
      if (r.ok) break
    } catch {}
    if (!proc.isAlive() || performance.now() > end) throw new Error(`node-cli did not start:\n${proc.tail()}`)
    await sleep(20)
  }
  return { proc, wsUrl: `ws://127.0.0.1:${port}` }
}

/** VmHWM (peak RSS) and VmRSS of a process, in MiB. */
function memory(pid) {
  const s = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = (k) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(s)?.[1] ?? NaN)
  return { hwm: kb('VmHWM') / 1024, rss: kb('VmRSS') / 1024 }
}

function openWs(url) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { perMessageDeflate: false, maxPayload: 64 * 1024 * 1024 })
    ws.once('open', () => resolve(ws))
    ws.once('error', reject)
  })
}

/**
 * The other client: eth_blockNumber every 100 ms over its own WebSocket (not waiting for answers), latency of each.
 * stop() resolves with { sent, answered, longestWaitMs, longestGapMs } (the gap counted between `from` and `to`).
 */
async function poller(url) {
  const ws = await openWs(url)
  const sentAt = new Map()
  const answers = [] // [sentAt, answeredAt]
  let id = 0
  ws.on('message', (d) => {
    const msg = JSON.parse(d.toString())
    const t = sentAt.get(msg.id)
    if (t !== undefined) answers.push([t, performance.now()])
  })
  const tick = () => {
    sentAt.set(++id, performance.now())
    ws.send(request(id, 'eth_blockNumber'))
  }
  tick()
  const timer = setInterval(tick, 100)
  return {
    async stop(from, to) {
      clearInterval(timer)
      await sleep(300)
      ws.terminate()
      const now = performance.now()
      let longestWaitMs = 0
      const got = new Set(answers.map(([t]) => t))
      for (const [t, a] of answers) longestWaitMs = Math.max(longestWaitMs, a - t)
      // an unanswered request waited until now
      for (const t of sentAt.values()) if (!got.has(t)) longestWaitMs = Math.max(longestWaitMs, now - t)
      const times = [from, ...answers.map(([, a]) => a).filter((a) => a > from && a < to), to]
      let longestGapMs = 0
      for (let i = 1; i < times.length; i++) longestGapMs = Math.max(longestGapMs, times[i] - times[i - 1])
      return { sent: sentAt.size, answered: answers.length, longestWaitMs, longestGapMs }
    },
  }
}

/** Sends `n` calls answering `bytes` each on one WebSocket and reads the answers; resolves when all came or it closed. */
async function burst(url, n, bytes) {
  const ws = await openWs(url)
  let got = 0
  let errors = 0
  let closeCode
  const done = new Promise((resolve) => {
    ws.on('message', (d) => {
      const msg = JSON.parse(d.toString())
      if (msg.error) errors++
      if (++got === n) resolve()
    })
    ws.on('close', (code) => {
      closeCode = code
      resolve()
    })
    ws.on('error', () => {})
  })
  const start = performance.now()
  for (let i = 1; i <= n; i++) ws.send(request(i, 'eth_call', callParams(bytes)))
  const timeout = sleep(TIMEOUT_MS).then(() => 'timeout')
  const r = await Promise.race([done, timeout])
  const ms = performance.now() - start
  ws.terminate()
  return { got, errors, closeCode, timedOut: r === 'timeout', ms }
}

// ---------------------------------------------------------------- scenarios
async function scenarioBurst(url, n, bytes) {
  const other = await poller(url)
  await sleep(250)
  const from = performance.now()
  const b = await burst(url, n, bytes)
  const to = performance.now()
  const o = await other.stop(from, to)
  return { burst: b, other: o }
}

async function scenarioPaused(url, pid) {
  const other = await poller(url)
  const clients = []
  for (let c = 0; c < 20; c++) {
    const ws = await openWs(url)
    const st = { ws, got: 0, closeCode: undefined }
    ws.on('message', () => st.got++)
    ws.on('close', (code) => (st.closeCode = code))
    ws.on('error', () => {})
    for (let i = 1; i <= 100; i++) ws.send(request(i, 'eth_call', callParams(1 << 20)))
    // stop reading: the node's send buffers fill up
    ws._socket.pause()
    clients.push(st)
  }
  const from = performance.now()
  let rssPeak = 0
  const end = from + PAUSED_S * 1000
  while (performance.now() < end) {
    rssPeak = Math.max(rssPeak, memory(pid).rss)
    await sleep(100)
  }
  const to = performance.now()
  const o = await other.stop(from, to)
  const hwm = memory(pid).hwm
  // read again: who was closed, with which code
  for (const c of clients) c.ws._socket.resume()
  const deadline = performance.now() + Math.min(TIMEOUT_MS, 30_000)
  while (performance.now() < deadline && clients.some((c) => c.closeCode === undefined && c.got < 100)) await sleep(50)
  const codes = {}
  for (const c of clients) {
    const k =
      c.closeCode === undefined ? (c.got === 100 ? 'all answers' : `open, ${c.got} answers`) : `closed ${c.closeCode}`
    codes[k] = (codes[k] ?? 0) + 1
    c.ws.terminate()
  }
  return { rssPeakMiB: Math.max(rssPeak, hwm), other: o, clients: codes }
}

// ---------------------------------------------------------------- run
const fmt = (ms) => `${Math.round(ms)} ms`
const results = []
console.log(`fairness bench: ${BIN}, transports ${TRANSPORTS.join(', ')}, ${REPEAT} run(s) each`)
for (let r = 1; r <= REPEAT; r++) {
  for (const transport of TRANSPORTS) {
    for (const scenario of SCENARIOS) {
      const node = await startNodeCli(transport)
      let res
      try {
        if (scenario === 'burst') res = await scenarioBurst(node.wsUrl, 200, 1 << 20)
        else if (scenario === 'small') res = await scenarioBurst(node.wsUrl, 2000, 8192)
        else if (scenario === 'paused') res = await scenarioPaused(node.wsUrl, node.proc.pid)
        else throw new Error(`unknown scenario ${scenario}`)
      } finally {
        await node.proc.stop()
      }
      results.push({ run: r, transport, scenario, ...res })
      if (scenario === 'paused')
        console.log(
          `${transport.padEnd(4)} paused: RSS peak ${res.rssPeakMiB.toFixed(0)} MiB, other client's longest wait ` +
            `${fmt(res.other.longestWaitMs)} (longest gap ${fmt(res.other.longestGapMs)}, ${res.other.answered}/${res.other.sent} answered); ` +
            `paused clients: ${JSON.stringify(res.clients)}`,
        )
      else
        console.log(
          `${transport.padEnd(4)} ${scenario}: other client's longest wait ${fmt(res.other.longestWaitMs)}, longest gap ` +
            `${fmt(res.other.longestGapMs)} (${res.other.answered}/${res.other.sent} answered); burst: ${res.burst.got} answers ` +
            `in ${fmt(res.burst.ms)}${res.burst.errors ? `, ${res.burst.errors} errors` : ''}` +
            `${res.burst.closeCode !== undefined ? `, closed ${res.burst.closeCode}` : ''}${res.burst.timedOut ? ', TIMED OUT' : ''}`,
        )
    }
  }
}
if (OUT) writeFileSync(OUT, JSON.stringify({ bin: BIN, results }, null, 2))
process.exit(0)
