/**
 * README.md's method list is generated from the method table; this fails when it is out of date
 * (fix: `npm run docs`).
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { renderMethodList, replaceMethodSection } from '../src/rpc/methods-doc.js'
import { startNode } from './helpers/node.js'

describe('README method list', () => {
  it('matches the served method table (run `npm run docs` to regenerate)', async () => {
    const node = await startNode()
    try {
      const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')
      expect(readme).toBe(replaceMethodSection(readme, renderMethodList(node.methods)))
    } finally {
      await node.close()
    }
  })
})
