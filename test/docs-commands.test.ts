/**
 * The `node-cli …` command lines in the README's and docs pages' shell blocks (those not run as snippets by
 * test/readme-snippets.test.ts) parse with the CLI's own option definitions: every flag exists and every value is
 * accepted, so a renamed or removed flag cannot linger in the docs.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { CommanderError } from 'commander'
import { describe, expect, it } from 'vitest'
import { buildProgram } from '../src/cli/options.js'

const ROOT = join(import.meta.dirname, '..')
const FILES = ['README.md', ...readdirSync(join(ROOT, 'docs')).map((f) => join('docs', f))].filter((f) =>
  f.endsWith('.md'),
)

/** The command lines starting with `node-cli` or `npx node-cli` inside ```sh blocks, comments and `&&` prefixes cut. */
function commandLines(text: string): string[] {
  const lines: string[] = []
  for (const block of text.matchAll(/```sh\n([\s\S]*?)```/g)) {
    for (const raw of block[1]!.split('\n')) {
      const line = raw.replace(/\s+#.*$/, '').trim()
      const at = line.search(/(^|\s)(npx )?node-cli(\s|$)/)
      if (at < 0 || line.slice(at).trim().startsWith('node-cli@')) continue
      lines.push(line.slice(at).trim())
    }
  }
  return lines
}

/** Parses `args` (after the command name) with a fresh program; returns the error message, or undefined. */
function parseError(args: string[]): string | undefined {
  const program = buildProgram()
  program.exitOverride().configureOutput({ writeErr: () => {}, writeOut: () => {} })
  try {
    program.parse(args, { from: 'user' })
    return undefined
  } catch (err) {
    if (err instanceof CommanderError) return err.message
    throw err
  }
}

describe('node-cli command lines in the docs', () => {
  const found = FILES.flatMap((file) =>
    commandLines(readFileSync(join(ROOT, file), 'utf8')).map((line) => ({ file, line })),
  )

  it('there are some (README quick start, state files, forking, persistence, origins)', () => {
    expect(found.length).toBeGreaterThanOrEqual(10)
    expect(new Set(found.map((f) => f.file)).size).toBeGreaterThanOrEqual(4)
  })

  it.each(found.map((f) => [`${f.file}: ${f.line}`, f.line]))('%s', (_title, line) => {
    const args = line
      .replace(/^(npx )?node-cli\s*/, '')
      .split(/\s+/)
      .filter((a) => a !== '')
    expect(parseError(args)).toBeUndefined()
  })

  it('a flag that does not exist is caught', () => {
    expect(parseError(['--no-such-flag'])).toMatch(/unknown option/)
  })
})
