/**
 * The Environment (RSKIP203) and BlockHeader (RSKIP119/RSKIP536) native contracts over real HTTP, called by
 * transactions, eth_call and from a contract (fixtures/contracts/NativeProbe.sol). Expected values follow rskj
 * co/rsk/pcc/environment/GetCallStackDepth.java and co/rsk/pcc/blockheader/* (depth 0 = the parent of the
 * executing block; numbers as Java BigInteger.toByteArray(); gas 4 000 + 2 per call-data byte, 0 for
 * getCallStackDepth), and the regtest genesis (docs/reference-rules.md#rule-regtest-genesis: gasLimit 0x989680, difficulty 1, mgp 0, coinbase
 * 0x3333…3333, MM fields 0x00).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AbiCoder, Interface, id } from 'ethers'
import type { Node } from '../../../src/index.js'
import { NativeProbe } from '../../../fixtures/index.js'
import { COW, rpc, startNode } from '../../helpers/node.js'
import { deploy, MINER, q, sendTx, word } from '../../rpc/shapes.js'

const BLOCK_HEADER = '0x0000000000000000000000000000000001000010'
const ENVIRONMENT = '0x0000000000000000000000000000000001000011'
const abi = AbiCoder.defaultAbiCoder()
const probeIf = new Interface(NativeProbe.abi)
const headerIf = new Interface([
  'function getCoinbaseAddress(int256) returns (bytes)',
  'function getBlockHash(int256) returns (bytes)',
  'function getMergedMiningTags(int256) returns (bytes)',
  'function getMinGasPrice(int256) returns (bytes)',
  'function getGasLimit(int256) returns (bytes)',
  'function getGasUsed(int256) returns (bytes)',
  'function getDifficulty(int256) returns (bytes)',
  'function getBitcoinHeader(int256) returns (bytes)',
  'function getUncleCoinbaseAddress(int256,int256) returns (bytes)',
  'function getDifficultyWithUncles(int256) returns (bytes)',
  'function getCumulativeWork(int256) returns (bytes)',
])

let node: Node
let url: string
let probe: string

/** Intrinsic gas of call data (RSKIP400: 4 per zero byte, 16 per other byte) plus 21 000. */
function intrinsic(data: string): bigint {
  const b = Buffer.from(data.slice(2), 'hex')
  let g = 21000n
  for (const x of b) g += x === 0 ? 4n : 16n
  return g
}

/** eth_call of a BlockHeader getter; the decoded bytes as hex. */
async function getter(name: string, args: unknown[], block: unknown = 'latest'): Promise<string> {
  const out = await rpc<string>(url, 'eth_call', [
    { to: BLOCK_HEADER, data: headerIf.encodeFunctionData(name, args) },
    block,
  ])
  return headerIf.decodeFunctionResult(name, out)[0] as string
}

/** Sends a transaction that may fail (automine answers -32015 for those): mines it and returns its receipt. */
async function sendMined(tx: Record<string, unknown>): Promise<any> {
  await rpc(url, 'evm_setAutomine', [false])
  try {
    const hash = await rpc<string>(url, 'eth_sendTransaction', [{ from: COW.address, gas: '0x2dc6c0', ...tx }])
    await rpc(url, 'evm_mine')
    return await rpc(url, 'eth_getTransactionReceipt', [hash])
  } finally {
    await rpc(url, 'evm_setAutomine', [true])
  }
}

/** What follows the last "RSKBLOCK:" tag and the 32-byte hash (rskj GetMergedMiningTags), from the block JSON. */
function expectedTags(coinbaseTx: string): string {
  const tag = Buffer.from('RSKBLOCK:').toString('hex')
  const hex = coinbaseTx.slice(2)
  let pos = hex.lastIndexOf(tag)
  while (pos >= 0 && pos % 2 !== 0) pos = hex.lastIndexOf(tag, pos - 1)
  return pos < 0 ? '0x' : '0x' + hex.slice(pos + tag.length + 64)
}

beforeAll(async () => {
  node = await startNode()
  url = node.url
  ;({ address: probe } = await deploy(url, NativeProbe.bytecode)) // block 1
  await rpc(url, 'evm_mine') // block 2
})
afterAll(() => node?.close())

