/**
 * The CLI's progress display of long work (src/cli/progress.ts), as a user sees it: on a terminal (a
 * pseudo-terminal from util-linux `script`) a spinner line with the step and its figures, then a `✔ … done` line;
 * through a pipe (a CI log) plain lines only — no carriage return, no escape sequence, no spinner frame; with
 * `--silent` nothing. NODE_CLI_PROGRESS_DELAY_MS=0 shows the state-file work however fast this machine reads it;
 * the fork tests keep the real delay (0.5 s): their remote answers each request after 400 ms.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { BIN, killStartedClis, runCli } from './helpers/cli.js'
import { closeForkTest, startForkRemote, type ForkRemote } from './helpers/fork.js'
import { writeAnvilStateFile } from './helpers/state-file.js'

const ACCOUNTS = 20_000
const SLOTS = 10
const dir = mkdtempSync(join(tmpdir(), 'node-cli-cli-progress-'))
const big = join(dir, 'big.json')
const small = join(dir, 'small.json')
const SPINNER_FRAME = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/
const HAS_SCRIPT = spawnSync('script', ['--version']).status === 0
const terminals: ChildProcess[] = []

beforeAll(() => {
  writeAnvilStateFile(big, ACCOUNTS, SLOTS)
  writeAnvilStateFile(small, 3, 1)
})
afterEach(() => {
  killStartedClis()
  for (const t of terminals.splice(0)) if (t.exitCode === null && t.signalCode === null) t.kill('SIGKILL')
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** `s` as one shell word. */
const quoted = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`
/** `s` as a literal in a RegExp. */
const literal = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** A CLI run on a pseudo-terminal of 120 × 40 (`script`), its output as the terminal received it. */
interface TerminalCli {
  output: () => string
  waitFor: (re: RegExp) => Promise<RegExpMatchArray>
  /** The CLI's process id (the shell `script` runs execs it, keeping its own). */
  pid: Promise<number>
  exited: Promise<unknown>
}

/** Runs the CLI with `args` on a pseudo-terminal (stdout and stderr are the terminal). */
function runInTerminal(args: string[], env: Record<string, string> = {}): TerminalCli {
  const command = `stty cols 120 rows 40; echo PID=$$; exec ${[process.execPath, BIN, ...args].map(quoted).join(' ')}`
  const childEnv: Record<string, string | undefined> = { ...process.env, FORCE_COLOR: '0', TERM: 'xterm', ...env }
  delete childEnv.CI // (a CI variable makes the CLI print plain lines, as ora's is-interactive does)
  const child = spawn('script', ['-qfec', command, '/dev/null'], { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] })
  terminals.push(child)
  let out = ''
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()))
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()))
  const exited = once(child, 'exit')
  const waitFor = async (re: RegExp): Promise<RegExpMatchArray> => {
    const end = Date.now() + 60_000
    for (;;) {
      const m = out.match(re)
      if (m) return m
      if (child.exitCode !== null || Date.now() > end) throw new Error(`no ${re} in: ${out}`)
      await new Promise((r) => setTimeout(r, 20))
    }
  }
  return { output: () => out, waitFor, pid: waitFor(/PID=(\d+)/).then((m) => Number(m[1])), exited }
}

describe.skipIf(!HAS_SCRIPT)('on a terminal (pseudo-terminal from util-linux script)', () => {
  it('--load-state: a spinner line with the bytes, accounts and cells read, then a done line; the dump on exit likewise', async () => {
    const dump = join(dir, 'tty-dump.json')
    const t = runInTerminal(['--port', '0', '--load-state', big, '--dump-state', dump], {
      NODE_CLI_PROGRESS_DELAY_MS: '0',
    })
    await t.waitFor(/Listening on http:\/\/127\.0\.0\.1:\d+/)
    const start = t.output()
    expect(start).toMatch(
      new RegExp(
        `Loading state file ${literal(big)}: reading \\d+% of [\\d.]+ MiB \\([\\d,]+ accounts, [\\d,]+ cells\\)`,
      ),
    )
    expect(start).toMatch(new RegExp(`${SPINNER_FRAME.source} Loading state file ${literal(big)}: `))
    // the spinner line is rewritten in place (cursor to column 1, erase the line)
    expect(start).toMatch(/\x1b\[1G|\x1b\[0K|\x1b\[2K/) // eslint-disable-line no-control-regex
    expect(start).toContain(`✔ Loading state file ${big}… done (20,000 accounts, 200,000 storage cells, `)

    process.kill(await t.pid, 'SIGINT')
    await t.exited
    const exit = t.output().slice(start.length)
    expect(exit).toMatch(new RegExp(`Writing state file ${literal(dump)}: (writing|syncing) [\\d.]+ MiB \\(`))
    expect(exit).toMatch(
      new RegExp(`✔ Writing state file ${literal(dump)}… done \\([\\d,]+ accounts, 200,000 cells, [\\d.]+ MiB, `),
    )
    expect(Object.keys(JSON.parse(readFileSync(dump, 'utf8')).accounts).length).toBeGreaterThanOrEqual(ACCOUNTS)
  }, 90_000)

  it('--fork-url: the step under way while the remote answers, then the fork block', async () => {
    const remote = await startForkRemote()
    try {
      remote.proxy.setLatency(400)
      const t = runInTerminal(forkArgs(remote))
      await t.waitFor(/Listening on/)
      const origin = literal(remote.proxy.url.replace(/\/$/, ''))
      expect(t.output()).toMatch(
        new RegExp(
          `${SPINNER_FRAME.source} Forking ${origin}: (asking the remote|reading fork block|fetching the dev accounts|opening the fork cache)`,
        ),
      )
      expect(t.output()).toMatch(new RegExp(`✔ Forking ${origin}… done \\(block #0 of chain id 33, \\d+\\.\\d s\\)`))
      process.kill(await t.pid, 'SIGINT')
      await t.exited
    } finally {
      await closeForkTest(remote)
    }
  }, 90_000)
})

