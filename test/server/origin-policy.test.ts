/**
 * Safe by default (docs/reference-rules.md#rule-origin-policy): no web page can reach the keys. Cross-origin requests and DNS-rebinding
 * attempts are refused over HTTP and WebSocket on both transports, with real sockets, and the key is never
 * returned; loopback pages and wallet extensions work; `allowOrigin` / `allowHost` open the node.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import type { Node } from '../../src/index.js'
import { OriginPolicy, isLoopbackName, isPublicBind, splitHost } from '../../src/server/origin-policy.js'
import { COW, rpc, startNode } from '../helpers/node.js'
import { rawExchange, replyBody, replyHeader, rpcPost } from '../helpers/raw-http.js'

type Transport = 'uws' | 'node'

const KEY_HEX = COW.privateKey.slice(2)
const dumpKey = { jsonrpc: '2.0', id: 1, method: 'personal_dumpRawKey', params: [COW.address] }

/** Opens a WebSocket with the given headers; resolves with the HTTP status of a refused upgrade, or the open socket. */
function openWs(url: string, headers: Record<string, string>): Promise<{ status: number; ws?: WebSocket }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers })
    ws.once('open', () => resolve({ status: 101, ws }))
    ws.once('unexpected-response', (_req, res) => {
      resolve({ status: res.statusCode ?? 0 })
      ws.terminate()
    })
    ws.once('error', (err) => reject(err))
  })
}

/** Sends one JSON-RPC request over an open WebSocket and resolves with the raw answer text. */
function wsAsk(ws: WebSocket, body: unknown): Promise<string> {
  return new Promise((resolve) => {
    ws.once('message', (d) => resolve(d.toString()))
    ws.send(JSON.stringify(body))
  })
}

describe('OriginPolicy', () => {
  it('knows loopback names and splits Host values', () => {
    for (const n of ['localhost', 'app.localhost', '127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1'])
      expect(isLoopbackName(n), n).toBe(true)
    for (const n of [
      'evil.example',
      '10.0.0.1',
      '127.0.0.1.evil.example',
      'localhost.evil.example',
      '128.0.0.1',
      '::',
      '',
    ]) {
      expect(isLoopbackName(n), n).toBe(false)
    }
    expect(splitHost('[::1]:4444')).toEqual({ name: '::1', port: '4444' })
    expect(splitHost('LocalHost:80')).toEqual({ name: 'localhost', port: '80' })
    expect(splitHost('example.com')).toEqual({ name: 'example.com', port: '' })
    expect(isPublicBind('127.0.0.1')).toBe(false)
    expect(isPublicBind('localhost')).toBe(false)
    expect(isPublicBind('0.0.0.0')).toBe(true)
    expect(isPublicBind('::')).toBe(true)
  })

  it('defaults: no Origin passes without a CORS grant; loopback pages and extensions are echoed; others refused', () => {
    const p = new OriginPolicy({ bindHost: '127.0.0.1' })
    expect(p.check('127.0.0.1:4444', '')).toEqual({ allowed: true, allowOrigin: undefined })
    expect(p.check('', '')).toEqual({ allowed: true, allowOrigin: undefined })
    for (const o of [
      'http://localhost:3000',
      'https://localhost',
      'http://127.0.0.1:5173',
      'http://[::1]:8080',
      'chrome-extension://nkbihfbeogaeaoehlefnkodbefgpgknn',
      'moz-extension://0a1b2c',
    ]) {
      expect(p.check('localhost:4444', o), o).toEqual({ allowed: true, allowOrigin: o })
    }
    for (const o of [
      'http://evil.example',
      'null',
      'file://',
      'http://localhost.evil.example',
      'ftp://localhost',
      'garbage',
    ]) {
      const d = p.check('127.0.0.1:4444', o)
      expect(d.allowed, o).toBe(false)
      if (!d.allowed) expect(d.reason).toMatch(/--allow-origin/)
    }
    const rebinding = p.check('evil.example:4444', '')
    expect(rebinding.allowed).toBe(false)
    if (!rebinding.allowed) expect(rebinding.reason).toMatch(/--allow-host evil\.example/)
    expect(p.opened).toEqual({ origins: false, hosts: false })
  })

  it('opens to listed origins and hosts, or to any with *', () => {
    const p = new OriginPolicy({
      bindHost: '127.0.0.1',
      allowOrigins: ['https://App.Example.com/'],
      allowHosts: ['host.docker.internal', 'box:8545'],
    })
    expect(p.check('host.docker.internal:4444', 'https://app.example.com')).toEqual({
      allowed: true,
      allowOrigin: 'https://app.example.com',
    })
    expect(p.check('box:8545', '').allowed).toBe(true)
    expect(p.check('box:9999', '').allowed).toBe(false)
    expect(p.check('127.0.0.1', 'https://other.example.com').allowed).toBe(false)
    expect(p.opened).toEqual({ origins: true, hosts: true })
    const any = new OriginPolicy({ bindHost: '127.0.0.1', allowOrigins: '*', allowHosts: '*' })
    expect(any.check('anything.example', 'http://evil.example')).toEqual({ allowed: true, allowOrigin: '*' })
  })

  it('accepts the bound address as Host, and every local interface address when bound to 0.0.0.0', () => {
    expect(new OriginPolicy({ bindHost: '192.168.7.7' }).check('192.168.7.7:4444', '').allowed).toBe(true)
    expect(new OriginPolicy({ bindHost: 'mybox.local' }).check('mybox.local:4444', '').allowed).toBe(true)
    expect(new OriginPolicy({ bindHost: '0.0.0.0' }).check('evil.example', '').allowed).toBe(false)
  })

  it("grants the node's own pages at an allowed Host (same origin), and nothing else with that origin", () => {
    const p = new OriginPolicy({ bindHost: '192.168.7.7' })
    expect(p.check('192.168.7.7:4444', 'http://192.168.7.7:4444')).toEqual({
      allowed: true,
      allowOrigin: 'http://192.168.7.7:4444',
    })
    expect(p.check('192.168.7.7:4444', 'http://192.168.7.7:5555').allowed).toBe(false)
    expect(p.check('192.168.7.7:4444', 'https://192.168.7.7:4444').allowed).toBe(false)
    // a rebinding page: its Host is the attacker's name, refused before the origin is looked at
    expect(p.check('evil.example:4444', 'http://evil.example:4444').allowed).toBe(false)
  })
})

