/**
 * Forked state (docs/architecture.md#forking): the Unitrie state manager over a real remote node-cli behind a
 * reference-like proxy — reads at the fork block, an ERC-20 transfer on the VM, local writes (zeroed cells,
 * destroyed accounts, reverts) that never fall back to the remote, native-contract cells through the storage-bytes
 * method, the disk cache serving a second run with the remote stopped, and the remote failing mid-run.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createBlock } from '@ethereumjs/block'
import { createLegacyTx } from '@ethereumjs/tx'
import { Address, createAddressFromString, hexToBytes } from '@ethereumjs/util'
import { createVM, runTx } from '@ethereumjs/vm'
import { AbiCoder, Interface } from 'ethers'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Token } from '../../fixtures/index.js'
import { EMPTY_TRIE_HASH, keccak256 } from '../../src/crypto/keccak.js'
import { createChainCommon } from '../../src/execution/common.js'
import { ForkCache } from '../../src/fork/fork-cache.js'
import { resolveForkPoint } from '../../src/fork/fork-point.js'
import { ForkedStateSource, isNativeContract } from '../../src/fork/forked-state-source.js'
import { RemoteClient } from '../../src/fork/remote-client.js'
import { RemoteUnavailableError } from '../../src/fork/remote-errors.js'
import { RemoteNode } from '../../src/fork/remote-node.js'
import type { Node } from '../../src/index.js'
import { toRpcError } from '../../src/rpc/error-mapping.js'
import { REMASC_ADDRESS, REMASC_KEYS } from '../../src/rsk/remasc.js'
import { UnitrieStateManager } from '../../src/state/unitrie-state-manager.js'
import { applyReferenceStateRules } from '../../src/execution/ethereumjs/index.js'
import { fromHex, toHex } from '../../src/util/bytes.js'
import { COW, COW1, rpc, startNode } from '../helpers/node.js'
import { startRskjProxy, type RskjProxy } from '../helpers/rskj-proxy.js'

let node: Node
let proxy: RskjProxy
let cacheRoot: string
let forkNumber: bigint
let forkHash: Uint8Array
let token: Address
const COW_A = createAddressFromString(COW.address)
const COW1_A = createAddressFromString(COW1.address)
const STRANGER = createAddressFromString('0x00000000000000000000000000000000deadbeef')
const iface = new Interface(Token.abi)
const common = createChainCommon(33)

function balanceSlot(who: Address): Uint8Array {
  return keccak256(
    hexToBytes(AbiCoder.defaultAbiCoder().encode(['address', 'uint256'], [who.toString(), 3]) as `0x${string}`),
  )
}

function word(n: bigint): Uint8Array {
  return hexToBytes(('0x' + n.toString(16).padStart(64, '0')) as `0x${string}`)
}

/** The remote's storage word at the fork block, as the Unitrie keeps it (no leading zeros). */
async function remoteCell(address: Address, slot: Uint8Array): Promise<Uint8Array> {
  const w = fromHex(
    await rpc<string>(node.url, 'eth_getStorageAt', [address.toString(), toHex(slot), '0x' + forkNumber.toString(16)]),
  )
  let i = 0
  while (i < w.length && w[i] === 0) i++
  return w.slice(i)
}

interface Forked {
  sm: UnitrieStateManager
  source: ForkedStateSource
  cache: ForkCache
  client: RemoteClient
}

async function forked(url = proxy.url, dir?: string): Promise<Forked> {
  const client = new RemoteClient({ url, retries: 1, backoffMs: 10, cooldownMs: 0 })
  const cache = await ForkCache.open({ dir, chainId: 33n, forkBlockHash: forkHash })
  const source = new ForkedStateSource(new RemoteNode(client), cache, forkNumber)
  return { sm: new UnitrieStateManager({ fork: source }), source, cache, client }
}

