/**
 * The generated reference pages are current: docs/rpc-methods.md's method list equals the one rendered from the
 * served method table, docs/cli-flags.md's flag table the one rendered from the commander definitions
 * (fix: `npm run docs`).
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { buildProgram } from '../src/cli/options.js'
import { FLAGS_START, renderFlagList, replaceFlagSection } from '../src/cli/flags-doc.js'
import { DOC_START, renderMethodList, replaceMethodSection } from '../src/rpc/methods-doc.js'
import { startNode } from './helpers/node.js'

/** A docs page's committed text. */
function page(name: string): string {
  return readFileSync(new URL(`../docs/${name}`, import.meta.url), 'utf8')
}

describe('generated docs pages', () => {
  it('docs/rpc-methods.md matches the served method table (run `npm run docs` to regenerate)', async () => {
    const node = await startNode()
    try {
      const text = page('rpc-methods.md')
      expect(text).toContain(DOC_START)
      expect(text).toContain('`eth_sendRawTransaction`')
      expect(text).toBe(replaceMethodSection(text, renderMethodList(node.methods)))
    } finally {
      await node.close()
    }
  })

  it('docs/cli-flags.md matches buildProgram() (run `npm run docs` to regenerate)', () => {
    const text = page('cli-flags.md')
    const program = buildProgram()
    expect(text).toContain(FLAGS_START)
    for (const flag of ['--fork-url <url>', '--load-state <file>', '--compat <tool>'])
      expect(text).toContain(`\`${flag}\``)
    expect(text).toBe(replaceFlagSection(text, renderFlagList(program)))
  })

  it('a stale page is told apart from a current one', () => {
    const program = buildProgram()
    const current = replaceFlagSection(page('cli-flags.md'), renderFlagList(program))
    program.option('--not-a-flag', 'added after the page was generated')
    expect(replaceFlagSection(current, renderFlagList(program))).not.toBe(current)
  })

  it('README.md no longer holds a generated section', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')
    expect(readme).not.toContain(DOC_START)
    expect(readme).not.toContain(FLAGS_START)
  })
})
