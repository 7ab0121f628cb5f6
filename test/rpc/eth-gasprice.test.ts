/**
 * A node with a minimum gas price (reference miner.minGasPrice, RSKIP09): eth_gasPrice = best block mgp × 1.1,
 * blocks step their minimumGasPrice toward the target by 1 % (≥ 1 wei), BASEFEE = the block mgp, and the pool
 * rejects a gas price under the block's minimum (-32010)
 * (docs/reference-rules.md#rule-derived-header-values, docs/reference-rules.md#rule-pool-validation, docs/reference-rules.md#rule-error-pool).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Interface, Wallet } from 'ethers'
import type { Node } from '../../src/index.js'
import { Probe } from '../../fixtures/index.js'
import { COW, COW1, internals, rpc, rpcError, startNode } from '../helpers/node.js'
import { q, word } from './shapes.js'

const probe = new Interface(Probe.abi)
const cow = new Wallet(COW.privateKey)

let node: Node
let url: string
let probeAddress: string

const nonce = async () => Number(await rpc(url, 'eth_getTransactionCount', [COW.address, 'latest']))
const sign = async (gasPrice: bigint, over: Record<string, unknown> = {}) =>
  cow.signTransaction({
    type: 0,
    chainId: 33,
    nonce: await nonce(),
    gasPrice,
    gasLimit: 21_000,
    to: COW1.address,
    value: 1,
    ...over,
  })

beforeAll(async () => {
  node = await startNode({ minGasPrice: 1000n })
  url = node.url
})
afterAll(() => node?.close())

describe('minimum gas price', () => {
  it('genesis mgp is 0, so eth_gasPrice starts at 0x0 and the next block asks for 1 wei', async () => {
    expect(await rpc(url, 'eth_gasPrice')).toBe('0x0')
    expect((await rpc(url, 'eth_getBlockByNumber', ['latest', false])).minimumGasPrice).toBe('0x0')
    expect((await rpc(url, 'eth_getBlockByNumber', ['pending', false])).minimumGasPrice).toBe('0x1')
  })

  it("a gas price under the block's minimum is -32010 and mines nothing", async () => {
    const e = await rpcError(url, 'eth_sendRawTransaction', [await sign(0n)])
    expect(e).toEqual({ code: -32010, message: "transaction's gas price lower than block's minimum", status: 200 })
    const e2 = await rpcError(url, 'eth_sendTransaction', [{ from: COW.address, to: COW1.address }])
    expect(e2.message).toBe("transaction's gas price lower than block's minimum")
    expect(await rpc(url, 'eth_blockNumber')).toBe('0x0')
  })

  it('a tx paying the minimum is mined; fees = gasUsed · gasPrice', async () => {
    const raw = await sign(1n)
    const hash = await rpc<string>(url, 'eth_sendRawTransaction', [raw])
    const receipt = await rpc(url, 'eth_getTransactionReceipt', [hash])
    expect(receipt.status).toBe('0x1')
    expect(receipt.effectiveGasPrice).toBe('0x1')
    const block = await rpc(url, 'eth_getBlockByNumber', ['latest', false])
    expect(block.minimumGasPrice).toBe('0x1')
    expect(block.paidFees).toBe(q(21_000))
  })

  it('blocks step the mgp toward the target and eth_gasPrice is mgp × 1.1', async () => {
    const receipt = await rpc(url, 'eth_getTransactionReceipt', [
      await rpc(url, 'eth_sendTransaction', [
        { from: COW.address, data: Probe.bytecode, gas: q(3_000_000), gasPrice: '0x2' },
      ]),
    ])
    probeAddress = receipt.contractAddress
    expect((await rpc(url, 'eth_getBlockByNumber', ['latest', false])).minimumGasPrice).toBe('0x2')
    // setup only: empty blocks straight on the chain
    for (let i = 0; i < 98; i++) await internals(node).chain.mineEmpty()
    const head = await rpc(url, 'eth_getBlockByNumber', ['latest', false])
    expect(head.number).toBe(q(100))
    expect(head.minimumGasPrice).toBe(q(100))
    expect(await rpc(url, 'eth_gasPrice')).toBe(q(110))
    await internals(node).chain.mineEmpty()
    expect((await rpc(url, 'eth_getBlockByNumber', ['latest', false])).minimumGasPrice).toBe(q(101)) // +1 %
    expect((await rpc(url, 'eth_getBlockByNumber', ['pending', false])).minimumGasPrice).toBe(q(102))
  })

  it('BASEFEE is the block minimumGasPrice (latest, a past block, pending)', async () => {
    const call = (block: string) =>
      rpc(url, 'eth_call', [{ to: probeAddress, data: probe.encodeFunctionData('baseFee') }, block])
    expect(await call('latest')).toBe(word(101))
    expect(await call('0x2')).toBe(word(2))
    expect(await call('pending')).toBe(word(102))
  })

  it('insufficient funds is reported before a low gas price (reference validator order)', async () => {
    const poor = Wallet.createRandom()
    await rpc(url, 'eth_sendTransaction', [{ from: COW.address, to: poor.address, value: q(1000), gasPrice: q(200) }])
    // next block's mgp is 103; gasPrice 100 is under it and 100 · 21000 > 1000
    const raw = await poor.signTransaction({
      type: 0,
      chainId: 33,
      nonce: 0,
      gasPrice: 100,
      gasLimit: 21_000,
      to: COW1.address,
    })
    const e = await rpcError(url, 'eth_sendRawTransaction', [raw])
    expect(e).toEqual({ code: -32010, message: 'insufficient funds', status: 200 })
  })

  it('eth_call and eth_estimateGas with a gasPrice do not need the sender to pay for gas', async () => {
    const poor = Wallet.createRandom().address
    const data = probe.encodeFunctionData('gasPrice')
    expect(await rpc(url, 'eth_call', [{ from: poor, to: probeAddress, data, gasPrice: q(500) }, 'latest'])).toBe(
      word(500),
    )
    expect(
      BigInt(await rpc(url, 'eth_estimateGas', [{ from: poor, to: probeAddress, data, gasPrice: q(500) }])),
    ).toBeGreaterThan(21_000n)
  })
})
