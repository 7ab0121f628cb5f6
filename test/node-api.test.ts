/**
 * createNode() as a library user sees it: the public Node (no internal classes in its type or its keys), the
 * mining controls, the in-process provider's errors (RpcError with the same code, message and data as over
 * HTTP, the domain error as `cause`), and the internal path the CLI and the tests use instead.
 */
import { readFileSync } from 'node:fs'
import { Interface } from 'ethers'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Probe } from '../fixtures/index.js'
import { RpcError, type Node } from '../src/index.js'
import { VmExecutionError } from '../src/errors/domain-errors.js'
import { Chain } from '../src/chain/chain.js'
import { Miner } from '../src/miner/miner.js'
import { COW, internals, rpc, rpcError, startNode } from './helpers/node.js'
import { deploy } from './rpc/shapes.js'

const probe = new Interface(Probe.abi)

describe('createNode: the public Node', () => {
  let node: Node
  let probeAddress: string
  beforeAll(async () => {
    node = await startNode()
    ;({ address: probeAddress } = await deploy(node.url, Probe.bytecode))
  })
  afterAll(() => node?.close())

  it('has exactly the documented members, none of them the chain', () => {
    expect(Object.keys(node).sort()).toEqual(
      [
        'accounts',
        'chainId',
        'close',
        'compat',
        'dumpState',
        'fork',
        'loadedState',
        'methods',
        'miner',
        'mining',
        'network',
        'port',
        'provider',
        'transport',
        'url',
        'wsUrl',
      ].sort(),
    )
    expect(Object.values(node).some((v) => v instanceof Chain)).toBe(false)
    expect(node.methods.some((m) => m.name === 'rpc_modules' && m.module === 'eth' && m.params.length === 0)).toBe(true)
  })

  it('its published type names no internal class (dist/node-api.d.ts, dist/node.d.ts import no chain, no internals)', () => {
    const dts = readFileSync(new URL('../dist/node-api.d.ts', import.meta.url), 'utf8')
    expect(dts).toMatch(/readonly miner: MiningControls;/)
    for (const text of [dts, readFileSync(new URL('../dist/node.d.ts', import.meta.url), 'utf8')]) {
      const imports = text.split('\n').filter((line) => line.startsWith('import '))
      expect(imports.length).toBeGreaterThan(0)
      expect(imports.join('\n')).not.toMatch(/chain\/|node-internals/)
      expect(text).not.toMatch(/:\s*(Chain|Miner)\b/)
    }
    expect(readFileSync(new URL('../dist/index.d.ts', import.meta.url), 'utf8')).not.toMatch(/internals/)
  })

  it('miner: automine off keeps a transaction in the pool, on again mines it; stop and start', async () => {
    const { miner } = node
    expect(miner.automine).toBe(true)
    expect(miner.describe()).toBe('instant')
    miner.setAutomine(false)
    expect(await rpc(node.url, 'hardhat_getAutomine')).toBe(false)
    const before = BigInt(await rpc(node.url, 'eth_blockNumber'))
    const hash = await rpc<string>(node.url, 'eth_sendTransaction', [
      { from: COW.address, to: COW.address, value: '0x1' },
    ])
    expect(await rpc(node.url, 'eth_getTransactionReceipt', [hash])).toBeNull()
    expect(miner.describe()).toBe('manual')
    await rpc(node.url, 'evm_mine')
    expect((await rpc(node.url, 'eth_getTransactionReceipt', [hash])).status).toBe('0x1')
    miner.setAutomine(true)
    miner.stop()
    expect(miner.isMining()).toBe(false)
    expect(await rpc(node.url, 'eth_mining')).toBe(false)
    miner.start()
    expect(miner.isMining()).toBe(true)
    expect(BigInt(await rpc(node.url, 'eth_blockNumber'))).toBe(before + 1n)
  })

  it('provider: a revert rejects with an RpcError as over HTTP (-32015, revert bytes), the domain error as cause', async () => {
    const tx = { from: COW.address, to: probeAddress, data: probe.encodeFunctionData('failWithReason') }
    const overHttp = await rpcError(node.url, 'eth_call', [tx, 'latest'])
    const err = await node.provider.request({ method: 'eth_call', params: [tx, 'latest'] }).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(err).toBeInstanceOf(RpcError)
    const e = err as RpcError
    expect({ code: e.code, message: e.message, data: e.data }).toEqual({
      code: overHttp.code,
      message: overHttp.message,
      data: overHttp.data,
    })
    expect(e.code).toBe(-32015)
    expect(e.cause).toBeInstanceOf(VmExecutionError)
  })

  it('provider: pool rejections, unknown filters and bad params keep their codes and messages', async () => {
    const nonce = BigInt(await rpc(node.url, 'eth_getTransactionCount', [COW.address, 'latest']))
    await expect(
      node.provider.request({
        method: 'eth_sendTransaction',
        params: [{ from: COW.address, to: COW.address, nonce: '0x' + (nonce - 1n).toString(16) }],
      }),
    ).rejects.toMatchObject({ code: -32010, message: 'transaction nonce too low' })
    await expect(node.provider.request({ method: 'eth_getFilterChanges', params: ['0x01'] })).rejects.toMatchObject({
      code: -32000,
      message: 'filter not found',
    })
    await expect(node.provider.request({ method: 'eth_getBalance', params: ['0x12'] })).rejects.toMatchObject({
      code: -32602,
    })
  })

  it("a chain id above 109 is refused before anything starts (a signature's v must fit one byte); 109 runs", async () => {
    await expect(startNode({ chainId: 110 })).rejects.toThrow(
      /chain id 110 is not supported: the largest chain id is 109/,
    )
    await expect(startNode({ chainId: 31337 })).rejects.toBeInstanceOf(RangeError)
    const edge = await startNode({ chainId: 109 })
    try {
      expect(await rpc(edge.url, 'eth_chainId')).toBe('0x6d')
      // v = 253 or 254: signatures with either recovery bit are accepted (sixteen sends: both occur)
      const vs = new Set<string>()
      for (let i = 0; i < 16; i++) {
        const hash = await rpc<string>(edge.url, 'eth_sendTransaction', [
          { from: COW.address, to: COW.address, value: '0x1' },
        ])
        vs.add((await rpc<{ v: string }>(edge.url, 'eth_getTransactionByHash', [hash])).v)
      }
      expect([...vs].sort()).toEqual(['0xfd', '0xfe'])
    } finally {
      await edge.close()
    }
  })

  it('internals(): the chain and the miner behind the node, for the CLI and the tests only', () => {
    const parts = internals(node)
    expect(parts.chain).toBeInstanceOf(Chain)
    expect(parts.miner).toBeInstanceOf(Miner)
    expect(parts.miner).toBe(node.miner)
    expect(parts.chain.reads.head.header.number).toBeGreaterThan(0n)
    expect(() => internals({ ...node })).toThrow('not a node made by createNode')
  })
})