/** The CLI's arguments to fork `remote` at its genesis, without retries or a disk cache. */
function forkArgs(remote: ForkRemote): string[] {
  return ['--port', '0', '--fork-url', remote.proxy.url, '--fork-block-number', '0', '--fork-retries', '0'].concat([
    '--no-fork-cache',
  ])
}

/** Output through a pipe holds plain lines only. */
function expectPlain(out: string): void {
  expect(out).not.toContain('\r')
  expect(out).not.toContain('\x1b')
  expect(out).not.toMatch(SPINNER_FRAME)
}

describe('through a pipe', () => {
  it('--load-state and the dump on exit: a line when the work starts and one when it is done, nothing else', async () => {
    const dump = join(dir, 'pipe-dump.json')
    const p = runCli(['--port', '0', '--load-state', big, '--dump-state', dump], { NODE_CLI_PROGRESS_DELAY_MS: '0' })
    await p.waitFor(/Listening on/)
    expect(p.output()).toMatch(
      new RegExp(
        `^Loading state file ${literal(big)}…\\nLoading state file ${literal(big)}… done ` +
          `\\(20,000 accounts, 200,000 storage cells, \\d+\\.\\d s\\)\\n`,
      ),
    )
    p.child.kill('SIGINT')
    const [code] = (await once(p.child, 'exit')) as [number]
    expect(code).toBe(0)
    expect(p.output()).toMatch(
      new RegExp(
        `\\nWriting state file ${literal(dump)}…\\nWriting state file ${literal(dump)}… done ` +
          `\\([\\d,]+ accounts, 200,000 cells, [\\d.]+ MiB, \\d+\\.\\d s\\)\\n$`,
      ),
    )
    expect(p.output().match(/state file/g)).toHaveLength(4)
    expectPlain(p.output())
  }, 90_000)

  it('work that ends within the delay shows nothing; --silent shows nothing', async () => {
    const quick = runCli(['--port', '0', '--load-state', small])
    await quick.waitFor(/Listening on/)
    expect(quick.output()).not.toContain('Loading state file')
    expect(quick.output()).toMatch(/^node-cli v/)

    const silent = runCli(['--port', '0', '--silent', '--load-state', big], { NODE_CLI_PROGRESS_DELAY_MS: '0' })
    const [, url] = await silent.waitFor(/(http:\/\/127\.0\.0\.1:\d+)\n/)
    expect(silent.output().trim()).toBe(url)
  }, 90_000)

  it('--fork-url against a slow remote: plain lines', async () => {
    const remote = await startForkRemote()
    try {
      remote.proxy.setLatency(400)
      const p = runCli(forkArgs(remote))
      await p.waitFor(/Listening on/)
      const origin = literal(remote.proxy.url.replace(/\/$/, ''))
      expect(p.output()).toMatch(
        new RegExp(`^Forking ${origin}…\\nForking ${origin}… done \\(block #0 of chain id 33, \\d+\\.\\d s\\)\\n`),
      )
      expectPlain(p.output())
    } finally {
      killStartedClis()
      await closeForkTest(remote)
    }
  }, 90_000)
})
