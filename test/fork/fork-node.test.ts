/**
 * A forked node (docs/architecture.md#forking): `createNode({ fork })` over a real remote node-cli behind the
 * reference-like proxy — reads at the fork block, a forked ERC-20 transfer and call with ethers, logs across the
 * fork point, blocks at or below the fork block from the remote and local blocks after it, impersonating a rich
 * remote account, snapshot/revert and reset, the disk cache serving a second run with the remote stopped, and the
 * remote failing mid-test.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { AbiCoder, Contract, Interface, JsonRpcProvider } from 'ethers'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Token } from '../../fixtures/index.js'
import type { Node } from '../../src/index.js'
import { killStartedClis, runCli } from '../helpers/cli.js'
import { COW, COW1, rpc, rpcError, startNode } from '../helpers/node.js'
import { startRskjProxy, type RskjProxy } from '../helpers/rskj-proxy.js'
import { closeForkTest, startFork, startForkRemote, tempCacheDir } from '../helpers/fork.js'
import { waitUntil } from '../helpers/wait.js'

let remote: Node
let proxy: RskjProxy
let fork: Node
let cacheRoot: string
let forkNumber: bigint
let forkHash: string
let token: string
const RICH = '0x00000000000000000000000000000000000a11ce'
const STRANGER = '0x00000000000000000000000000000000deadbeef'
const iface = new Interface(Token.abi)
const hex = (n: bigint) => '0x' + n.toString(16)

async function balanceOf(url: string, who: string, block = 'latest'): Promise<bigint> {
  const data = iface.encodeFunctionData('balanceOf', [who])
  return BigInt(await rpc<string>(url, 'eth_call', [{ to: token, data }, block]))
}

beforeAll(async () => {
  ;({ node: remote, proxy } = await startForkRemote())
  cacheRoot = await tempCacheDir('fork-node')
  const args = AbiCoder.defaultAbiCoder().encode(['string', 'string', 'uint256'], ['Test', 'TST', 1_000_000n])
  const deploy = await rpc<string>(remote.url, 'eth_sendTransaction', [
    { from: COW.address, data: Token.bytecode + args.slice(2), gas: '0x2dc6c0' },
  ])
  token = (await rpc<{ contractAddress: string }>(remote.url, 'eth_getTransactionReceipt', [deploy])).contractAddress
  await rpc(remote.url, 'eth_sendTransaction', [
    { from: COW.address, to: token, data: iface.encodeFunctionData('transfer', [COW1.address, 1000n]), gas: '0x30d40' },
  ])
  await rpc(remote.url, 'eth_sendTransaction', [{ from: COW.address, to: RICH, value: hex(10n ** 21n) }])
  await rpc(remote.url, 'evm_mine', [{ blocks: '0x10' }])
  forkNumber = BigInt(await rpc<string>(remote.url, 'eth_blockNumber'))
  forkHash = (await rpc<{ hash: string }>(remote.url, 'eth_getBlockByNumber', [hex(forkNumber), false])).hash
  // the remote moves on after the fork block: the fork must not see it
  await rpc(remote.url, 'eth_sendTransaction', [
    { from: COW.address, to: token, data: iface.encodeFunctionData('transfer', [COW1.address, 7n]), gas: '0x30d40' },
  ])
  fork = await startFork(proxy.url, { blockNumber: forkNumber, cache: cacheRoot })
})

afterAll(async () => {
  killStartedClis()
  await closeForkTest(fork, proxy, remote, cacheRoot)
})

describe('a forked node at the fork block', () => {
  it('starts at the fork block with the remote chain id and reads the remote state as of that block', async () => {
    expect(fork.fork).toMatchObject({ chainId: 33, blockNumber: forkNumber, blockHash: forkHash })
    expect(BigInt(await rpc<string>(fork.url, 'eth_blockNumber'))).toBe(forkNumber)
    expect(await rpc(fork.url, 'eth_chainId')).toBe('0x21')
    const at = hex(forkNumber)
    expect(await rpc(fork.url, 'eth_getCode', [token, 'latest'])).toBe(
      await rpc(remote.url, 'eth_getCode', [token, at]),
    )
    expect(await rpc(fork.url, 'eth_getTransactionCount', [COW.address, 'latest'])).toBe(
      await rpc(remote.url, 'eth_getTransactionCount', [COW.address, at]),
    )
    expect(await rpc(fork.url, 'eth_getBalance', [RICH, 'latest'])).toBe(hex(10n ** 21n))
    const slot = '0x' + '0'.repeat(63) + '2' // totalSupply
    expect(await rpc(fork.url, 'eth_getStorageAt', [token, slot, 'latest'])).toBe(
      await rpc(remote.url, 'eth_getStorageAt', [token, slot, at]),
    )
    expect(await balanceOf(fork.url, COW1.address)).toBe(1000n) // not 1007: the remote's later transfer is not seen
  })

  it('serves blocks at or below the fork block from the remote, and nothing above it', async () => {
    const b = await rpc<{ hash: string; number: string }>(fork.url, 'eth_getBlockByNumber', [hex(forkNumber), false])
    expect(b.hash).toBe(forkHash)
    const deployBlock = await rpc<{ hash: string; transactions: unknown[] }>(remote.url, 'eth_getBlockByNumber', [
      '0x1',
      true,
    ])
    expect(await rpc(fork.url, 'eth_getBlockByNumber', ['0x1', true])).toEqual(deployBlock)
    expect(await rpc(fork.url, 'eth_getBlockByHash', [deployBlock.hash, true])).toEqual(deployBlock)
    const txHash = (deployBlock.transactions[0] as { hash: string }).hash
    expect(await rpc(fork.url, 'eth_getTransactionReceipt', [txHash])).toEqual(
      await rpc(remote.url, 'eth_getTransactionReceipt', [txHash]),
    )
    expect(await rpc(fork.url, 'eth_getBlockTransactionCountByNumber', ['0x1'])).toBe(
      hex(BigInt(deployBlock.transactions.length)),
    )
    expect(await rpc(fork.url, 'ext_getRawBlockHeaderByNumber', ['0x1'])).toBe(
      await rpc(remote.url, 'ext_getRawBlockHeaderByNumber', ['0x1']),
    )
    expect(await rpc(fork.url, 'eth_getBlockByNumber', [hex(forkNumber + 1n), false])).toBeNull()
    // state below the fork block is the remote's at that number
    expect(await rpc(fork.url, 'eth_getBalance', [RICH, '0x1'])).toBe('0x0')
  })
})

describe('local blocks over the fork', () => {
  it('runs a forked ERC-20 transfer and call (ethers); the first local block follows the fork block', async () => {
    // the Remasc state the first block reads was asked for when the fork opened, in the background: five Remasc
    // cells and the Bridge's four federation cells
    await waitUntil(
      () => (proxy.counts.get('rsk_getStorageBytesAt') ?? 0) >= 9,
      'the nine Remasc and Bridge cells',
      10_000,
    )
    expect(proxy.counts.get('rsk_getStorageBytesAt')).toBe(9)
    proxy.resetCounts()
    const provider = new JsonRpcProvider(fork.url, undefined, { staticNetwork: true, cacheTimeout: -1 })
    try {
      const signer = await provider.getSigner(COW.address)
      const erc20 = new Contract(token, Token.abi, signer)
      const tx = await erc20.getFunction('transfer')(STRANGER, 500n)
      const receipt = await tx.wait()
      expect(receipt?.status).toBe(1)
      expect(BigInt(receipt!.blockNumber)).toBe(forkNumber + 1n)
      expect(await erc20.getFunction('balanceOf')(STRANGER)).toBe(500n)
      const block = await rpc<{ parentHash: string; number: string; hash: string }>(fork.url, 'eth_getBlockByNumber', [
        'latest',
        false,
      ])
      expect(block.parentHash).toBe(forkHash)
      expect(BigInt(block.number)).toBe(forkNumber + 1n)
      expect(await rpc(fork.url, 'eth_getBlockByHash', [block.hash, false])).toMatchObject({ hash: block.hash })
      // the remote did not change
      expect(await balanceOf(remote.url, STRANGER)).toBe(0n)
      // the block asked for no Remasc cell or payee again
      expect(proxy.counts.get('rsk_getStorageBytesAt')).toBeUndefined()
      // accounts: the coinbase (and the token when no earlier test read it), not Remasc's nor its five payees
      expect(proxy.counts.get('eth_getTransactionCount')).toBeLessThanOrEqual(2)
    } finally {
      provider.destroy()
    }
  })

  it('lists logs across the fork point: the remote ones up to the fork block, then the local ones', async () => {
    const logs = await rpc<{ blockNumber: string; address: string; transactionHash: string }[]>(
      fork.url,
      'eth_getLogs',
      [{ fromBlock: '0x0', toBlock: 'latest', address: token }],
    )
    const numbers = logs.map((l) => BigInt(l.blockNumber))
    expect(numbers.filter((n) => n <= forkNumber).length).toBeGreaterThanOrEqual(2) // mint and the transfer of 1000
    expect(numbers.filter((n) => n > forkNumber)).toEqual([forkNumber + 1n])
    expect([...numbers].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))).toEqual(numbers)
    const remoteOnly = await rpc<unknown[]>(fork.url, 'eth_getLogs', [
      { fromBlock: '0x0', toBlock: hex(forkNumber), address: token },
    ])
    expect(remoteOnly).toEqual(
      await rpc(remote.url, 'eth_getLogs', [{ fromBlock: '0x0', toBlock: hex(forkNumber), address: token }]),
    )
    // a log filter over the same range lists the same logs
    const id = await rpc<string>(fork.url, 'eth_newFilter', [{ fromBlock: '0x0', toBlock: 'latest', address: token }])
    const filtered = await rpc<{ blockNumber: string; transactionHash: string }[]>(fork.url, 'eth_getFilterLogs', [id])
    const key = (l: { blockNumber: string; transactionHash?: string }) => `${l.blockNumber}:${l.transactionHash}`
    expect(filtered.map(key)).toEqual(logs.map(key))
    // and one by the hash of a remote block
    const first = (remoteOnly as { blockHash: string }[])[0]!
    const byHash = await rpc<string>(fork.url, 'eth_newFilter', [{ blockHash: first.blockHash, address: token }])
    expect(await rpc(fork.url, 'eth_getFilterLogs', [byHash])).toEqual(
      await rpc(remote.url, 'eth_getLogs', [{ blockHash: first.blockHash, address: token }]),
    )
  })

  it('the BlockHeader native contract reads remote blocks below the fork block as the remote does', async () => {
    const header = new Interface([
      'function getCoinbaseAddress(int256) returns (bytes)',
      'function getBlockHash(int256) returns (bytes)',
      'function getGasLimit(int256) returns (bytes)',
      'function getGasUsed(int256) returns (bytes)',
      'function getDifficulty(int256) returns (bytes)',
      'function getMinGasPrice(int256) returns (bytes)',
      'function getCumulativeWork(int256) returns (bytes)',
    ])
    const to = '0x0000000000000000000000000000000001000010'
    for (const depth of [0, 2]) {
      for (const name of [
        'getCoinbaseAddress',
        'getBlockHash',
        'getGasLimit',
        'getGasUsed',
        'getDifficulty',
        'getMinGasPrice',
        'getCumulativeWork',
      ]) {
        const data = header.encodeFunctionData(name, [depth])
        // at the fork block (local state): depth 0 is the remote's block below it
        const local = await rpc<string>(fork.url, 'eth_call', [{ to, data }, hex(forkNumber)])
        expect(local, `${name}(${depth})`).toBe(
          await rpc<string>(remote.url, 'eth_call', [{ to, data }, hex(forkNumber)]),
        )
        expect(header.decodeFunctionResult(name, local)[0]).not.toBe('0x')
      }
    }
  })

  it('impersonates a rich remote account', async () => {
    await rpc(fork.url, 'anvil_impersonateAccount', [RICH])
    const hash = await rpc<string>(fork.url, 'eth_sendTransaction', [
      { from: RICH, to: STRANGER, value: hex(10n ** 18n) },
    ])
    expect((await rpc<{ status: string }>(fork.url, 'eth_getTransactionReceipt', [hash])).status).toBe('0x1')
    expect(BigInt(await rpc<string>(fork.url, 'eth_getBalance', [STRANGER, 'latest']))).toBe(10n ** 18n)
    expect(BigInt(await rpc<string>(fork.url, 'eth_getBalance', [RICH, 'latest']))).toBeLessThan(
      10n ** 21n - 10n ** 18n + 1n,
    )
  })

  it('reverts to a snapshot, and resets to the fork block', async () => {
    const id = await rpc<string>(fork.url, 'evm_snapshot')
    const head = await rpc<string>(fork.url, 'eth_blockNumber')
    await rpc(fork.url, 'eth_sendTransaction', [
      { from: COW.address, to: token, data: iface.encodeFunctionData('transfer', [STRANGER, 1n]), gas: '0x30d40' },
    ])
    expect(await balanceOf(fork.url, STRANGER)).toBe(501n)
    expect(await rpc(fork.url, 'evm_revert', [id])).toBe(true)
    expect(await rpc(fork.url, 'eth_blockNumber')).toBe(head)
    expect(await balanceOf(fork.url, STRANGER)).toBe(500n)
    // (viem's reset() sends { forking: { blockNumber: null } }: the same fork, back to its block)
    await rpc(fork.url, 'anvil_reset', [{ forking: { blockNumber: null } }])
    expect(BigInt(await rpc<string>(fork.url, 'eth_blockNumber'))).toBe(forkNumber)
    expect(await balanceOf(fork.url, STRANGER)).toBe(0n)
    expect(await rpc(fork.url, 'eth_getBalance', [RICH, 'latest'])).toBe(hex(10n ** 21n))
    // the chain goes on from the fork block again
    await rpc(fork.url, 'eth_sendTransaction', [{ from: COW.address, to: STRANGER, value: '0x1' }])
    const block = await rpc<{ parentHash: string }>(fork.url, 'eth_getBlockByNumber', ['latest', false])
    expect(block.parentHash).toBe(forkHash)
  })
})

describe('the remote failing, and the cache', () => {
  it('answers -32000 when the remote fails mid-test and keeps serving; the pool is left as it was', async () => {
    const fresh = '0x00000000000000000000000000000000000f4e55'
    proxy.failNext(1000, 'http503')
    try {
      const err = await rpcError(fork.url, 'eth_getBalance', [fresh, 'latest'])
      expect(err.code).toBe(-32000)
      expect(err.message).toMatch(/fork remote|HTTP 503|unavailable/i)
      const head = await rpc<string>(fork.url, 'eth_blockNumber')
      const send = await rpcError(fork.url, 'eth_sendTransaction', [{ from: COW.address, to: fresh, value: '0x1' }])
      expect(send.code).toBe(-32000)
      expect(await rpc(fork.url, 'eth_blockNumber')).toBe(head)
      expect(await rpc(fork.url, 'txpool_content')).toEqual({ pending: {}, queued: {} })
      // what is at hand is still served
      expect(await balanceOf(fork.url, COW1.address)).toBe(1000n)
    } finally {
      proxy.failNext(0, 'http503')
    }
  })

  it('serves a second run at the same block from the disk cache with the remote stopped', async () => {
    const own = await startRskjProxy({ upstream: remote.url })
    const dir = await mkdtemp(join(tmpdir(), 'node-cli-fork-cache-'))
    try {
      const first = await startNode({ fork: { url: own.url, blockNumber: forkNumber, cache: dir, retries: 0 } })
      const before = await balanceOf(first.url, COW1.address)
      const code = await rpc<string>(first.url, 'eth_getCode', [token, 'latest'])
      const block1 = await rpc(first.url, 'eth_getBlockByNumber', ['0x1', false])
      await first.close()
      await own.close()
      const second = await startNode({ fork: { url: own.url, blockNumber: forkNumber, cache: dir, retries: 0 } })
      try {
        expect(second.fork?.blockHash).toBe(forkHash)
        expect(await balanceOf(second.url, COW1.address)).toBe(before)
        expect(await rpc(second.url, 'eth_getCode', [token, 'latest'])).toBe(code)
        expect(await rpc(second.url, 'eth_getBlockByNumber', ['0x1', false])).toEqual(block1)
      } finally {
        await second.close()
      }
    } finally {
      await own.close()
      await rm(dir, { recursive: true, force: true })
    }
  })

  it('anvil_setRpcUrl sends later requests to another endpoint; anvil_reset to the same fork block stays', async () => {
    const other = await startRskjProxy({ upstream: remote.url })
    try {
      expect(await rpc(fork.url, 'anvil_setRpcUrl', [other.url])).toBeNull()
      expect(await rpc(fork.url, 'eth_getBalance', ['0x00000000000000000000000000000000000b0b00', 'latest'])).toBe(
        '0x0',
      )
      expect(other.total()).toBeGreaterThan(0)
      expect(
        (await rpc<{ forkConfig: { forkBlockNumber: number } }>(fork.url, 'anvil_nodeInfo')).forkConfig.forkBlockNumber,
      ).toBe(Number(forkNumber))
      expect(
        await rpc(fork.url, 'hardhat_reset', [{ forking: { jsonRpcUrl: other.url, blockNumber: Number(forkNumber) } }]),
      ).toBeNull()
      expect(BigInt(await rpc<string>(fork.url, 'eth_blockNumber'))).toBe(forkNumber)
    } finally {
      await rpc(fork.url, 'anvil_setRpcUrl', [proxy.url])
      await other.close()
    }
    expect(await rpcError(remote.url, 'anvil_setRpcUrl', [proxy.url])).toMatchObject({ code: -32602 })
  })

  it('refuses --db with a fork, and a remote that is not there', async () => {
    await expect(startNode({ db: cacheRoot, fork: { url: proxy.url } })).rejects.toThrow(/--db/)
    await expect(startNode({ fork: { url: 'http://127.0.0.1:9', retries: 0, cache: false } })).rejects.toThrow(
      /127\.0\.0\.1:9/,
    )
  })
})

describe('the command line', () => {
  it('forks with --fork-url and --fork-block-number, and shows the remote chain id, fork block and hash', async () => {
    const cli = runCli([
      '-p',
      '0',
      '--fork-url',
      proxy.url,
      '--fork-block-number',
      String(forkNumber),
      '--no-fork-cache',
      '--fork-retries',
      '1',
      '--fork-headers',
      'X-Api-Key: k1',
    ])
    const [, url] = await cli.waitFor(/Listening on (http:\/\/\S+) /)
    expect(cli.output()).toContain(`chain id 33, block #${forkNumber} ${forkHash}`)
    expect(cli.output()).toMatch(/Fork cache in memory/)
    expect(BigInt(await rpc<string>(url!, 'eth_blockNumber'))).toBe(forkNumber)
    expect(proxy.lastHeaders()['x-api-key']).toBe('k1')
    const bad = runCli(['-p', '0', '--fork-block-number', '3'])
    await bad.waitFor(/need --fork-url/)
  })
})