beforeAll(async () => {
  node = await startNode()
  cacheRoot = await mkdtemp(join(tmpdir(), 'node-cli-forked-state-'))
  const args = AbiCoder.defaultAbiCoder().encode(['string', 'string', 'uint256'], ['Test', 'TST', 1_000_000n])
  const deployHash = await rpc<string>(node.url, 'eth_sendTransaction', [
    { from: COW.address, data: Token.bytecode + args.slice(2), gas: '0x2dc6c0' },
  ])
  const receipt = await rpc<{ contractAddress: string }>(node.url, 'eth_getTransactionReceipt', [deployHash])
  token = createAddressFromString(receipt.contractAddress)
  const transfer = iface.encodeFunctionData('transfer', [COW1.address, 1000n])
  await rpc(node.url, 'eth_sendTransaction', [
    { from: COW.address, to: token.toString(), data: transfer, gas: '0x30d40' },
  ])
  await rpc(node.url, 'evm_mine', [{ blocks: '0x10' }]) // Remasc writes its one-byte cells from block 15 on
  forkNumber = BigInt(await rpc<string>(node.url, 'eth_blockNumber'))
  forkHash = fromHex(
    (await rpc<{ hash: string }>(node.url, 'eth_getBlockByNumber', ['0x' + forkNumber.toString(16), false])).hash,
  )
  // after the fork block the remote moves on; the fork must not see it
  await rpc(node.url, 'eth_sendTransaction', [
    {
      from: COW.address,
      to: token.toString(),
      data: iface.encodeFunctionData('transfer', [COW1.address, 7n]),
      gas: '0x30d40',
    },
  ])
  proxy = await startRskjProxy({ upstream: node.url })
})

afterAll(async () => {
  await proxy?.close()
  await node?.close()
  if (cacheRoot) await rm(cacheRoot, { recursive: true, force: true })
})

describe('forked reads at the fork block', () => {
  it('reads accounts, code and cells as the remote had them at the fork block; reads leave the root alone', async () => {
    const { sm, client } = await forked()
    const cow = (await sm.getAccount(COW_A))!
    expect(cow.balance).toBe(
      BigInt(await rpc<string>(node.url, 'eth_getBalance', [COW.address, '0x' + forkNumber.toString(16)])),
    )
    expect(cow.nonce).toBe(2n)
    expect(await sm.getCode(token)).toEqual(hexToBytes(Token.deployedBytecode))
    expect(await sm.getCodeSize(token)).toBe(hexToBytes(Token.deployedBytecode).length)
    expect((await sm.getAccount(token))!.codeHash).toEqual(keccak256(hexToBytes(Token.deployedBytecode)))
    expect(await sm.hasStorageMarker(token)).toBe(true)
    expect(await sm.getStorage(token, balanceSlot(COW1_A))).toEqual(Uint8Array.of(0x03, 0xe8)) // 1000, not 1007
    expect(await sm.getStorage(token, balanceSlot(COW_A))).toEqual(await remoteCell(token, balanceSlot(COW_A)))
    expect(await sm.getAccount(STRANGER)).toBeUndefined()
    expect(await sm.getAccount(createAddressFromString('0x0000000000000000000000000000000000000001'))).toBeDefined()
    expect(await sm.getStateRoot()).toEqual(EMPTY_TRIE_HASH)
    // an account is three calls in one batch
    expect(client.stats.calls).toBeGreaterThanOrEqual(3 * 4)
    expect(client.stats.httpRequests).toBeLessThan(client.stats.calls)
  })

  it('reads the one-byte and RLP cells of native contracts exactly, through the storage-bytes method', async () => {
    expect(isNativeContract(REMASC_ADDRESS)).toBe(true)
    expect(isNativeContract(token.bytes)).toBe(false)
    const { sm } = await forked()
    const remasc = new Address(REMASC_ADDRESS)
    expect(await sm.getStorageBytes(remasc, REMASC_KEYS.siblings)).toEqual(Uint8Array.of(0xc0))
    expect(await sm.getStorageBytes(remasc, REMASC_KEYS.brokenSelectionRule)).toEqual(Uint8Array.of(0x00))
    // without the method (the reference's default) a word read cannot tell 0x00 from unset
    const off = await startRskjProxy({ upstream: node.url, storageBytes: false })
    try {
      const { sm: lossy } = await forked(off.url)
      expect(await lossy.getStorageBytes(remasc, REMASC_KEYS.brokenSelectionRule)).toEqual(new Uint8Array(0))
      expect(await lossy.getStorageBytes(remasc, REMASC_KEYS.siblings)).toEqual(Uint8Array.of(0xc0))
    } finally {
      await off.close()
    }
  })
})

