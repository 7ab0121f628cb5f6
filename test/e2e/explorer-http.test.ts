/**
 * The explorer served on the JSON-RPC port, over both transports (uWebSockets.js and node:http + ws), against real
 * nodes on port 0: the page for `/` and the deep links (`/block/…`, `/tx/…`, `/address/…`) with its CSP and
 * `no-cache`, hashed assets with their types and a year of immutable caching, gzip when accepted (the same bytes
 * every time), 404 for other paths, HEAD, the JSON endpoints (console.log lines of a mined transaction, the contract
 * of an address, 400 for malformed input), the Origin/Host checks on GET exactly as on POST, POST and WebSocket
 * JSON-RPC unchanged, the text when the explorer is not built, and `explorer: false` (405 as before). The page's
 * files come from a temporary directory (`explorerDir`), so these tests do not depend on the client build. The CLI
 * part (banner line, --no-explorer, --artifacts checks) runs bin/node-cli.js (`npm run build` first).
 */
import { request } from 'node:http'
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { gunzipSync } from 'node:zlib'
import { Interface } from 'ethers'
import WebSocket from 'ws'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { ConsoleProbe, OtsTarget } from '../../fixtures/index.js'
import type { Node } from '../../src/index.js'
import { rpc, startNode } from '../helpers/node.js'
import { killStartedClis, runCli } from '../helpers/cli.js'
import { deploy, sendTx } from '../rpc/shapes.js'

/** A reply as received: status, headers (lower-case names), raw body bytes (never decompressed). */
interface Reply {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: Buffer
}

/** One raw HTTP request (node:http: no automatic decompression, any Host). */
function send(port: number, method: string, path: string, headers: Record<string, string> = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end()
  })
}

const get = (port: number, path: string, headers: Record<string, string> = {}) => send(port, 'GET', path, headers)

/** GET of a JSON endpoint: status and the parsed body. */
async function getJson(port: number, path: string): Promise<{ status: number; value: unknown; reply: Reply }> {
  const reply = await get(port, path)
  return { status: reply.status, value: JSON.parse(reply.body.toString('utf8')), reply }
}

// the explorer's build as the client writes it (interface 1), big enough for gzip to matter
const INDEX_HTML =
  '<!doctype html><html><head><meta charset="utf-8"><title>node-cli explorer</title>' +
  '<link rel="stylesheet" href="/assets/index-3f2a1b.css"><script type="module" src="/assets/index-9c8d7e.js">' +
  '</script></head><body><div id="app"></div>' +
  '<!-- padding -->'.repeat(40) +
  '</body></html>\n'
const APP_JS = 'export const explorer = () => "' + 'block tx address '.repeat(400) + '"\n'
const APP_CSS = 'body { margin: 0; font-family: system-ui, sans-serif }\n'.repeat(50)
const LOGO_SVG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><rect width="10" height="10"/></svg>'
const FONT = Buffer.from(Array.from({ length: 600 }, (_, i) => (i * 7919) % 256))

const tmpRoots: string[] = []
/** A temporary explorer directory: index.html and assets/. */
function explorerDir(): string {
  const root = mkdtempSync(path.join(tmpdir(), 'node-cli-explorer-'))
  tmpRoots.push(root)
  mkdirSync(path.join(root, 'assets'))
  writeFileSync(path.join(root, 'index.html'), INDEX_HTML)
  writeFileSync(path.join(root, 'assets', 'index-9c8d7e.js'), APP_JS)
  writeFileSync(path.join(root, 'assets', 'index-3f2a1b.css'), APP_CSS)
  writeFileSync(path.join(root, 'assets', 'logo-1a2b3c.svg'), LOGO_SVG)
  writeFileSync(path.join(root, 'assets', 'inter-4d5e6f.woff2'), FONT)
  return root
}

/** A Hardhat artifacts/ directory holding `contract` (compiled fixture) as contracts/<name>.sol/<name>.json. */
function hardhatArtifacts(contract: typeof ConsoleProbe): string {
  const root = mkdtempSync(path.join(tmpdir(), 'node-cli-artifacts-'))
  tmpRoots.push(root)
  const dir = path.join(root, 'contracts', `${contract.contractName}.sol`)
  mkdirSync(dir, { recursive: true })
  writeFileSync(
    path.join(dir, `${contract.contractName}.json`),
    JSON.stringify({
      _format: 'hh-sol-artifact-1',
      contractName: contract.contractName,
      sourceName: `contracts/${contract.contractName}.sol`,
      abi: contract.abi,
      bytecode: contract.bytecode,
      deployedBytecode: contract.deployedBytecode,
      linkReferences: {},
      deployedLinkReferences: {},
    }),
  )
  return root
}

