/**
 * Transactions over real HTTP: eth_sendRawTransaction (ethers-signed legacy txs), eth_sendTransaction (node
 * signs), eth_estimateGas (the estimate is enough and minimal), eth_getTransactionByHash and
 * eth_getTransactionReceipt shapes, pool rejections (-32010 with the reference messages), decoding errors
 * (-32602) and mined reverts (-32015) (spec §2, §4;
 * docs/reference-rules.md#rule-transaction-json, docs/reference-rules.md#rule-pool-validation, docs/reference-rules.md#rule-error-pool,
 * docs/reference-rules.md#rule-error-revert).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  AbiCoder,
  getCreateAddress,
  Interface,
  keccak256,
  Transaction,
  Wallet,
  type BaseWallet,
  type TransactionRequest,
} from 'ethers'
import type { Node } from '../../src/index.js'
import { Probe } from '../../fixtures/index.js'
import { COW, COW1, rpc, rpcError, startNode } from '../helpers/node.js'
import { ADDR, BLOOM, deploy, expectKeys, HASH, MINER, q, QTY, RECEIPT_FIELDS, TX_FIELDS } from './shapes.js'

const probe = new Interface(Probe.abi)
const abi = AbiCoder.defaultAbiCoder()
const cow = new Wallet(COW.privateKey)
const ZERO_BLOOM = '0x' + '00'.repeat(256)
const REASON_DATA = '0x08c379a0' + abi.encode(['string'], ['Probe: failed']).slice(2)

let node: Node
let url: string
let probeAddress: string
/** The first raw tx mined by the tests below. */
let firstRaw: string

const nonceOf = async (address: string) => Number(await rpc(url, 'eth_getTransactionCount', [address, 'latest']))
const balanceOf = async (address: string) => BigInt(await rpc(url, 'eth_getBalance', [address, 'latest']))
const blockNumber = async () => BigInt(await rpc(url, 'eth_blockNumber'))

/** Signs a legacy EIP-155 tx from COW (value transfer to COW1 unless overridden), nonce = COW's current. */
async function signed(over: TransactionRequest = {}, wallet: BaseWallet = cow): Promise<string> {
  return wallet.signTransaction({
    type: 0,
    chainId: 33,
    nonce: await nonceOf(wallet.address),
    gasPrice: 0,
    gasLimit: 21_000,
    to: COW1.address,
    value: 1,
    ...over,
  })
}

beforeAll(async () => {
  node = await startNode()
  url = node.url
  ;({ address: probeAddress } = await deploy(url, Probe.bytecode))
})
afterAll(() => node?.close())

