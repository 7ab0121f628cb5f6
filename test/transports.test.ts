/**
 * The same node behaviour over both transports (uWebSockets.js and the node:http + ws fallback).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import type { Node } from '../src/index.js'
import { rpc, rpcRaw, startNode } from './helpers/node.js'

describe.each(['uws', 'node'] as const)('createNode over %s', (transport) => {
  let node: Node
  beforeAll(async () => {
    node = await startNode({ transport })
  })
  afterAll(() => node.close())

  it('serves the requested transport', () => {
    expect(node.transport).toBe(transport)
  })

  it('answers HTTP on / and on /<API_KEY>', async () => {
    expect(await rpc(node.url, 'eth_chainId')).toBe('0x21')
    expect(await rpc(node.url + '/some-api-key', 'net_version')).toBe('33')
  })

  it('answers -32602 with HTTP 400 and -32601 with 200, as the reference', async () => {
    const bad = await rpcRaw(node.url, 'eth_getBalance', ['0x12'])
    expect(bad.status).toBe(400)
    expect(bad.body.error?.code).toBe(-32602)
    const unknown = await rpcRaw(node.url, 'eth_nope')
    expect(unknown.status).toBe(200)
    expect(unknown.body.error?.code).toBe(-32601)
  })

  it('answers over WebSocket on any path', async () => {
    const ws = new WebSocket(node.wsUrl + '/key')
    await new Promise((r, j) => ws.once('open', r).once('error', j))
    const answer = new Promise<string>((r) => ws.once('message', (d) => r(d.toString())))
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'eth_chainId', params: [] }))
    expect(JSON.parse(await answer)).toEqual({ jsonrpc: '2.0', id: 7, result: '0x21' })
    ws.close()
  })

  it('the in-process EIP-1193 provider answers like the server', async () => {
    expect(await node.provider.request({ method: 'eth_chainId' })).toBe('0x21')
    await expect(node.provider.request({ method: 'eth_nope' })).rejects.toMatchObject({ code: -32601 })
  })
})
