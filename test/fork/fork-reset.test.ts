/**
 * anvil_reset / hardhat_reset switching a fork at run time (docs/architecture.md#forking): a forked node over
 * two remote node-clis behind the reference-like proxy — to another remote and block, to another block of the
 * same remote, an unreachable remote (-32000, the chain stays), a remote of another chain id (-32602), no
 * `forking` (a plain local chain, as Anvil does) and back; each fork block cached under its own hash.
 */
import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Node } from '../../src/index.js'
import { closeForkTest, startFork, startForkRemote, tempCacheDir } from '../helpers/fork.js'
import { COW, COW1, rpc, rpcError } from '../helpers/node.js'
import { startRskjProxy, type RskjProxy } from '../helpers/rskj-proxy.js'

let remoteA: Node
let remoteB: Node
let proxyA: RskjProxy
let proxyB: RskjProxy
let fork: Node
let cacheRoot: string
let forkA: bigint
let forkB: bigint
const ALICE = '0x00000000000000000000000000000000000a11ce'
const BOB = '0x0000000000000000000000000000000000000b0b'
const hex = (n: bigint) => '0x' + n.toString(16)

async function head(url: string): Promise<bigint> {
  return BigInt(await rpc<string>(url, 'eth_blockNumber'))
}
async function balance(url: string, who: string): Promise<bigint> {
  return BigInt(await rpc<string>(url, 'eth_getBalance', [who, 'latest']))
}
async function hashAt(url: string, n: bigint): Promise<string> {
  return (await rpc<{ hash: string }>(url, 'eth_getBlockByNumber', [hex(n), false])).hash
}

beforeAll(async () => {
  cacheRoot = await tempCacheDir('fork-reset')
  ;({ node: remoteA, proxy: proxyA } = await startForkRemote())
  ;({ node: remoteB, proxy: proxyB } = await startForkRemote())
  await rpc(remoteA.url, 'eth_sendTransaction', [{ from: COW.address, to: ALICE, value: hex(10n ** 18n) }])
  await rpc(remoteA.url, 'evm_mine', [{ blocks: '0x3' }])
  forkA = await head(remoteA.url)
  await rpc(remoteB.url, 'evm_mine', [{ blocks: '0x6' }])
  await rpc(remoteB.url, 'eth_sendTransaction', [{ from: COW1.address, to: BOB, value: hex(7n * 10n ** 18n) }])
  await rpc(remoteB.url, 'evm_mine', [{ blocks: '0x2' }])
  forkB = await head(remoteB.url)
  fork = await startFork(proxyA.url, { blockNumber: forkA, cache: cacheRoot })
})

afterAll(async () => {
  await closeForkTest(fork, proxyA, proxyB, remoteA, remoteB, cacheRoot)
})

