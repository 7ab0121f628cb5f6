/**
 * A fork runs Remasc with the remote network's rules at each block's height
 * (docs/reference-rules.md#rule-remasc-activations): a node-cli presented as network 30 (main: maturity 4 000,
 * synthetic span 10) by the reference-like proxy, forked at its genesis, with mainnet's upgrades at block 1 (orchid
 * at 0) but RSKIP218 moved to block 4 013 and RSKIP85 to 4 015, so that the first paying blocks (from 4 010) cross
 * them. Block 1 carries 21 000 000 wei of fees (gas price 1 000 wei); minimumGasPrice is 1 wei throughout.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Node } from '../../src/index.js'
import { NETWORK_UPGRADES, upgradeHeight } from '../../src/rsk/activations.js'
import { GENESIS_FEDERATORS } from '../../src/rsk/remasc.js'
import { toHex } from '../../src/util/bytes.js'
import { COW, COW1, rpc, startNode } from '../helpers/node.js'
import { closeForkTest, startFork } from '../helpers/fork.js'
import { startRskjProxy, type RskjProxy } from '../helpers/rskj-proxy.js'

let remote: Node
let proxy: RskjProxy
let fork: Node
const OVERRIDES: Record<string, number> = { rskip536: 1, rskip218: 4013, rskip85: 4015 }
for (const u of NETWORK_UPGRADES) if (upgradeHeight(30, u) !== undefined) OVERRIDES[u] = u === 'orchid' ? 0 : 1
const REMASC = '0x0000000000000000000000000000000001000008'
const OLD_RSK_LABS = '0x14d3065c8eb89895f4df12450ec6b130049f8034'
const NEW_RSK_LABS = '0xdcb12179ba4697350f66224c959bdd9c282818df'
const FEDERATORS = GENESIS_FEDERATORS[30].map((a) => toHex(a))
const FEDERATION_BALANCE = '0x' + Buffer.from('federationBalance').toString('hex').padStart(64, '0')
let miner: string

/** The payees of block `n`'s Remasc transaction, in order (the second topic of each payment log). */
async function payees(n: number): Promise<string[]> {
  const block = await rpc<{ transactions: string[] }>(fork.url, 'eth_getBlockByNumber', ['0x' + n.toString(16), false])
  const receipt = await rpc<{ logs: { address: string; topics: string[] }[] }>(fork.url, 'eth_getTransactionReceipt', [
    block.transactions.at(-1),
  ])
  for (const l of receipt.logs) expect(l.address).toBe(REMASC)
  return receipt.logs.map((l) => '0x' + l.topics[1]!.slice(26))
}

beforeAll(async () => {
  remote = await startNode()
  proxy = await startRskjProxy({ upstream: remote.url, chainId: 30 })
  fork = await startFork(proxy.url, { activations: OVERRIDES })
  await rpc(fork.url, 'anvil_setMinGasPrice', ['0x1'])
  const hash = await rpc<string>(fork.url, 'eth_sendTransaction', [
    { from: COW.address, to: COW1.address, value: '0x1', gas: '0x5208', gasPrice: '0x3e8' },
  ])
  const receipt = await rpc<{ blockNumber: string }>(fork.url, 'eth_getTransactionReceipt', [hash])
  expect(receipt.blockNumber).toBe('0x1')
  miner = await rpc<string>(fork.url, 'eth_coinbase')
  // up to block 4 016
  await rpc(fork.url, 'anvil_mine', ['0x' + (4016 - 1).toString(16)])
  expect(await rpc(fork.url, 'eth_blockNumber')).toBe('0xfb0')
}, 120_000)

afterAll(() => closeForkTest(fork, proxy, remote))

describe('a fork of network 30 runs Remasc with the rules of each height', () => {
  it('reads its blocks back past the decoded-block cache with the remote header format (version 0, ummRoot)', async () => {
    const block = await rpc<{ number: string; hash: string }>(fork.url, 'eth_getBlockByNumber', ['0x5', false])
    expect(block.number).toBe('0x5')
    const byHash = await rpc<{ number: string }>(fork.url, 'eth_getBlockByHash', [block.hash, false])
    expect(byHash.number).toBe('0x5')
  })

  it('pays nothing before maturity + synthetic span, then RSK Labs at its older address before RSKIP218', async () => {
    expect(await payees(4009)).toEqual([])
    // before RSKIP85 every federator is paid whatever its cut
    expect(await payees(4010)).toEqual([OLD_RSK_LABS, ...FEDERATORS, miner])
    expect(await payees(4012)).toEqual([OLD_RSK_LABS, ...FEDERATORS, miner])
  })

  it('pays RSK Labs at the RSKIP218 address from that height on', async () => {
    expect(await payees(4013)).toEqual([NEW_RSK_LABS, ...FEDERATORS, miner])
    expect(await payees(4014)).toEqual([NEW_RSK_LABS, ...FEDERATORS, miner])
  })

  it('keeps the federation share in its balance once RSKIP85 is active (each cut is below 50 000 wei)', async () => {
    // before RSKIP85 the federation balance cell was never written
    expect(await rpc(fork.url, 'ext_getStorageBytesAt', [REMASC, FEDERATION_BALANCE, '0xfae'])).toBe('0x0')
    expect(await payees(4015)).toEqual([NEW_RSK_LABS, miner])
    const balance = await rpc<string>(fork.url, 'ext_getStorageBytesAt', [REMASC, FEDERATION_BALANCE, '0xfaf'])
    expect(BigInt(balance)).toBeGreaterThan(0n)
    expect(BigInt(balance) / 15n).toBeLessThan(50_000n)
    // and it grows with the next block's share
    expect(await payees(4016)).toEqual([NEW_RSK_LABS, miner])
    expect(
      BigInt(await rpc<string>(fork.url, 'ext_getStorageBytesAt', [REMASC, FEDERATION_BALANCE, '0xfb0'])),
    ).toBeGreaterThan(BigInt(balance))
  })
})
