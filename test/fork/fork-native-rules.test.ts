/**
 * A fork runs the native contracts with the remote network's rules at each block's height
 * (docs/reference-rules.md#rule-bridge-activations): a node-cli presented as network 31 (test) by the
 * reference-like proxy, forked at its genesis, with testnet's later upgrades moved close: papyrus200 … hop400 (and
 * the rules testnet pins among them) to block 2, fingerroot500 and everything after it to block 3. So block 1 runs
 * without RSKIP132, RSKIP134, RSKIP186, RSKIP219, RSKIP220, RSKIP271, RSKIP293; block 2 has them but not RSKIP385,
 * RSKIP417, RSKIP419, RSKIP536; block 3 on has them all.
 */
import { Interface } from 'ethers'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Node } from '../../src/index.js'
import { NETWORK_UPGRADES, upgradeHeight } from '../../src/rsk/activations.js'
import { COW, rpc, startNode } from '../helpers/node.js'
import { closeForkTest, startFork } from '../helpers/fork.js'
import { startRskjProxy, type RskjProxy } from '../helpers/rskj-proxy.js'

let remote: Node
let proxy: RskjProxy
let fork: Node
const LATE = NETWORK_UPGRADES.indexOf('fingerroot500')
const OVERRIDES: Record<string, number> = { rskip132: 2, rskip284: 2, rskip290: 2, rskip535: 3 }
for (const [i, u] of NETWORK_UPGRADES.entries()) {
  const h = upgradeHeight(31, u)
  if (h !== undefined && h > 0n) OVERRIDES[u] = i >= LATE ? 3 : 2
}
const BRIDGE = '0x0000000000000000000000000000000001000006'
const BLOCK_HEADER = '0x0000000000000000000000000000000001000010'
const bridge = new Interface([
  'function getLockingCap() returns (int256)',
  'function getMinimumLockTxValue() returns (int256)',
  'function getFederationCreationTime() returns (int256)',
  'function getActivePowpegRedeemScript() returns (bytes)',
  'function getActiveFederationCreationBlockHeight() returns (uint256)',
  'function getBtcBlockchainBlockHeaderByHeight(uint256) returns (bytes)',
  'function getBtcBlockchainBestChainHeight() returns (int256)',
  'function getQueuedPegoutsCount() returns (uint256)',
  'function getEstimatedFeesForNextPegOutEvent() returns (uint256)',
  'function getFeePerKb() returns (int256)',
  'function receiveHeaders(bytes[])',
])
const blockHeader = new Interface(['function getCumulativeWork(int256) returns (bytes)'])
// a contract that DELEGATECALLs the Bridge with its call data and returns whether the call succeeded
const DELEGATOR_RUNTIME = '36600060003760006000366000' + '73' + BRIDGE.slice(2) + '5af460005260206000f3'
let delegator: string

/** The txs the test mines in blocks 1 and 2, in this order. */
const TXS = [
  bridge.encodeFunctionData('getQueuedPegoutsCount'),
  bridge.encodeFunctionData('getBtcBlockchainBestChainHeight'),
  bridge.encodeFunctionData('receiveHeaders', [['0x' + '11'.repeat(80), '0x' + '22'.repeat(80)]]),
]
const receipts: { status: string; gasUsed: string; blockNumber: string }[][] = []

/** Intrinsic gas of a call with `data` before RSKIP400: 21 000 + 4 per zero byte + 68 per other byte. */
function intrinsic(data: string): bigint {
  const bytes = Buffer.from(data.slice(2), 'hex')
  return 21_000n + bytes.reduce((g, b) => g + (b === 0 ? 4n : 68n), 0n)
}

/** Calls `data` on `to` at `block`, answering the raw result ("0x" for a failed native call). */
function call(to: string, data: string, block: string): Promise<string> {
  return rpc<string>(fork.url, 'eth_call', [{ from: COW.address, to, data, gas: '0x4c4b40' }, block])
}

/** Mines one block holding {@link TXS}, all sent to the Bridge from COW; answers their receipts. */
async function mineBridgeTxs() {
  await rpc(fork.url, 'evm_setAutomine', [false])
  const hashes: string[] = []
  for (const data of TXS)
    hashes.push(
      await rpc<string>(fork.url, 'eth_sendTransaction', [{ from: COW.address, to: BRIDGE, data, gas: '0x30d40' }]),
    )
  await rpc(fork.url, 'evm_mine')
  await rpc(fork.url, 'evm_setAutomine', [true])
  return Promise.all(hashes.map((h) => rpc(fork.url, 'eth_getTransactionReceipt', [h])))
}

beforeAll(async () => {
  remote = await startNode()
  proxy = await startRskjProxy({ upstream: remote.url, chainId: 31 })
  fork = await startFork(proxy.url, { activations: OVERRIDES })
  receipts.push(await mineBridgeTxs(), await mineBridgeTxs())
  const len = (DELEGATOR_RUNTIME.length / 2).toString(16).padStart(2, '0')
  const hash = await rpc<string>(fork.url, 'eth_sendTransaction', [
    { from: COW.address, data: '0x60' + len + '80600b6000396000f3' + DELEGATOR_RUNTIME, gas: '0x30d40' },
  ])
  const deployed = await rpc<{ contractAddress: string; blockNumber: string }>(fork.url, 'eth_getTransactionReceipt', [
    hash,
  ])
  expect(deployed.blockNumber).toBe('0x3')
  delegator = deployed.contractAddress
})

afterAll(() => closeForkTest(fork, proxy, remote))

