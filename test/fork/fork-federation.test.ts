/**
 * A fork takes the Bridge's federations, locking cap and fee per KB from the remote's storage, and Remasc pays the
 * active federation's members (docs/reference-rules.md#rule-bridge-federation, #rule-remasc-activations).
 *
 * The remote is a node-cli (regtest) whose Bridge storage is given, with anvil_loadState, an "old" federation in
 * the legacy BTC-keys-only format (3 members) and a "new" one in format 1000 (5 members with distinct BTC, RSK and
 * MST keys, created at block 5), a locking cap and a fee per KB, at rskj's keys; the reference-like proxy presents
 * it as network 31 (test), forked at its genesis (whose state the load changed in place). Testnet's upgrades are moved to block 1, except RSKIP383 (never:
 * the activation age stays testnet's legacy 60 blocks, so the new federation is active from block 65) and RSKIP415
 * (block 68: federators are paid at their BTC key's address before it). Remasc on testnet: maturity 50, synthetic
 * span 10, so blocks from 60 on pay; block 1 carries 21 000 000 wei of fees.
 */
import { computeAddress, encodeBase58, encodeRlp, Interface, ripemd160, sha256, SigningKey, toBeHex } from 'ethers'
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
let miner: string
const OVERRIDES: Record<string, number> = { rskip383: -1, rskip415: 68 }
for (const u of NETWORK_UPGRADES) {
  const h = upgradeHeight(31, u)
  if (h !== undefined && h > 0n) OVERRIDES[u] = 1
}
const BRIDGE = '0x0000000000000000000000000000000001000006'
const REMASC = '0x0000000000000000000000000000000001000008'
const RSK_LABS = '0xdabadabadabadabadabadabadabadabadaba0003'
const bridge = new Interface([
  'function getFederationSize() returns (int256)',
  'function getFederationThreshold() returns (int256)',
  'function getFederationAddress() returns (string)',
  'function getFederationCreationTime() returns (int256)',
  'function getFederationCreationBlockNumber() returns (int256)',
  'function getFederatorPublicKeyOfType(int256,string) returns (bytes)',
  'function getRetiringFederationSize() returns (int256)',
  'function getRetiringFederationAddress() returns (string)',
  'function getLockingCap() returns (int256)',
  'function getFeePerKb() returns (int256)',
  'function getMinimumLockTxValue() returns (int256)',
])

/** A compressed public key of private key `n` (a small number). */
const pub = (n: number): string => SigningKey.computePublicKey(toBeHex(n, 32), true)
const byKey = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)
const OLD_KEYS = [0x11, 0x12, 0x13].map(pub).sort(byKey)
const NEW_MEMBERS = [0, 1, 2, 3, 4]
  .map((i) => ({ btc: pub(0x21 + i), rsk: pub(0x31 + i), mst: pub(0x41 + i) }))
  .sort((a, b) => byKey(a.btc, b.btc))
const OLD_TIME_MS = 1_600_000_000_000
const NEW_TIME_MS = 1_700_000_123_000
const LOCKING_CAP = 123_456_789_000n
const FEE_PER_KB = 54_321n

/** DataWord.fromString(name): the Bridge storage key of a named cell. */
const slot = (name: string) => '0x' + Buffer.from(name).toString('hex').padStart(64, '0')
/** A number as the reference's RLP big integer (0 → empty). */
const rlpNumber = (n: bigint | number) => encodeRlp(BigInt(n) === 0n ? '0x' : toBeHex(n))
const num = (n: bigint | number) => (BigInt(n) === 0n ? '0x' : toBeHex(n))

/** Base58Check address of a standard m-of-n multisig over `keys` (P2SH, Bitcoin testnet/regtest version 196). */
function multisigAddress(keys: string[]): string {
  const m = Math.floor(keys.length / 2) + 1
  const script = Buffer.concat([
    Buffer.of(0x50 + m),
    ...[...keys].sort(byKey).flatMap((k) => [Buffer.of(33), Buffer.from(k.slice(2), 'hex')]),
    Buffer.of(0x50 + keys.length, 0xae),
  ])
  const payload = Buffer.concat([Buffer.of(196), Buffer.from(ripemd160(sha256(script)).slice(2), 'hex')])
  const check = Buffer.from(sha256(sha256(payload)).slice(2), 'hex').subarray(0, 4)
  return encodeBase58(Buffer.concat([payload, check]))
}

