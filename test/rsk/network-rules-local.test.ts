/**
 * A chain of network 30 that is not a fork runs every rule from block 0 (docs/reference-rules.md#rule-network-activations:
 * its blocks are new ones, not mainnet's), with mainnet's own constants: PUSH0 (RSKIP398), the Bridge methods and
 * answers of the newest rules (docs/reference-rules.md#rule-bridge-activations), and Remasc with RSKIP85 and the
 * RSKIP218 RSK Labs address (docs/reference-rules.md#rule-remasc-activations) at mainnet's maturity of 4 000 blocks.
 */
import { Interface } from 'ethers'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Node } from '../../src/index.js'
import { GENESIS_FEDERATORS } from '../../src/rsk/remasc.js'
import { toHex } from '../../src/util/bytes.js'
import { rpc, startNode } from '../helpers/node.js'

let node: Node
const BRIDGE = '0x0000000000000000000000000000000001000006'
const bridge = new Interface([
  'function getLockingCap() returns (int256)',
  'function getMinimumLockTxValue() returns (int256)',
  'function getQueuedPegoutsCount() returns (uint256)',
])
const NEW_RSK_LABS = '0xdcb12179ba4697350f66224c959bdd9c282818df'

/** The payees of block `n`'s Remasc transaction, in order. */
async function payees(n: number): Promise<string[]> {
  const block = await rpc<{ transactions: string[] }>(node.url, 'eth_getBlockByNumber', ['0x' + n.toString(16), false])
  const receipt = await rpc<{ logs: { topics: string[] }[] }>(node.url, 'eth_getTransactionReceipt', [
    block.transactions.at(-1),
  ])
  return receipt.logs.map((l) => '0x' + l.topics[1]!.slice(26))
}

beforeAll(async () => {
  node = await startNode({ network: 30 })
})

afterAll(async () => {
  await node?.close()
})

describe('a local chain of network 30 has every rule from block 0', () => {
  it('runs PUSH0 and answers the newest Bridge methods at block 0', async () => {
    expect(await rpc(node.url, 'eth_chainId')).toBe('0x1e')
    // PUSH0 PUSH0 RETURN as init code: an empty contract
    expect(await rpc(node.url, 'eth_call', [{ data: '0x5f5ff3' }, 'latest'])).toBe('0x')
    const call = (data: string) => rpc<string>(node.url, 'eth_call', [{ to: BRIDGE, data }, 'latest'])
    expect(BigInt(await call(bridge.encodeFunctionData('getLockingCap')))).toBeGreaterThan(0n)
    expect(BigInt(await call(bridge.encodeFunctionData('getMinimumLockTxValue')))).toBe(500_000n)
    expect(await call(bridge.encodeFunctionData('getQueuedPegoutsCount'))).toBe('0x' + '0'.repeat(64))
  })

  it('runs Remasc with RSKIP85 and pays RSK Labs at the RSKIP218 address', async () => {
    // minimumGasPrice 1 wei and no fees: with RSKIP85 the first paying block (4 010) pays nothing
    await rpc(node.url, 'anvil_setMinGasPrice', ['0x1'])
    await rpc(node.url, 'anvil_mine', ['0x' + (4010).toString(16)])
    expect(await payees(4010)).toEqual([])
    // at minimumGasPrice 0 every share is payable: RSK Labs (the newer address), the federators, the miner
    await rpc(node.url, 'anvil_setMinGasPrice', ['0x0'])
    await rpc(node.url, 'evm_mine')
    const miner = await rpc<string>(node.url, 'eth_coinbase')
    expect(await payees(4011)).toEqual([NEW_RSK_LABS, ...GENESIS_FEDERATORS[30].map((a) => toHex(a)), miner])
  }, 60_000)
})