describe('anvil_reset / hardhat_reset with forking', () => {
  it('switches to another remote and block; local blocks go, the new remote state shows', async () => {
    await rpc(fork.url, 'eth_sendTransaction', [{ from: COW.address, to: BOB, value: '0x5' }])
    expect(await head(fork.url)).toBe(forkA + 1n)
    const instance = (await rpc<{ instanceId: string }>(fork.url, 'anvil_metadata')).instanceId
    expect(await balance(fork.url, ALICE)).toBe(10n ** 18n)
    expect(
      await rpc(fork.url, 'anvil_reset', [{ forking: { jsonRpcUrl: proxyB.url, blockNumber: Number(forkB) } }]),
    ).toBeNull()
    expect(await head(fork.url)).toBe(forkB)
    expect((await rpc<{ instanceId: string }>(fork.url, 'anvil_metadata')).instanceId).not.toBe(instance)
    expect(await hashAt(fork.url, forkB)).toBe(await hashAt(remoteB.url, forkB))
    expect(await balance(fork.url, ALICE)).toBe(0n)
    expect(await balance(fork.url, BOB)).toBe(7n * 10n ** 18n)
    const info = await rpc<{ forkConfig: { forkUrl: string; forkBlockNumber: number } }>(fork.url, 'anvil_nodeInfo')
    expect(info.forkConfig).toMatchObject({ forkUrl: new URL(proxyB.url).origin, forkBlockNumber: Number(forkB) })
    expect(fork.fork?.blockNumber).toBe(forkB)
    // local mining continues from the new fork block
    await rpc(fork.url, 'eth_sendTransaction', [{ from: COW.address, to: BOB, value: '0x5' }])
    const block = await rpc<{ parentHash: string; number: string }>(fork.url, 'eth_getBlockByNumber', ['latest', false])
    expect(block).toMatchObject({ parentHash: await hashAt(remoteB.url, forkB), number: hex(forkB + 1n) })
    expect(await balance(fork.url, BOB)).toBe(7n * 10n ** 18n + 5n)
  })

  it('moves to another block of the same remote (hardhat_reset, hex block number)', async () => {
    const before = forkB - 3n // before BOB was paid
    expect(await rpc(fork.url, 'hardhat_reset', [{ forking: { blockNumber: hex(before) } }])).toBeNull()
    expect(await head(fork.url)).toBe(before)
    expect(await balance(fork.url, BOB)).toBe(0n)
    expect(await rpc(fork.url, 'eth_getBlockByNumber', [hex(forkB), false])).toBeNull()
  })

  it('keeps the chain when the new remote is unreachable (-32000) or of another chain id (-32602)', async () => {
    const at = await head(fork.url)
    const gone = await rpcError(fork.url, 'anvil_reset', [
      { forking: { jsonRpcUrl: 'http://127.0.0.1:9', blockNumber: 1 } },
    ])
    expect(gone.code).toBe(-32000)
    expect(gone.message).toMatch(/127\.0\.0\.1:9/)
    const presented = await startRskjProxy({ upstream: remoteA.url, chainId: 31 })
    try {
      const other = await rpcError(fork.url, 'anvil_reset', [
        { forking: { jsonRpcUrl: presented.url, blockNumber: 0 } },
      ])
      expect(other.code).toBe(-32602)
      expect(other.message).toMatch(/chain id 31/)
    } finally {
      await presented.close()
    }
    expect((await rpcError(fork.url, 'anvil_reset', [{ forking: { blockNumber: 'soon' } }])).code).toBe(-32602)
    expect(await head(fork.url)).toBe(at)
    await rpc(fork.url, 'eth_sendTransaction', [{ from: COW.address, to: BOB, value: '0x1' }])
    expect(await balance(fork.url, BOB)).toBe(1n)
  })

  it('without forking: a plain local chain of the same network; then forks again', async () => {
    expect(await rpc(fork.url, 'anvil_reset', [])).toBeNull()
    expect(await head(fork.url)).toBe(0n)
    expect(await rpc(fork.url, 'eth_chainId')).toBe('0x21')
    expect(fork.fork).toBeUndefined()
    expect(await balance(fork.url, BOB)).toBe(0n)
    expect(await balance(fork.url, COW.address)).toBeGreaterThan(0n)
    expect((await rpc<{ forkConfig: { forkUrl: unknown } }>(fork.url, 'anvil_nodeInfo')).forkConfig.forkUrl).toBeNull()
    await rpc(fork.url, 'eth_sendTransaction', [{ from: COW.address, to: BOB, value: '0x2' }])
    expect(await head(fork.url)).toBe(1n)
    expect(
      await rpc(fork.url, 'anvil_reset', [{ forking: { jsonRpcUrl: proxyA.url, blockNumber: Number(forkA) } }]),
    ).toBeNull()
    expect(await head(fork.url)).toBe(forkA)
    expect(await balance(fork.url, ALICE)).toBe(10n ** 18n)
    expect(await hashAt(fork.url, 1n)).toBe(await hashAt(remoteA.url, 1n))
  })

  it('caches each fork block under its own chain id and hash', async () => {
    const dirs = await readdir(join(cacheRoot, '33'))
    expect(dirs).toEqual(
      expect.arrayContaining([
        (await hashAt(remoteA.url, forkA)).slice(2),
        (await hashAt(remoteB.url, forkB)).slice(2),
        (await hashAt(remoteB.url, forkB - 3n)).slice(2),
      ]),
    )
  })
})