describe('eth_sendRawTransaction', () => {
  it('mines a value transfer: hash, balances, nonce, block', async () => {
    const before = {
      cow: await balanceOf(COW.address),
      cow1: await balanceOf(COW1.address),
      n: await nonceOf(COW.address),
    }
    const head = await blockNumber()
    const raw = await signed({ gasPrice: 3, value: 12_345 })
    firstRaw = raw
    const hash = await rpc<string>(url, 'eth_sendRawTransaction', [raw])
    expect(hash).toBe(keccak256(raw))
    expect(hash).toBe(Transaction.from(raw).hash)
    expect(await blockNumber()).toBe(head + 1n)
    expect(await nonceOf(COW.address)).toBe(before.n + 1)
    expect(await balanceOf(COW1.address)).toBe(before.cow1 + 12_345n)
    expect(await balanceOf(COW.address)).toBe(before.cow - 12_345n - 21_000n * 3n)
  })

  it('the transaction object has the reference shape (v = 0x65/0x66 on chain 33, type 0x0)', async () => {
    const raw = await signed({ gasPrice: 5, value: 7, gasLimit: 30_000 })
    const parsed = Transaction.from(raw)
    const hash = await rpc<string>(url, 'eth_sendRawTransaction', [raw])
    const tx = await rpc(url, 'eth_getTransactionByHash', [hash])
    const block = await rpc(url, 'eth_getBlockByNumber', ['latest', false])
    expectKeys(tx, TX_FIELDS)
    expect(tx).toEqual({
      hash,
      nonce: q(parsed.nonce),
      blockHash: block.hash,
      blockNumber: block.number,
      transactionIndex: '0x0',
      from: COW.address,
      to: COW1.address,
      gas: q(30_000),
      gasPrice: '0x5',
      value: '0x7',
      input: '0x',
      v: q(parsed.signature!.networkV!),
      r: q(BigInt(parsed.signature!.r)),
      s: q(BigInt(parsed.signature!.s)),
      type: '0x0',
    })
    expect(['0x65', '0x66']).toContain(tx.v)
    for (const f of ['nonce', 'blockNumber', 'transactionIndex', 'gas', 'gasPrice', 'value', 'r', 's'])
      expect(tx[f]).toMatch(QTY)
    expect(block.transactions[0]).toBe(hash)
  })

  it('the receipt has the reference shape', async () => {
    const raw = await signed({ gasPrice: 2 })
    const hash = await rpc<string>(url, 'eth_sendRawTransaction', [raw])
    const receipt = await rpc(url, 'eth_getTransactionReceipt', [hash])
    const block = await rpc(url, 'eth_getBlockByNumber', ['latest', false])
    expectKeys(receipt, RECEIPT_FIELDS)
    expect(receipt).toEqual({
      transactionHash: hash,
      transactionIndex: '0x0',
      blockHash: block.hash,
      blockNumber: block.number,
      cumulativeGasUsed: '0x5208',
      gasUsed: '0x5208',
      contractAddress: null,
      logs: [],
      from: COW.address,
      to: COW1.address,
      status: '0x1',
      logsBloom: ZERO_BLOOM,
      type: '0x0',
      effectiveGasPrice: '0x2',
    })
    expect(block.paidFees).toBe(q(21_000n * 2n))
    expect(block.gasUsed).toBe('0x5208')
    expect(block.miner).toBe(MINER)
  })

  it('accepts an unprotected (pre-EIP-155, v 27/28) transaction', async () => {
    const raw = await cow.signTransaction({
      type: 0,
      chainId: 0,
      nonce: await nonceOf(COW.address),
      gasPrice: 0,
      gasLimit: 21_000,
      to: COW1.address,
      value: 1,
    })
    expect([27, 28]).toContain(Transaction.from(raw).signature!.v)
    const hash = await rpc<string>(url, 'eth_sendRawTransaction', [raw])
    const tx = await rpc(url, 'eth_getTransactionByHash', [hash])
    expect(['0x1b', '0x1c']).toContain(tx.v)
    expect((await rpc(url, 'eth_getTransactionReceipt', [hash])).status).toBe('0x1')
  })

  it('deploys a contract: receipt contractAddress, to null, code stored', async () => {
    const nonce = await nonceOf(COW.address)
    const raw = await signed({ to: null, value: 0, data: Probe.bytecode, gasLimit: 3_000_000 })
    const hash = await rpc<string>(url, 'eth_sendRawTransaction', [raw])
    const receipt = await rpc(url, 'eth_getTransactionReceipt', [hash])
    const expected = getCreateAddress({ from: COW.address, nonce }).toLowerCase()
    expect(receipt.status).toBe('0x1')
    expect(receipt.contractAddress).toBe(expected)
    expect(receipt.to).toBeNull()
    const tx = await rpc(url, 'eth_getTransactionByHash', [hash])
    expect(tx.to).toBeNull()
    expect(tx.input).toBe(Probe.bytecode)
    expect(await rpc(url, 'eth_getCode', [expected, 'latest'])).toBe(Probe.deployedBytecode)
  })

  it('a call that emits a log: receipt logs and bloom', async () => {
    const raw = await signed({
      to: probeAddress,
      value: 0,
      gasLimit: 100_000,
      data: probe.encodeFunctionData('setValue', [9]),
    })
    const hash = await rpc<string>(url, 'eth_sendRawTransaction', [raw])
    const receipt = await rpc(url, 'eth_getTransactionReceipt', [hash])
    expect(receipt.status).toBe('0x1')
    expect(receipt.logs).toHaveLength(1)
    const [log] = receipt.logs
    expect(log).toEqual({
      logIndex: '0x0',
      blockNumber: receipt.blockNumber,
      blockHash: receipt.blockHash,
      transactionHash: hash,
      transactionIndex: '0x0',
      address: probeAddress,
      data: abi.encode(['uint256'], [9]),
      topics: [
        probe.getEvent('ValueChanged')!.topicHash,
        '0x' + COW.address.slice(2).padStart(64, '0'),
        '0x' + '00'.repeat(32),
      ],
      removed: false,
    })
    expect(receipt.logsBloom).toMatch(BLOOM)
    expect(receipt.logsBloom).not.toBe(ZERO_BLOOM)
  })

  it('a reverting transaction is mined with status 0x0 and answers -32015 with the revert data', async () => {
    const head = await blockNumber()
    const nonce = await nonceOf(COW.address)
    const raw = await signed({
      to: probeAddress,
      value: 0,
      gasLimit: 100_000,
      data: probe.encodeFunctionData('failWithReason'),
    })
    const e = await rpcError(url, 'eth_sendRawTransaction', [raw])
    expect(e.code).toBe(-32015)
    expect(e.message).toBe('VM Exception while processing transaction: revert Probe: failed')
    expect(e.data).toBe(REASON_DATA)
    expect(await blockNumber()).toBe(head + 1n)
    expect(await nonceOf(COW.address)).toBe(nonce + 1)
    const receipt = await rpc(url, 'eth_getTransactionReceipt', [keccak256(raw)])
    expect(receipt.status).toBe('0x0')
    expect(receipt.logs).toEqual([])
    expect(BigInt(receipt.gasUsed)).toBeGreaterThan(21_000n)
    expect(BigInt(receipt.gasUsed)).toBeLessThan(100_000n)
  })

  describe('pool rejections: -32010 with the reference messages, nothing mined', () => {
    let head: bigint
    let nonce: number
    beforeAll(async () => {
      head = await blockNumber()
      nonce = await nonceOf(COW.address)
    })
    afterAll(async () => {
      expect(await blockNumber()).toBe(head)
      expect(await nonceOf(COW.address)).toBe(nonce)
    })

    const rejects = async (raw: string, message: string) => {
      const e = await rpcError(url, 'eth_sendRawTransaction', [raw])
      expect(e).toEqual({ code: -32010, message, status: 200 })
    }

    it('nonce too low (a new tx with a used nonce, and an already-mined tx sent again)', async () => {
      await rejects(await signed({ nonce: nonce - 1, value: 424_242 }), 'transaction nonce too low')
      // the exact bytes of a tx mined earlier (the reference only answers "same hash" for txs still pending)
      expect(await rpc(url, 'eth_getTransactionReceipt', [keccak256(firstRaw)])).not.toBeNull()
      await rejects(firstRaw, 'transaction nonce too low')
    })

    it('nonce too high: at or beyond the account nonce + 16 (the reference pool window)', async () => {
      await rejects(await signed({ nonce: nonce + 16 }), 'transaction nonce too high')
      await rejects(await signed({ nonce: nonce + 100 }), 'transaction nonce too high')
    })

    it("init code over 49 152 bytes: the reference's init-code rule", async () => {
      const data = '0x' + '00'.repeat(49_153)
      await rejects(
        await signed({ to: null, value: 0, data, gasLimit: 1_000_000 }),
        "transaction's init code size is invalid",
      )
    })

    it('a transaction over 128 KB (reference TX_MAX_SIZE), checked before gas and nonce', async () => {
      const data = '0x' + '00'.repeat(131_072)
      const raw = await signed({ value: 0, data, gasLimit: 1_000_000 })
      const size = (raw.length - 2) / 2
      await rejects(raw, `transaction's size is higher than defined maximum: ${size} > 131072`)
    })

    it('insufficient funds (balance < gasPrice · gasLimit)', async () => {
      await rejects(await signed({ gasPrice: 10n ** 30n, value: 0 }), 'insufficient funds')
    })

    it("the sender account doesn't exist (fresh key, even with gasPrice 0 and value 0)", async () => {
      const fresh = Wallet.createRandom()
      await rejects(await signed({ value: 0 }, fresh), "the sender account doesn't exist")
      // checked before the gas limit, as the reference's TxPendingValidator does
      await rejects(await signed({ value: 0, gasLimit: 9_000_000 }, fresh), "the sender account doesn't exist")
    })

    it("gas limit above the block's (the 6.8 M sequential sublist on regtest)", async () => {
      await rejects(
        await signed({ gasLimit: 6_800_001 }),
        "transaction's gas limit of 6800001 is higher than the block's gas limit of 6800000",
      )
    })

    it('basic (intrinsic) cost above the gas limit', async () => {
      await rejects(await signed({ gasLimit: 20_999 }), "transaction's basic cost is above the gas limit")
      await rejects(await signed({ gasLimit: 21_000, data: '0x01' }), "transaction's basic cost is above the gas limit")
      await rejects(
        await signed({ to: null, value: 0, gasLimit: 52_999, data: '0x00' }),
        "transaction's basic cost is above the gas limit",
      )
    })
  })

  describe('undecodable input: -32602 (HTTP 400)', () => {
    it('a wrong chain id', async () => {
      const e = await rpcError(url, 'eth_sendRawTransaction', [await signed({ chainId: 31 })])
      expect(e).toEqual({ code: -32602, message: 'Invalid chainId: 31', status: 400 })
    })

    it('a typed EIP-1559 transaction', async () => {
      const raw = await cow.signTransaction({
        type: 2,
        chainId: 33,
        nonce: await nonceOf(COW.address),
        maxFeePerGas: 0,
        maxPriorityFeePerGas: 0,
        gasLimit: 21_000,
        to: COW1.address,
        value: 1,
      })
      const e = await rpcError(url, 'eth_sendRawTransaction', [raw])
      expect(e.code).toBe(-32602)
      expect(e.status).toBe(400)
      expect(e.message).toMatch(/^Invalid input/)
    })

    it('a typed EIP-2930 transaction', async () => {
      const raw = await cow.signTransaction({
        type: 1,
        chainId: 33,
        nonce: await nonceOf(COW.address),
        gasPrice: 0,
        gasLimit: 21_000,
        to: COW1.address,
        accessList: [],
      })
      const e = await rpcError(url, 'eth_sendRawTransaction', [raw])
      expect(e.code).toBe(-32602)
      expect(e.status).toBe(400)
    })

    it.each([
      ['garbage RLP', ['0x1234']],
      ['an empty RLP list', ['0xc0']],
      ['a list of 3 items', ['0xc3010203']],
      ['empty data', ['0x']],
      ['non-hex', ['0xnothex']],
      ['a number', [1234]],
      ['no argument', []],
      ['two arguments', ['0xc0', '0xc0']],
    ])('%s', async (_what, params) => {
      const e = await rpcError(url, 'eth_sendRawTransaction', params)
      expect(e.code).toBe(-32602)
      expect(e.status).toBe(400)
    })

    it('a bad signature (s tampered so no key recovers it)', async () => {
      const tx = Transaction.from(await signed())
      const raw = tx.serialized
      // replace s (last 32 bytes) with zeros: invalid signature
      const tampered = raw.slice(0, raw.length - 64) + '00'.repeat(32)
      const e = await rpcError(url, 'eth_sendRawTransaction', [tampered])
      expect(e.code).toBe(-32602)
    })
  })
})

