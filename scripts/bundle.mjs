// Bundles the CLI into one file (dist/node-cli.cjs) and primes its V8 code cache (dist/node-cli.cjs.v8cache).
//
// Why one file: loading one file instead of the few hundred modules of @ethereumjs cuts the CLI's start-up
// import time from ~215 ms to ~80 ms (measured; issue 6).
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
import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
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
        const owners = entry.startsWith('@') ? readdirSync(path.join('node_modules', entry)).map((e) => path.join(entry, e)) : [entry]
        for (const owner of owners) add(path.resolve('node_modules', owner, 'node_modules', name))
      }
      list.sort((a, b) => (a.root < b.root ? -1 : 1))
      copies.set(name, list)
      return list
    }
    build.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.pluginData === dedupePlugin) return undefined
      const resolved = await build.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: dedupePlugin })
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
 * Start-up-only patches of dependencies, applied to the bundled copy: [package file, [search, replacement]…].
 * A patch whose text is not found (the dependency changed) is skipped with a warning: it only costs start-up.
 */
const PATCHES = [
  // @ethereumjs/util fills a cache of the 65,536 BigInts 0…0xffff at import: ~4.5 ms and ~1.5 MB of young
  // objects (a GC or two) per start-up. Filled on use instead; same values.
  ['@ethereumjs/util/dist/esm/bytes.js', [
    ['const BIGINT_CACHE = [];\nfor (let i = 0; i <= 256 * 256 - 1; i++) {\n    BIGINT_CACHE[i] = BigInt(i);\n}',
      'const BIGINT_CACHE = new Array(256 * 256); // node-cli bundle: filled on use'],
    ['return BIGINT_CACHE[bytes[0]];', 'return (BIGINT_CACHE[bytes[0]] ??= BigInt(bytes[0]));'],
    ['return BIGINT_CACHE[bytes[0] * 256 + bytes[1]];', 'const i = bytes[0] * 256 + bytes[1];\n        return (BIGINT_CACHE[i] ??= BigInt(i));'],
  ]],
]

/** esbuild plugin applying {@link PATCHES}. */
const patchPlugin = {
  name: 'startup-patches',
  setup(build) {
    for (const [file, edits] of PATCHES) {
      const suffix = '/node_modules/' + file
      build.onLoad({ filter: new RegExp(suffix.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&') + '$') }, (args) => {
        let text = readFileSync(args.path, 'utf8')
        for (const [search, replacement] of edits) {
          if (!text.includes(search)) {
            console.warn(`bundle: patch of ${file} skipped, text not found: ${search.slice(0, 60)}`)
            return undefined
          }
          text = text.replace(search, replacement)
        }
        return { contents: text, loader: 'js' }
      })
    }
  },
}

const result = await build({
  plugins: [dedupePlugin, patchPlugin],
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
    'uWebSockets.js', 'keccak', 'secp256k1', 'classic-level', 'level', 'memory-level',
    // Loaded lazily (dynamic import) by the accounts code, only for personal_*/signing methods or --mnemonic:
    // kept out of the bundle so start-up does not parse them.
    '@ethereumjs/wallet', '@scure/bip39', '@scure/bip32', 'ethers',
  ],
  define: { 'import.meta.url': '__nodeCliImportMetaUrl' },
})

let code = result.outputFiles[0].text
let rewritten = 0
code = code.replace(/(?<![.\w$])import\(("[^"\\]+")\)/g, (_, specifier) => {
  rewritten++
  return `__nodeCliImport(${specifier})`
})
const leftover = code.match(/(?<![.\w$])import\s*\([^)]{0,60}/g)
if (rewritten === 0 || leftover) {
  throw new Error(`bundle: expected only import("literal") calls to rewrite, found ${rewritten} and ${leftover?.join(', ')}`)
}
// bin/node-cli.js reads the bundle as latin1 (~1 ms less than UTF-8 decoding 1 MB); esbuild's default
// charset escapes non-ASCII characters, this checks it stays so.
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

// Prime the code cache: run the CLI once (any free port) and send it one request, so the cache also holds the
// request path; the CLI writes the cache shortly after it serves (bin/node-cli.js). A failure here only costs
// the first run's start-up, so it warns instead of failing the build.
await new Promise((resolve) => {
  const child = spawn(process.execPath, ['bin/node-cli.js', '--port', '0', '--silent'], { stdio: ['ignore', 'pipe', 'inherit'] })
  const started = Date.now()
  let out = ''
  let asked = false
  child.stdout.on('data', (chunk) => {
    out += chunk
    const url = /http:\/\/\S+/.exec(out)?.[0]
    if (url === undefined || asked) return
    asked = true
    const body = '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}'
    fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then((r) => r.text()).catch(() => {})
  })
  const poll = setInterval(() => {
    if (existsSync(CACHE) || Date.now() - started > 20_000) {
      clearInterval(poll)
      child.kill()
      setTimeout(() => child.kill('SIGKILL'), 5000).unref()
    }
  }, 20)
  child.on('exit', () => {
    clearInterval(poll)
    if (!existsSync(CACHE)) console.warn(`bundle: ${CACHE} was not written; the CLI will write it on its first run`)
    resolve()
  })
})
