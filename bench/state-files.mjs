#!/usr/bin/env node
// State-file benchmark: load and dump time and peak RSS of a large state, node-cli vs Anvil on the same file.
//
//   npm run bench:state                      # 100 000 accounts × 10 storage slots (1 000 000 slots)
//   npm run bench:state -- --accounts 10000  # smaller
//
// Both nodes start from the same generated Anvil-format file (`--load-state`), answer a read of the last account,
// and are stopped with SIGINT while `--dump-state` writes their state. node-cli then also starts from its own dump
// (the exact path: blocks, state root). Figures: start → first answer (load), SIGINT → exit (dump), file size, and
// the process's peak RSS (VmHWM) during load and during dump. Results: bench/results-state-files.json (with the
// machine's 1-minute load average before and after: figures from a busy machine are not comparable).
import { spawnSync } from 'node:child_process'
import { createWriteStream, existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import { freePort, installCleanup, peakRssMiB, sleep, spawnChild } from './lib/proc.mjs'
import { Rpc } from './lib/rpc.mjs'

const benchDir = dirname(fileURLToPath(import.meta.url))
const root = resolve(benchDir, '..')
const args = process.argv.slice(2)
const ACCOUNTS = Number(args[args.indexOf('--accounts') + 1] ?? 0) || 100_000
const SLOTS = 10
installCleanup()

/** Anvil from the benchmark's own dependencies (installed with `npm ci --prefix bench` when missing). */
function anvilBin() {
  const bin = join(benchDir, 'node_modules', '.bin', 'anvil')
  if (!existsSync(bin)) {
    console.log('bench: installing the benchmark dependencies (npm ci --prefix bench)')
    const npm = (a) =>
      spawnSync('npm', [...a, '--prefix', benchDir, '--no-audit', '--no-fund'], { stdio: 'inherit', cwd: root })
        .status === 0
    // (as run.mjs: npm ci refuses a lock file missing another platform's optional anvil binary)
    if (!npm(['ci']) && !npm(['install', '--no-save'])) process.exit(1)
  }
  // the platform binary itself: the npm wrapper (bin.mjs) would take the signals and the RSS figures
  const native = join(
    benchDir,
    'node_modules',
    '@foundry-rs',
    `anvil-${process.platform}-${process.arch === 'x64' ? 'amd64' : process.arch}`,
    'bin',
    'anvil',
  )
  return existsSync(native) ? native : bin
}

/** Writes the Anvil-format state: ACCOUNTS accounts with SLOTS slots each, streamed to disk. */
async function generate(file) {
  const out = createWriteStream(file)
  const write = (s) => (out.write(s) ? undefined : once(out, 'drain'))
  await write(
    '{"block":{"number":"0x0","beneficiary":"0x0000000000000000000000000000000000000000","timestamp":"0x1","gas_limit":30000000,"basefee":0,"difficulty":"0x0","prevrandao":null},"accounts":{',
  )
  for (let i = 1; i <= ACCOUNTS; i++) {
    const storage = []
    for (let s = 0; s < SLOTS; s++)
      storage.push(`"0x${s.toString(16).padStart(64, '0')}":"0x${(i * SLOTS + s).toString(16).padStart(64, '0')}"`)
    const addr = '0x' + (0x10000000 + i).toString(16).padStart(40, '0')
    await write(
      `${i > 1 ? ',' : ''}"${addr}":{"nonce":1,"balance":"0x${i.toString(16)}","code":"0x6001","storage":{${storage.join(',')}}}`,
    )
  }
  await write('},"best_block_number":0,"blocks":[],"transactions":[],"historical_states":null}')
  out.end()
  await once(out, 'finish')
}

const lastAccount = '0x' + (0x10000000 + ACCOUNTS).toString(16).padStart(40, '0')

/** Starts a node loading `load` and dumping to `dump`; measures load, then SIGINT → dump → exit. */
async function measure(name, cmd, argsFor) {
  const port = await freePort()
  const dump = join(work, `${name}-dump.json`)
  const t0 = performance.now()
  const p = spawnChild(cmd, argsFor(port, dump), { cwd: root })
  const rpc = new Rpc(`http://127.0.0.1:${port}`)
  let answer
  for (;;) {
    if (!p.isAlive()) throw new Error(`${name} exited: ${p.tail()}`)
    try {
      answer = await rpc.call('eth_getStorageAt', [lastAccount, '0x9', 'latest'])
      break
    } catch {
      await sleep(20)
    }
  }
  const loadMs = performance.now() - t0
  const loadPeak = peakRssMiB(p.pid)
  const t1 = performance.now()
  p.child.kill('SIGINT')
  let dumpPeak = loadPeak
  while (p.isAlive()) {
    dumpPeak = peakRssMiB(p.pid) ?? dumpPeak
    await sleep(25)
  }
  const dumpMs = performance.now() - t1
  const size = existsSync(dump) ? statSync(dump).size : 0
  return { name, loadMs, loadPeakMiB: loadPeak, dumpMs, dumpPeakMiB: dumpPeak, dumpBytes: size, answer, dump }
}

const work = mkdtempSync(join(tmpdir(), 'node-cli-bench-state-'))
// the machine's 1-minute load average before and after: figures taken on a busy machine are not comparable
const loadBefore = loadavg()[0]
try {
  const source = join(work, 'anvil-format.json')
  console.log(`generating ${ACCOUNTS} accounts × ${SLOTS} slots …`)
  await generate(source)
  console.log(`state file: ${(statSync(source).size / 2 ** 20).toFixed(1)} MiB`)
  const nodeCli = (load) => (port, dump) => [
    join(root, 'bin', 'node-cli.js'),
    '--port',
    String(port),
    '--silent',
    '--load-state',
    load,
    '--dump-state',
    dump,
  ]
  const results = []
  results.push(await measure('node-cli (Anvil file)', process.execPath, nodeCli(source)))
  results.push(
    await measure('anvil (Anvil file)', anvilBin(), (port, dump) => [
      '--port',
      String(port),
      '--silent',
      '--load-state',
      source,
      '--dump-state',
      dump,
    ]),
  )
  results.push(await measure('node-cli (own dump)', process.execPath, nodeCli(results[0].dump)))
  const expected = '0x' + (ACCOUNTS * SLOTS + 9).toString(16).padStart(64, '0')
  console.log(`\n${ACCOUNTS} accounts, ${ACCOUNTS * SLOTS} storage slots`)
  console.log('peer                     load ms   load peak MiB   dump ms   dump peak MiB   dump MiB   read ok')
  for (const r of results) {
    console.log(
      `${r.name.padEnd(24)} ${r.loadMs.toFixed(0).padStart(7)}   ${r.loadPeakMiB?.toFixed(0).padStart(13)}   ${r.dumpMs.toFixed(0).padStart(7)}   ${r.dumpPeakMiB?.toFixed(0).padStart(13)}   ${(r.dumpBytes / 2 ** 20).toFixed(1).padStart(8)}   ${r.answer === expected}`,
    )
  }
  const [n, a] = results
  console.log(
    `node-cli / anvil: load ${(n.loadMs / a.loadMs).toFixed(2)}x, dump ${(n.dumpMs / a.dumpMs).toFixed(2)}x, peak RSS ${(Math.max(n.loadPeakMiB, n.dumpPeakMiB) / Math.max(a.loadPeakMiB, a.dumpPeakMiB)).toFixed(2)}x`,
  )
  writeFileSync(
    join(benchDir, 'results-state-files.json'),
    JSON.stringify(
      {
        date: new Date().toISOString(),
        accounts: ACCOUNTS,
        slots: ACCOUNTS * SLOTS,
        loadAverage: { before: loadBefore, after: loadavg()[0] },
        results: results.map(({ dump, ...r }) => r),
      },
      null,
      2,
    ) + '\n',
  )
} finally {
  rmSync(work, { recursive: true, force: true })
}