describe('eth_sendTransaction', () => {
  it('signs with the node key: defaults gas 90000, gasPrice 0, value 0, next nonce, EIP-155 v', async () => {
    const nonce = await nonceOf(COW1.address)
    const hash = await rpc<string>(url, 'eth_sendTransaction', [{ from: COW1.address, to: COW.address }])
    expect(hash).toMatch(HASH)
    const tx = await rpc(url, 'eth_getTransactionByHash', [hash])
    expectKeys(tx, TX_FIELDS)
    expect(tx).toMatchObject({
      from: COW1.address,
      to: COW.address,
      nonce: q(nonce),
      gas: q(90_000),
      gasPrice: '0x0',
      value: '0x0',
      input: '0x',
      type: '0x0',
      transactionIndex: '0x0',
    })
    expect(['0x65', '0x66']).toContain(tx.v)
    const receipt = await rpc(url, 'eth_getTransactionReceipt', [hash])
    expect(receipt.status).toBe('0x1')
    expect(receipt.gasUsed).toBe('0x5208')
    expect(await nonceOf(COW1.address)).toBe(nonce + 1)
    // the node's signature recovers to the sender
    const raw = Transaction.from({
      type: 0,
      chainId: 33,
      nonce,
      gasPrice: 0,
      gasLimit: 90_000,
      to: COW.address,
      value: 0,
      signature: {
        r: '0x' + tx.r.slice(2).padStart(64, '0'),
        s: '0x' + tx.s.slice(2).padStart(64, '0'),
        v: Number(tx.v),
      },
    })
    expect(raw.from!.toLowerCase()).toBe(COW1.address)
    expect(raw.hash).toBe(hash)
  })

  it('transfers value and honours an explicit gas, gasPrice and nonce', async () => {
    const nonce = await nonceOf(COW1.address)
    const before = await balanceOf(COW1.address)
    const hash = await rpc<string>(url, 'eth_sendTransaction', [
      { from: COW1.address, to: COW.address, value: '0x64', gas: '0x5208', gasPrice: '0xa', nonce: q(nonce) },
    ])
    const tx = await rpc(url, 'eth_getTransactionByHash', [hash])
    expect(tx).toMatchObject({ gas: '0x5208', gasPrice: '0xa', value: '0x64', nonce: q(nonce) })
    expect(await balanceOf(COW1.address)).toBe(before - 100n - 21_000n * 10n)
  })

  it('creates a contract when `to` is absent', async () => {
    const nonce = await nonceOf(COW1.address)
    const hash = await rpc<string>(url, 'eth_sendTransaction', [
      { from: COW1.address, data: Probe.bytecode, gas: '0x2dc6c0' },
    ])
    const receipt = await rpc(url, 'eth_getTransactionReceipt', [hash])
    expect(receipt.contractAddress).toBe(getCreateAddress({ from: COW1.address, nonce }).toLowerCase())
    expect(receipt.contractAddress).toMatch(ADDR)
  })

  it('a reverting call is still mined (status 0x0) while the call answers -32015', async () => {
    const head = await blockNumber()
    const e = await rpcError(url, 'eth_sendTransaction', [
      { from: COW.address, to: probeAddress, data: probe.encodeFunctionData('failWithReason') },
    ])
    expect(e.code).toBe(-32015)
    expect(e.message).toBe('VM Exception while processing transaction: revert Probe: failed')
    expect(e.data).toBe(REASON_DATA)
    expect(await blockNumber()).toBe(head + 1n)
    const block = await rpc(url, 'eth_getBlockByNumber', ['latest', true])
    const tx = block.transactions[0]
    expect(tx.from).toBe(COW.address)
    expect(tx.to).toBe(probeAddress)
    expect(tx.input).toBe(probe.encodeFunctionData('failWithReason'))
    const receipt = await rpc(url, 'eth_getTransactionReceipt', [tx.hash])
    expect(receipt.status).toBe('0x0')
    expect(receipt.blockNumber).toBe(q(head + 1n))
  })

  it('a custom-error revert is mined and answers "…: transaction reverted" with the error bytes', async () => {
    const e = await rpcError(url, 'eth_sendTransaction', [
      { from: COW.address, to: probeAddress, data: probe.encodeFunctionData('failCustom', [3]) },
    ])
    expect(e.code).toBe(-32015)
    expect(e.message).toBe('VM Exception while processing transaction: transaction reverted')
    expect(e.data).toBe(probe.encodeErrorResult('ProbeError', [3, 'custom failure']))
    const block = await rpc(url, 'eth_getBlockByNumber', ['latest', false])
    expect((await rpc(url, 'eth_getTransactionReceipt', [block.transactions[0]])).status).toBe('0x0')
  })

  it('errors: unknown account / missing from -32602; pool rejection -32010', async () => {
    const head = await blockNumber()
    const unknown = Wallet.createRandom().address.toLowerCase()
    const e1 = await rpcError(url, 'eth_sendTransaction', [{ from: unknown, to: COW.address }])
    expect(e1).toEqual({ code: -32602, message: `Could not find account for address: ${unknown}`, status: 400 })
    const e2 = await rpcError(url, 'eth_sendTransaction', [{ to: COW.address }])
    expect(e2.code).toBe(-32602)
    const low = await rpcError(url, 'eth_sendTransaction', [{ from: COW.address, to: COW1.address, nonce: '0x0' }])
    expect(low).toEqual({ code: -32010, message: 'transaction nonce too low', status: 200 })
    const big = await rpcError(url, 'eth_sendTransaction', [{ from: COW.address, to: COW1.address, gas: q(7_000_000) }])
    expect(big.code).toBe(-32010)
    expect(await blockNumber()).toBe(head)
  })

  it.each([
    ['no argument', []],
    ['a non-object', ['0x00']],
    ['a malformed from', [{ from: '0x12', to: COW.address }]],
    ['a malformed value', [{ from: COW.address, to: COW1.address, value: 'ten' }]],
    ['two arguments', [{ from: COW.address, to: COW1.address }, 'latest']],
  ])('%s is -32602 (HTTP 400)', async (_what, params) => {
    const e = await rpcError(url, 'eth_sendTransaction', params)
    expect(e.code).toBe(-32602)
    expect(e.status).toBe(400)
  })
})

