// Bundles the CLI into one file (dist/node-cli.cjs) and primes its V8 code cache (dist/node-cli.cjs.v8cache).
//
// Why one file: loading one file instead of the few hundred modules of @ethereumjs cuts the CLI's start-up
// import time from ~215 ms to ~80 ms (measured; docs/architecture.md#performance-rules).
// Why a CommonJS-style function and a code cache: of those ~80 ms, V8 spent ~25 ms compiling the bundle and
// lazily compiling the functions start-up runs. bin/node-cli.js compiles the bundle with `vm.Script` and the code
// cache this script primes, which V8 deserialises in ~3.5 ms instead: start-up 117 → 91 ms of main-thread CPU
// (Node 20.20, 2 cores, measured). An ES module cannot take a code cache on Node 20 (module.enableCompileCache
// is Node 22+). The cache is written after start-up, not right after compiling as compile-cache libraries do:
// it then holds the lazily compiled functions too (a compile-time-only cache measured 107 ms instead of 91).
//
// The bundle is one function expression,
//   (function (exports, require, module, __filename, __dirname, __nodeCliImport, __nodeCliImportMetaUrl) { … })
// whose parameters bin/node-cli.js supplies: `import()` inside a vm.Script needs --experimental-vm-modules (or
// prints an ExperimentalWarning with USE_MAIN_CONTEXT_DEFAULT_LOADER), so every `import("pkg")` of the lazily
// loaded externals is rewritten to `__nodeCliImport("pkg")`, a real import() in bin/node-cli.js (a sibling of
// dist/, so bare specifiers resolve the same); `import.meta.url` becomes the bundle's file URL.
//
// Native addons and packages that locate files next to themselves stay external.
import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { keccak_256 } from '@noble/hashes/sha3'
import { build } from 'esbuild'

const OUT = 'dist/node-cli.cjs'
const CACHE = OUT + '.v8cache'

/**
 * esbuild plugin: one copy per name@version. npm cannot hoist @noble/hashes 2.4.0 (the root holds 1.8.0), so
 * seven @ethereumjs packages and @noble/curves each get their own copy, and each copy's module top-level (e.g.
 * the SHA-2/SHA-3 round constants, computed with BigInt) ran at every start-up: ~2 ms, measured. Imports that
 * resolve into a nested copy are pointed at the same file of the first copy (in path order) with the same
 * version, as `npm dedupe` would if it could; different versions stay apart.
 */
const dedupePlugin = {
  name: 'dedupe-identical-versions',
  setup(build) {
    const copies = new Map() // package name → [{ root, version }] sorted by root
    const versionOf = (root) => JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).version
    const copiesOf = (name) => {
      let list = copies.get(name)
      if (list) return list
      list = []
      const add = (root) => existsSync(path.join(root, 'package.json')) && list.push({ root, version: versionOf(root) })
      add(path.resolve('node_modules', name))
      for (const entry of readdirSync('node_modules')) {
        const owners = entry.startsWith('@')
          ? readdirSync(path.join('node_modules', entry)).map((e) => path.join(entry, e))
          : [entry]
        for (const owner of owners) add(path.resolve('node_modules', owner, 'node_modules', name))
      }
      list.sort((a, b) => (a.root < b.root ? -1 : 1))
      copies.set(name, list)
      return list
    }
    build.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.pluginData === dedupePlugin) return undefined
      const resolved = await build.resolve(args.path, {
        kind: args.kind,
        resolveDir: args.resolveDir,
        importer: args.importer,
        pluginData: dedupePlugin,
      })
      // unresolvable (optional requires in try/catch), external or built-in: esbuild's own resolution decides
      if (resolved.errors.length > 0 || resolved.external) return undefined
      const m = /^(.*\/node_modules\/((?:@[^/]+\/)?[^/]+))\/(.*)$/.exec(resolved.path)
      if (!m) return undefined
      const [, root, name, file] = m
      const version = versionOf(root)
      const canonical = copiesOf(name).find((c) => c.version === version)
      if (!canonical || canonical.root === root) return undefined
      return { path: path.join(canonical.root, file), sideEffects: resolved.sideEffects }
    })
  },
}