/** Calls a Bridge getter on `url` at `block`, decoded. */
async function get(url: string, name: string, args: unknown[] = [], block = 'latest'): Promise<unknown> {
  const data = bridge.encodeFunctionData(name, args)
  const out = await rpc<string>(url, 'eth_call', [{ from: COW.address, to: BRIDGE, data }, block])
  return bridge.decodeFunctionResult(name, out)[0]
}

/** The payees of block `n`'s Remasc transaction, in order. */
async function payees(n: number): Promise<string[]> {
  const block = await rpc<{ transactions: string[] }>(fork.url, 'eth_getBlockByNumber', [toBeHex(n), false])
  const receipt = await rpc<{ logs: { address: string; topics: string[] }[] }>(fork.url, 'eth_getTransactionReceipt', [
    block.transactions.at(-1),
  ])
  for (const l of receipt.logs) expect(l.address).toBe(REMASC)
  return receipt.logs.map((l) => '0x' + l.topics[1]!.slice(26))
}

const address = (key: string) => computeAddress(key).toLowerCase()

beforeAll(async () => {
  remote = await startNode()
  const cells = {
    [slot('oldFederation')]: encodeRlp([num(OLD_TIME_MS), num(1), OLD_KEYS]),
    [slot('newFederation')]: encodeRlp([
      num(NEW_TIME_MS),
      num(5),
      NEW_MEMBERS.map((m) => encodeRlp([m.btc, m.rsk, m.mst])),
    ]),
    [slot('newFederationFormatVersion')]: rlpNumber(1000),
    [slot('lockingCap')]: rlpNumber(LOCKING_CAP),
    [slot('feePerKb')]: rlpNumber(FEE_PER_KB),
  }
  const doc = JSON.stringify({ accounts: {}, node_cli: { storageBytes: { [BRIDGE]: cells } } })
  expect(await rpc(remote.url, 'anvil_loadState', ['0x' + Buffer.from(doc).toString('hex')])).toBe(true)
  proxy = await startRskjProxy({ upstream: remote.url, chainId: 31 })
  fork = await startFork(proxy.url, { activations: OVERRIDES })
  await rpc(fork.url, 'anvil_setMinGasPrice', ['0x0'])
  const hash = await rpc<string>(fork.url, 'eth_sendTransaction', [
    { from: COW.address, to: COW1.address, value: '0x1', gas: '0x5208', gasPrice: '0x3e8' },
  ])
  const receipt = await rpc<{ blockNumber: string }>(fork.url, 'eth_getTransactionReceipt', [hash])
  expect(receipt.blockNumber).toBe('0x1')
  miner = await rpc<string>(fork.url, 'eth_coinbase')
  await rpc(fork.url, 'anvil_mine', [toBeHex(70 - 1)])
  expect(await rpc(fork.url, 'eth_blockNumber')).toBe(toBeHex(70))
}, 120_000)

afterAll(() => closeForkTest(fork, proxy, remote))

