// Command-line options of bench/run.mjs (`npm run bench -- …`), parsed into one plain object.
import { join, resolve } from 'node:path'
import { benchDir } from './paths.mjs'

export const USAGE = `usage: npm run bench -- [--quick] [--long] [--sustain [MIN]] [--restart] [--memory] [--fork] [--only a,b] [--n N] [--transfer-warmup W] [--duration S] [--connections C]
  --only LIST        peers to run, from: node-cli, anvil, hardhat, ganache (default: all)
  --quick            smoke run: N=500 transfers, 2 s per load test, no warm-up
  --long             also run 100k transfers on node-cli, RSS every 10k (several minutes)
  --long-n N         transfers for --long (default 100000; RSS sampled every N/10)
  --sustain [MIN]    after the main run, MIN minutes (default 10) of sustained mixed load on a fresh
                     node-cli (in memory, then with --db; see --sustain-db): reads from --connections clients
                     + a steady stream of ERC-20 transfers; RSS, req/s and chain height every 15 s, per minute
                     also blocks mined and p50/p99 latency, and a verdict: flat = every sample after the
                     warm-up (1 min; a quarter of the run when shorter than 4 min) within ±10% of their median
  --sustain-peers L  also run the sustained load on these peers (e.g. anvil,hardhat); implies --sustain
  --sustain-tps R    transfer rate of the sustained load, tx/s (default 20)
  --n N              sequential transfers per peer (default 2000; 500 with --quick)
  --transfer-warmup W  transfers sent (and timed apart, the cold figure) before the N measured ones, so that
                     the row is each peer's steady state (default 2000; 0 with --quick)
  --duration S       seconds per load test (default 5; 2 with --quick)
  --connections C    concurrent keep-alive connections for the load tests (default 16)
  --out FILE         results file (default bench/results.json)
  --trace            only the tracing row: debug_traceTransaction of an ERC-20 transfer (callTracer, struct logs)
  --logs-sparse      only the sparse eth_getLogs row (the default run has it up to 10 000 blocks): one ERC-20
                     Transfer every 100 blocks; eth_getLogs {address} and {address, topic} over blocks 0-latest and
                     {address} over the last 5001 blocks, at 10 000 and 30 000 blocks (Anvil: ~15 min); with
                     --call-fresh both rows. Results default to bench/results-rows.json
  --call-fresh       only the eth_call row with a new random holder every request (also in the default run)
  --no-logs-sparse, --no-call-fresh   leave that row out of the default run
  --sustain-db MODE  node-cli under --sustain: both (default: in memory, then with --db <tmpdir>), off (in
                     memory only) or only (--db only)
  --restart          only the restart row (node-cli --db): build a chain, SIGTERM, time 3 restarts to the
                     right eth_blockNumber, RSS after restart; kill -9 during anvil_mine keeps acknowledged blocks
  --restart-blocks N blocks of the restart row's chain (default 100000)
  --memory           only the memory-per-block row (node-cli in memory, library API, --expose-gc): RSS, heap and
                     external memory after A and B blocks of one value transfer each, bytes per block between
  --memory-blocks A,B  the two points of --memory (default 5000,25000)
  --memory-to WHO    --memory's transfers: new (default: a value transfer to a new address each block), same (to
                     one address) or token (an ERC-20 transfer to a new holder each block, as --sustain's)
  --fork             only the forking row: node-cli and anvil (as --only allows) fork a node-cli upstream through
                     a counting proxy; start time, first and repeated eth_call, remote requests per ERC-20
                     transfer, cold and on the disk cache
  --fork-latency MS  delay the proxy adds to every HTTP request to the upstream (default 20)
  --fork-transfers N transfers measured after the first one in --fork (default 20; 5 with --quick)
  --cpu-prof DIR     run every node-cli process with node --cpu-prof --cpu-prof-dir DIR (one .cpuprofile per
                     process, written when it stops; open in Chrome DevTools)
  --no-main          skip the main run (the peers table): only the rows asked for (--long, --sustain, --restart,
                     --memory); --restart, --memory and --fork imply it. Results then default to
                     bench/results-storage.json (bench/results-fork.json for --fork)`

/** Prints `bench: <msg>` to stderr and exits with status 2 (a usage error). */
export function die(msg) {
  console.error(`bench: ${msg}`)
  process.exit(2)
}

/**
 * The options from `argv` (process.argv without node and the script), defaults filled in: quick, long, longN, sustain
 * (minutes or null), sustainPeers, sustainTps (tx/s), sustainDb ('both' | 'off' | 'only'), only (peer names or null),
 * n (transfers), transferWarmup (transfers before the n), duration (s per load test), warmup (s), settleMs,
 * connections, out (absolute path), traceOnly, restart, restartBlocks, memory, memoryBlocks ([A, B], A < B), memoryTo
 * ('new' | 'same' | 'token'), fork, forkLatencyMs (ms), forkTransfers, main (false: skip the main run), cpuProf (a
 * directory for node-cli's CPU profiles, or null), logsSparse / callFresh (run the sparse eth_getLogs / fresh-holder
 * eth_call rows), rowsOnly (--logs-sparse or --call-fresh given: only those rows, on fresh instances).
 * Exits (status 2, usage on stderr) on an unknown option or a bad value; prints the usage and exits 0 on --help.
 */