describe.each<Transport>(['uws', 'node'])('%s transport: origin and host checks', (transport) => {
  let node: Node
  let open: Node
  beforeAll(async () => {
    node = await startNode({ transport })
    open = await startNode({ transport, allowOrigin: ['https://app.example.com'], allowHost: ['host.docker.internal'] })
  })
  afterAll(async () => {
    await node?.close()
    await open?.close()
  })

  it('refuses a cross-origin POST with 403, no CORS grant and no key', async () => {
    const reply = await rawExchange(node.port, rpcPost(node.port, dumpKey, { origin: 'http://evil.example' }))
    expect(reply.status).toBe(403)
    expect(replyHeader(reply, 'access-control-allow-origin')).toBeUndefined()
    expect(reply.text).not.toContain(KEY_HEX)
    expect(replyBody(reply)).toMatch(/Origin "http:\/\/evil\.example" is not allowed/)
  })

  it('refuses DNS rebinding (a foreign Host without Origin) with 403 and no key', async () => {
    const reply = await rawExchange(node.port, rpcPost(node.port, dumpKey, { host: `evil.example:${node.port}` }))
    expect(reply.status).toBe(403)
    expect(reply.text).not.toContain(KEY_HEX)
  })

  it('refuses the preflight and a send from a foreign origin; nothing is mined', async () => {
    const preflight = await rawExchange(
      node.port,
      `OPTIONS / HTTP/1.1\r\nhost: 127.0.0.1:${node.port}\r\norigin: http://evil.example\r\naccess-control-request-method: POST\r\nconnection: close\r\n\r\n`,
    )
    expect(preflight.status).toBe(403)
    expect(replyHeader(preflight, 'access-control-allow-origin')).toBeUndefined()
    const before = await rpc(node.url, 'eth_blockNumber')
    const send = {
      jsonrpc: '2.0',
      id: 2,
      method: 'eth_sendTransaction',
      params: [{ from: COW.address, to: '0x7986b3df570230288501eea3d890bd66948c9b79', value: '0x1' }],
    }
    expect((await rawExchange(node.port, rpcPost(node.port, send, { origin: 'https://evil.example' }))).status).toBe(
      403,
    )
    expect(await rpc(node.url, 'eth_blockNumber')).toBe(before)
  })

  it('serves clients without Origin, loopback pages (echoed origin) and wallet extensions', async () => {
    expect(String(await rpc(node.url, 'personal_dumpRawKey', [COW.address]))).toContain(KEY_HEX)
    for (const [host, origin] of [
      [`localhost:${node.port}`, 'http://localhost:3000'],
      [`127.0.0.1:${node.port}`, 'http://127.0.0.1:5173'],
      [`[::1]:${node.port}`, 'http://[::1]:8080'],
      [`127.0.0.1:${node.port}`, 'chrome-extension://nkbihfbeogaeaoehlefnkodbefgpgknn'],
    ]) {
      const reply = await rawExchange(node.port, rpcPost(node.port, dumpKey, { host: host!, origin: origin! }))
      expect(reply.status, origin).toBe(200)
      expect(replyHeader(reply, 'access-control-allow-origin')).toBe(origin)
      expect(replyBody(reply)).toContain(KEY_HEX)
    }
    const noOrigin = await rawExchange(node.port, rpcPost(node.port, dumpKey))
    expect(noOrigin.status).toBe(200)
    expect(replyHeader(noOrigin, 'access-control-allow-origin')).toBeUndefined()
  })

  it('refuses WebSocket upgrades from a foreign origin or a foreign Host; a loopback page connects', async () => {
    expect((await openWs(node.wsUrl, { origin: 'http://evil.example' })).status).toBe(403)
    expect((await openWs(node.wsUrl, { host: `evil.example:${node.port}` })).status).toBe(403)
    expect((await openWs(node.wsUrl, { origin: 'null' })).status).toBe(403)
    const ok = await openWs(node.wsUrl, { origin: 'http://localhost:3000' })
    expect(ok.status).toBe(101)
    expect(await wsAsk(ok.ws!, dumpKey)).toContain(KEY_HEX)
    ok.ws!.close()
    const plain = await openWs(node.wsUrl, {})
    expect(await wsAsk(plain.ws!, dumpKey)).toContain(KEY_HEX)
    plain.ws!.close()
  })

  it('allowOrigin / allowHost open the node to the listed origin and host, and to nothing else', async () => {
    const listed = await rawExchange(
      open.port,
      rpcPost(open.port, dumpKey, { origin: 'https://app.example.com', host: 'host.docker.internal:4444' }),
    )
    expect(listed.status).toBe(200)
    expect(replyHeader(listed, 'access-control-allow-origin')).toBe('https://app.example.com')
    expect(replyBody(listed)).toContain(KEY_HEX)
    expect((await rawExchange(open.port, rpcPost(open.port, dumpKey, { origin: 'https://evil.example' }))).status).toBe(
      403,
    )
    expect((await rawExchange(open.port, rpcPost(open.port, dumpKey, { host: 'evil.example' }))).status).toBe(403)
    const ws = await openWs(open.wsUrl, { origin: 'https://app.example.com', host: 'host.docker.internal' })
    expect(ws.status).toBe(101)
    expect(await wsAsk(ws.ws!, dumpKey)).toContain(KEY_HEX)
    ws.ws!.close()
  })

  it("allowOrigin '*' grants every origin with Access-Control-Allow-Origin: *", async () => {
    const any = await startNode({ transport, allowOrigin: '*' })
    try {
      const reply = await rawExchange(
        any.port,
        rpcPost(any.port, { jsonrpc: '2.0', id: 1, method: 'eth_chainId' }, { origin: 'https://anything.example' }),
      )
      expect(reply.status).toBe(200)
      expect(replyHeader(reply, 'access-control-allow-origin')).toBe('*')
      // the Host check stays on
      expect((await rawExchange(any.port, rpcPost(any.port, dumpKey, { host: 'evil.example' }))).status).toBe(403)
    } finally {
      await any.close()
    }
  })
})
