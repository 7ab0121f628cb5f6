/**
 * State files from the command line: `--state` across two runs (dumped on SIGINT, continued on the next start),
 * `--state-interval` writes while running, kill -9 during interval writes never leaves a truncated file, and
 * the flags' usage errors.
 */
import { once } from 'node:events'
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { killStartedClis, runCli } from '../helpers/cli.js'
import { COW, rpc, startNode } from '../helpers/node.js'

const dir = mkdtempSync(join(tmpdir(), 'node-cli-state-cli-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
afterEach(killStartedClis)
const FRESH = '0x4444444444444444444444444444444444444444'

/** Polls `check` every 50 ms for up to `ms`. */
async function eventually(check: () => boolean, ms = 15_000): Promise<void> {
  const end = Date.now() + ms
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out')
    await new Promise((r) => setTimeout(r, 50))
  }
}

describe('state files from the CLI', () => {
  it('--state: written on SIGINT, continued by the next start', async () => {
    const file = join(dir, 'state.json')
    const first = runCli(['--port', '0', '--state', file])
    const [, url] = await first.waitFor(/Listening on (http:\/\/127\.0\.0\.1:\d+)/)
    expect(first.output()).toMatch(new RegExp(`Dumps to\\s+${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} on exit`))
    await rpc(url!, 'eth_sendTransaction', [{ from: COW.address, to: FRESH, value: '0x2a' }])
    await rpc(url!, 'anvil_mine', ['0x4'])
    const head = await rpc(url!, 'eth_getBlockByNumber', ['latest', false])
    first.child.kill('SIGINT')
    const [code] = (await once(first.child, 'exit')) as [number]
    expect(code).toBe(0)
    expect(JSON.parse(readFileSync(file, 'utf8')).node_cli.head).toBe(head.number)

    const second = runCli(['--port', '0', '--state', file])
    const [, url2] = await second.waitFor(/Listening on (http:\/\/127\.0\.0\.1:\d+)/)
    expect(second.output()).toMatch(
      /Loaded\s+.*state\.json: chain continued at block #5 \(\d+ accounts, \d+ storage cells\)/,
    )
    expect(await rpc(url2!, 'eth_getBlockByNumber', ['latest', false])).toEqual(head)
    expect(await rpc(url2!, 'eth_getBalance', [FRESH, 'latest'])).toBe('0x2a')
  })

  it('--dump-state with --state-interval writes while running', async () => {
    const file = join(dir, 'interval.json')
    const p = runCli(['--port', '0', '--dump-state', file, '--state-interval', '1'])
    const [, url] = await p.waitFor(/Listening on (http:\/\/127\.0\.0\.1:\d+)/)
    await rpc(url!, 'anvil_setBalance', [FRESH, '0x99'])
    await eventually(
      () => existsSync(file) && JSON.parse(readFileSync(file, 'utf8')).accounts[FRESH]?.balance === '0x99',
    )
  })

  it('kill -9 during interval writes never leaves a truncated or partial file', async () => {
    // a state large enough that a write takes a while: 20 000 accounts
    const source = await startNode()
    const accounts: Record<string, unknown> = {}
    for (let i = 1; i <= 20_000; i++) {
      accounts['0x' + i.toString(16).padStart(40, '0')] = {
        nonce: 1,
        balance: '0x' + i.toString(16),
        code: '0x',
        storage: { '0x01': '0x02' },
      }
    }
    await rpc(source.url, 'anvil_loadState', ['0x' + Buffer.from(JSON.stringify({ accounts })).toString('hex')])
    const big = join(dir, 'big.json')
    await source.dumpState(big)
    await source.close()
    const file = join(dir, 'killed.json')
    for (let round = 0; round < 4; round++) {
      const p = runCli(['--port', '0', '--silent', '--load-state', big, '--dump-state', file, '--state-interval', '1'])
      await p.waitFor(/http:\/\/127\.0\.0\.1:\d+/)
      await eventually(() => existsSync(file))
      // somewhere inside or between writes
      await new Promise((r) => setTimeout(r, 200 + round * 330))
      p.child.kill('SIGKILL')
      await once(p.child, 'exit')
      const json = JSON.parse(readFileSync(file, 'utf8'))
      expect(Object.keys(json.accounts).length).toBeGreaterThanOrEqual(20_000)
      expect(json.node_cli.version).toBe(1)
    }
    expect(statSync(file).size).toBeGreaterThan(1_000_000)
  }, 90_000)

  it('SIGINT during the exit dump: a second SIGINT exits at once and the previous file stays whole', async () => {
    const big = join(dir, 'big.json') // written by the kill -9 test above
    const file = join(dir, 'interrupted.json')
    copyFileSync(big, file)
    const before = readFileSync(file, 'utf8')
    const p = runCli(['--port', '0', '--load-state', big, '--dump-state', file])
    const [, url] = await p.waitFor(/Listening on (http:\/\/127\.0\.0\.1:\d+)/)
    await rpc(url!, 'anvil_setBalance', [FRESH, '0x77'])
    p.child.kill('SIGINT')
    await p.waitFor(/SIGINT: shutting down, writing/)
    p.child.kill('SIGINT')
    const [code] = (await once(p.child, 'exit')) as [number]
    const after = readFileSync(file, 'utf8')
    // either the old file, or the complete new one (when the write finished before the second signal)
    const json = JSON.parse(after)
    expect(after === before || json.accounts[FRESH]?.balance === '0x77').toBe(true)
    expect([0, 1]).toContain(code)
  }, 60_000)

  it('usage errors', async () => {
    for (const [args, message] of [
      [['--state', 'a.json', '--load-state', 'b.json'], /--state is --load-state plus --dump-state; give it alone/],
      [['--state-interval', '5'], /--state-interval needs --dump-state or --state/],
      [
        ['--load-state', join(dir, 'missing.json'), '--port', '0'],
        /error: cannot read the state file .*missing\.json: ENOENT/,
      ],
    ] as const) {
      const p = runCli([...args])
      const [code] = (await once(p.child, 'exit')) as [number]
      expect(code).not.toBe(0)
      expect(p.output()).toMatch(message)
    }
  })
})
