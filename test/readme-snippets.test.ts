/**
 * Runs every snippet marked `<!-- snippet: name -->` in README.md or a docs/*.md page against a node on a free
 * port: the Hardhat config through `hardhat run` of the test project, the Foundry commands with the cast npm
 * package, and the viem, ethers, web3.js and library scripts with node. A marked snippet this file does not run
 * fails the first test.
 */
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Node } from '../src/index.js'
import { clientBin, CLIENTS_DIR, runCommand } from './helpers/clients.js'
import { startNode } from './helpers/node.js'

/** README.md and every docs page, by repository path: where snippets may live. */
const DOCS: ReadonlyMap<string, string> = new Map(
  [
    'README.md',
    ...readdirSync(new URL('../docs', import.meta.url))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ].map((p) => [p, readFileSync(new URL(`../${p}`, import.meta.url), 'utf8')]),
)
const DEFAULT_URL = 'http://127.0.0.1:4444'
/** The snippets this file runs, each by one test below. */
const RUN = ['hardhat-config', 'foundry', 'viem', 'ethers', 'web3', 'library']

/** Every `<!-- snippet: name -->` marker's name, with the file holding it. */
function markers(): { name: string; file: string }[] {
  const out: { name: string; file: string }[] = []
  for (const [file, text] of DOCS)
    for (const m of text.matchAll(/<!-- snippet: ([\w-]+) -->/g)) out.push({ name: m[1]!, file })
  return out
}

/** The code block following `<!-- snippet: name -->`, wherever it lives (README.md or docs/*.md). */
function snippet(name: string): string {
  for (const text of DOCS.values()) {
    const m = new RegExp(`<!-- snippet: ${name} -->\\s*\`\`\`\\w*\\n([\\s\\S]*?)\`\`\``).exec(text)
    if (m) return m[1]!
  }
  throw new Error(`no snippet "${name}" in README.md or docs/*.md`)
}

let node: Node
const written: string[] = []
beforeAll(async () => {
  node = await startNode()
})
afterAll(async () => {
  for (const f of written) rmSync(f, { recursive: true, force: true })
  await node?.close()
})

/** Writes `code` (README URL replaced by the test node's) to `dir/.snippet-<name>.mjs` and runs it with node. */
async function runScript(name: string, dir: string, code: string) {
  const file = join(dir, `.snippet-${name}.mjs`)
  written.push(file)
  writeFileSync(file, code.replaceAll(DEFAULT_URL, node.url))
  return runCommand(process.execPath, [file], { cwd: dir, timeoutMs: 60_000 })
}

describe('README and docs snippets', () => {
  it('every snippet exists once, and every marked snippet is run here', () => {
    for (const name of RUN) expect(snippet(name)).not.toBe('')
    const found = markers()
    expect(found.map((m) => m.name).sort(), JSON.stringify(found)).toEqual([...RUN].sort())
  })

  it('Hardhat: the config snippet deploys with `hardhat run` (no gas setting)', async () => {
    const project = join(CLIENTS_DIR, 'hardhat-project')
    const config = join(project, '.readme-snippet.config.js')
    const out = join(project, '.readme-snippet-out')
    written.push(config, out)
    writeFileSync(
      config,
      [
        "require('./hardhat.config.js') // the test project's plugins and solc-js compile override",
        snippet('hardhat-config').replaceAll(DEFAULT_URL, node.url),
        `module.exports.paths = { artifacts: ${JSON.stringify(join(out, 'artifacts'))}, cache: ${JSON.stringify(join(out, 'cache'))} }`,
      ].join('\n'),
    )
    const r = await runCommand(
      clientBin('hardhat'),
      ['run', 'scripts/deploy.js', '--config', config, '--network', 'localhost'],
      {
        cwd: project,
        env: { HARDHAT_DISABLE_TELEMETRY_PROMPT: 'true' },
      },
    )
    expect(r.code, r.stdout + r.stderr).toBe(0)
    expect(r.stdout).toMatch(/DEPLOYED vault=0x[0-9a-fA-F]{40}/)
  }, 240_000)

  it('Foundry: the cast commands', async () => {
    const lines = snippet('foundry')
      .replace(/\\\n\s*/g, '')
      .trim()
      .split('\n')
    const outputs: string[] = []
    for (const line of lines) {
      const [tool, ...args] = line.replaceAll(DEFAULT_URL, node.url).trim().split(/\s+/)
      expect(tool).toBe('cast')
      const r = await runCommand(clientBin('cast'), args, { timeoutMs: 60_000 })
      expect(r.stderr).toBe('')
      outputs.push(r.stdout.trim())
    }
    expect(outputs[0]).toMatch(/^\d+$/)
    expect(outputs[1]).toMatch(/status\s+1 \(success\)/)
    expect(BigInt(outputs[2]!)).toBe(10n ** 18n)
  }, 120_000)

  it('viem', async () => {
    const r = await runScript('viem', join(import.meta.dirname), snippet('viem'))
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/^success \d+n/)
  })

  it('ethers', async () => {
    const r = await runScript('ethers', join(import.meta.dirname), snippet('ethers'))
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/^1 \d+/)
  })

  it('web3.js', async () => {
    const r = await runScript('web3', CLIENTS_DIR, snippet('web3'))
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout.trim()).toBe('1n 0n')
  })

  it('as a library', async () => {
    const dist = new URL('../dist/index.js', import.meta.url).href
    const r = await runScript(
      'library',
      join(import.meta.dirname),
      snippet('library').replace("from 'node-cli'", `from '${dist}'`),
    )
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/^http:\/\/127\.0\.0\.1:\d+ 0x21/)
  })
})