describe("a fork's Bridge answers from the remote's storage", () => {
  it('answers what the remote answers (block 1: the old federation is still the active one)', async () => {
    const reads: [string, unknown[]][] = [
      ['getFederationSize', []],
      ['getFederationCreationTime', []],
      ['getFederationThreshold', []],
      ['getFederationAddress', []],
      ['getFederationCreationBlockNumber', []],
      ['getFederatorPublicKeyOfType', [1, 'btc']],
      ['getFederatorPublicKeyOfType', [2, 'rsk']],
      ['getRetiringFederationSize', []],
      ['getLockingCap', []],
      ['getFeePerKb', []],
      ['getMinimumLockTxValue', []],
    ]
    for (const [name, args] of reads) {
      const [mine, theirs] = await Promise.all([get(fork.url, name, args, '0x1'), get(remote.url, name, args)])
      expect([name, mine]).toEqual([name, theirs])
    }
    expect(await get(fork.url, 'getFederationSize', [], '0x1')).toBe(3n)
    expect(await get(fork.url, 'getFederationAddress', [], '0x1')).toBe(multisigAddress(OLD_KEYS))
    expect(await get(fork.url, 'getFederationCreationTime', [], '0x1')).toBe(BigInt(OLD_TIME_MS / 1000))
    expect(await get(fork.url, 'getFederatorPublicKeyOfType', [2, 'rsk'], '0x1')).toBe(OLD_KEYS[2])
    expect(await get(fork.url, 'getLockingCap', [], '0x1')).toBe(LOCKING_CAP)
    expect(await get(fork.url, 'getFeePerKb', [], '0x1')).toBe(FEE_PER_KB)
  })

  it('switches to the new federation once it is 60 blocks old, the old one retiring', async () => {
    expect(await get(fork.url, 'getFederationSize', [], toBeHex(64))).toBe(3n)
    expect(await get(fork.url, 'getRetiringFederationSize', [], toBeHex(64))).toBe(-1n)
    expect(await get(fork.url, 'getFederationSize')).toBe(5n)
    expect(await get(fork.url, 'getFederationThreshold')).toBe(3n)
    expect(await get(fork.url, 'getFederationCreationBlockNumber')).toBe(5n)
    expect(await get(fork.url, 'getFederationCreationTime')).toBe(BigInt(NEW_TIME_MS / 1000))
    expect(await get(fork.url, 'getFederationAddress')).toBe(multisigAddress(NEW_MEMBERS.map((m) => m.btc)))
    for (const [i, m] of NEW_MEMBERS.entries()) {
      expect(await get(fork.url, 'getFederatorPublicKeyOfType', [i, 'btc'])).toBe(m.btc)
      expect(await get(fork.url, 'getFederatorPublicKeyOfType', [i, 'rsk'])).toBe(m.rsk)
      expect(await get(fork.url, 'getFederatorPublicKeyOfType', [i, 'mst'])).toBe(m.mst)
    }
    expect(await get(fork.url, 'getRetiringFederationSize')).toBe(3n)
    expect(await get(fork.url, 'getRetiringFederationAddress')).toBe(multisigAddress(OLD_KEYS))
  })
})

describe('Remasc pays the active federation of the remote', () => {
  it('pays the old federation until the new one is active', async () => {
    expect(await payees(59)).toEqual([])
    const old = OLD_KEYS.map(address)
    expect(await payees(60)).toEqual([RSK_LABS, ...old, miner])
    expect(await payees(64)).toEqual([RSK_LABS, ...old, miner])
  })

  it("pays the new federation at its BTC keys' addresses before RSKIP415, at its RSK keys' from it", async () => {
    const btc = NEW_MEMBERS.map((m) => address(m.btc))
    const rsk = NEW_MEMBERS.map((m) => address(m.rsk))
    expect(await payees(65)).toEqual([RSK_LABS, ...btc, miner])
    expect(await payees(67)).toEqual([RSK_LABS, ...btc, miner])
    expect(await payees(68)).toEqual([RSK_LABS, ...rsk, miner])
    expect(await payees(70)).toEqual([RSK_LABS, ...rsk, miner])
  })

  it("credits the federators' balances and nothing to the network's genesis federators", async () => {
    for (const m of NEW_MEMBERS) {
      expect(BigInt(await rpc<string>(fork.url, 'eth_getBalance', [address(m.rsk), 'latest']))).toBeGreaterThan(0n)
      expect(BigInt(await rpc<string>(fork.url, 'eth_getBalance', [address(m.btc), 'latest']))).toBeGreaterThan(0n)
    }
    for (const a of GENESIS_FEDERATORS[31].map((x) => toHex(x)))
      expect(await rpc<string>(fork.url, 'eth_getBalance', [a, 'latest'])).toBe('0x0')
  })
})