describe('local writes over the remote state', () => {
  it('runs a forked ERC-20 transfer on the VM without touching the remote', async () => {
    const { sm } = await forked()
    const vm = await createVM({ common, stateManager: sm })
    applyReferenceStateRules(vm)
    const block = createBlock(
      { header: { number: forkNumber + 1n, timestamp: 10n ** 9n, gasLimit: 6_800_000n, difficulty: 1n } },
      { common, skipConsensusFormatValidation: true },
    )
    const data = hexToBytes(iface.encodeFunctionData('transfer', [STRANGER.toString(), 250n]) as `0x${string}`)
    const tx = createLegacyTx({ nonce: 2n, gasPrice: 0n, gasLimit: 200_000n, to: token, data }, { common }).sign(
      hexToBytes(COW.privateKey as `0x${string}`),
    )
    proxy.resetCounts()
    const r = await runTx(vm, { tx, block, skipHardForkValidation: true })
    expect(r.execResult.exceptionError).toBeUndefined()
    expect(proxy.total()).toBeGreaterThan(0)
    expect(proxy.counts.get('eth_sendRawTransaction')).toBeUndefined()
    expect(await sm.getStorage(token, balanceSlot(STRANGER))).toEqual(Uint8Array.of(0xfa))
    const remoteCow = await remoteCell(token, balanceSlot(COW_A))
    expect(BigInt(toHex(await sm.getStorage(token, balanceSlot(COW_A))))).toBe(BigInt(toHex(remoteCow)) - 250n)
    expect((await sm.getAccount(COW_A))!.nonce).toBe(3n)
    expect(await sm.getStateRoot()).not.toEqual(EMPTY_TRIE_HASH)
    // the remote is unchanged
    expect(await remoteCell(token, balanceSlot(STRANGER))).toEqual(new Uint8Array(0))
  })

  it("fetches a transaction's accounts in one request when they are prefetched", async () => {
    const { sm, source, client } = await forked()
    const vm = await createVM({ common, stateManager: sm })
    applyReferenceStateRules(vm)
    const coinbase = createAddressFromString('0xec4ddeb4380ad69b3e509baad9f158cdf4e4681d')
    const block = createBlock(
      { header: { number: forkNumber + 1n, timestamp: 10n ** 9n, gasLimit: 6_800_000n, difficulty: 1n, coinbase } },
      { common, skipConsensusFormatValidation: true },
    )
    const data = hexToBytes(iface.encodeFunctionData('transfer', [STRANGER.toString(), 1n]) as `0x${string}`)
    const tx = createLegacyTx({ nonce: 2n, gasPrice: 1n, gasLimit: 200_000n, to: token, data }, { common }).sign(
      hexToBytes(COW.privateKey as `0x${string}`),
    )
    await source.prefetch([COW_A.bytes, token.bytes, coinbase.bytes], [[token.bytes, balanceSlot(COW_A)]])
    expect(client.stats.httpRequests).toBe(1)
    const r = await runTx(vm, { tx, block, skipHardForkValidation: true })
    expect(r.execResult.exceptionError).toBeUndefined()
    // only the recipient's cell is left to fetch
    expect(client.stats.httpRequests).toBe(2)
    expect(source.stats).toEqual({ accountsFetched: 3, cellsFetched: 2 })
  })

  it('prefetches keys named more than once (a block of several transactions from one sender) once', async () => {
    const { source, client } = await forked()
    const cell: [Uint8Array, Uint8Array] = [token.bytes, balanceSlot(COW_A)]
    await source.prefetch([COW_A.bytes, token.bytes, COW_A.bytes, token.bytes], [cell, cell])
    expect(client.stats.httpRequests).toBe(1)
    expect(source.stats).toEqual({ accountsFetched: 2, cellsFetched: 1 })
  })

  it('keeps a cell zeroed locally at zero, in its own state only', async () => {
    const { sm } = await forked()
    const slot = balanceSlot(COW1_A)
    const before = await sm.getStateRoot()
    await sm.putStorage(token, slot, new Uint8Array(0))
    expect(await sm.getStorage(token, slot)).toEqual(new Uint8Array(0))
    const zeroed = await sm.getStateRoot()
    expect(zeroed).not.toEqual(before)
    await sm.setStateRoot(before)
    expect(await sm.getStorage(token, slot)).toEqual(Uint8Array.of(0x03, 0xe8))
    await sm.setStateRoot(zeroed)
    expect(await sm.getStorage(token, slot)).toEqual(new Uint8Array(0))
    const copy = sm.shallowCopy()
    expect(await copy.getStorage(token, slot)).toEqual(new Uint8Array(0))
    expect(await copy.getStorage(token, balanceSlot(COW_A))).toEqual(await remoteCell(token, balanceSlot(COW_A)))
  })

  it('forgets the remote code and storage of an account destroyed locally', async () => {
    const { sm } = await forked()
    await sm.deleteAccount(token)
    const gone = await sm.getStateRoot()
    await sm.setStateRoot(gone)
    expect(await sm.getAccount(token)).toBeUndefined()
    expect(await sm.getCode(token)).toEqual(new Uint8Array(0))
    expect(await sm.getStorage(token, balanceSlot(COW1_A))).toEqual(new Uint8Array(0))
    // written again later: only what is written is there
    await sm.putStorage(token, word(1n), word(5n))
    await sm.setStateRoot(await sm.getStateRoot())
    expect(await sm.getStorage(token, word(1n))).toEqual(Uint8Array.of(5))
    expect(await sm.getStorage(token, balanceSlot(COW_A))).toEqual(new Uint8Array(0))
    expect(await sm.getCode(token)).toEqual(new Uint8Array(0))
  })

  it('gives the remote values back after a revert', async () => {
    const { sm } = await forked()
    await sm.checkpoint()
    await sm.putCode(token, Uint8Array.of(0x00))
    await sm.modifyAccountFields(COW_A, { balance: 1n })
    await sm.putStorage(token, balanceSlot(COW1_A), word(9n))
    expect(await sm.getCode(token)).toEqual(Uint8Array.of(0x00))
    await sm.revert()
    expect(await sm.getCode(token)).toEqual(hexToBytes(Token.deployedBytecode))
    expect((await sm.getAccount(COW_A))!.balance).toBeGreaterThan(1n)
    expect(await sm.getStorage(token, balanceSlot(COW1_A))).toEqual(Uint8Array.of(0x03, 0xe8))
    expect(await sm.getStateRoot()).toEqual(EMPTY_TRIE_HASH)
  })

  it('changes one account field locally and still reads the others from the remote', async () => {
    const { sm } = await forked()
    await sm.modifyAccountFields(token, { balance: 77n })
    await sm.setStateRoot(await sm.getStateRoot())
    expect((await sm.getAccount(token))!.balance).toBe(77n)
    expect(await sm.getCode(token)).toEqual(hexToBytes(Token.deployedBytecode))
    expect(await sm.getStorage(token, balanceSlot(COW1_A))).toEqual(Uint8Array.of(0x03, 0xe8))
  })
})

