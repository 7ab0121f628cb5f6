/**
 * State reads over real HTTP: eth_getBalance, eth_getStorageAt, eth_getTransactionCount, eth_getCode,
 * eth_blockNumber — at latest/earliest/pending, numbers, hashes and the {blockHash}/{blockNumber} map form,
 * historical state, and the -32602 / unknown-block errors (spec §2 rule 4, §4 "State reads";
 * docs/reference-rules.md#rule-encoding, docs/reference-rules.md#rule-error-codes).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AbiCoder, Interface, keccak256, Wallet } from 'ethers'
import type { Node } from '../../src/index.js'
import { Probe } from '../../fixtures/index.js'
import { COW, COW1, rpc, rpcError, startNode } from '../helpers/node.js'
import { deploy, q, sendTx, word, ZERO_WORD } from './shapes.js'

const probe = new Interface(Probe.abi)
const INITIAL = 10n ** 30n
const TRANSFER = 1000n

let node: Node
let url: string
/** Hashes of blocks 0..4. */
const blocks: string[] = []
let probeAddress: string

/*
 * Chain built once:
 *   block 1: COW -> COW1 1000 wei (gasPrice 0)
 *   block 2: COW deploys Probe
 *   block 3: Probe.setValue(42)
 *   block 4: Probe.setBalance(COW1, 777)
 */
beforeAll(async () => {
  node = await startNode()
  url = node.url
  await sendTx(url, { to: COW1.address, value: q(TRANSFER), gas: '0x5208' })
  ;({ address: probeAddress } = await deploy(url, Probe.bytecode))
  expect((await sendTx(url, { to: probeAddress, data: probe.encodeFunctionData('setValue', [42]) })).status).toBe('0x1')
  expect(
    (await sendTx(url, { to: probeAddress, data: probe.encodeFunctionData('setBalance', [COW1.address, 777]) })).status,
  ).toBe('0x1')
  for (let i = 0; i <= 4; i++) blocks.push((await rpc(url, 'eth_getBlockByNumber', [q(i), false])).hash)
})
afterAll(() => node?.close())

/** Malformed 20-byte addresses. */
const BAD_ADDRESSES: [string, unknown][] = [
  ['too short', '0xcd2a3d9f938e13cd947ec05abc7fe734df8dd8'],
  ['too long', '0xcd2a3d9f938e13cd947ec05abc7fe734df8dd82600'],
  ['without 0x', 'cd2a3d9f938e13cd947ec05abc7fe734df8dd826'],
  ['with non-hex characters', '0xzz2a3d9f938e13cd947ec05abc7fe734df8dd826'],
  ['a number', 12345],
  ['null', null],
]

/** Malformed block identifiers. */
const BAD_BLOCKS: [string, unknown][] = [
  ['an unknown tag', 'latestx'],
  ['bare 0x', '0x'],
  ['non-hex', '0xg1'],
  ['a boolean', true],
  ['an empty object', {}],
  ['a malformed blockHash', { blockHash: '0x1234' }],
]

describe('eth_blockNumber', () => {
  it('is the number of the best block', async () => {
    expect(await rpc(url, 'eth_blockNumber')).toBe('0x4')
  })
})