afterAll(() => {
  for (const root of tmpRoots) rmSync(root, { recursive: true, force: true })
})

const probe = new Interface(ConsoleProbe.abi)
const CSP_FIXED = "img-src 'self' data:; base-uri 'none'; frame-ancestors 'none'"

describe.each(['uws', 'node'] as const)('explorer over HTTP (%s transport)', (transport) => {
  let node: Node
  let port: number
  let probeAddress: string
  let txHash: string

  beforeAll(async () => {
    node = await startNode({ transport, explorerDir: explorerDir() })
    port = node.port
    expect(node.transport).toBe(transport)
    ;({ address: probeAddress } = await deploy(node.url, ConsoleProbe.bytecode))
    const receipt = await sendTx(node.url, { to: probeAddress, data: probe.encodeFunctionData('count') })
    txHash = receipt.transactionHash as string
  })
  afterAll(() => node?.close())

  it('GET / answers index.html with its type, no-cache, the CSP naming the WebSocket of its Host, nosniff', async () => {
    const r = await get(port, '/')
    expect(r.status).toBe(200)
    expect(r.headers['content-type']).toBe('text/html; charset=utf-8')
    expect(r.headers['cache-control']).toBe('no-cache')
    expect(r.headers['x-content-type-options']).toBe('nosniff')
    expect(r.headers['content-security-policy']).toBe(
      `default-src 'self'; connect-src 'self' ws://127.0.0.1:${port}; ${CSP_FIXED}`,
    )
    expect(r.headers['content-encoding']).toBeUndefined()
    expect(r.body.toString('utf8')).toBe(INDEX_HTML)
    // the CSP follows the Host the page was asked under (localhost is a loopback name)
    const viaLocalhost = await get(port, '/', { host: `localhost:${port}` })
    expect(viaLocalhost.headers['content-security-policy']).toContain(`connect-src 'self' ws://localhost:${port};`)
  })

  it('deep links load the same page (with a query string too); near misses are 404', async () => {
    for (const p of ['/block/12', `/block/0x${'ab'.repeat(32)}`, `/tx/${txHash}`, `/address/${probeAddress}`]) {
      const r = await get(port, p + (p.startsWith('/tx/') ? '?tab=logs' : ''))
      expect(r.status, p).toBe(200)
      expect(r.headers['content-type'], p).toBe('text/html; charset=utf-8')
      expect(r.body.toString('utf8'), p).toBe(INDEX_HTML)
    }
    for (const p of ['/block', '/nope', '/index.html', '/assets', '/explorer', '/favicon.ico']) {
      const r = await get(port, p)
      expect(r.status, p).toBe(404)
      expect(r.headers['content-type'], p).toBe('text/plain; charset=utf-8')
      expect(r.headers['x-content-type-options'], p).toBe('nosniff')
    }
  })

  it('assets: their types and a year of immutable caching; missing or unsafe names are 404', async () => {
    const cases: [string, string, string | Buffer][] = [
      ['/assets/index-9c8d7e.js', 'text/javascript; charset=utf-8', APP_JS],
      ['/assets/index-3f2a1b.css', 'text/css; charset=utf-8', APP_CSS],
      ['/assets/logo-1a2b3c.svg', 'image/svg+xml', LOGO_SVG],
      ['/assets/inter-4d5e6f.woff2', 'font/woff2', FONT],
    ]
    for (const [p, type, content] of cases) {
      const r = await get(port, p)
      expect(r.status, p).toBe(200)
      expect(r.headers['content-type'], p).toBe(type)
      expect(r.headers['cache-control'], p).toBe('public, max-age=31536000, immutable')
      expect(r.headers['x-content-type-options'], p).toBe('nosniff')
      expect(r.headers['content-security-policy'], p).toBeUndefined()
      expect(r.body.equals(Buffer.from(content)), p).toBe(true)
    }
    for (const p of [
      '/assets/missing-000000.js',
      '/assets/',
      '/assets/..%2Findex.html',
      '/assets/.hidden',
      '/assets/a/b.js',
    ]) {
      expect((await get(port, p)).status, p).toBe(404)
    }
  })

  it('gzip when Accept-Encoding allows it, the same bytes every time; identity otherwise; fonts never', async () => {
    const gz1 = await get(port, '/assets/index-9c8d7e.js', { 'accept-encoding': 'br, gzip, deflate' })
    expect(gz1.headers['content-encoding']).toBe('gzip')
    expect(gz1.headers.vary).toBe('Accept-Encoding')
    expect(gz1.body.length).toBeLessThan(APP_JS.length / 5)
    expect(gunzipSync(gz1.body).toString('utf8')).toBe(APP_JS)
    const gz2 = await get(port, '/assets/index-9c8d7e.js', { 'accept-encoding': 'gzip' })
    expect(gz2.body.equals(gz1.body)).toBe(true) // compressed once, kept
    const page = await get(port, '/tx/0x01', { 'accept-encoding': 'gzip;q=0.5' })
    expect(page.headers['content-encoding']).toBe('gzip')
    expect(page.headers['content-security-policy']).toContain(`ws://127.0.0.1:${port}`)
    expect(gunzipSync(page.body).toString('utf8')).toBe(INDEX_HTML)
    for (const ae of ['', 'identity', 'gzip;q=0', 'br', 'deflate, gzip;q=0']) {
      const r = await get(port, '/assets/index-9c8d7e.js', ae === '' ? {} : { 'accept-encoding': ae })
      expect(r.headers['content-encoding'], ae).toBeUndefined()
      expect(r.body.toString('utf8'), ae).toBe(APP_JS)
    }
    expect((await get(port, '/assets/index-3f2a1b.css', { 'accept-encoding': '*' })).headers['content-encoding']).toBe(
      'gzip',
    )
    const font = await get(port, '/assets/inter-4d5e6f.woff2', { 'accept-encoding': 'gzip' })
    expect(font.headers['content-encoding']).toBeUndefined()
    expect(font.body.equals(FONT)).toBe(true)
  })

  it('HEAD answers the headers without a body', async () => {
    const r = await send(port, 'HEAD', '/address/0x0000000000000000000000000000000001000008')
    expect(r.status).toBe(200)
    expect(r.headers['content-type']).toBe('text/html; charset=utf-8')
    expect(r.headers['content-security-policy']).toContain("default-src 'self'")
    expect(r.body.length).toBe(0)
    const json = await send(port, 'HEAD', `/explorer-api/console/${txHash}`)
    expect(json.status).toBe(200)
    expect(json.headers['content-type']).toBe('application/json')
    expect(json.body.length).toBe(0)
    expect((await send(port, 'HEAD', '/nope')).status).toBe(404)
  })

  it('/explorer-api/console/<hash>: the lines the mined transaction printed, null for others, 400 when malformed', async () => {
    const lines = await getJson(port, `/explorer-api/console/${txHash}`)
    expect(lines.status).toBe(200)
    expect(lines.value).toEqual(['count now 1'])
    expect(lines.reply.headers['content-type']).toBe('application/json')
    expect(lines.reply.headers['cache-control']).toBe('no-store')
    expect(lines.reply.headers['x-content-type-options']).toBe('nosniff')
    // any case of the hash
    expect((await getJson(port, `/explorer-api/console/${txHash.toUpperCase().replace('0X', '0x')}`)).value).toEqual([
      'count now 1',
    ])
    // a transaction that printed nothing: the deployment
    const other = await deploy(node.url, OtsTarget.bytecode)
    expect((await getJson(port, `/explorer-api/console/${other.receipt.transactionHash}`)).value).toBeNull()
    expect((await getJson(port, `/explorer-api/console/0x${'00'.repeat(32)}`)).value).toBeNull()
    // an eth_call prints too, but is no mined transaction: nothing kept
    await rpc(node.url, 'eth_call', [{ to: probeAddress, data: probe.encodeFunctionData('all') }, 'latest'])
    for (const bad of ['0x1234', txHash.slice(2), txHash + '00', `0x${'zz'.repeat(32)}`, '']) {
      const r = await getJson(port, `/explorer-api/console/${bad}`)
      expect(r.status, bad).toBe(400)
      expect(r.value, bad).toEqual({ error: expect.stringContaining('transaction hash') })
    }
  })

  it('/explorer-api/contract/<address>: null without artifacts or code; 400 when malformed; 404 for other endpoints', async () => {
    const r = await getJson(port, `/explorer-api/contract/${probeAddress}`)
    expect(r.status).toBe(200)
    expect(r.value).toBeNull()
    expect(r.reply.headers['cache-control']).toBe('no-store')
    expect((await getJson(port, `/explorer-api/contract/0x${'11'.repeat(20)}`)).value).toBeNull()
    for (const bad of ['0x12', probeAddress.slice(2), probeAddress + '0', 'cow']) {
      const b = await getJson(port, `/explorer-api/contract/${bad}`)
      expect(b.status, bad).toBe(400)
      expect(b.value, bad).toEqual({ error: expect.stringContaining('address') })
    }
    for (const p of ['/explorer-api/', '/explorer-api/nothing/0x00', '/explorer-api/contract']) {
      const n = await getJson(port, p)
      expect(n.status, p).toBe(404)
      expect(n.value, p).toEqual({ error: expect.any(String) })
    }
  })

  it('the Origin/Host checks apply to GET as to POST', async () => {
    for (const p of ['/', '/assets/index-9c8d7e.js', `/explorer-api/console/${txHash}`]) {
      const host = await get(port, p, { host: 'evil.example' })
      expect(host.status, p).toBe(403)
      expect(host.body.toString('utf8'), p).toContain('--allow-host evil.example')
      const origin = await get(port, p, { origin: 'https://evil.example' })
      expect(origin.status, p).toBe(403)
      expect(origin.body.toString('utf8'), p).toContain('--allow-origin https://evil.example')
    }
    // DNS rebinding: a name resolving to 127.0.0.1 is same-origin for the browser; its Host gives it away
    expect(
      (await get(port, '/', { host: `rebind.example:${port}`, origin: `http://rebind.example:${port}` })).status,
    ).toBe(403)
    // a loopback page is granted CORS on GET as on POST
    const allowed = await get(port, `/explorer-api/console/${txHash}`, { origin: 'http://localhost:3000' })
    expect(allowed.status).toBe(200)
    expect(allowed.headers['access-control-allow-origin']).toBe('http://localhost:3000')
    expect(allowed.headers.vary).toMatch(/^origin$/i)
    // the page's own origin (what the browser sends on the explorer's WebSocket and POSTs)
    expect((await get(port, '/', { origin: `http://127.0.0.1:${port}` })).status).toBe(200)
  })

  it('POST JSON-RPC and the WebSocket are unchanged; other methods 405 with GET in Allow', async () => {
    expect(await rpc(node.url, 'eth_chainId')).toBe('0x21')
    expect(await rpc(node.url + '/block/1', 'eth_chainId')).toBe('0x21') // POST on any path
    const ws = new WebSocket(node.wsUrl)
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject))
    const answer = new Promise<string>((resolve) => ws.once('message', (d) => resolve(String(d))))
    ws.send('{"jsonrpc":"2.0","id":7,"method":"eth_chainId","params":[]}')
    expect(JSON.parse(await answer)).toEqual({ jsonrpc: '2.0', id: 7, result: '0x21' })
    ws.close()
    const put = await send(port, 'PUT', '/')
    expect(put.status).toBe(405)
    expect(put.headers.allow).toBe('GET, HEAD, POST, OPTIONS')
  })
})

