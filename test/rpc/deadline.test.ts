/**
 * No request monopolises the node (docs/reference-rules.md#rule-limits), on both transports: an endless contract answers -32011
 * at the deadline and leaves no state behind, other requests are served while a long execution or a long mine
 * runs, and a huge mine count is refused at once with -32602.
 */
import { once } from 'node:events'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Node } from '../../src/index.js'
import { MAX_MINE_BLOCKS } from '../../src/rpc/bounds.js'
import { COW, COW1, internals, rpc, rpcError, startNode } from '../helpers/node.js'
import { WsClient } from '../helpers/ws.js'
import { deployLoop, LOOP_RUNTIME, settleOrder } from '../helpers/loop.js'

type Transport = 'uws' | 'node'

/** Deploys a contract that CALLs `target` with all its gas; returns its address. */
async function deployCaller(url: string, target: string): Promise<string> {
  // PUSH1 0 ×5 (retSize, retOffset, argsSize, argsOffset, value), PUSH20 target, GAS, CALL, STOP
  const runtime = '6000600060006000600073' + target.slice(2).toLowerCase() + '5af100'
  const len = (runtime.length / 2).toString(16).padStart(2, '0')
  // CODECOPY the runtime that follows this 12-byte prefix, and RETURN it
  const init = `0x60${len}600c60003960${len}6000f3${runtime}`
  const hash = await rpc<string>(url, 'eth_sendTransaction', [{ from: COW.address, data: init, gas: '0x100000' }])
  const receipt = await rpc<{ contractAddress: string }>(url, 'eth_getTransactionReceipt', [hash])
  expect(await rpc(url, 'eth_getCode', [receipt.contractAddress, 'latest'])).toBe(`0x${runtime}`)
  return receipt.contractAddress
}

describe.each<Transport>(['uws', 'node'])('%s transport: execution deadline', (transport) => {
  let strict: Node // a 1 ms deadline: the loop (10 M gas, ~0.2 s) always passes it
  let loose: Node // the default deadline (5 s): the loop ends by running out of gas
  let strictLoop: string
  let looseLoop: string
  beforeAll(async () => {
    strict = await startNode({ transport, rpcTimeout: 0.001 })
    loose = await startNode({ transport })
    strictLoop = await deployLoop(strict.url)
    looseLoop = await deployLoop(loose.url)
  })
  afterAll(async () => {
    await strict?.close()
    await loose?.close()
  })

  it('eth_call and eth_estimateGas of an endless loop answer -32011 at the deadline', async () => {
    for (const [method, params] of [
      ['eth_call', [{ to: strictLoop }, 'latest']],
      ['eth_call', [{ to: strictLoop, from: COW.address, data: '0x01' }, 'pending']],
      ['eth_estimateGas', [{ to: strictLoop, from: COW.address }]],
      // a creation runs as a whole transaction (intrinsic gas, refunds)
      ['eth_call', [{ from: COW.address, data: `0x${LOOP_RUNTIME}` }, 'latest']],
    ] as const) {
      const err = await rpcError(strict.url, method, params as unknown as unknown[])
      expect(err.code, method).toBe(-32011)
      expect(err.message).toBe('Execution has got timeout out.')
    }
  })

  it('debug_traceCall stops at the deadline with every tracer (the opcode tracers run the stock loop)', async () => {
    for (const opts of [
      {},
      { tracer: 'callTracer' },
      { tracer: 'prestateTracer' },
      { disableStack: true, disableMemory: true },
    ]) {
      const err = await rpcError(strict.url, 'debug_traceCall', [{ to: strictLoop, from: COW.address }, 'latest', opts])
      expect(err, JSON.stringify(opts)).toMatchObject({ code: -32011, message: 'Execution has got timeout out.' })
    }
  })

  it('a loop reached through a nested CALL stops as well', async () => {
    const caller = await deployCaller(strict.url, strictLoop)
    const err = await rpcError(strict.url, 'eth_call', [{ to: caller, from: COW.address }, 'latest'])
    expect(err.code).toBe(-32011)
    expect((await rpcError(strict.url, 'eth_estimateGas', [{ to: caller, from: COW.address }])).code).toBe(-32011)
  })

  it('leaves no state behind: the chain mines, reads and calls as before', async () => {
    const before = BigInt(await rpc(strict.url, 'eth_blockNumber'))
    const balance = await rpc(strict.url, 'eth_getBalance', [COW1.address, 'latest'])
    expect((await rpcError(strict.url, 'eth_call', [{ to: strictLoop, data: '0x02' }, 'latest'])).code).toBe(-32011)
    expect(BigInt(await rpc(strict.url, 'eth_blockNumber'))).toBe(before)
    // a transfer mines on the live state the timed-out call ran on
    const hash = await rpc(strict.url, 'eth_sendTransaction', [{ from: COW.address, to: COW1.address, value: '0x5' }])
    expect((await rpc(strict.url, 'eth_getTransactionReceipt', [hash])).status).toBe('0x1')
    expect(BigInt(await rpc(strict.url, 'eth_getBalance', [COW1.address, 'latest']))).toBe(BigInt(balance) + 5n)
    expect(BigInt(await rpc(strict.url, 'eth_blockNumber'))).toBe(before + 1n)
    // a short call still works
    expect(await rpc(strict.url, 'eth_call', [{ to: COW1.address }, 'latest'])).toBe('0x')
  })

  it('serves other requests while a long execution runs (HTTP and WebSocket)', async () => {
    // the loop burns the 10 M gas cap (~0.2 s); eth_chainId needs no execution and answers meanwhile
    const call = rpc(loose.url, 'eth_call', [{ to: looseLoop, data: '0x03' }, 'latest'])
    // a head start for the call (a call emits no event to wait on); were the other requests served before the call
    // started, the order would be the same: this sleep cannot fail the test, only make it prove less
    await new Promise((r) => setTimeout(r, 5))
    const ws = await WsClient.open(loose.wsUrl)
    try {
      const order = await settleOrder([call, rpc(loose.url, 'eth_chainId'), ws.call('eth_blockNumber')])
      expect(order[2]).toBe(0) // the call settled last
      expect(await call).toBe('0x') // out of gas: the reference answers the (empty) return data
    } finally {
      await ws.close()
    }
  })
})