describe('Environment 0x…01000011 getCallStackDepth()', () => {
  const data = id('getCallStackDepth()').slice(0, 10)

  it('answers 1 to a transaction or eth_call sent to it, costing no gas beyond the intrinsic', async () => {
    expect(await rpc(url, 'eth_call', [{ to: ENVIRONMENT, data }, 'latest'])).toBe(word(1))
    const r = await sendTx(url, { to: ENVIRONMENT, data })
    expect(r.status).toBe('0x1')
    expect(BigInt(r.gasUsed)).toBe(intrinsic(data))
  })

  it('answers 1 from a contract called by the transaction, 2 one call deeper, also in a mined transaction', async () => {
    const call = (fn: string) =>
      rpc<string>(url, 'eth_call', [{ to: probe, data: probeIf.encodeFunctionData(fn) }, 'latest'])
    expect(BigInt(await call('callStackDepth'))).toBe(1n)
    expect(BigInt(await call('nestedCallStackDepth'))).toBe(2n)
    const r = await sendTx(url, { to: probe, data: probeIf.encodeFunctionData('logCallStackDepth') })
    expect(r.status).toBe('0x1')
    expect(BigInt(r.logs[0].data)).toBe(1n)
  })

  it('eth_estimateGas of a call to it is the intrinsic gas', async () => {
    expect(BigInt(await rpc(url, 'eth_estimateGas', [{ to: ENVIRONMENT, data }]))).toBe(intrinsic(data))
  })

  it('fails (status 0) on empty data, short data and an unknown selector; eth_call answers 0x', async () => {
    for (const bad of ['0x', '0x01', '0x010203', '0x12345678']) {
      expect(await rpc(url, 'eth_call', [{ to: ENVIRONMENT, data: bad }, 'latest'])).toBe('0x')
      const r = await sendMined({ to: ENVIRONMENT, data: bad })
      expect(r.status).toBe('0x0')
      // no method: its gas is 0 (NativeContract.getGasForData)
      expect(BigInt(r.gasUsed)).toBe(intrinsic(bad))
    }
  })
})

