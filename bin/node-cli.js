#!/usr/bin/env node
// Runs the bundled CLI, dist/node-cli.cjs (one file: fast start-up; see scripts/bundle.mjs), compiled with its V8
// code cache dist/node-cli.cjs.v8cache; falls back to the unbundled build if the bundle is absent.
//
// A CommonJS script (bin/package.json says so; the package itself is ESM): as an ES module this launcher cost
// ~8 ms more start-up, Node's ESM loader (resolve/load/translate/module job, plus fs/promises and readline it
// loads) and the ES-module facade of `node:fs`, which enumerates fs's lazy `ReadStream` getter and so loads all
// of node:stream (measured).
//
// The code cache saves V8 compiling the 1 MB bundle and the functions start-up runs: ~26 ms of start-up
// (117 → 91 ms main-thread CPU, Node 20.20, measured). The build primes it; when it is missing, belongs to another
// bundle or Node version, or V8 rejects it (other V8 flags), the bundle is compiled from source as before and
// the cache is rewritten once the node serves. The cache sits next to the bundle, never in a shared directory
// such as /tmp: V8 trusts a cache it accepts, so it must be as trusted as the code itself.
'use strict'
// First of all: on Linux with Node >= 22.15 this may replace the process with the start settings added (see
// start-settings.js, which checks the rest). Elsewhere the module is not loaded at all: loading it cost 1.5-2.8 ms
// of start-up on Node 20 (measured).
if (process.platform === 'linux' && typeof process.execve === 'function') {
  require('./start-settings.js').runWithStartSettings()
}
const { existsSync, readFileSync, renameSync, rmSync, writeFileSync } = require('node:fs')
const { createRequire } = require('node:module')
const { join } = require('node:path')
const vm = require('node:vm')

const distDir = join(__dirname, '..', 'dist')
const bundlePath = join(distDir, 'node-cli.cjs')
const cachePath = bundlePath + '.v8cache'

/**
 * The bundle's dynamic imports (scripts/bundle.mjs rewrites them to call this). bin/ and dist/ are siblings, so
 * package names resolve the same from here.
 *
 * The two uWebSockets.js distributions (src/server/index.ts `loadUws` tries them in order) are each a loader
 * around one native binary per platform, arch and Node ABI: `uWebSockets.js` (@btc-vision/uwebsockets.js)
 * requires `./uws_<platform>_<arch>_<ABI>.node` from its CommonJS uws.js (its ESM_wrapper.mjs re-exports that),
 * uws-pack from its ES module dist/uws.mjs as `./bin/uws_<platform>_<arch>_<ABI>.node`. Requiring the binary
 * directly skips those modules: ~2 ms of start-up against `require('uWebSockets.js')`, ~10 ms against
 * `import('uWebSockets.js')` (Node 20, measured). A binary that is there but fails to load (e.g. a glibc older than
 * it was built for) rejects with the loader's error, so that `loadUws` goes on to the next distribution; no such
 * file (an unsupported platform or Node version) takes the package's own entry, which says so.
 * @param {string} specifier
 */
function importForBundle(specifier) {
  if (specifier === 'uWebSockets.js' || specifier === 'uws-pack') {
    const binary = `uws_${process.platform}_${process.arch}_${process.versions.modules}.node`
    for (const dir of require.resolve.paths(specifier) ?? []) {
      const file = specifier === 'uws-pack' ? join(dir, specifier, 'dist', 'bin', binary) : join(dir, specifier, binary)
      if (!existsSync(file)) continue
      return new Promise((resolve) => resolve(require(file)))
    }
  }
  return import(specifier)
}

/**
 * The file: URL of an absolute path, as `url.pathToFileURL(path).href` gives it; a normalised POSIX path of only
 * unreserved characters is its own URL path, which skips node:url's encoder (~0.4 ms of start-up, measured).
 * @param {string} path absolute
 */
function fileUrl(path) {
  return /^\/[\w./-]*$/.test(path) && !/\/\.{0,2}(\/|$)/.test(path) ? `file://${path}` : require('node:url').pathToFileURL(path).href
}

/**
 * Compiles and runs the bundle.
 * @returns its `main` and, when the code cache has to be (re)written, a function writing it; undefined when the
 *   bundle is absent
 */
function loadBundle() {
  let source
  try {
    // ASCII by construction (scripts/bundle.mjs checks it): latin1 reads it ~1 ms faster than UTF-8
    source = readFileSync(bundlePath, 'latin1')
  } catch {
    return undefined
  }
  // V8 checks a cache against the source's length, its version and its flags only: the key also names the bundle.
  const key = `${/^\/\* node-cli bundle (\w+)/.exec(source)?.[1]} ${process.version} ${process.arch}\n`
  let cachedData
  try {
    const cache = readFileSync(cachePath)
    if (cache.toString('latin1', 0, key.length) === key) cachedData = cache.subarray(key.length)
  } catch {
    // no cache yet
  }
  const script = new vm.Script(source, { filename: bundlePath, cachedData })
  const module = { exports: {} }
  script.runInThisContext()(
    module.exports,
    createRequire(bundlePath),
    module,
    bundlePath,
    distDir,
    importForBundle,
    fileUrl(bundlePath),
  )
  const writeCache = () => {
    // after start-up, so the cache also holds the functions start-up compiled lazily
    const tmp = `${cachePath}.${process.pid}.tmp`
    try {
      writeFileSync(tmp, Buffer.concat([Buffer.from(key, 'latin1'), script.createCachedData()]))
      renameSync(tmp, cachePath) // atomic: concurrent starts never read a half-written cache
    } catch {
      rmSync(tmp, { force: true }) // e.g. a read-only install: start-up just stays slower
    }
  }
  return { main: module.exports.main, writeCache: cachedData === undefined || script.cachedDataRejected ? writeCache : undefined }
}

const bundle = loadBundle()
// `afterStartup` runs once the node serves (src/cli/main.ts). V8 stamps the cache with a hash of its flags, all set
// on the command line at start (start-settings.js): the next start with the same settings accepts it.
;(bundle ? Promise.resolve(bundle) : import('../dist/cli/main.js'))
  .then(({ main }) => main(process.argv, { afterStartup: bundle?.writeCache }))
  .catch((err) => {
    console.error(err instanceof Error ? err.message : err)
    process.exit(1)
  })
