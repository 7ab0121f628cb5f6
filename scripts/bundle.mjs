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
import { copyFileSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { build } from 'esbuild'
import { EXTERNAL } from './bundle-externals.mjs'
import { patchesNotInEffect, readPatches } from './dependency-patches.mjs'

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
 * The dependency patches (patches/, applied to node_modules by patch-package: docs/dependency-patches.md) are
 * bundled as installed; this script edits no dependency text. The build FAILS when a patch is not in effect in
 * node_modules (installed without `npm run prepare`), and when the bundle takes a file from a copy of a patched
 * package that has no patch (e.g. a new nested version): that copy would run unpatched.
 */
const notInEffect = patchesNotInEffect()
if (notInEffect.length > 0) {
  throw new Error(
    `bundle: dependency patches not in effect (run \`npm run patch-deps\`):\n  ${notInEffect.join('\n  ')}`,
  )
}
const patchedFiles = readPatches()
const patchedNames = new Set(patchedFiles.map((e) => e.packageName))
const patchedRoots = new Set(patchedFiles.map((e) => e.packageRoot))

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
  plugins: [dedupePlugin, noSupportsColorPlugin],
  entryPoints: ['dist/cli/main.js'],
  outfile: OUT,
  write: false,
  metafile: true,
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
  external: EXTERNAL,
  define: { 'import.meta.url': '__nodeCliImportMetaUrl' },
})

/**
 * Fails the build when `metafile` (esbuild's) lists a file of a patched package from a copy that has no patch.
 * @param {import('esbuild').Metafile} metafile
 */
function assertNoUnpatchedCopies(metafile) {
  const unpatched = new Set()
  for (const input of Object.keys(metafile.inputs)) {
    const m = /^(.*node_modules\/((?:@[^/]+\/)?[^/]+))\//.exec(input)
    if (m && patchedNames.has(m[2]) && !patchedRoots.has(m[1])) unpatched.add(m[1])
  }
  if (unpatched.size > 0) {
    throw new Error(`bundle: bundled copies of patched packages without a patch: ${[...unpatched].join(', ')}`)
  }
}
assertNoUnpatchedCopies(result.metafile)
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

// The library entry (dist/index.js, `createNode`: package.json `exports`) is bundled too, as an ES module over
// tsc's output, so that library users run the patched dependency code whatever their node_modules hold (a registry
// install does not run patch-package). The same externals and dedupe as the CLI; not minified; the d.ts files
// (tsc) and the other dist/ modules stay as they are. `require` is created for the bundled CommonJS packages
// (debug, level's classic-level binding). Built after the CLI bundle, which does not read dist/index.js.
const LIBRARY = 'dist/index.js'
const LIBRARY_BANNER =
  '// node-cli library bundle (scripts/bundle.mjs): the dependencies inlined with their patches (patches/)'
// tsc's dist/index.js, kept as the bundle's entry: a second run of this script (without tsc) then bundles tsc's
// output again, not the bundle
const LIBRARY_ENTRY = 'dist/library-entry.js'
if (!readFileSync(LIBRARY, 'utf8').startsWith(LIBRARY_BANNER)) copyFileSync(LIBRARY, LIBRARY_ENTRY)
const library = await build({
  plugins: [dedupePlugin, noSupportsColorPlugin],
  entryPoints: [LIBRARY_ENTRY],
  outfile: LIBRARY,
  write: false,
  metafile: true,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  legalComments: 'none',
  logLevel: 'warning',
  external: EXTERNAL,
  banner: {
    js:
      LIBRARY_BANNER +
      '\n' +
      "import { createRequire as __nodeCliCreateRequire } from 'node:module';\n" +
      'const require = __nodeCliCreateRequire(import.meta.url);',
  },
})
assertNoUnpatchedCopies(library.metafile)
writeFileSync(LIBRARY, library.outputFiles.find((f) => f.path.endsWith('.js')).text)

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
