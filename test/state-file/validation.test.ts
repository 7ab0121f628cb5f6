/**
 * Bad state files stop `--load-state` with an error naming the problem, and the node does not start
 * half-loaded (createNode rejects; its port is free again).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createNode } from '../../src/index.js'
import { COW1, rpc, startNode } from '../helpers/node.js'

const dir = mkdtempSync(join(tmpdir(), 'node-cli-state-bad-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const FRESH = '0x3333333333333333333333333333333333333333'
let good: string
let text: string

beforeAll(async () => {
  const node = await startNode()
  await rpc(node.url, 'eth_sendTransaction', [{ from: COW1.address, to: FRESH, value: '0x64' }])
  await rpc(node.url, 'anvil_mine', ['0x3'])
  good = join(dir, 'good.json')
  await node.dumpState(good)
  await node.close()
  text = readFileSync(good, 'utf8')
})

/** Writes `content` to a file and expects createNode({ loadState }) to reject with `message`; then checks the port is free. */
async function refused(
  name: string,
  content: string | Buffer,
  message: RegExp,
  extra: Parameters<typeof createNode>[0] = {},
) {
  const file = join(dir, name)
  writeFileSync(file, content)
  const port = await freePort()
  await expect(createNode({ port, loadState: file, ...extra })).rejects.toThrow(message)
  // nothing kept listening: the same port can be bound at once
  const probe = createServer()
  await new Promise<void>((resolve, reject) => probe.once('error', reject).listen(port, '127.0.0.1', () => resolve()))
  probe.close()
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port
      s.close(() => resolve(port))
    })
  })
}

describe('--load-state validation', () => {
  it('loads the good file (plain and gzipped)', async () => {
    for (const [name, content] of [
      ['plain.json', text],
      ['zipped.json.gz', gzipSync(text)],
    ] as const) {
      const file = join(dir, name)
      writeFileSync(file, content)
      const node = await createNode({ port: 0, loadState: file })
      expect(await rpc(node.url, 'eth_getBalance', [FRESH, 'latest'])).toBe('0x64')
      expect(await rpc(node.url, 'eth_blockNumber')).toBe('0x4')
      await node.close()
    }
  })

  it('a missing file', async () => {
    await expect(createNode({ port: 0, loadState: join(dir, 'nope.json') })).rejects.toThrow(
      /cannot read the state file .*nope\.json: ENOENT/,
    )
  })

  it('a truncated file (a dump cut short)', async () => {
    await refused(
      'truncated.json',
      text.slice(0, Math.floor(text.length / 2)),
      /state file .*truncated\.json is not a valid state file/,
    )
  })

  it('not JSON', async () => {
    await refused('garbage.json', 'hello, world', /is not a valid state file/)
  })

  it('JSON that is not a state', async () => {
    await refused('other.json', '{"name": "package"}', /is not a state file: it has no "accounts"/)
  })

  it('a bad account field names the account and the field', async () => {
    const bad = JSON.parse(text)
    bad.accounts[FRESH].balance = '-5'
    await refused(
      'bad-balance.json',
      JSON.stringify(bad),
      new RegExp(`account ${FRESH}: balance: expected a non-negative integer`),
    )
    const big = JSON.parse(text)
    big.accounts[FRESH].nonce = 2n ** 64n + ''
    await refused(
      'big-nonce.json',
      JSON.stringify(big).replace(`"${2n ** 64n}"`, `${2n ** 64n}`),
      new RegExp(`account ${FRESH}: nonce is 2\\^64 or more`),
    )
  })

  it('a changed account no longer rebuilds the recorded state root', async () => {
    const tampered = JSON.parse(text)
    tampered.accounts[FRESH].balance = '0x65'
    await refused(
      'tampered.json',
      JSON.stringify(tampered),
      /its accounts rebuild the state root 0x[0-9a-f]{64}, not the recorded 0x[0-9a-f]{64}/,
    )
  })

  it('a file of a newer or older format version says so', async () => {
    const newer = JSON.parse(text)
    newer.node_cli.version = 2
    await refused(
      'newer.json',
      JSON.stringify(newer),
      /is in node-cli state format 2; this version reads format 1 \(written by a newer node-cli\)/,
    )
    const older = JSON.parse(text)
    older.node_cli.version = 0
    await refused('older.json', JSON.stringify(older), /is in node-cli state format 0; this version reads format 1$/)
  })

  it('a chain of another network or chain id', async () => {
    await refused('good-again.json', text, /holds a chain of network 33, chain id 33, .* this node runs network 31/, {
      network: 31,
    })
    await refused('good-again2.json', text, /chain id 33, .* chain id 100/, { chainId: 100 })
  })

  it('a block that does not follow its parent', async () => {
    const broken = JSON.parse(text)
    broken.node_cli.blocks.splice(1, 1)
    broken.node_cli.head = '0x3'
    await refused('gap.json', JSON.stringify(broken), /block 3 does not follow block 1/)
  })

  it('with --db it is refused (the directory keeps the chain)', async () => {
    await refused('with-db.json', text, /cannot be combined with --db/, { db: join(dir, 'db') })
  })
})
