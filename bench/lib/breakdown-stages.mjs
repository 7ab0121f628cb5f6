// The stages of node-cli's automined path and the attribution of a V8 CPU profile's samples to them
// (bench/breakdown.mjs, bench/README.md "`npm run bench:breakdown`").
//
// A sample's stack is walked from the leaf (the function that was running) up towards the root, and the sample goes
// to the stage of the first frame that matches a rule below; frames of shared helpers (keccak, RLP, byte utilities,
// promise machinery) match no rule, so their time goes to the stage that called them. Two stages enclose what runs
// under them whatever it is: the Remasc transaction (everything under `executeRemasc` / src/rsk/remasc.ts, the
// signature excepted), and the EVM for state and trie reads (a state or trie frame under an @ethereumjs/evm or /vm
// frame is "EVM: state reads"). V8's own entries are kept apart: (garbage collector), (idle) — the node waiting for
// the next request, i.e. the client's share of the round trip — and (program) (native code V8 does not attribute to
// a JavaScript function: the HTTP transport's C++ side, compilation, …).
//
// Limits: after an `await` the continuation's stack starts at the resumed async function, so an enclosing stage only
// holds the part of its work that runs before its callees' first await; file URLs of the tsc output (dist/x/y.js) are
// shown as src/x/y.ts (tsc keeps one file per module, no source maps needed).

/**
 * Stage rules, tried in order on each frame (leaf first). `file` tests the frame's source path (src/… for the
 * project, node_modules/… for packages, node:… for Node's internals), `fn` its function name.
 * @type {Array<{ stage: string, file?: RegExp, fn?: RegExp }>}
 */