describe('Bridge methods exist from their rule on', () => {
  it('answers a call before the rule as data naming no method: "0x" (RSKIP134, RSKIP220, RSKIP271, RSKIP293, RSKIP186)', async () => {
    const reads: [string, string][] = [
      ['getLockingCap', bridge.encodeFunctionData('getLockingCap')],
      ['getBtcBlockchainBlockHeaderByHeight', bridge.encodeFunctionData('getBtcBlockchainBlockHeaderByHeight', [0])],
      ['getEstimatedFeesForNextPegOutEvent', bridge.encodeFunctionData('getEstimatedFeesForNextPegOutEvent')],
      ['getActivePowpegRedeemScript', bridge.encodeFunctionData('getActivePowpegRedeemScript')],
      ['getActiveFederationCreationBlockHeight', bridge.encodeFunctionData('getActiveFederationCreationBlockHeight')],
    ]
    for (const [name, data] of reads) {
      expect([name, await call(BRIDGE, data, '0x1')]).toEqual([name, '0x'])
      expect((await call(BRIDGE, data, '0x2')).length).toBeGreaterThan(2)
    }
    // testnet's initial locking cap (200 BTC) while the storage holds none
    const cap = await call(BRIDGE, bridge.encodeFunctionData('getLockingCap'), 'latest')
    expect(BigInt(cap)).toBe(20_000_000_000n)
  })

  it('charges releaseBtc 23 000 gas for a method before its rule in a transaction, the method price after', () => {
    const [b1, b2] = receipts
    expect(b1!.map((r) => r.blockNumber)).toEqual(['0x1', '0x1', '0x1'])
    expect(b1![0]!.status).toBe('0x0')
    expect(BigInt(b1![0]!.gasUsed)).toBe(intrinsic(TXS[0]!) + 23_000n)
    expect(b2![0]!.status).toBe('0x1')
    expect(BigInt(b2![0]!.gasUsed)).toBe(intrinsic(TXS[0]!) + 3_000n + 8n)
  })
})

describe('Bridge answers and checks that change with a rule', () => {
  it('getBtcBlockchainBestChainHeight is for local calls only before RSKIP220', () => {
    const [b1, b2] = receipts
    expect(b1![1]!.status).toBe('0x0')
    expect(b2![1]!.status).toBe('0x1')
    for (const r of [b1![1]!, b2![1]!]) expect(BigInt(r.gasUsed)).toBe(intrinsic(TXS[1]!) + 19_000n + 8n)
  })

  it('receiveHeaders costs 66 000 + 1 650 per extra header before RSKIP132, 25 000 + 3 500 from it', () => {
    const [b1, b2] = receipts
    const dataGas = BigInt((TXS[2]!.length - 2) / 2) * 2n
    // both fail for a sender outside the federation (before RSKIP200 it would take anyone's headers: unsupported)
    expect([b1![2]!.status, b2![2]!.status]).toEqual(['0x0', '0x0'])
    expect(BigInt(b1![2]!.gasUsed)).toBe(intrinsic(TXS[2]!) + 66_000n + 1_650n + dataGas)
    expect(BigInt(b2![2]!.gasUsed)).toBe(intrinsic(TXS[2]!) + 25_000n + 3_500n + dataGas)
  })

  it('answers the legacy minimum peg-in value before RSKIP219', async () => {
    const data = bridge.encodeFunctionData('getMinimumLockTxValue')
    expect(BigInt(await call(BRIDGE, data, '0x1'))).toBe(1_000_000n)
    expect(BigInt(await call(BRIDGE, data, '0x2'))).toBe(500_000n)
  })

  it('answers no peg-out fee estimate while none is queued before RSKIP385', async () => {
    const data = bridge.encodeFunctionData('getEstimatedFeesForNextPegOutEvent')
    expect(BigInt(await call(BRIDGE, data, '0x2'))).toBe(0n)
    expect(BigInt(await call(BRIDGE, data, 'latest'))).toBeGreaterThan(0n)
  })

  it('answers the federation creation time in milliseconds before RSKIP419, in seconds from it', async () => {
    const data = bridge.encodeFunctionData('getFederationCreationTime')
    // testnet's genesis federation: 1970-01-18T19:29:27.600Z
    expect(BigInt(await call(BRIDGE, data, 'latest'))).toBe(1_538_967n)
    expect(BigInt(await call(BRIDGE, data, '0x2'))).toBe(1_538_967_600n)
  })

  it('accepts a DELEGATECALL before RSKIP417 and refuses it from it', async () => {
    const data = bridge.encodeFunctionData('getFeePerKb')
    // the delegator answers whether its DELEGATECALL to the Bridge succeeded; it was deployed in block 3, so a
    // call at block 2 (without RSKIP417) gives it its code by a state override
    expect(BigInt(await call(delegator, data, 'latest'))).toBe(0n)
    const code = await rpc<string>(fork.url, 'eth_getCode', [delegator, 'latest'])
    const atTwo = await rpc<string>(fork.url, 'eth_call', [
      { from: COW.address, to: delegator, data, gas: '0x4c4b40' },
      '0x2',
      { [delegator]: { code } },
    ])
    expect(BigInt(atTwo)).toBe(1n)
  })
})

describe('BlockHeader', () => {
  it('has getCumulativeWork from RSKIP536 on', async () => {
    const data = blockHeader.encodeFunctionData('getCumulativeWork', [0])
    expect(await call(BLOCK_HEADER, data, '0x2')).toBe('0x')
    expect((await call(BLOCK_HEADER, data, 'latest')).length).toBeGreaterThan(2)
  })
})