describe.each(['uws', 'node'] as const)('explorer switched off or not built (%s transport)', (transport) => {
  const nodes: Node[] = []
  afterAll(async () => {
    for (const n of nodes) await n.close()
  })

  it('explorer: false: every GET answers 405 as before', async () => {
    const node = await startNode({ transport, explorer: false, explorerDir: explorerDir() })
    nodes.push(node)
    for (const p of ['/', '/tx/0x01', '/assets/index-9c8d7e.js', `/explorer-api/console/0x${'00'.repeat(32)}`]) {
      const r = await get(node.port, p)
      expect(r.status, p).toBe(405)
      expect(r.headers.allow, p).toBe('POST, OPTIONS')
      expect(r.body.toString('utf8'), p).toContain('Method Not Allowed')
    }
    expect((await send(node.port, 'HEAD', '/')).status).toBe(405)
    expect(await rpc(node.url, 'eth_chainId')).toBe('0x21')
  })

  it('no built explorer: the pages answer a text saying how to build it; the endpoints still answer', async () => {
    const missing = path.join(tmpdir(), `node-cli-no-explorer-${process.pid}-${transport}`)
    const node = await startNode({ transport, explorerDir: missing })
    nodes.push(node)
    for (const p of ['/', '/block/1']) {
      const r = await get(node.port, p)
      expect(r.status, p).toBe(200)
      expect(r.headers['content-type'], p).toBe('text/plain; charset=utf-8')
      expect(r.body.toString('utf8'), p).toContain('npm run build')
      expect(r.body.toString('utf8'), p).toContain(missing)
    }
    expect((await get(node.port, '/assets/index-9c8d7e.js')).status).toBe(404)
    expect((await getJson(node.port, `/explorer-api/console/0x${'00'.repeat(32)}`)).value).toBeNull()
    // built later: served without a restart
    mkdirSync(missing)
    tmpRoots.push(missing)
    writeFileSync(path.join(missing, 'index.html'), INDEX_HTML)
    expect((await get(node.port, '/')).body.toString('utf8')).toBe(INDEX_HTML)
  })
})