export const RULES = [
  // signature recovery (secp256k1: the `secp256k1` addon's JS side, @noble/curves, the project's wrapper)
  { stage: 'signature recovery', file: /(^|\/)(@noble\/curves|secp256k1)\/|^src\/crypto\/secp256k1\.ts$/ },
  { stage: 'signature recovery', fn: /^(ecrecover|ecdsaRecover|recoverPublicKey|getSenderPublicKey)$/ },
  // the Remasc transaction (also enclosing: see remascEnclosing)
  { stage: 'Remasc transaction', file: /^src\/(rsk\/remasc|fork\/remasc-reads|blocks\/remasc-tx-record)\.ts$/ },
  { stage: 'Remasc transaction', fn: /^(executeRemasc|remascBloom|processMinersFees)$/ },
  // decoding the raw transaction (RLP → LegacyTx)
  { stage: 'tx decoding', file: /(^|\/)@ethereumjs\/tx\/|^src\/execution\/ethereumjs\/transactions\.ts$/ },
  { stage: 'tx decoding', fn: /^decodeRawTransaction$/ },
  // the pool and the submission queue
  { stage: 'pool + submission', file: /^src\/(txpool\/|chain\/mining\/tx-submission\.ts$)/ },
  // receipts and their bloom
  { stage: 'receipts + bloom', file: /^src\/rsk\/receipt-rlp\.ts$/ },
  { stage: 'receipts + bloom', fn: /[Bb]loom/ },
  // the EVM (interpreter, precompiles, the project's opcode and gas rules)
  {
    stage: 'EVM',
    file: /(^|\/)@ethereumjs\/(evm|vm|common)\/|^src\/execution\/(ethereumjs|native)\/|^src\/execution\/(opcodes|hooks|touched-addresses|console-log|run-context|deadline|tx-errors)\.ts$/,
  },
  // state (the journaled view, records, the state manager) and the Unitrie (hashing, saving, the root)
  { stage: 'state (accounts, journal, commit)', file: /^src\/state\/|(^|\/)@ethereumjs\/statemanager\// },
  { stage: 'trie + state root', file: /^src\/unitrie\/|(^|\/)@ethereumjs\/mpt\// },
  // the header, its RLP, merged-mining seal
  {
    stage: 'header + seal',
    file: /^src\/(rsk\/(block-encoding|header|header-decode|rlp-encoding|merged-mining\/.*)|chain\/mining\/(consensus|work-blocks|fork-detection-window)|chain\/merged-mining\/.*|miner\/.*)\.ts$/,
  },
  // the address index behind Otterscan's address search and the log index behind sparse log queries (filled as
  // each block is stored)
  { stage: 'address index', file: /^src\/(blocks\/(address-index[^/]*|log-index)|chain\/address-history)\.ts$/ },
  // the block store (in memory or level), its other indexes
  {
    stage: 'block store',
    file: /^src\/(blocks|db)\/|^src\/chain\/mining\/block-commit\.ts$|(^|\/)(memory-level|abstract-level|classic-level|level)\//,
  },
  // subscriptions and filters told of the new block
  { stage: 'events + filters', file: /^src\/events\// },
  // block building and the executor around the stages above
  { stage: 'mining orchestration', file: /^src\/(chain|execution)\// },
  // the JSON-RPC layer: dispatch, parameters, result formatting (the receipt's JSON among them)
  { stage: 'RPC dispatch + formatting', file: /^src\/rpc\// },
  // the transport and JSON
  {
    stage: 'HTTP + JSON',
    file: /^src\/server\/|^node:(_http_|http|net|stream|internal\/(streams|http|js_stream|stream_base|net))|(^|\/)uWebSockets\.js|uws-pack/,
  },
  { stage: 'HTTP + JSON', fn: /^(parse|stringify)$/, file: /^$/ },
]

/** Stages in the order the report lists them (V8's entries last). */
export const STAGE_ORDER = [
  'HTTP + JSON',
  'RPC dispatch + formatting',
  'tx decoding',
  'signature recovery',
  'pool + submission',
  'EVM',
  'EVM: state reads',
  'Remasc transaction',
  'state (accounts, journal, commit)',
  'trie + state root',
  'receipts + bloom',
  'header + seal',
  'block store',
  'address index',
  'events + filters',
  'mining orchestration',
  'other JS (helpers, runtime)',
  '(garbage collector)',
  '(program)',
  '(idle)',
]

/** V8's own entries of a profile (no JavaScript stack). */
const V8_ENTRIES = new Set(['(garbage collector)', '(program)', '(idle)'])

/**
 * The source path of a profile frame's URL: `file:///…/dist/x/y.js` → `src/x/y.ts` (tsc's output mirrors src/);
 * `…/node_modules/a/b.js` → `node_modules/a/b.js`; Node's internals stay `node:…`; '' for built-ins (JSON.parse).
 * @param {string} url
 * @param {string} root the project's directory
 */
export function sourcePath(url, root) {
  if (!url) return ''
  let p = url.startsWith('file://') ? decodeURIComponent(url.slice(7)) : url
  const nm = p.lastIndexOf('/node_modules/')
  if (nm >= 0) return p.slice(nm + 1)
  if (p.startsWith(root + '/')) p = p.slice(root.length + 1)
  const dist = /^dist\/(.*)\.js$/.exec(p)
  return dist ? `src/${dist[1]}.ts` : p
}

/** A frame's URL as a path relative to the project (dist/…, node_modules/…, node:…), for labels with line numbers. */
function shortPath(url, root) {
  const p = url.startsWith('file://') ? decodeURIComponent(url.slice(7)) : url
  const nm = p.lastIndexOf('/node_modules/')
  if (nm >= 0) return p.slice(nm + 1)
  return p.startsWith(root + '/') ? p.slice(root.length + 1) : p
}

/** The first rule's stage matching the frame, or null (a helper: its caller decides). */
function frameStage(file, fn) {
  for (const r of RULES) {
    if (r.file && !r.file.test(file)) continue
    if (r.fn && !r.fn.test(fn)) continue
    return r.stage
  }
  return null
}

/**
 * Attributes a `.cpuprofile`'s samples taken between `fromUs` and `toUs` (the profile's clock, µs) to stages.
 * Each sample counts for the time to the next sample (as Chrome DevTools does).
 * @param {{ nodes: any[], samples: number[], timeDeltas: number[], startTime: number, endTime: number }} profile
 * @param {{ root: string, fromUs: number, toUs: number }} o
 * @returns {{ totalUs: number, samples: number, byStage: Record<string, number>, top: Record<string, Array<[string, number]>> }}
 *   µs per stage in the window, and each stage's functions with the most self time there (`fn file:line`, µs)
 */
export function attribute(profile, { root, fromUs, toUs }) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]))
  const parent = new Map()
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id)
  const stageOf = new Map()
  const classify = (id) => {
    let s = stageOf.get(id)
    if (s !== undefined) return s
    const leaf = byId.get(id).callFrame
    if (V8_ENTRIES.has(leaf.functionName)) s = leaf.functionName
    else {
      let first = null
      let underRemasc = false
      let underEvm = false
      for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
        const f = byId.get(cur).callFrame
        const st = frameStage(sourcePath(f.url, root), f.functionName)
        if (st === null) continue
        first ??= st
        if (st === 'Remasc transaction') underRemasc = true
        if (st === 'EVM') underEvm = true
      }
      s = first ?? 'other JS (helpers, runtime)'
      if (underRemasc && s !== 'signature recovery') s = 'Remasc transaction'
      else if (underEvm && (s === 'state (accounts, journal, commit)' || s === 'trie + state root'))
        s = 'EVM: state reads'
    }
    stageOf.set(id, s)
    return s
  }
  const byStage = Object.fromEntries(STAGE_ORDER.map((k) => [k, 0]))
  const self = new Map() // stage → (frame label → µs)
  let t = profile.startTime
  let totalUs = 0
  let count = 0
  const { samples, timeDeltas } = profile
  for (let i = 0; i < samples.length; i++) {
    t += timeDeltas[i]
    const dt = i + 1 < samples.length ? timeDeltas[i + 1] : 0
    if (t < fromUs || t >= toUs || dt <= 0) continue
    const id = samples[i]
    const s = classify(id)
    byStage[s] = (byStage[s] ?? 0) + dt
    totalUs += dt
    count++
    const f = byId.get(id).callFrame
    const label = `${f.functionName || '(anonymous)'} ${shortPath(f.url, root)}${f.url ? `:${f.lineNumber + 1}` : ''}`
    let m = self.get(s)
    if (!m) self.set(s, (m = new Map()))
    m.set(label, (m.get(label) ?? 0) + dt)
  }
  /** @type {Record<string, Array<[string, number]>>} */
  const top = {}
  for (const [s, m] of self)
    top[s] = [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 6)
      .map(([k, v]) => /** @type {[string, number]} */ ([k, Math.round(v)]))
  return { totalUs, samples: count, byStage, top }
}
