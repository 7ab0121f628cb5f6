// Regenerates the generated reference pages (run through `npm run docs`, after the build): docs/rpc-methods.md's
// method list from the method table, docs/cli-flags.md's flag table from the commander definitions.
import { readFileSync, writeFileSync } from 'node:fs'
import { createNode } from '../dist/index.js'
import { buildProgram } from '../dist/cli/options.js'
import { renderFlagList, replaceFlagSection } from '../dist/cli/flags-doc.js'
import { renderMethodList, replaceMethodSection } from '../dist/rpc/methods-doc.js'

/** Rewrites one docs page with `replace(text)`. */
function rewrite(name, replace) {
  const file = new URL(`../docs/${name}`, import.meta.url)
  writeFileSync(file, replace(readFileSync(file, 'utf8')))
}

const node = await createNode({ port: 0 })
try {
  rewrite('rpc-methods.md', (text) => replaceMethodSection(text, renderMethodList(node.methods)))
  console.log(`docs/rpc-methods.md: ${node.methods.length} methods`)
} finally {
  await node.close()
}
const program = buildProgram()
rewrite('cli-flags.md', (text) => replaceFlagSection(text, renderFlagList(program)))
console.log(`docs/cli-flags.md: ${program.options.length} flags`)