describe('explorer artifacts', () => {
  const registryLanded = existsSync(
    new URL('../../src/explorer-server/artifacts/artifact-registry.ts', import.meta.url),
  )

  it('createNode refuses artifacts with explorer: false', async () => {
    await expect(startNode({ explorer: false, artifacts: [tmpdir()] })).rejects.toThrow(/--no-explorer/)
  })

  it.skipIf(!registryLanded)('a missing artifacts directory stops the start', async () => {
    await expect(startNode({ artifacts: [path.join(tmpdir(), 'node-cli-no-such-artifacts')] })).rejects.toThrow(
      /node-cli-no-such-artifacts/,
    )
  })

  it.skipIf(!registryLanded)(
    '/explorer-api/contract names a deployed contract from a Hardhat artifacts dir',
    async () => {
      const node = await startNode({ artifacts: [hardhatArtifacts(ConsoleProbe)], explorerDir: explorerDir() })
      try {
        const { address } = await deploy(node.url, ConsoleProbe.bytecode)
        const r = await getJson(node.port, `/explorer-api/contract/${address}`)
        expect(r.status).toBe(200)
        expect(r.value).toEqual({ name: 'ConsoleProbe', source: 'contracts/ConsoleProbe.sol', abi: ConsoleProbe.abi })
        // another contract's code: not named
        const other = await deploy(node.url, OtsTarget.bytecode)
        expect((await getJson(node.port, `/explorer-api/contract/${other.address}`)).value).toBeNull()
      } finally {
        await node.close()
      }
    },
  )
})

