/**
 * A fork of network 30 (main) mines blocks as mainnet does today (docs/reference-rules.md#rule-network-activations):
 * version-0 headers with an ummRoot and no edges, and no parallel sublists (the reed810 upgrade, with RSKIP144 and
 * RSKIP351, is not on mainnet). A node-cli is presented as network 30 by the reference-like proxy and forked at its
 * genesis, with mainnet's upgrades moved to block 1 (orchid, whose RSKIP92 hash form the genesis has, to 0) so
 * that the local blocks run mainnet's current rules.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Node } from '../../src/index.js'
import { activationsFor, NETWORK_UPGRADES, upgradeHeight } from '../../src/rsk/activations.js'
import { headerHash } from '../../src/rsk/header.js'
import { decodeHeader } from '../../src/rsk/header-decode.js'
import { fromHex, toHex } from '../../src/util/bytes.js'
import { COW, COW1, rpc, startNode } from '../helpers/node.js'
import { startRskjProxy, type RskjProxy } from '../helpers/rskj-proxy.js'

let remote: Node
let proxy: RskjProxy
let fork: Node
// every upgrade mainnet has, at block 1 (orchid at 0); those it never had stay never
const OVERRIDES: Record<string, number> = { rskip536: 1 }
for (const u of NETWORK_UPGRADES) if (upgradeHeight(30, u) !== undefined) OVERRIDES[u] = u === 'orchid' ? 0 : 1
const rules = activationsFor(30, OVERRIDES)

beforeAll(async () => {
  remote = await startNode()
  proxy = await startRskjProxy({ upstream: remote.url, chainId: 30 })
  fork = await startNode({
    fork: { url: proxy.url, blockNumber: 0, cache: false, retries: 0, timeoutMs: 5_000, activations: OVERRIDES },
  })
})

afterAll(async () => {
  await fork?.close()
  await proxy?.close()
  await remote?.close()
})

describe('a fork of network 30 mines as mainnet', () => {
  it('puts two independent transactions in one sequential list: receipts count gas across the block', async () => {
    expect(await rpc(fork.url, 'eth_chainId')).toBe('0x1e')
    await rpc(fork.url, 'evm_setAutomine', [false])
    const a = await rpc<string>(fork.url, 'eth_sendTransaction', [
      { from: COW.address, to: COW1.address, value: '0x1' },
    ])
    const b = await rpc<string>(fork.url, 'eth_sendTransaction', [
      { from: COW1.address, to: COW.address, value: '0x1' },
    ])
    await rpc(fork.url, 'evm_mine')
    const ra = await rpc<{ cumulativeGasUsed: string; gasUsed: string; blockNumber: string }>(
      fork.url,
      'eth_getTransactionReceipt',
      [a],
    )
    const rb = await rpc<{ cumulativeGasUsed: string; gasUsed: string; blockNumber: string }>(
      fork.url,
      'eth_getTransactionReceipt',
      [b],
    )
    expect(rb.blockNumber).toBe(ra.blockNumber)
    const [first, second] = BigInt(ra.cumulativeGasUsed) < BigInt(rb.cumulativeGasUsed) ? [ra, rb] : [rb, ra]
    expect(BigInt(second.cumulativeGasUsed)).toBe(BigInt(first.cumulativeGasUsed) + BigInt(second.gasUsed))
    // (with RSKIP144, as on node-cli's own chain, independent transactions may go to parallel sublists, each
    // counting only its own gas: docs/reference-rules.md#rule-parallel-sublists)
    const block = await rpc<{ rskPteEdges: unknown }>(fork.url, 'eth_getBlockByNumber', [ra.blockNumber, false])
    expect(block.rskPteEdges).toBeNull()
  })

  it('builds version-0 headers with an ummRoot and without edges', async () => {
    const raw = fromHex(await rpc<string>(fork.url, 'ext_getRawBlockHeaderByNumber', ['0x1']))
    const header = decodeHeader(raw, (n) => rules.headerRulesAt(n))
    expect(header.version).toBe(0)
    expect(header.ummRoot).not.toBeNull()
    expect(header.edges).toBeNull()
    const block = await rpc<{ hash: string }>(fork.url, 'eth_getBlockByNumber', ['0x1', false])
    expect(toHex(headerHash(header))).toBe(block.hash)
  })
})
