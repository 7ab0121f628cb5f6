/**
 * A fork of a remote that does not serve the storage-bytes method (the reference ships it off) cannot read the
 * Bridge's federation cells, which are longer than 32 bytes (docs/reference-rules.md#rule-bridge-federation,
 * #rule-fork-remote): the federation getters answer the remote error (-32000), Remasc keeps paying the network's
 * genesis federators instead of failing every block, and the unreadable cells are not asked for again.
 *
 * The remote is a node-cli (regtest) whose Bridge storage holds an elected federation (format 1000, 3 members)
 * loaded with anvil_loadState, presented as network 31 by the reference-like proxy with the storage-bytes method
 * off, forked at its genesis with testnet's upgrades at block 1; Remasc pays from block 60 (maturity 50, span 10).
 */
import { encodeRlp, Interface, SigningKey, toBeHex } from 'ethers'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Node } from '../../src/index.js'
import { NETWORK_UPGRADES, upgradeHeight } from '../../src/rsk/activations.js'
import { GENESIS_FEDERATORS } from '../../src/rsk/remasc.js'
import { toHex } from '../../src/util/bytes.js'
import { COW, rpc, rpcRaw, startNode } from '../helpers/node.js'
import { closeForkTest, startFork } from '../helpers/fork.js'
import { startRskjProxy, type RskjProxy } from '../helpers/rskj-proxy.js'

let remote: Node
let proxy: RskjProxy
let fork: Node
const OVERRIDES: Record<string, number> = {}
for (const u of NETWORK_UPGRADES) {
  const h = upgradeHeight(31, u)
  if (h !== undefined && h > 0n) OVERRIDES[u] = 1
}
const BRIDGE = '0x0000000000000000000000000000000001000006'
const REMASC = '0x0000000000000000000000000000000001000008'
const bridge = new Interface(['function getFederationSize() returns (int256)'])
const slot = (name: string) => '0x' + Buffer.from(name).toString('hex').padStart(64, '0')
const pub = (n: number): string => SigningKey.computePublicKey(toBeHex(n, 32), true)

beforeAll(async () => {
  remote = await startNode()
  const members = [0, 1, 2].map((i) => encodeRlp([pub(0x21 + i), pub(0x31 + i), pub(0x41 + i)]))
  const cells = {
    [slot('newFederation')]: encodeRlp([toBeHex(1_700_000_000_000), toBeHex(1), members]),
    [slot('newFederationFormatVersion')]: encodeRlp(toBeHex(1000)),
  }
  const doc = JSON.stringify({ accounts: {}, node_cli: { storageBytes: { [BRIDGE]: cells } } })
  expect(await rpc(remote.url, 'anvil_loadState', ['0x' + Buffer.from(doc).toString('hex')])).toBe(true)
  proxy = await startRskjProxy({ upstream: remote.url, chainId: 31, storageBytes: false })
  fork = await startFork(proxy.url, { activations: OVERRIDES })
  await rpc(fork.url, 'anvil_setMinGasPrice', ['0x0'])
  await rpc(fork.url, 'anvil_mine', [toBeHex(61)])
}, 120_000)

afterAll(() => closeForkTest(fork, proxy, remote))

describe('a fork of a remote without the storage-bytes method', () => {
  it('answers the federation getters with the remote error (-32000)', async () => {
    const { body } = await rpcRaw(fork.url, 'eth_call', [
      { from: COW.address, to: BRIDGE, data: bridge.encodeFunctionData('getFederationSize') },
      'latest',
    ])
    expect(body.error?.code).toBe(-32000)
    expect(body.error?.message).toMatch(/storage-bytes method/)
  })

  it("mines on, Remasc paying the network's genesis federators", async () => {
    expect(await rpc(fork.url, 'eth_blockNumber')).toBe(toBeHex(61))
    const block = await rpc<{ transactions: string[] }>(fork.url, 'eth_getBlockByNumber', [toBeHex(61), false])
    const receipt = await rpc<{ logs: { address: string; topics: string[] }[] }>(
      fork.url,
      'eth_getTransactionReceipt',
      [block.transactions.at(-1)],
    )
    const payees = receipt.logs.filter((l) => l.address === REMASC).map((l) => '0x' + l.topics[1]!.slice(26))
    expect(payees.slice(1, -1)).toEqual(GENESIS_FEDERATORS[31].map((a) => toHex(a)))
  })

  it('does not ask the remote for the unreadable cells again', async () => {
    proxy.resetCounts()
    await rpc(fork.url, 'anvil_mine', [toBeHex(3)])
    expect(proxy.counts.get('eth_getStorageAt') ?? 0).toBe(0)
    expect(proxy.total()).toBe(0)
  })
})