/**
 * Patches of dependencies (start-up work; garbage on the execution path), applied to the bundled copy:
 * [package file, [search, replacement]…]; a string search replaces its first occurrence, a RegExp (with the g flag)
 * all of them. Several entries may name one file (e.g. two versions of a package): each applies where all its
 * search texts are found. The list, with what each entry relies on, is in docs/architecture.md#bundle-patches.
 *
 * The build FAILS when a dependency changed under a patch: a bundled file none of whose entries applies, an
 * entry only some of whose search texts are in a file (a half-applied patch), or an entry that applied to no
 * file at all (its file moved, or its text is gone from every copy). Re-check the patch against the new
 * version, then fix or drop it.
 */
const PATCHES = [
  // @ethereumjs/util fills a cache of the 65,536 BigInts 0…0xffff at import: ~4.5 ms and ~1.5 MB of young
  // objects (a GC or two) per start-up. Filled on use instead; same values. The 65,536-slot array itself (512 KB,
  // ~2 ms of fresh pages) is allocated when a 2-byte value is first converted; 1-byte values have their own
  // 256 slots.
  [
    '@ethereumjs/util/dist/esm/bytes.js',
    [
      [
        'const BIGINT_CACHE = [];\nfor (let i = 0; i <= 256 * 256 - 1; i++) {\n    BIGINT_CACHE[i] = BigInt(i);\n}',
        'const BIGINT_CACHE_1 = new Array(256); // node-cli bundle: filled on use\nlet BIGINT_CACHE_2; // node-cli bundle: allocated and filled on use',
      ],
      ['return BIGINT_CACHE[bytes[0]];', 'return (BIGINT_CACHE_1[bytes[0]] ??= BigInt(bytes[0]));'],
      [
        'return BIGINT_CACHE[bytes[0] * 256 + bytes[1]];',
        'const i = bytes[0] * 256 + bytes[1];\n        return ((BIGINT_CACHE_2 ??= new Array(256 * 256))[i] ??= BigInt(i));',
      ],
    ],
  ],
  // …and its setLength pads through two array spreads (`new Uint8Array([...new Uint8Array(n), ...msg])`): an
  // iterator, a JS array and a copy per call. MSTORE pads every word it writes this way, and SLOAD/SSTORE every
  // key: ~6% of the node's CPU under the --sustain read mix (CPU profile). A zeroed array of the target length
  // with `msg` set into it instead; the same bytes.
  [
    '@ethereumjs/util/dist/esm/bytes.js',
    [
      [
        '        return right\n            ? new Uint8Array([...msg, ...new Uint8Array(length - msg.length)])\n            : new Uint8Array([...new Uint8Array(length - msg.length), ...msg]);',
        '        const padded = new Uint8Array(length); // node-cli bundle: no array spreads\n        padded.set(msg, right ? 0 : length - msg.length);\n        return padded;',
      ],
    ],
  ],
  // @ethereumjs/vm builds a default block header at import (a mainnet Common, its parameter tables: ~2.8 ms and
  // ~200 KB of young objects). It is only read for a transaction run without a block; built then, the same value.
  [
    '@ethereumjs/vm/dist/esm/runTx.js',
    [
      [
        'const DEFAULT_HEADER = createBlockHeader();',
        'let nodeCliDefaultHeader; // node-cli bundle: built on first use\nconst defaultHeader = () => (nodeCliDefaultHeader ??= createBlockHeader());',
      ],
      [/\bDEFAULT_HEADER\b/g, 'defaultHeader()'],
    ],
  ],
  // @noble/curves builds the secp256k1 curve at import: field, point precomputation set-up and a randomBytes
  // probe that loads node:crypto and WebCrypto (~7 ms and ~10 ms of start-up, measured). The node signs and
  // recovers with the native secp256k1 addon (src/crypto/secp256k1.ts); @ethereumjs only reaches this object in
  // fallbacks and signature helpers. Built on first property access instead; the same object behind a proxy.
  [
    '@noble/curves/secp256k1.js',
    [
      [
        'const Fpk1 = /* @__PURE__ */ Field(secp256k1_CURVE.p, { sqrt: sqrtMod });\nconst Pointk1 = /* @__PURE__ */ weierstrass(secp256k1_CURVE, {\n    Fp: Fpk1,\n    endo: secp256k1_ENDO,\n});',
        'let Fpk1, Pointk1; // node-cli bundle: created on first use (initPointk1)\n' +
          'function initPointk1() {\n    Fpk1 ??= Field(secp256k1_CURVE.p, { sqrt: sqrtMod });\n    Pointk1 ??= weierstrass(secp256k1_CURVE, { Fp: Fpk1, endo: secp256k1_ENDO });\n    return Pointk1;\n}',
      ],
      [
        'export const secp256k1 = /* @__PURE__ */ ecdsa(Pointk1, sha256);',
        'let secp256k1Built;\nexport const secp256k1 = /* @__PURE__ */ __nodeCliLazyObject(() => (secp256k1Built ??= ecdsa(initPointk1(), sha256)));',
      ],
    ],
  ],
  // …and @ethereumjs/util reads the curve order from it at import: the same constant, as a literal.
  [
    '@ethereumjs/util/dist/esm/constants.js',
    [
      [
        'export const SECP256K1_ORDER = secp256k1.Point.CURVE().n;',
        "export const SECP256K1_ORDER = BigInt('0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141'); // node-cli bundle: secp256k1.Point.CURVE().n",
      ],
    ],
  ],
  // @ethereumjs/evm's precompile back-ends import the P-256, BN254 and BLS12-381 curves of @noble/curves, which
  // build their fields and points at import (~6 ms of start-up with the secp256k1 set-up above, measured). Each
  // import becomes a require on first use: esbuild then wraps the curve module in a lazy initialiser.
  [
    '@ethereumjs/evm/dist/esm/precompiles/100-p256verify.js',
    [
      [
        "import { p256 } from '@noble/curves/nist.js';",
        "const p256 = __nodeCliLazyObject(() => require('@noble/curves/nist.js').p256); // node-cli bundle: built on first use",
      ],
    ],
  ],
  [
    '@ethereumjs/evm/dist/esm/precompiles/bn254/noble.js',
    [
      [
        "import { bn254 } from '@noble/curves/bn254.js';",
        "const bn254 = __nodeCliLazyObject(() => require('@noble/curves/bn254.js').bn254); // node-cli bundle: built on first use",
      ],
    ],
  ],
  [
    '@ethereumjs/evm/dist/esm/precompiles/bls12_381/noble.js',
    [
      [
        "import { bls12_381 } from '@noble/curves/bls12-381.js';",
        "const bls12_381 = __nodeCliLazyObject(() => require('@noble/curves/bls12-381.js').bls12_381); // node-cli bundle: built on first use",
      ],
      // the curve's static zero points, read where they are used (the same objects)
      ['const G1_ZERO = bls12_381.G1.Point.ZERO;\nconst G2_ZERO = bls12_381.G2.Point.ZERO;\n', ''],
      [/\bG1_ZERO\b/g, 'bls12_381.G1.Point.ZERO'],
      [/\bG2_ZERO\b/g, 'bls12_381.G2.Point.ZERO'],
    ],
  ],
  // Digests of constants hashed at import with the pure-JS @noble SHA-256 and Keccak (their first, interpreted
  // runs: ~1-2 ms of start-up); the same bytes as literals.
  [
    '@ethereumjs/util/dist/esm/constants.js',
    [
      [
        'export const SHA256_NULL = sha256(new Uint8Array());',
        `// node-cli bundle: sha256 of the empty input\nexport const SHA256_NULL = new Uint8Array([${createHash('sha256').digest().join(', ')}]);`,
      ],
    ],
  ],
  [
    '@ethereumjs/evm/dist/esm/eof/util.js',
    [
      [
        'export const EOFHASH = keccak_256(EOFBYTES);',
        `// node-cli bundle: keccak_256(0xef00)\nexport const EOFHASH = new Uint8Array([${keccak_256(Uint8Array.of(0xef, 0x00)).join(', ')}]);`,
      ],
    ],
  ],
  // @ethereumjs/evm copies every message and every frame's result with object spreads of several sources
  // (`{ ...a, ...b }`, `{ ...a, key: v }`). On Node 20's V8 such a literal of a few dozen properties costs ~1.5-2.5 KB
  // each, most of which survives the next young-generation GC although nothing refers to it (a toy with the same
  // shapes: 45-77% survive; with Object.assign: <1%), so it is promoted and fills the old generation: ~20 KB per
  // eth_call, ~90% of all promoted bytes under a mixed read load, one full GC every ~1.5 s (measured in-process,
  // --trace-gc-nvp; docs/architecture.md#bundle-patches). Object.assign onto a fresh object gives the same keys, in
  // the same order, with the same values (no source has an own `__proto__` key).
  [
    '@ethereumjs/evm/dist/esm/evm.js',
    [
      [
        '            result = await this.runInterpreter({\n                ...{ codeAddress: message.codeAddress },\n                ...message,\n                gasLimit,\n            }, {',
        '            result = await this.runInterpreter(/* node-cli bundle: no spread */ Object.assign({ codeAddress: message.codeAddress }, message, { gasLimit }), {',
      ],
      [
        '            result = {\n                ...result,\n                logs: [],\n                selfdestruct: new Map(),\n                createdAddresses: new Set(),\n            };',
        '            result = Object.assign({}, result, { logs: [], selfdestruct: new Map(), createdAddresses: new Set() }); // node-cli bundle: no spread',
      ],
      [
        '        return {\n            ...result,\n            runState: {\n                ...interpreterRes.runState,\n                ...result,\n                ...interpreter._env,\n            },\n            exceptionError: interpreterRes.exceptionError,\n            gas: interpreterRes.runState?.gasLeft,\n            executionGasUsed: gasUsed,\n            gasRefund: interpreterRes.runState.gasRefund,\n            stateGasSpilled: interpreterRes.runState.stateGasSpilled,\n            returnValue: result.returnValue ?? new Uint8Array(0),\n        };',
        '        return Object.assign({}, result, { // node-cli bundle: no spread\n            runState: Object.assign({}, interpreterRes.runState, result, interpreter._env),\n            exceptionError: interpreterRes.exceptionError,\n            gas: interpreterRes.runState?.gasLeft,\n            executionGasUsed: gasUsed,\n            gasRefund: interpreterRes.runState.gasRefund,\n            stateGasSpilled: interpreterRes.runState.stateGasSpilled,\n            returnValue: result.returnValue ?? new Uint8Array(0),\n        });',
      ],
    ],
  ],
  // debug (through @ethereumjs) asks at every debug(namespace) whether stderr is a TTY, which creates
  // process.stderr (a net.Socket or tty.WriteStream: node:net and node:stream, ~5 ms) at import. Asked when a
  // debug instance first logs (its `useColors` is read) instead; same answer.
  [
    'debug/src/common.js',
    [
      [
        '\t\tdebug.useColors = createDebug.useColors();',
        '\t\tlet useColors; // node-cli bundle: asked on first use\n' +
          "\t\tObject.defineProperty(debug, 'useColors', { enumerable: true, configurable: true, get: () => (useColors ??= createDebug.useColors()), set: v => { useColors = v; } });",
      ],
    ],
  ],
  // lru-cache picks `performance` for its TTL clock at import; reading the global loads node:perf_hooks
  // (11 modules, ~2 ms). The caches here use no TTL: the clock is looked up on its first use instead.
  [
    'lru-cache/dist/esm/index.js',
    [
      [
        "const defaultPerf = (typeof performance === 'object' &&\n    performance &&\n    typeof performance.now === 'function') ?\n    performance\n    : Date;",
        "const defaultPerf = { now: () => (typeof performance === 'object' && performance && typeof performance.now === 'function' ? performance : Date).now() }; // node-cli bundle: clock looked up on use",
      ],
    ],
  ],
  // classic-level (the `--db` database, bundled so that a restart does not load its ~20 modules one by one: ~30 ms
  // of start-up, measured) finds its native binary with node-gyp-build from its own directory, which in the bundle
  // would be dist/. The package's directory is resolved instead, and on glibc Linux — node-gyp-build's own test:
  // no LIBC override, no /etc/alpine-release — its prebuilt binary is required directly (node-gyp-build's search
  // costs ~2-4 ms); anything else, or a binary that fails to load, takes node-gyp-build as the package does.
  [
    'classic-level/binding.js',
    [
      [
        "module.exports = require('node-gyp-build')(__dirname)",
        // (the name in a variable: esbuild warns about a require.resolve of a literal it bundles)
        "const nodeCliName = 'classic-level' // node-cli bundle: the package's directory, resolved from dist/\n" +
          "const nodeCliDir = require('node:path').dirname(require.resolve(nodeCliName + '/package.json'))\n" +
          'function nodeCliBinding() {\n' +
          "  if (process.platform === 'linux' && !process.env.LIBC && !require('node:fs').existsSync('/etc/alpine-release')) {\n" +
          "    try { return require(nodeCliDir + '/prebuilds/linux-' + process.arch + '/classic-level.node') } catch {}\n" +
          '  }\n' +
          "  return require('node-gyp-build')(nodeCliDir)\n" +
          '}\n' +
          'module.exports = nodeCliBinding()',
      ],
    ],
  ],
  [
    'lru-cache/dist/esm/index.js',
    [
      [
        "const perf = typeof performance === 'object' &&\n    performance &&\n    typeof performance.now === 'function'\n    ? performance\n    : Date;",
        "const perf = { now: () => (typeof performance === 'object' && performance && typeof performance.now === 'function' ? performance : Date).now() }; // node-cli bundle: clock looked up on use",
      ],
    ],
  ],
]