describe.each<Transport>(['uws', 'node'])('%s transport: mining many blocks', (transport) => {
  let node: Node
  beforeAll(async () => {
    node = await startNode({ transport })
  })
  afterAll(async () => {
    await node?.close()
  })

  it('anvil_mine(2^64) and every alias above the cap answer -32602 at once; the node keeps serving', async () => {
    const before = await rpc(node.url, 'eth_blockNumber')
    for (const [method, params] of [
      ['anvil_mine', ['0xffffffffffffffff']],
      ['hardhat_mine', ['0x10000000000000000']],
      ['anvil_mine', ['0x' + (MAX_MINE_BLOCKS + 1n).toString(16)]],
      ['evm_mine', [{ blocks: '0x' + (MAX_MINE_BLOCKS + 1n).toString(16) }]],
    ] as const) {
      const err = await rpcError(node.url, method, params as unknown as unknown[])
      expect(err.code, method).toBe(-32602)
      expect(err.message).toMatch(/invalid argument 0: blocks must be at most 10000 per call/)
    }
    expect(await rpc(node.url, 'eth_blockNumber')).toBe(before)
    expect(await rpc(node.url, 'eth_chainId')).toBe('0x21')
  })

  it('serves other requests while mining many blocks, and mines them all', async () => {
    const start = BigInt(await rpc(node.url, 'eth_blockNumber'))
    const firstBlock = once(internals(node).chain, 'block') // the mining is under way
    const mine = rpc(node.url, 'anvil_mine', ['0x7d0']) // 2000 blocks, ~0.7 s
    await firstBlock
    const order = await settleOrder([mine, rpc(node.url, 'eth_chainId')])
    expect(order).toEqual([1, 0])
    expect(await mine).toBeNull()
    expect(BigInt(await rpc(node.url, 'eth_blockNumber'))).toBe(start + 2000n)
  })
})
