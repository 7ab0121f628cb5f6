/**
 * The JSON-RPC 2.0 envelope over real HTTP: ids, batches (mixed results, notifications, limits), notifications,
 * parse and request errors with their HTTP statuses, unknown and unavailable methods (spec §1, §7;
 * docs/reference-rules.md#rule-error-codes, docs/reference-rules.md#rule-error-http-status, docs/reference-rules.md#rule-error-envelope-limits).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Node } from '../../src/index.js'
import { COW, rpcRaw, startNode } from '../helpers/node.js'

let node: Node
let url: string

beforeAll(async () => {
  node = await startNode()
  url = node.url
})
afterAll(() => node?.close())

/** Posts a raw body; returns the HTTP status and the body text. */
async function post(body: string): Promise<{ status: number; text: string; json: () => any }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
  const text = await res.text()
  return { status: res.status, text, json: () => JSON.parse(text) }
}
const postJson = (value: unknown) => post(JSON.stringify(value))
const req = (id: unknown, method: string, params: unknown[] = []) => ({ jsonrpc: '2.0', id, method, params })

describe('single requests', () => {
  it('echoes numeric, string and null ids', async () => {
    expect((await postJson(req(41, 'eth_chainId'))).json()).toEqual({ jsonrpc: '2.0', id: 41, result: '0x21' })
    expect((await postJson(req('abc', 'eth_chainId'))).json()).toEqual({ jsonrpc: '2.0', id: 'abc', result: '0x21' })
    expect((await postJson(req(null, 'eth_chainId'))).json()).toEqual({ jsonrpc: '2.0', id: null, result: '0x21' })
  })

  it('a null result is serialized as result: null', async () => {
    const r = await postJson(req(1, 'eth_getBlockByNumber', ['0x99', false]))
    expect(r.status).toBe(200)
    expect(r.json()).toEqual({ jsonrpc: '2.0', id: 1, result: null })
  })

  it('a notification (no id) is executed and answered with an empty body', async () => {
    const r = await postJson({ jsonrpc: '2.0', method: 'eth_chainId', params: [] })
    expect(r.status).toBe(200)
    expect(r.text).toBe('')
    // an error in a notification is not reported either
    const e = await postJson({ jsonrpc: '2.0', method: 'no_such_method', params: [] })
    expect(e.text).toBe('')
  })

  it('a notification still has its effect', async () => {
    const before = (await rpcRaw(url, 'eth_blockNumber')).body.result
    const r = await postJson({
      jsonrpc: '2.0',
      method: 'eth_sendTransaction',
      params: [{ from: COW.address, to: COW.address }],
    })
    expect(r.text).toBe('')
    const after = (await rpcRaw(url, 'eth_blockNumber')).body.result
    expect(BigInt(after as string)).toBe(BigInt(before as string) + 1n)
  })

  it('invalid JSON is -32700 with HTTP 400 and id null', async () => {
    for (const body of ['{"jsonrpc":"2.0",', 'not json', '']) {
      const r = await post(body)
      expect(r.status).toBe(400)
      const j = r.json()
      expect(j.jsonrpc).toBe('2.0')
      expect(j.id).toBeNull()
      expect(j.error.code).toBe(-32700)
    }
  })

  it.each([
    ['a number', 42],
    ['a string', 'eth_chainId'],
    ['null', null],
    ['a missing method', { jsonrpc: '2.0', id: 1, params: [] }],
    ['a non-string method', { jsonrpc: '2.0', id: 1, method: 5, params: [] }],
    ['a wrong jsonrpc version', { jsonrpc: '1.0', id: 1, method: 'eth_chainId', params: [] }],
    ['params that are an object', { jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: { a: 1 } }],
    ['an object id', { jsonrpc: '2.0', id: { x: 1 }, method: 'eth_chainId', params: [] }],
  ])('%s is -32600 "invalid request" with HTTP 400', async (_what, body) => {
    const r = await postJson(body)
    expect(r.status).toBe(400)
    const j = r.json()
    expect(j.error).toEqual({ code: -32600, message: 'invalid request' })
  })

  it('keeps the id on an invalid request when the id itself is valid', async () => {
    const j = (await postJson({ jsonrpc: '2.0', id: 9, method: 7 })).json()
    expect(j.id).toBe(9)
  })

  it('an unknown method is -32601 "method not found" (HTTP 200)', async () => {
    const { status, body } = await rpcRaw(url, 'eth_notAMethod', [])
    expect(status).toBe(200)
    expect(body.error).toEqual({ code: -32601, message: 'method not found' })
  })

  it.each(['eth_compileSolidity', 'eth_compileLLL', 'eth_compileSerpent', 'eth_getCompilers'])(
    '%s is -32601 with the reason (no compilers)',
    async (method) => {
      const { body } = await rpcRaw(url, method, ['contract A {}'])
      expect(body.error!.code).toBe(-32601)
      expect(body.error!.message).toBe(
        `the method ${method} is not available: the node has no compilers, for security reasons`,
      )
    },
  )

  it('deprecated db_ and Whisper shh_ methods are -32601 with their reasons', async () => {
    expect((await rpcRaw(url, 'db_getString', [])).body.error).toEqual({
      code: -32601,
      message: 'the method db_getString is not available: the db_ methods are deprecated',
    })
    expect((await rpcRaw(url, 'shh_version', [])).body.error).toEqual({
      code: -32601,
      message: 'the method shh_version is not available: the Whisper protocol is not supported',
    })
  })

  it('invalid params carry HTTP 400; other errors HTTP 200', async () => {
    expect((await rpcRaw(url, 'eth_getBalance', ['0x12'])).status).toBe(400)
    expect((await rpcRaw(url, 'eth_call', [{ to: COW.address, data: '0x' }, '0x999'])).status).toBe(400) // -32600
    expect((await rpcRaw(url, 'eth_sendRawTransaction', ['0xc0'])).status).toBe(400)
  })
})