describe('eth_getBalance', () => {
  it('reads the latest balance by default and with "latest"', async () => {
    const expected = q(INITIAL + TRANSFER)
    expect(await rpc(url, 'eth_getBalance', [COW1.address])).toBe(expected)
    expect(await rpc(url, 'eth_getBalance', [COW1.address, 'latest'])).toBe(expected)
    expect(await rpc(url, 'eth_getBalance', [COW.address, 'latest'])).toBe(q(INITIAL - TRANSFER))
  })

  it('reads historical balances (older block differs from latest)', async () => {
    expect(await rpc(url, 'eth_getBalance', [COW1.address, '0x0'])).toBe(q(INITIAL))
    expect(await rpc(url, 'eth_getBalance', [COW1.address, 'earliest'])).toBe(q(INITIAL))
    expect(await rpc(url, 'eth_getBalance', [COW1.address, '0x1'])).toBe(q(INITIAL + TRANSFER))
    expect(await rpc(url, 'eth_getBalance', [COW.address, 'earliest'])).toBe(q(INITIAL))
  })

  it('accepts a block hash, {blockHash} and {blockNumber}', async () => {
    expect(await rpc(url, 'eth_getBalance', [COW1.address, blocks[0]])).toBe(q(INITIAL))
    expect(await rpc(url, 'eth_getBalance', [COW1.address, { blockHash: blocks[0] }])).toBe(q(INITIAL))
    expect(await rpc(url, 'eth_getBalance', [COW1.address, { blockHash: blocks[1] }])).toBe(q(INITIAL + TRANSFER))
    expect(await rpc(url, 'eth_getBalance', [COW1.address, { blockNumber: '0x0' }])).toBe(q(INITIAL))
    expect(await rpc(url, 'eth_getBalance', [COW1.address, { blockNumber: '0x1' }])).toBe(q(INITIAL + TRANSFER))
  })

  it('"pending" reads the state the next block builds on', async () => {
    expect(await rpc(url, 'eth_getBalance', [COW1.address, 'pending'])).toBe(q(INITIAL + TRANSFER))
  })

  it('is 0x0 for an account that does not exist (also upper-case hex input)', async () => {
    const fresh = Wallet.createRandom().address
    expect(await rpc(url, 'eth_getBalance', [fresh, 'latest'])).toBe('0x0')
    expect(await rpc(url, 'eth_getBalance', [COW1.address.toUpperCase().replace('0X', '0x'), 'latest'])).toBe(
      q(INITIAL + TRANSFER),
    )
  })

  it('an unknown block number or hash is -32600 "Block … not found"', async () => {
    const byNumber = await rpcError(url, 'eth_getBalance', [COW.address, '0x99'])
    expect(byNumber.code).toBe(-32600)
    expect(byNumber.message).toBe('Block 0x99 not found')
    const unknownHash = '0x' + 'ab'.repeat(32)
    const byHash = await rpcError(url, 'eth_getBalance', [COW.address, { blockHash: unknownHash }])
    expect(byHash.code).toBe(-32600)
    expect(byHash.message).toContain('not found')
  })

  it.each(BAD_ADDRESSES)('an address %s is -32602 (HTTP 400)', async (_what, address) => {
    const e = await rpcError(url, 'eth_getBalance', [address, 'latest'])
    expect(e.code).toBe(-32602)
    expect(e.status).toBe(400)
  })

  it('names the argument and the expected length in the reference wording', async () => {
    const e = await rpcError(url, 'eth_getBalance', ['0xcd2a3d9f938e13cd947ec05abc7fe734df8dd8', 'latest'])
    expect(e.message).toBe('invalid argument 0: hex string has length 38, want 40 for RSK address')
  })

  it.each(BAD_BLOCKS)('a block identifier that is %s is -32602 (HTTP 400)', async (_what, block) => {
    const e = await rpcError(url, 'eth_getBalance', [COW.address, block])
    expect(e.code).toBe(-32602)
    expect(e.status).toBe(400)
  })

  it('wrong arity is -32602 (HTTP 400)', async () => {
    for (const params of [[], [COW.address, 'latest', 'extra']]) {
      const e = await rpcError(url, 'eth_getBalance', params)
      expect(e.code).toBe(-32602)
      expect(e.status).toBe(400)
    }
  })
})