describe('the CLI', () => {
  afterEach(killStartedClis)

  it('prints the explorer URL and serves it; --no-explorer turns it off', async () => {
    const on = runCli(['--port', '0'])
    const [, url] = await on.waitFor(/Listening on (http:\/\/\S+) and/)
    const port = Number(new URL(url!).port)
    expect(on.output()).toMatch(new RegExp(`Explorer +http://127\\.0\\.0\\.1:${port}/\\n`))
    expect((await get(port, '/')).status).toBe(200)
    on.child.kill('SIGINT')
    const off = runCli(['--port', '0', '--no-explorer'])
    const [, offUrl] = await off.waitFor(/Listening on (http:\/\/\S+) and/)
    expect(off.output()).not.toContain('Explorer')
    expect((await get(Number(new URL(offUrl!).port), '/')).status).toBe(405)
  })

  it('--silent still captures console.log lines for the explorer; --no-console-log does not', async () => {
    for (const [flags, expected] of [
      [['--silent'], ['count now 1']],
      [['--silent', '--no-console-log'], null],
    ] as const) {
      const cli = runCli(['--port', '0', ...flags])
      const [url] = await cli.waitFor(/http:\/\/127\.0\.0\.1:\d+/)
      const { address } = await deploy(url!, ConsoleProbe.bytecode)
      const receipt = await sendTx(url!, { to: address, data: probe.encodeFunctionData('count') })
      const r = await getJson(Number(new URL(url!).port), `/explorer-api/console/${receipt.transactionHash}`)
      expect(r.value, flags.join(' ')).toEqual(expected)
      expect(cli.output(), flags.join(' ')).not.toContain('count now')
      cli.child.kill('SIGINT')
    }
  })

  it('--artifacts: a missing directory stops the start with a clear message; not with --no-explorer', async () => {
    const missing = runCli(['--port', '0', '--artifacts', '/nonexistent/artifacts'])
    await expect(missing.waitFor(/never/)).rejects.toThrow(/--artifacts \/nonexistent\/artifacts: no such directory/)
    expect(missing.child.exitCode).not.toBe(0)
    const both = runCli(['--port', '0', '--no-explorer', '--artifacts', tmpdir()])
    await expect(both.waitFor(/never/)).rejects.toThrow(/drop --no-explorer/)
  })
})