describe('batches', () => {
  it('answers each request in order, mixing results and errors, skipping notifications', async () => {
    const r = await postJson([
      req(1, 'eth_chainId'),
      req(2, 'no_such_method'),
      req(3, 'eth_getBalance', ['0x1234', 'latest']),
      { jsonrpc: '2.0', method: 'eth_chainId', params: [] },
      req('four', 'net_version'),
      42,
    ])
    expect(r.status).toBe(200)
    expect(r.json()).toEqual([
      { jsonrpc: '2.0', id: 1, result: '0x21' },
      { jsonrpc: '2.0', id: 2, error: { code: -32601, message: 'method not found' } },
      {
        jsonrpc: '2.0',
        id: 3,
        error: { code: -32602, message: 'invalid argument 0: hex string has length 4, want 40 for RSK address' },
      },
      { jsonrpc: '2.0', id: 'four', result: '33' },
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'invalid request' } },
    ])
  })

  it('a batch of only notifications answers an empty body', async () => {
    const r = await postJson([
      { jsonrpc: '2.0', method: 'eth_chainId', params: [] },
      { jsonrpc: '2.0', method: 'net_version', params: [] },
    ])
    expect(r.status).toBe(200)
    expect(r.text).toBe('')
  })

  it('an empty batch is -32600 with HTTP 400', async () => {
    const r = await postJson([])
    expect(r.status).toBe(400)
    expect(r.json()).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'invalid request' } })
  })

  it('50 requests are served', async () => {
    const batch = Array.from({ length: 50 }, (_, i) => req(i, 'eth_chainId'))
    const r = await postJson(batch)
    expect(r.status).toBe(200)
    const answers = r.json()
    expect(answers).toHaveLength(50)
    expect(answers.map((a: { id: number }) => a.id)).toEqual(batch.map((b) => b.id))
  })

  it('more than 50 is the reference error without jsonrpc or id', async () => {
    const r = await postJson(Array.from({ length: 51 }, (_, i) => req(i, 'eth_chainId')))
    expect(r.json()).toEqual({
      error: {
        code: -32600,
        message: 'Cannot dispatch batch requests. 50 is the max number of supported batch requests',
      },
    })
    expect(r.status).toBe(400)
  })

  it('a batch runs its requests against the chain (send then read)', async () => {
    const r = await postJson([req(1, 'eth_blockNumber'), req(2, 'eth_getTransactionCount', [COW.address, 'latest'])])
    const [bn, count] = r.json()
    expect(bn.result).toMatch(/^0x[0-9a-f]+$/)
    expect(count.result).toMatch(/^0x[0-9a-f]+$/)
  })
})