describe('eth_getTransactionByHash / eth_getTransactionReceipt', () => {
  it('are null for an unknown hash', async () => {
    const unknown = '0x' + '12'.repeat(32)
    expect(await rpc(url, 'eth_getTransactionByHash', [unknown])).toBeNull()
    expect(await rpc(url, 'eth_getTransactionReceipt', [unknown])).toBeNull()
  })

  it.each([
    ['a short hash', ['0x1234']],
    ['a hash without 0x', ['12'.repeat(32)]],
    ['non-hex', ['0x' + 'zz'.repeat(32)]],
    ['no argument', []],
    ['two arguments', ['0x' + '12'.repeat(32), true]],
  ])('%s is -32602 (HTTP 400)', async (_what, params) => {
    for (const method of ['eth_getTransactionByHash', 'eth_getTransactionReceipt']) {
      const e = await rpcError(url, method, params)
      expect(e.code).toBe(-32602)
      expect(e.status).toBe(400)
    }
  })
})

describe('eth_estimateGas', () => {
  /** Sends `req` from COW with exactly `gas`; returns the receipt (even when the tx failed). */
  async function sendWithGas(req: { to?: string | null; data?: string; value?: bigint }, gas: bigint) {
    const raw = await signed({ to: req.to ?? null, data: req.data ?? '0x', value: req.value ?? 0n, gasLimit: gas })
    await rpc(url, 'eth_sendRawTransaction', [raw]).catch((e: { code: number }) => {
      if (e.code !== -32015) throw e
    })
    return rpc(url, 'eth_getTransactionReceipt', [keccak256(raw)])
  }

  it('a value transfer is 21000; the tx succeeds with exactly that and is rejected with one less', async () => {
    const gas = BigInt(await rpc(url, 'eth_estimateGas', [{ from: COW.address, to: COW1.address, value: '0x1' }]))
    expect(gas).toBe(21_000n)
    expect(await rpc(url, 'eth_estimateGas', [{ from: COW.address, to: COW1.address, value: '0x1' }, 'latest'])).toBe(
      '0x5208',
    )
    expect(await rpc(url, 'eth_estimateGas', [{ to: COW1.address }])).toBe('0x5208')
    const ok = await sendWithGas({ to: COW1.address, value: 1n }, gas)
    expect(ok.status).toBe('0x1')
    expect(BigInt(ok.gasUsed)).toBe(gas)
    const e = await rpcError(url, 'eth_sendRawTransaction', [await signed({ gasLimit: gas - 1n })])
    expect(e.message).toBe("transaction's basic cost is above the gas limit")
  })

  // The estimate is a limit the transaction succeeds with, at most 1.5% above the minimum (geth's error
  // ratio): below estimate / 1.015 it must fail.
  const belowMinimum = (gas: bigint) => (gas * 1000n) / 1015n - 1n

  it('a contract deploy: succeeds with the estimate, fails (all gas used) below the 1.5% band', async () => {
    const req = { from: COW.address, data: Probe.bytecode }
    const gas = BigInt(await rpc(url, 'eth_estimateGas', [req]))
    expect(gas).toBeGreaterThan(53_000n)
    const ok = await sendWithGas({ data: Probe.bytecode }, gas)
    expect(ok.status).toBe('0x1')
    expect(ok.contractAddress).toMatch(ADDR)
    expect(BigInt(ok.gasUsed)).toBeLessThanOrEqual(gas)
    const bad = await sendWithGas({ data: Probe.bytecode }, belowMinimum(gas))
    expect(bad.status).toBe('0x0')
    expect(bad.contractAddress).toBeNull()
    expect(BigInt(bad.gasUsed)).toBe(belowMinimum(gas))
  })

  it('Probe.burn(n): succeeds with the estimate, runs out of gas below the 1.5% band', async () => {
    const data = probe.encodeFunctionData('burn', [40])
    const gas = BigInt(await rpc(url, 'eth_estimateGas', [{ from: COW.address, to: probeAddress, data }]))
    expect(gas).toBeGreaterThan(21_000n)
    const ok = await sendWithGas({ to: probeAddress, data }, gas)
    expect(ok.status).toBe('0x1')
    expect(ok.logs).toHaveLength(1)
    // the state changed (burnCount went up), so estimate again for the second run
    const gas2 = BigInt(await rpc(url, 'eth_estimateGas', [{ from: COW.address, to: probeAddress, data }]))
    const bad = await sendWithGas({ to: probeAddress, data }, belowMinimum(gas2))
    expect(bad.status).toBe('0x0')
    expect(BigInt(bad.gasUsed)).toBe(belowMinimum(gas2))
    expect(
      await rpc(url, 'eth_call', [{ to: probeAddress, data: probe.encodeFunctionData('burnCount') }, 'latest']),
    ).toBe(abi.encode(['uint256'], [40]))
  })

  it('grows with the work done', async () => {
    const est = async (n: number) =>
      BigInt(
        await rpc(url, 'eth_estimateGas', [
          { from: COW.address, to: probeAddress, data: probe.encodeFunctionData('burn', [n]) },
        ]),
      )
    expect(await est(100)).toBeGreaterThan(await est(10))
  })

  it('a reverting call is -32015 with the reason and the revert data', async () => {
    const e = await rpcError(url, 'eth_estimateGas', [
      { from: COW.address, to: probeAddress, data: probe.encodeFunctionData('failWithReason') },
    ])
    expect(e.code).toBe(-32015)
    expect(e.message).toBe('VM Exception while processing transaction: revert Probe: failed')
    expect(e.data).toBe(REASON_DATA)
    const c = await rpcError(url, 'eth_estimateGas', [
      { to: probeAddress, data: probe.encodeFunctionData('failCustom', [1]) },
    ])
    expect(c.code).toBe(-32015)
    expect(c.data).toBe(probe.encodeErrorResult('ProbeError', [1, 'custom failure']))
  })

  it('a value above the sender balance is -32000 "insufficient funds for transfer"', async () => {
    const e = await rpcError(url, 'eth_estimateGas', [
      { from: Wallet.createRandom().address, to: COW1.address, value: '0x1' },
    ])
    expect(e.code).toBe(-32000)
    expect(e.message).toBe('insufficient funds for transfer')
  })

  it('does not mine or change state', async () => {
    const head = await blockNumber()
    const nonce = await nonceOf(COW.address)
    await rpc(url, 'eth_estimateGas', [
      { from: COW.address, to: probeAddress, data: probe.encodeFunctionData('setValue', [77]) },
    ])
    expect(await blockNumber()).toBe(head)
    expect(await nonceOf(COW.address)).toBe(nonce)
  })

  it.each([
    ['no argument', []],
    ['a malformed to', [{ to: '0xabc' }]],
    ['odd-length data', [{ to: COW1.address, data: '0xabc' }]],
    ['a malformed block', [{ to: COW1.address }, 'soon']],
    ['three arguments', [{ to: COW1.address }, 'latest', 'extra']],
  ])('%s is -32602 (HTTP 400)', async (_what, params) => {
    const e = await rpcError(url, 'eth_estimateGas', params)
    expect(e.code).toBe(-32602)
    expect(e.status).toBe(400)
  })
})
