/**
 * HTTP statuses of JSON-RPC errors per compatibility profile (docs/reference-rules.md#rule-error-http-status): the
 * reference answers 400 for -32700/-32600/-32602; under `--compat hardhat|anvil` every answer is 200 with the same
 * JSON-RPC body, so that Hardhat 3's HTTP provider (which throws on any non-2xx before reading the body) shows the
 * node's message.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Node } from '../../src/index.js'
import { startNode } from '../helpers/node.js'

/** Posts a raw body; returns the HTTP status and the parsed answer. */
async function post(url: string, body: string): Promise<{ status: number; json: any }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
  return { status: res.status, json: JSON.parse(await res.text()) }
}
const req = (method: string, params: unknown[] = []) => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params })

/** Error requests, what the reference answers (status, code), and a fragment of the message. */
const CASES: { name: string; body: string; status: number; code: number; message: RegExp }[] = [
  { name: 'unparsable JSON', body: '{"jsonrpc":', status: 400, code: -32700, message: /parse error/ },
  { name: 'an empty batch', body: '[]', status: 400, code: -32600, message: /invalid request/ },
  {
    name: 'a batch over the limit',
    body: JSON.stringify(Array.from({ length: 51 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'eth_chainId' }))),
    status: 400,
    code: -32600,
    message: /max number of supported batch requests/,
  },
  {
    name: 'invalid params',
    body: req('eth_getBalance', ['0x12', 'latest']),
    status: 400,
    code: -32602,
    message: /./,
  },
  {
    name: 'a typed (EIP-1559) raw transaction',
    body: req('eth_sendRawTransaction', ['0x02f86b21808080']),
    status: 400,
    code: -32602,
    message: /typed transaction \(type 0x02, EIP-1559\) not supported: .*send legacy transactions/,
  },
  { name: 'an unknown method', body: req('no_such_method'), status: 200, code: -32601, message: /method not found/ },
]

/** The error object of an answer (a batch-limit answer has no envelope around it). */
const errorOf = (json: any) => json.error as { code: number; message: string }

for (const profile of ['reference', 'hardhat', 'anvil'] as const) {
  describe(`errors' HTTP status, ${profile === 'reference' ? 'no profile' : `--compat ${profile}`}`, () => {
    let node: Node
    let reference: Node | undefined
    beforeAll(async () => {
      node = await startNode(profile === 'reference' ? {} : { compat: profile })
      if (profile !== 'reference') reference = await startNode()
    })
    afterAll(async () => {
      await node?.close()
      await reference?.close()
    })

    for (const c of CASES) {
      it(`${c.name}: ${profile === 'reference' ? `HTTP ${c.status}` : 'HTTP 200, the same JSON-RPC error'}`, async () => {
        const r = await post(node.url, c.body)
        expect(r.status).toBe(profile === 'reference' ? c.status : 200)
        expect(errorOf(r.json).code).toBe(c.code)
        expect(errorOf(r.json).message).toMatch(c.message)
        if (reference !== undefined) expect(r.json).toEqual((await post(reference.url, c.body)).json)
      })
    }

    it('a result is HTTP 200', async () => {
      const r = await post(node.url, req('eth_chainId'))
      expect(r.status).toBe(200)
      expect(r.json.result).toBe('0x21')
    })
  })
}