export function parseArgs(argv) {
  const o = {
    quick: false,
    long: false,
    longN: 100_000,
    sustain: null,
    sustainPeers: [],
    sustainTps: 20,
    sustainDb: 'both',
    only: null,
    n: null,
    transferWarmup: null,
    duration: null,
    connections: 16,
    out: join(benchDir, 'results.json'),
    restart: false,
    restartBlocks: 100_000,
    memory: false,
    memoryBlocks: [5000, 25_000],
    memoryTo: 'new',
    fork: false,
    forkLatencyMs: 20,
    forkTransfers: null,
    main: true,
    cpuProf: null,
    logsSparse: true,
    callFresh: true,
    rowsOnly: false,
  }
  const rowsAsked = new Set()
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    const val = () => {
      const v = a.includes('=') ? a.slice(a.indexOf('=') + 1) : argv[++i]
      if (v === undefined) die(`${a} needs a value\n${USAGE}`)
      return v
    }
    const num = (v, min) => {
      const n = Number(v)
      if (!Number.isFinite(n) || n < min) die(`${a}: expected a number >= ${min}`)
      return n
    }
    const flag = a.split('=')[0]
    if (flag === '--quick') o.quick = true
    else if (flag === '--long') o.long = true
    else if (flag === '--long-n') o.longN = Math.max(10, Math.floor(num(val(), 10)))
    else if (flag === '--sustain') {
      // optional value: `--sustain`, `--sustain 5`, `--sustain=0.5`
      const next = argv[i + 1]
      if (a.includes('=')) o.sustain = num(val(), 0.1)
      else if (next !== undefined && !next.startsWith('--')) o.sustain = num(argv[++i], 0.1)
      else o.sustain = 10
    } else if (flag === '--sustain-peers')
      o.sustainPeers = val()
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    else if (flag === '--sustain-tps') o.sustainTps = num(val(), 0.1)
    else if (flag === '--only')
      o.only = val()
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    else if (flag === '--n') o.n = Math.floor(num(val(), 1))
    else if (flag === '--transfer-warmup') o.transferWarmup = Math.floor(num(val(), 0))
    else if (flag === '--duration') o.duration = num(val(), 0.5)
    else if (flag === '--connections') o.connections = Math.floor(num(val(), 1))
    else if (flag === '--out') o.out = resolve(val())
    else if (flag === '--trace') o.traceOnly = true
    else if (flag === '--logs-sparse' || flag === '--call-fresh') rowsAsked.add(flag)
    else if (flag === '--no-logs-sparse') o.logsSparse = false
    else if (flag === '--no-call-fresh') o.callFresh = false
    else if (flag === '--sustain-db') {
      o.sustainDb = val()
      if (!['both', 'off', 'only'].includes(o.sustainDb)) die(`--sustain-db: expected both, off or only`)
    } else if (flag === '--restart') o.restart = true
    else if (flag === '--restart-blocks') o.restartBlocks = Math.floor(num(val(), 1000))
    else if (flag === '--memory') o.memory = true
    else if (flag === '--memory-blocks') {
      o.memoryBlocks = val()
        .split(',')
        .map((x) => Math.floor(num(x, 1)))
      if (o.memoryBlocks.length !== 2 || o.memoryBlocks[0] >= o.memoryBlocks[1])
        die('--memory-blocks: expected A,B with A < B')
    } else if (flag === '--memory-to') {
      o.memoryTo = val()
      if (!['new', 'same', 'token'].includes(o.memoryTo)) die('--memory-to: expected new, same or token')
    } else if (flag === '--fork') o.fork = true
    else if (flag === '--fork-latency') o.forkLatencyMs = num(val(), 0)
    else if (flag === '--fork-transfers') o.forkTransfers = Math.floor(num(val(), 1))
    else if (flag === '--no-main') o.main = false
    else if (flag === '--cpu-prof') o.cpuProf = resolve(val())
    else if (flag === '--help' || flag === '-h') {
      console.log(USAGE)
      process.exit(0)
    } else die(`unknown option ${a}\n${USAGE}`)
  }
  if (rowsAsked.size) {
    // only the rows asked for, each peer on fresh instances
    o.rowsOnly = true
    o.logsSparse = rowsAsked.has('--logs-sparse')
    o.callFresh = rowsAsked.has('--call-fresh')
  }
  if (o.sustainPeers.length) o.sustain ??= 10
  if (o.restart || o.memory || o.fork) o.main = false
  // the tracing row alone, or the extra rows alone, do not replace the full run's results
  const outGiven = argv.some((a) => a.split('=')[0] === '--out')
  if (o.traceOnly && !outGiven) o.out = join(benchDir, 'results-trace.json')
  else if (o.rowsOnly && o.main && !outGiven) o.out = join(benchDir, 'results-rows.json')
  else if (o.fork && !o.restart && !o.memory && !outGiven) o.out = join(benchDir, 'results-fork.json')
  else if (!o.main && !outGiven) o.out = join(benchDir, 'results-storage.json')
  o.n ??= o.quick ? 500 : 2000
  o.transferWarmup ??= o.quick ? 0 : 2000
  o.duration ??= o.quick ? 2 : 5
  o.warmup = o.quick ? 0 : 1
  o.settleMs = o.quick ? 300 : 1000
  o.forkTransfers ??= o.quick ? 5 : 20
  return o
}