describe('BlockHeader 0x…01000010', () => {
  it('reads the parent of the executing block at depth 0: eth_call at latest (block 3) reads block 2', async () => {
    const head = BigInt(await rpc(url, 'eth_blockNumber'))
    const parent = await rpc(url, 'eth_getBlockByNumber', [q(head - 1n), false])
    expect(await getter('getBlockHash', [0])).toBe(parent.hash)
    expect(await getter('getCoinbaseAddress', [0])).toBe(MINER)
    const gp = await rpc(url, 'eth_getBlockByNumber', [q(head - 2n), false])
    expect(await getter('getBlockHash', [1])).toBe(gp.hash)
  })

  it('answers the genesis fields as the reference stores them (raw gas limit, BigInteger bytes, MM fields 0x00)', async () => {
    const genesis = await rpc(url, 'eth_getBlockByNumber', ['0x0', false])
    // at block 1, depth 0 is the genesis
    expect(await getter('getBlockHash', [0], '0x1')).toBe(genesis.hash)
    expect(await getter('getCoinbaseAddress', [0], '0x1')).toBe('0x' + '33'.repeat(20))
    expect(await getter('getGasLimit', [0], '0x1')).toBe('0x989680')
    expect(await getter('getDifficulty', [0], '0x1')).toBe('0x01')
    expect(await getter('getMinGasPrice', [0], '0x1')).toBe('0x00')
    expect(await getter('getGasUsed', [0], '0x1')).toBe('0x00')
    expect(await getter('getBitcoinHeader', [0], '0x1')).toBe('0x00')
    expect(await getter('getMergedMiningTags', [0], '0x1')).toBe('0x')
    expect(await getter('getDifficultyWithUncles', [0], '0x1')).toBe('0x01')
    expect(await getter('getCumulativeWork', [0], '0x1')).toBe('0x01')
  })

  it('answers a mined block: gas limit with a sign byte, gas used, total difficulty', async () => {
    const b1 = await rpc(url, 'eth_getBlockByNumber', ['0x1', false])
    // at block 2, depth 0 is block 1 (NativeProbe's deployment)
    const gasLimit = BigInt(b1.gasLimit)
    expect(gasLimit).toBe(10_000_000n - 10_000_000n / 1024n) // one step toward 7.5 M (docs/reference-rules.md#rule-derived-header-values)
    expect(await getter('getGasLimit', [0], '0x2')).toBe('0x00' + gasLimit.toString(16))
    const used = BigInt(b1.gasUsed)
    const usedHex = used.toString(16).padStart(used.toString(16).length + (used.toString(16).length % 2), '0')
    const usedBytes = parseInt(usedHex.slice(0, 2), 16) >= 0x80 ? '00' + usedHex : usedHex
    expect(await getter('getGasUsed', [0], '0x2')).toBe('0x' + usedBytes)
    expect(await getter('getCumulativeWork', [0], '0x2')).toBe('0x02')
    expect(await getter('getDifficultyWithUncles', [0], '0x2')).toBe('0x01')
    // the merged-mining fields node-cli seals each block with
    expect(b1.bitcoinMergedMiningHeader).toMatch(/^0x[0-9a-f]{160}$/)
    expect(await getter('getBitcoinHeader', [0], '0x2')).toBe(b1.bitcoinMergedMiningHeader)
    expect(await getter('getMergedMiningTags', [0], '0x2')).toBe(
      expectedTags(b1.bitcoinMergedMiningCoinbaseTransaction),
    )
  })

  it('answers empty bytes past the genesis, at depth ≥ 4000, outside the Java short range, and for a missing uncle', async () => {
    // eth_call at latest runs in the head block: depth head−1 is the genesis, depth head is before it
    const head = BigInt(await rpc(url, 'eth_blockNumber'))
    expect(await getter('getBlockHash', [head - 1n])).toBe(
      (await rpc(url, 'eth_getBlockByNumber', ['0x0', false])).hash,
    )
    expect(await getter('getBlockHash', [head])).toBe('0x')
    expect(await getter('getBlockHash', [4000])).toBe('0x')
    expect(await getter('getBlockHash', [40000])).toBe('0x')
    expect(await getter('getBlockHash', [-40000])).toBe('0x')
    expect(await getter('getUncleCoinbaseAddress', [0, 0])).toBe('0x')
    expect(await getter('getUncleCoinbaseAddress', [0, 100000])).toBe('0x')
  })

  it('fails on a negative depth or uncle index (eth_call answers 0x; a transaction has status 0)', async () => {
    const data = headerIf.encodeFunctionData('getBlockHash', [-1])
    expect(await rpc(url, 'eth_call', [{ to: BLOCK_HEADER, data }, 'latest'])).toBe('0x')
    const r = await sendMined({ to: BLOCK_HEADER, data })
    expect(r.status).toBe('0x0')
    // RSKIP197: a failing method is charged its price only
    expect(BigInt(r.gasUsed)).toBe(intrinsic(data) + 4000n + 2n * 36n)
    const bad = headerIf.encodeFunctionData('getUncleCoinbaseAddress', [0, -1])
    expect(await rpc(url, 'eth_call', [{ to: BLOCK_HEADER, data: bad }, 'latest'])).toBe('0x')
  })

  it('charges 4 000 + 2 per call-data byte: a transaction and eth_estimateGas', async () => {
    const data = headerIf.encodeFunctionData('getCoinbaseAddress', [0])
    const r = await sendTx(url, { to: BLOCK_HEADER, data })
    expect(r.status).toBe('0x1')
    expect(BigInt(r.gasUsed)).toBe(intrinsic(data) + 4000n + 72n)
    expect(BigInt(await rpc(url, 'eth_estimateGas', [{ to: BLOCK_HEADER, data }]))).toBe(intrinsic(data) + 4000n + 72n)
  })

  it('runs out of gas (all gas used) when the call gets less than its price; short arguments are no method (gas 0)', async () => {
    const data = headerIf.encodeFunctionData('getCoinbaseAddress', [0])
    const r = await sendMined({ to: BLOCK_HEADER, data, gas: q(intrinsic(data) + 1000n) })
    expect(r.status).toBe('0x0')
    expect(BigInt(r.gasUsed)).toBe(intrinsic(data) + 1000n)
    const short = data.slice(0, 2 + 8 + 20)
    const s = await sendMined({ to: BLOCK_HEADER, data: short })
    expect(s.status).toBe('0x0')
    expect(BigInt(s.gasUsed)).toBe(intrinsic(short))
  })

  it('answers a contract: NativeProbe reads every getter on-chain', async () => {
    const head = BigInt(await rpc(url, 'eth_blockNumber'))
    const parent = await rpc(url, 'eth_getBlockByNumber', [q(head - 1n), false])
    const call = async (fn: string, args: unknown[]) =>
      probeIf.decodeFunctionResult(
        fn,
        await rpc<string>(url, 'eth_call', [{ to: probe, data: probeIf.encodeFunctionData(fn, args) }, 'latest']),
      )
    const [ok, hash] = await call('header', ['getBlockHash', 0])
    expect(ok).toBe(true)
    expect(hash).toBe(parent.hash)
    expect((await call('header', ['getCoinbaseAddress', 0]))[1]).toBe(MINER)
    expect((await call('header', ['getDifficulty', 0]))[1]).toBe('0x01')
    expect((await call('header', ['getMinGasPrice', 0]))[1]).toBe('0x00')
    expect((await call('header', ['getCumulativeWork', 0]))[1]).toBe(
      '0x' + BigInt(parent.totalDifficulty).toString(16).padStart(2, '0'),
    )
    // a negative depth fails the inner call only
    expect((await call('header', ['getBlockHash', -1]))[0]).toBe(false)
    expect((await call('uncleCoinbase', [0, 0]))[1]).toBe('0x')
    expect(abi.decode(['bool'], abi.encode(['bool'], [true]))[0]).toBe(true)
  })
})
