/**
 * Automined sends are answered once the transaction has executed and the block is finished right after
 * (src/chain/chain.ts Chain.submit): nothing may observe the chain in between. And concurrent
 * eth_sendTransaction calls from one account get consecutive nonces (the pending nonce is taken inside the
 * chain's queue; regression: concurrent sends could both take the same nonce, one then failing with
 * "transaction nonce too low").
 */
import http from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Wallet } from 'ethers'
import type { Node } from '../../src/index.js'
import { COW, rpc, rpcError, startNode } from '../helpers/node.js'

let node: Node
let url: string

beforeAll(async () => {
  node = await startNode()
  url = node.url
})
afterAll(() => node?.close())

/** One keep-alive connection: requests written on it go out back to back. */
function connection(target: string) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
  const u = new URL(target)
  let id = 1
  return {
    call<T = any>(
      method: string,
      params: unknown[] = [],
    ): Promise<{ result?: T; error?: { code: number; message: string } }> {
      const body = JSON.stringify({ jsonrpc: '2.0', id: id++, method, params })
      return new Promise((resolve, reject) => {
        const req = http.request(
          {
            host: u.hostname,
            port: u.port,
            path: '/',
            method: 'POST',
            agent,
            headers: { 'content-type': 'application/json' },
          },
          (res) => {
            let text = ''
            res.setEncoding('utf8')
            res.on('data', (c) => (text += c))
            res.on('end', () => resolve(JSON.parse(text)))
          },
        )
        req.on('error', reject)
        req.end(body)
      })
    },
    close: () => agent.destroy(),
  }
}

describe('automined sends', () => {
  it('the receipt, the block and the new state are there for the very next request, on any connection', async () => {
    const wallet = new Wallet(COW.privateKey)
    const a = connection(url)
    const b = connection(url)
    try {
      let nonce = Number(await rpc(url, 'eth_getTransactionCount', [COW.address, 'latest']))
      const to = Wallet.createRandom().address
      for (let i = 1; i <= 20; i++) {
        const raw = await wallet.signTransaction({
          type: 0,
          chainId: 33,
          nonce: nonce++,
          gasPrice: 0,
          gasLimit: 21_000,
          to,
          value: 1,
        })
        const before = BigInt((await b.call<string>('eth_blockNumber')).result!)
        const sent = await a.call<string>('eth_sendRawTransaction', [raw])
        // asked on the other connection the moment the answer arrived
        const [receipt, number, balance, byHash] = await Promise.all([
          b.call('eth_getTransactionReceipt', [sent.result]),
          b.call<string>('eth_blockNumber'),
          a.call<string>('eth_getBalance', [to, 'latest']),
          b.call('eth_getTransactionByHash', [sent.result]),
        ])
        expect(receipt.result?.status).toBe('0x1')
        expect(BigInt(number.result!)).toBe(before + 1n)
        expect(BigInt(receipt.result.blockNumber)).toBe(before + 1n)
        expect(BigInt(balance.result!)).toBe(BigInt(i))
        expect(byHash.result?.blockHash).toBe(receipt.result.blockHash)
      }
    } finally {
      a.close()
      b.close()
    }
  })

  it('a revert is answered with -32015 and its block is still mined', async () => {
    // init code of a contract whose every call reverts with empty data: runtime PUSH0 PUSH0 REVERT
    const deployed = await rpc(url, 'eth_sendTransaction', [
      { from: COW.address, data: '0x6003600a5f3960035ff35f5ffd', gas: '0x30d40' },
    ])
    const address = (await rpc(url, 'eth_getTransactionReceipt', [deployed])).contractAddress
    const before = BigInt(await rpc(url, 'eth_blockNumber'))
    const nonce = await rpc<string>(url, 'eth_getTransactionCount', [COW.address, 'latest'])
    const err = await rpcError(url, 'eth_sendTransaction', [{ from: COW.address, to: address, gas: '0x186a0' }])
    expect(err.code).toBe(-32015)
    expect(BigInt(await rpc(url, 'eth_blockNumber'))).toBe(before + 1n)
    const block = await rpc(url, 'eth_getBlockByNumber', ['latest', true])
    const tx = block.transactions.find((t: { from: string }) => t.from === COW.address)
    expect(tx.nonce).toBe(nonce)
    expect((await rpc(url, 'eth_getTransactionReceipt', [tx.hash])).status).toBe('0x0')
  })

  it('concurrent eth_sendTransaction calls from one account get consecutive nonces, all mined', async () => {
    const start = BigInt(await rpc(url, 'eth_getTransactionCount', [COW.address, 'latest']))
    const to = Wallet.createRandom().address
    const hashes = await Promise.all(
      Array.from({ length: 12 }, () =>
        rpc<string>(url, 'eth_sendTransaction', [{ from: COW.address, to, value: '0x1' }]),
      ),
    )
    const txs = await Promise.all(hashes.map((h) => rpc(url, 'eth_getTransactionByHash', [h])))
    expect(txs.map((t) => BigInt(t.nonce)).sort((x, y) => (x < y ? -1 : 1))).toEqual(
      Array.from({ length: 12 }, (_, i) => start + BigInt(i)),
    )
    for (const h of hashes) expect((await rpc(url, 'eth_getTransactionReceipt', [h])).status).toBe('0x1')
    expect(BigInt(await rpc(url, 'eth_getBalance', [to, 'latest']))).toBe(12n)
  })
})