describe('eth_getStorageAt', () => {
  const balancesSlot = (account: string) =>
    keccak256(AbiCoder.defaultAbiCoder().encode(['address', 'uint256'], [account, 1]))

  it('reads a plain slot as a 32-byte word', async () => {
    expect(await rpc(url, 'eth_getStorageAt', [probeAddress, '0x0', 'latest'])).toBe(word(42))
  })

  it('accepts the position as a 32-byte DATA word and with leading zeros', async () => {
    expect(await rpc(url, 'eth_getStorageAt', [probeAddress, ZERO_WORD, 'latest'])).toBe(word(42))
    expect(await rpc(url, 'eth_getStorageAt', [probeAddress, '0x00', 'latest'])).toBe(word(42))
  })

  it('reads a mapping element at keccak(key ‖ slot)', async () => {
    expect(await rpc(url, 'eth_getStorageAt', [probeAddress, balancesSlot(COW1.address), 'latest'])).toBe(word(777))
    expect(await rpc(url, 'eth_getStorageAt', [probeAddress, balancesSlot(COW.address), 'latest'])).toBe(ZERO_WORD)
  })

  it('reads historical storage', async () => {
    expect(await rpc(url, 'eth_getStorageAt', [probeAddress, '0x0', '0x2'])).toBe(ZERO_WORD)
    expect(await rpc(url, 'eth_getStorageAt', [probeAddress, '0x0', { blockHash: blocks[3] }])).toBe(word(42))
    expect(await rpc(url, 'eth_getStorageAt', [probeAddress, balancesSlot(COW1.address), { blockNumber: '0x3' }])).toBe(
      ZERO_WORD,
    )
    expect(await rpc(url, 'eth_getStorageAt', [probeAddress, '0x0', 'earliest'])).toBe(ZERO_WORD)
    expect(await rpc(url, 'eth_getStorageAt', [probeAddress, '0x0', 'pending'])).toBe(word(42))
  })

  it('is 32 zero bytes for an unused key, an EOA and a missing account', async () => {
    expect(await rpc(url, 'eth_getStorageAt', [probeAddress, '0x5', 'latest'])).toBe(ZERO_WORD)
    expect(await rpc(url, 'eth_getStorageAt', [COW.address, '0x0', 'latest'])).toBe(ZERO_WORD)
    expect(await rpc(url, 'eth_getStorageAt', [Wallet.createRandom().address, '0x0', 'latest'])).toBe(ZERO_WORD)
  })

  it('a cell longer than 32 bytes (only native contracts write them) is -32603, as on the reference', async () => {
    const holder = '0x' + 'f3'.repeat(20)
    const long = '0x' + 'cd'.repeat(40)
    const short = '0x' + 'ab'.repeat(32)
    const cells = { [word(7)]: long, [word(8)]: short }
    const state = { accounts: {}, node_cli: { storageBytes: { [holder]: cells } } }
    expect(await rpc(url, 'anvil_loadState', ['0x' + Buffer.from(JSON.stringify(state)).toString('hex')])).toBe(true)
    const e = await rpcError(url, 'eth_getStorageAt', [holder, '0x7', 'latest'])
    expect([e.code, e.message]).toEqual([-32603, 'Internal server error'])
    expect(await rpc(url, 'ext_getStorageBytesAt', [holder, word(7), 'latest'])).toBe(long)
    expect(await rpc(url, 'eth_getStorageAt', [holder, '0x8', 'latest'])).toBe(short)
    // the node keeps serving
    expect(await rpc(url, 'eth_getStorageAt', [probeAddress, '0x0', 'latest'])).toBe(word(42))
  })

  it('an unknown block is -32600', async () => {
    const e = await rpcError(url, 'eth_getStorageAt', [probeAddress, '0x0', '0x1000'])
    expect(e.code).toBe(-32600)
  })

  it.each([
    ['a malformed address', ['0x1234', '0x0', 'latest']],
    ['a non-hex position', [COW.address, '0xzz', 'latest']],
    ['a bare 0x position', [COW.address, '0x', 'latest']],
    ['a position over 32 bytes', [COW.address, '0x1' + '00'.repeat(32), 'latest']],
    ['a missing position', [COW.address]],
    ['too many arguments', [COW.address, '0x0', 'latest', 'extra']],
    ['a malformed block', [COW.address, '0x0', 'nope']],
  ])('%s is -32602 (HTTP 400)', async (_what, params) => {
    const e = await rpcError(url, 'eth_getStorageAt', params)
    expect(e.code).toBe(-32602)
    expect(e.status).toBe(400)
  })
})

