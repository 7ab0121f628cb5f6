// @ts-check
/**
 * Citation check (`npm run lint` runs it): comments in src/, test/, bench/ and scripts/ cite the repository's
 * docs (docs/reference-rules.md#rule-…, docs/architecture.md#…) or spec sections — never documents outside the
 * repository nor issue numbers — and every docs anchor they cite exists. Exits 1 listing the offending lines.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'

const ROOTS = ['src', 'test', 'bench', 'scripts']
const SKIP = new Set(['node_modules', 'clients', 'contracts'])
const EXT = /\.(ts|mts|js|mjs)$/
/** Citations of documents outside the repository, and issue numbers. */
const OUTSIDE = [
  /reference-node-facts/,
  /\bfacts §/,
  /\bdesign\.md\b/,
  /ethereumjs-v10\.md/,
  /peer-dev-chains\.md/,
  /\.\.\/shared\//,
  /\bissue \d+/i,
  /\bissue "/i,
]
const ANCHOR = /docs\/(reference-rules|architecture)\.md#([a-z0-9-]+)/g
const SELF = 'scripts/check-citations.mjs'

/** @param {string} dir @returns {string[]} */
function files(dir) {
  /** @type {string[]} */
  const out = []
  for (const name of readdirSync(dir)) {
    if (SKIP.has(name)) continue
    const p = join(dir, name)
    if (statSync(p).isDirectory()) out.push(...files(p))
    else if (EXT.test(name)) out.push(p)
  }
  return out
}

/** @type {Map<string, Set<string>>} */
const anchors = new Map()
for (const doc of ['reference-rules', 'architecture']) {
  const text = readFileSync(`docs/${doc}.md`, 'utf8')
  anchors.set(doc, new Set([...text.matchAll(/id="([a-z0-9-]+)"/g)].map((m) => m[1])))
}

const problems = []
for (const file of ROOTS.flatMap(files)) {
  if (file === SELF) continue
  const lines = readFileSync(file, 'utf8').split('\n')
  lines.forEach((line, i) => {
    for (const re of OUTSIDE) if (re.test(line)) problems.push(`${file}:${i + 1}: cites ${re.source}: ${line.trim()}`)
    for (const m of line.matchAll(ANCHOR)) {
      if (!anchors.get(m[1])?.has(m[2])) problems.push(`${file}:${i + 1}: no anchor docs/${m[1]}.md#${m[2]}`)
    }
  })
}
if (problems.length > 0) {
  console.error(`check-citations: ${problems.length} problem(s); cite docs/reference-rules.md anchors instead\n`)
  for (const p of problems) console.error(p)
  process.exit(1)
}
