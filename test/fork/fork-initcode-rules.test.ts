/**
 * Init code over 49 152 bytes on a fork, by the height of the block (docs/reference-rules.md#rule-gas-activations): a
 * node-cli presented as network 31 by the reference-like proxy, forked at its genesis, with RSKIP438 moved to
 * block 5. CREATE / CREATE2 from a contract with oversized init code create the contract below that height and fail
 * the frame (all its gas) from it. A transaction sent with eth_sendTransaction is checked against the rules of the
 * block it goes in, also after an evm_revert from above the height to below it (whatever rules the last execution
 * left on the node).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Node } from '../../src/index.js'
import { COW, rpc, rpcError, startNode } from '../helpers/node.js'
import { closeForkTest, startFork } from '../helpers/fork.js'
import { startRskjProxy, type RskjProxy } from '../helpers/rskj-proxy.js'

let remote: Node
let proxy: RskjProxy
let fork: Node
// a contract that copies its call data to memory, CREATEs a contract with it as init code and returns the address
const CREATE_RUNTIME = '366000600037366000600' + '0f0' + '60005260206000f3'
// the same with CREATE2 (salt 0)
const CREATE2_RUNTIME = '3660006000376000366000600' + '0f5' + '60005260206000f3'
// one byte over the RSKIP438 limit, and the limit itself (zero bytes: STOP, an empty contract)
const LARGE_INIT = '0x' + '00'.repeat(49_153)
const LIMIT_INIT = '0x' + '00'.repeat(49_152)
const GAS = 1_000_000n
let createFactory: string
let create2Factory: string
let snapshot: string

interface Receipt {
  status: string
  blockNumber: string
  gasUsed: string
  contractAddress: string | null
}

/** Init code returning `runtime` (hex without 0x) as the code of the new contract. */
function deployCode(runtime: string): string {
  const len = (runtime.length / 2).toString(16).padStart(2, '0')
  return '0x60' + len + '80600b6000396000f3' + runtime
}

/** Sends `tx` from COW (automined in a block of its own) and answers its receipt. */
async function send(tx: Record<string, string>): Promise<Receipt> {
  const hash = await rpc<string>(fork.url, 'eth_sendTransaction', [{ from: COW.address, ...tx }])
  return rpc<Receipt>(fork.url, 'eth_getTransactionReceipt', [hash])
}

/**
 * Calls `factory` with `init` as call data in a transaction of gas {@link GAS}, and answers the receipt whether the
 * transaction succeeded or failed (eth_sendTransaction answers a failed one with an error).
 */
async function createVia(factory: string, init: string): Promise<Receipt> {
  const err = await rpcError(fork.url, 'eth_sendTransaction', [
    { from: COW.address, to: factory, data: init, gas: '0x' + GAS.toString(16) },
  ]).catch(() => undefined)
  if (err !== undefined) expect(err.message).toMatch(/transaction reverted/)
  const block = await rpc<{ transactions: string[] }>(fork.url, 'eth_getBlockByNumber', ['latest', false])
  return rpc<Receipt>(fork.url, 'eth_getTransactionReceipt', [block.transactions[0]])
}

beforeAll(async () => {
  remote = await startNode()
  proxy = await startRskjProxy({ upstream: remote.url, chainId: 31 })
  fork = await startFork(proxy.url, { activations: { rskip438: 5 } })
  const a = await send({ data: deployCode(CREATE_RUNTIME), gas: '0x30d40' })
  const b = await send({ data: deployCode(CREATE2_RUNTIME), gas: '0x30d40' })
  expect([a.status, b.status, b.blockNumber]).toEqual(['0x1', '0x1', '0x2'])
  createFactory = a.contractAddress!
  create2Factory = b.contractAddress!
  snapshot = await rpc<string>(fork.url, 'evm_snapshot')
})

afterAll(() => closeForkTest(fork, proxy, remote))

describe('CREATE and CREATE2 with init code over 49 152 bytes on a fork', () => {
  it('create the contract below RSKIP438', async () => {
    const viaCreate = await createVia(createFactory, LARGE_INIT)
    expect(viaCreate).toMatchObject({ status: '0x1', blockNumber: '0x3' })
    const viaCreate2 = await createVia(create2Factory, LARGE_INIT)
    expect(viaCreate2).toMatchObject({ status: '0x1', blockNumber: '0x4' })
    expect(BigInt(viaCreate2.gasUsed)).toBeLessThan(GAS)
    // a call at block 4 runs with its rules too: the factory answers the new contract's address
    const out = await rpc<string>(fork.url, 'eth_call', [
      { to: createFactory, data: LARGE_INIT, gas: '0xf4240' },
      '0x4',
    ])
    expect(BigInt(out)).not.toBe(0n)
  })

  it('fail the frame from RSKIP438 (all its gas), while init code of exactly 49 152 bytes still creates', async () => {
    const viaCreate = await createVia(createFactory, LARGE_INIT)
    expect(viaCreate).toMatchObject({ status: '0x0', blockNumber: '0x5' })
    expect(BigInt(viaCreate.gasUsed)).toBe(GAS)
    const viaCreate2 = await createVia(create2Factory, LARGE_INIT)
    expect(viaCreate2).toMatchObject({ status: '0x0', blockNumber: '0x6' })
    expect(BigInt(viaCreate2.gasUsed)).toBe(GAS)
    const atLimit = await createVia(create2Factory, LIMIT_INIT)
    expect(atLimit).toMatchObject({ status: '0x1', blockNumber: '0x7' })
    expect(BigInt(atLimit.gasUsed)).toBeLessThan(GAS)
    // a call at block 4 still has the older rules
    const out = await rpc<string>(fork.url, 'eth_call', [
      { to: createFactory, data: LARGE_INIT, gas: '0xf4240' },
      '0x4',
    ])
    expect(BigInt(out)).not.toBe(0n)
  })
})

describe('eth_sendTransaction after evm_revert across the RSKIP438 height', () => {
  it('takes a creating transaction over 49 152 bytes again below the height', async () => {
    // the last execution ran at block 7 with RSKIP438; the next block after the revert is 3, without it
    expect(await rpc(fork.url, 'eth_call', [{ to: create2Factory, data: LIMIT_INIT, gas: '0xf4240' }, 'latest']))
    expect(await rpc(fork.url, 'evm_revert', [snapshot])).toBe(true)
    expect(await rpc(fork.url, 'eth_blockNumber')).toBe('0x2')
    const created = await send({ data: LARGE_INIT, gas: '0x493e0' })
    expect(created).toMatchObject({ status: '0x1', blockNumber: '0x3' })
    expect(BigInt(created.gasUsed)).toBe(53_000n + 49_153n * 4n)
    // with an explicit nonce (the transaction is built before it reaches the chain's queue)
    const nonce = await rpc<string>(fork.url, 'eth_getTransactionCount', [COW.address, 'latest'])
    const again = await send({ data: LARGE_INIT, gas: '0x493e0', nonce })
    expect(again).toMatchObject({ status: '0x1', blockNumber: '0x4' })
    // and from block 5 on it is refused by the pool
    await expect(send({ data: LARGE_INIT, gas: '0x493e0' })).rejects.toThrow(/init ?code size/i)
  })
})