/**
 * How an entry of {@link PATCHES} is named in errors: its file and the start of its first search text.
 * @param {any[]} entry
 */
const patchName = (entry) => `${entry[0]} (${String(entry[1][0][0]).slice(0, 50).replace(/\n/g, '\\n')}…)`

/** esbuild plugin applying {@link PATCHES}; fails the build when one no longer fits (see there). */
const patchPlugin = {
  name: 'dependency-patches',
  setup(build) {
    const byFile = new Map()
    for (const entry of PATCHES) byFile.set(entry[0], [...(byFile.get(entry[0]) ?? []), entry])
    const appliedEntries = new Set()
    const found = (text, search) => (typeof search === 'string' ? text.includes(search) : text.search(search) !== -1)
    for (const [file, entries] of byFile) {
      const suffix = '/node_modules/' + file
      build.onLoad({ filter: new RegExp(suffix.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&') + '$') }, (args) => {
        let text = readFileSync(args.path, 'utf8')
        let applied = 0
        for (const entry of entries) {
          const present = entry[1].filter(([search]) => found(text, search)).length
          if (present === 0) continue
          if (present < entry[1].length) {
            throw new Error(`bundle: patch ${patchName(entry)} only partly fits ${args.path}: the dependency changed`)
          }
          for (const [search, replacement] of entry[1]) text = text.replace(search, replacement)
          appliedEntries.add(entry)
          applied++
        }
        if (applied === 0)
          throw new Error(`bundle: no patch of ${file} fits ${args.path} (text not found): the dependency changed`)
        return { contents: text, loader: 'js' }
      })
    }
    build.onEnd((result) => {
      if (result.errors.length > 0) return
      const unused = PATCHES.filter((entry) => !appliedEntries.has(entry))
      if (unused.length > 0) {
        return {
          errors: unused.map((entry) => ({
            text: `bundle: patch ${patchName(entry)} applied to no bundled file: the dependency changed`,
          })),
        }
      }
      return undefined
    })
  },
}

/**
 * Node built-in modules the bundle requires lazily: a `require("node:crypto")` (or `require("crypto")`) becomes
 * a proxy that requires the module on its first use. Each is outside Node's start-up snapshot, so requiring it
 * compiles and runs its internal modules, and none is needed to answer the first request: crypto (~20 internal
 * modules, ~10 ms: random ids, SHA-256 of merged mining, WebCrypto for @noble), child_process (commander, for
 * executable subcommands; loads net and dgram: ~6 ms), tty and net (~5 ms each), fs/promises (the keystore; loads
 * readline: ~2.5 ms), http/https/tls/zlib/stream (the node:http + ws transport), perf_hooks. A module is still
 * required as soon as code reads one of its properties; start-up just no longer does.
 */
const LAZY_BUILTINS = [
  'crypto',
  'child_process',
  'tty',
  'net',
  'dgram',
  'fs/promises',
  'http',
  'https',
  'tls',
  'zlib',
  'stream',
  'perf_hooks',
  'querystring',
  'readline',
  'os',
]

/** The helpers the rewritten requires call; prepended to the bundle. */
const LAZY_HELPERS = `
function __nodeCliLazyObject(load, esm) {
  let value;
  const get = () => (value ??= load());
  const key = (k) => esm && k === "default";
  return new Proxy({}, {
    get: (_, k) => (key(k) ? get() : get()[k]),
    set: (_, k, v) => ((get()[k] = v), true),
    has: (_, k) => key(k) || k in get(),
    ownKeys: () => (esm ? [...Reflect.ownKeys(get()), "default"] : Reflect.ownKeys(get())),
    getOwnPropertyDescriptor: (_, k) => {
      const d = key(k) ? { value: get(), writable: true, enumerable: true } : Reflect.getOwnPropertyDescriptor(get(), k);
      if (d) d.configurable = true;
      return d;
    },
    getPrototypeOf: () => (esm ? null : Reflect.getPrototypeOf(get())),
  });
}
function __nodeCliLazyBuiltin(id, esm) {
  return __nodeCliLazyObject(() => require(id), esm);
}
`

/**
 * `debug` (used by @ethereumjs) tries `require('supports-color')` in a try/catch for 256-colour output. When a
 * dev tool hoists supports-color into node_modules (eslint → chalk@4 → supports-color@7), esbuild bundled it, and
 * its top level calls `tty.isatty()`: node:tty and node:net were then loaded at every start (~3 ms). The bundle
 * gets an empty module instead, so `debug` keeps its basic colours whatever is installed.
 */
const noSupportsColorPlugin = {
  name: 'no-supports-color',
  setup(b) {
    b.onResolve({ filter: /^supports-color$/ }, () => ({ path: 'supports-color', namespace: 'node-cli-empty' }))
    b.onLoad({ filter: /.*/, namespace: 'node-cli-empty' }, () => ({ contents: 'module.exports = {}', loader: 'js' }))
  },
}

const result = await build({
  plugins: [dedupePlugin, patchPlugin, noSupportsColorPlugin],
  entryPoints: ['dist/cli/main.js'],
  outfile: OUT,
  write: false,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  legalComments: 'none',
  logLevel: 'warning',
  // Whitespace and syntax only: identifiers stay readable in stack traces. 1.7 → 1.0 MB and, without the
  // comments, ASCII, so bin/node-cli.js reads it as latin1: ~4 ms less start-up than the unminified bundle read
  // as UTF-8 (measured with the code cache).
  minifyWhitespace: true,
  minifySyntax: true,
  external: [
    // the two uWebSockets.js distributions (src/server/index.ts loadUws): bin/node-cli.js requires their binaries
    'uWebSockets.js',
    'uws-pack',
    'keccak',
    'secp256k1',
    // level and classic-level are bundled (see the classic-level patch above); memory-level is for tests and tools
    'memory-level',
    // Loaded lazily (dynamic import) by the accounts code, only for personal_*/signing methods or --mnemonic:
    // kept out of the bundle so start-up does not parse them.
    '@ethereumjs/wallet',
    '@scure/bip39',
    '@scure/bip32',
    'ethers',
  ],
  define: { 'import.meta.url': '__nodeCliImportMetaUrl' },
})

let code = result.outputFiles[0].text
const lazyNames = LAZY_BUILTINS.map((m) => m.replace('/', '\\/')).join('|')
let lazy = 0
// esbuild's __toESM(require(…), 1) (a default or namespace import) copies the module's properties at once: the
// proxy answers `default` itself instead
code = code.replace(new RegExp(`__toESM\\(require\\("((?:node:)?(?:${lazyNames}))"\\),\\s*1\\)`, 'g'), (_, id) => {
  lazy++
  return `__nodeCliLazyBuiltin("${id}",1)`
})
code = code.replace(new RegExp(`(?<![.\\w$])require\\("((?:node:)?(?:${lazyNames}))"\\)`, 'g'), (_, id) => {
  lazy++
  return `__nodeCliLazyBuiltin("${id}")`
})
if (lazy === 0) throw new Error('bundle: no built-in require to make lazy; did esbuild change its output?')
code = LAZY_HELPERS + code
let rewritten = 0
code = code.replace(/(?<![.\w$])import\(("[^"\\]+")\)/g, (_, specifier) => {
  rewritten++
  return `__nodeCliImport(${specifier})`
})
const leftover = code.match(/(?<![.\w$])import\s*\([^)]{0,60}/g)
if (rewritten === 0 || leftover) {
  throw new Error(
    `bundle: expected only import("literal") calls to rewrite, found ${rewritten} and ${leftover?.join(', ')}`,
  )
}
// bin/node-cli.js reads the bundle as latin1 (~1 ms less than UTF-8 decoding 1 MB); esbuild's default
// charset escapes non-ASCII characters, this checks it stays so.
// eslint-disable-next-line no-control-regex -- the NUL..DEL range is the point
if (/[^\x00-\x7f]/.test(code)) throw new Error('bundle: non-ASCII output; bin/node-cli.js reads the bundle as latin1')
// The build id on the first line lets bin/node-cli.js tell a cache of this exact bundle from a stale one: V8
// itself only checks the source length, its version and its flags.
const id = createHash('sha256').update(code).digest('hex').slice(0, 16)
const source =
  `/* node-cli bundle ${id}: a function expression, run by bin/node-cli.js (see scripts/bundle.mjs) */\n` +
  `(function (exports, require, module, __filename, __dirname, __nodeCliImport, __nodeCliImportMetaUrl) {${code}\n})\n`
writeFileSync(OUT, source)
rmSync('dist/node-cli.mjs', { force: true }) // the ESM bundle of earlier builds
rmSync(CACHE, { force: true })

// Prime the code cache: run the CLI (any free port) and send it one request, so the cache also holds the request
// path; the CLI writes the cache shortly after it serves (bin/node-cli.js). The CLI runs twice over one temporary
// `--db` directory, and the second run (a restart: the database opened, its head decoded and its state loaded)
// writes the cache: a restart with `--db` then runs no function compiled from source (~15-20 ms of CPU less,
// measured), and a start without `--db` runs the same functions up to its few in-memory archive ones, which V8
// compiles lazily (no difference measured). A failure here only costs the first run's start-up, so it warns
// instead of failing the build.
/**
 * Runs the CLI with `args` until it has answered one request, then stops it.
 * @param {string[]} args
 * @param {boolean} waitForCache wait until the CLI has written the code cache (at most 20 s)
 */
const primingRun = (args, waitForCache) =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, ['bin/node-cli.js', '--port', '0', '--silent', ...args], {
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    const started = Date.now()
    let out = ''
    let asked = false
    let answered = false
    child.stdout.on('data', (chunk) => {
      out += chunk
      const url = /http:\/\/\S+/.exec(out)?.[0]
      if (url === undefined || asked) return
      asked = true
      const body = '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}'
      fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
        .then((r) => r.text())
        .catch(() => {})
        .finally(() => (answered = true))
    })
    const poll = setInterval(() => {
      if ((answered && (!waitForCache || existsSync(CACHE))) || Date.now() - started > 20_000) {
        clearInterval(poll)
        child.kill()
        setTimeout(() => child.kill('SIGKILL'), 5000).unref()
      }
    }, 20)
    child.on('exit', () => {
      clearInterval(poll)
      resolve()
    })
  })
const primingDir = mkdtempSync(path.join(tmpdir(), 'node-cli-bundle-'))
try {
  await primingRun(['--db', primingDir], false) // creates the directory's chain (and may write a cache: dropped)
  rmSync(CACHE, { force: true })
  await primingRun(['--db', primingDir], true)
} finally {
  rmSync(primingDir, { recursive: true, force: true })
}
if (!existsSync(CACHE)) console.warn(`bundle: ${CACHE} was not written; the CLI will write it on its first run`)
