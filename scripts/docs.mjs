// Regenerates README.md's method list from the method table (run through `npm run docs`, after the build).
import { readFileSync, writeFileSync } from 'node:fs'
import { createNode } from '../dist/index.js'
import { renderMethodList, replaceMethodSection } from '../dist/rpc/methods-doc.js'

const node = await createNode({ port: 0 })
try {
  const file = new URL('../README.md', import.meta.url)
  writeFileSync(file, replaceMethodSection(readFileSync(file, 'utf8'), renderMethodList(node.methods)))
  console.log(`README.md: ${node.methods.length} methods`)
} finally {
  await node.close()
}