describe('the cache and the remote going away', () => {
  it('serves a second run from the disk cache with the remote stopped', async () => {
    const first = await forked(proxy.url, cacheRoot)
    expect(first.cache.persistent).toBe(true)
    const point = await resolveForkPoint(first.source.remote, {
      url: proxy.url,
      blockNumber: forkNumber,
      cacheDir: cacheRoot,
    })
    expect(point).toEqual({ chainId: 33n, number: forkNumber, hash: forkHash })
    const reads = async (sm: UnitrieStateManager) => [
      (await sm.getAccount(COW_A))!.balance,
      await sm.getCode(token),
      await sm.getStorage(token, balanceSlot(COW1_A)),
      await sm.getStorageBytes(new Address(REMASC_ADDRESS), REMASC_KEYS.siblings),
      await sm.getAccount(STRANGER),
    ]
    const expected = await reads(first.sm)
    await first.cache.close()

    const stopped = await startRskjProxy({ upstream: node.url })
    await stopped.close()
    const second = await forked(stopped.url, cacheRoot)
    const again = await resolveForkPoint(second.source.remote, {
      url: proxy.url,
      blockNumber: forkNumber,
      cacheDir: cacheRoot,
    })
    expect(again).toEqual(point)
    expect(await reads(second.sm)).toEqual(expected)
    expect(second.client.stats.httpRequests).toBe(0)
    expect(second.source.stats).toEqual({ accountsFetched: 0, cellsFetched: 0 })
    expect(second.cache.stats.diskHits).toBeGreaterThan(0)
    await second.cache.close()
  })

  it('answers reads of what it has, and a clear error for the rest, when the remote fails mid-run', async () => {
    const flaky = await startRskjProxy({ upstream: node.url })
    const { sm } = await forked(flaky.url)
    expect((await sm.getAccount(COW_A))!.nonce).toBe(2n)
    await flaky.close()
    const err = await sm.getAccount(STRANGER).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(RemoteUnavailableError)
    expect(toRpcError(err)?.code).toBe(-32000)
    expect((err as Error).message).toMatch(/fork remote http:\/\/127\.0\.0\.1:\d+ is unavailable/)
    await expect(sm.getStorage(token, balanceSlot(COW_A))).rejects.toBeInstanceOf(RemoteUnavailableError)
    // what was read before is still there, and the manager keeps working
    expect((await sm.getAccount(COW_A))!.nonce).toBe(2n)
    await sm.modifyAccountFields(COW_A, { nonce: 3n })
    expect((await sm.getAccount(COW_A))!.nonce).toBe(3n)
  })
})