describe('eth_getTransactionCount', () => {
  it('counts the transactions sent by an address', async () => {
    expect(await rpc(url, 'eth_getTransactionCount', [COW.address, 'latest'])).toBe('0x4')
    expect(await rpc(url, 'eth_getTransactionCount', [COW.address])).toBe('0x4')
    expect(await rpc(url, 'eth_getTransactionCount', [COW.address, 'pending'])).toBe('0x4')
    expect(await rpc(url, 'eth_getTransactionCount', [COW1.address, 'latest'])).toBe('0x0')
  })

  it('reads historical nonces', async () => {
    expect(await rpc(url, 'eth_getTransactionCount', [COW.address, 'earliest'])).toBe('0x0')
    expect(await rpc(url, 'eth_getTransactionCount', [COW.address, '0x1'])).toBe('0x1')
    expect(await rpc(url, 'eth_getTransactionCount', [COW.address, { blockHash: blocks[2] }])).toBe('0x2')
    expect(await rpc(url, 'eth_getTransactionCount', [COW.address, { blockNumber: '0x3' }])).toBe('0x3')
  })

  it('is 0x0 for a missing account', async () => {
    expect(await rpc(url, 'eth_getTransactionCount', [Wallet.createRandom().address, 'latest'])).toBe('0x0')
  })

  it('errors: malformed address / block -32602, unknown block -32600', async () => {
    expect((await rpcError(url, 'eth_getTransactionCount', ['0x00', 'latest'])).code).toBe(-32602)
    expect((await rpcError(url, 'eth_getTransactionCount', [COW.address, 'head'])).code).toBe(-32602)
    expect((await rpcError(url, 'eth_getTransactionCount', [])).code).toBe(-32602)
    expect((await rpcError(url, 'eth_getTransactionCount', [COW.address, '0x77'])).code).toBe(-32600)
  })
})

describe('eth_getCode', () => {
  it('returns the deployed runtime code', async () => {
    expect(await rpc(url, 'eth_getCode', [probeAddress, 'latest'])).toBe(Probe.deployedBytecode)
    expect(await rpc(url, 'eth_getCode', [probeAddress])).toBe(Probe.deployedBytecode)
    expect(await rpc(url, 'eth_getCode', [probeAddress, 'pending'])).toBe(Probe.deployedBytecode)
  })

  it('is 0x before the deployment and for EOAs / missing accounts', async () => {
    expect(await rpc(url, 'eth_getCode', [probeAddress, '0x1'])).toBe('0x')
    expect(await rpc(url, 'eth_getCode', [probeAddress, { blockHash: blocks[1] }])).toBe('0x')
    expect(await rpc(url, 'eth_getCode', [probeAddress, { blockNumber: '0x2' }])).toBe(Probe.deployedBytecode)
    expect(await rpc(url, 'eth_getCode', [COW.address, 'latest'])).toBe('0x')
    expect(await rpc(url, 'eth_getCode', [Wallet.createRandom().address, 'latest'])).toBe('0x')
  })

  it('errors: malformed address / block -32602, unknown block -32600', async () => {
    const bad = await rpcError(url, 'eth_getCode', ['0xnothex', 'latest'])
    expect(bad.code).toBe(-32602)
    expect(bad.status).toBe(400)
    expect((await rpcError(url, 'eth_getCode', [probeAddress, 42.5])).code).toBe(-32602)
    expect((await rpcError(url, 'eth_getCode', [probeAddress, 'latest', true])).code).toBe(-32602)
    expect((await rpcError(url, 'eth_getCode', [probeAddress, '0x123456'])).code).toBe(-32600)
  })
})
