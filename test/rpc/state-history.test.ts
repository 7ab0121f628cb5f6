/**
 * --state-history: recent block states stay readable, older ones answer the reference's "State not found"
 * (-32600), genesis and snapshot states are kept; --client-version overrides web3_clientVersion.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Node } from '../../src/index.js'
import { COW, COW1, rpc, rpcError, startNode } from '../helpers/node.js'

const q = (n: number | bigint) => '0x' + n.toString(16)

describe('state history', () => {
  let node: Node
  let url: string
  const send = () => rpc(url, 'eth_sendTransaction', [{ from: COW.address, to: COW1.address, value: '0x1' }])
  beforeAll(async () => {
    node = await startNode({ stateHistory: 5, clientVersion: 'HardhatNetwork/2.22.0/node-cli' })
    url = node.url
  })
  afterAll(() => node.close())

  it('keeps the last N block states, forgets older ones (-32600 "State not found…"), keeps genesis', async () => {
    // 5 blocks of history (+ a little slack for in-place changes and pending previews): mine well past it
    for (let i = 0; i < 30; i++) await send()
    const head = BigInt(await rpc(url, 'eth_blockNumber'))
    const latest = BigInt(await rpc(url, 'eth_getBalance', [COW1.address, 'latest']))
    expect(BigInt(await rpc(url, 'eth_getBalance', [COW1.address, q(head - 2n)]))).toBe(latest - 2n)
    const old = await rpc(url, 'eth_getBlockByNumber', ['0x2', false])
    const e = await rpcError(url, 'eth_getBalance', [COW1.address, '0x2'])
    expect(e.code).toBe(-32600)
    expect(e.message).toBe(`State not found for block with hash ${old.hash}`)
    expect((await rpcError(url, 'eth_call', [{ to: COW1.address }, '0x2'])).code).toBe(-32600)
    // proofs and raw storage reads go through the same check (they read past it before)
    for (const [method, params] of [
      ['eth_getProof', [COW1.address, ['0x0'], '0x2']],
      ['ext_getStorageBytesAt', [COW1.address, '0x00', '0x2']],
    ] as const) {
      const err = await rpcError(url, method, [...params])
      expect(err, method).toMatchObject({ code: -32600, message: `State not found for block with hash ${old.hash}` })
    }
    expect((await rpc(url, 'eth_getProof', [COW1.address, [], q(head - 2n)])).balance).toBe(q(latest - 2n))
    // genesis stays readable
    expect(BigInt(await rpc(url, 'eth_getBalance', [COW1.address, '0x0']))).toBe(10n ** 30n)
    // blocks, transactions and receipts of old blocks are still served
    expect((await rpc(url, 'eth_getBlockByNumber', ['0x2', true])).transactions.length).toBeGreaterThan(0)
  })

  it('a snapshot state survives any number of blocks and can be reverted to', async () => {
    const before = BigInt(await rpc(url, 'eth_getBalance', [COW1.address, 'latest']))
    const id = await rpc<string>(url, 'evm_snapshot')
    for (let i = 0; i < 30; i++) await send()
    expect(await rpc(url, 'evm_revert', [id])).toBe(true)
    expect(BigInt(await rpc(url, 'eth_getBalance', [COW1.address, 'latest']))).toBe(before)
    await send()
    expect(BigInt(await rpc(url, 'eth_getBalance', [COW1.address, 'latest']))).toBe(before + 1n)
  })

  it('--client-version overrides web3_clientVersion', async () => {
    expect(await rpc(url, 'web3_clientVersion')).toBe('HardhatNetwork/2.22.0/node-cli')
  })
})
