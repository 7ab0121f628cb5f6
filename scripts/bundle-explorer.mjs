// Bundles the explorer's browser code (src/explorer/, Preact) into dist/explorer/: index.html and
// assets/<name>-<hash>.js/.css, minified, without source maps, referencing only /assets/… URLs of the same origin
// and no inline script (the node serves it under `Content-Security-Policy: default-src 'self'`). The page chunks
// are ES modules split by esbuild (shared code in chunk-<hash>.js). Prints the first load's size, raw and gzipped.
// Run by `npm run build` (after scripts/bundle.mjs); `node scripts/bundle-explorer.mjs` alone rebuilds it.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { gzipSync } from 'node:zlib'
import { build } from 'esbuild'

const SRC = 'src/explorer'
const OUT = 'dist/explorer'
/** The first load's budget, gzipped (bytes): the build fails above it. */
const BUDGET_GZIP = 150 * 1024

rmSync(OUT, { recursive: true, force: true })
mkdirSync(path.join(OUT, 'assets'), { recursive: true })

const result = await build({
  entryPoints: { main: path.join(SRC, 'main.tsx') },
  outdir: path.join(OUT, 'assets'),
  publicPath: '/assets',
  entryNames: '[name]-[hash]',
  chunkNames: 'chunk-[hash]',
  assetNames: '[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'browser',
  target: ['es2022', 'chrome110', 'firefox110', 'safari16'],
  minify: true,
  sourcemap: false,
  legalComments: 'none',
  metafile: true,
  tsconfig: path.join(SRC, 'tsconfig.json'),
  jsx: 'automatic',
  jsxImportSource: 'preact',
  define: { 'process.env.NODE_ENV': '"production"' },
  logLevel: 'warning',
})

const outputs = Object.entries(result.metafile.outputs)
const entry = outputs.find(([, o]) => o.entryPoint !== undefined)
if (entry === undefined) throw new Error('bundle-explorer: esbuild wrote no entry chunk')
const [entryFile, entryMeta] = entry
const url = (file) => '/assets/' + path.basename(file)
const css =
  entryMeta.cssBundle === undefined ? '' : `<link rel="stylesheet" href="${url(entryMeta.cssBundle)}" />\n    `
const tags = `${css}<script type="module" src="${url(entryFile)}"></script>`
const html = readFileSync(path.join(SRC, 'index.html'), 'utf8').replace('<!-- ASSETS -->', tags)
if (/<script(?![^>]*\bsrc=)/.test(html)) throw new Error('bundle-explorer: index.html has an inline script')
writeFileSync(path.join(OUT, 'index.html'), html)

// The first load: index.html, the entry, the chunks it imports statically, its CSS
const firstLoad = new Set([entryFile])
const walk = (file) => {
  for (const imp of result.metafile.outputs[file].imports) {
    if (imp.kind === 'import-statement' && !firstLoad.has(imp.path)) {
      firstLoad.add(imp.path)
      walk(imp.path)
    }
  }
}
walk(entryFile)
if (entryMeta.cssBundle !== undefined) firstLoad.add(entryMeta.cssBundle)
const files = [path.join(OUT, 'index.html'), ...firstLoad]
// Same origin only: index.html names only /assets/… (and the data: favicon), the chunks import nothing external (only each other)
// (viem's error messages hold documentation URLs as text; nothing fetches them)
const htmlUrls = [...html.matchAll(/\b(?:src|href)="([^"]*)"/g)].map((m) => m[1])
const foreign = htmlUrls.filter((u) => !u.startsWith('/assets/') && u !== 'data:,')
for (const output of Object.values(result.metafile.outputs)) {
  for (const imp of output.imports) if (imp.external) foreign.push(imp.path)
}
if (foreign.length > 0) throw new Error(`bundle-explorer: references outside /assets/: ${foreign.join(', ')}`)
const raw = files.reduce((n, f) => n + readFileSync(f).length, 0)
const gzip = files.reduce((n, f) => n + gzipSync(readFileSync(f), { level: 9 }).length, 0)
const kb = (n) => `${(n / 1024).toFixed(1)} KB`
console.log(`bundle-explorer: ${OUT}/ first load ${kb(raw)} raw, ${kb(gzip)} gzipped (${files.length} files)`)
if (gzip > BUDGET_GZIP) throw new Error(`bundle-explorer: first load ${kb(gzip)} gzipped is over ${kb(BUDGET_GZIP)}`)
