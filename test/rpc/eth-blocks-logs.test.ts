/**
 * Blocks and logs over real HTTP: eth_getBlockByNumber / eth_getBlockByHash (tags, numbers, hashes, map form,
 * pending, full transactions, the reference block shape) and eth_getLogs (address string/array, topic
 * wildcards and OR-arrays, blockHash, ranges, the 5000-block limit) (spec §2, §4;
 * docs/reference-rules.md#rule-block-json, docs/reference-rules.md#rule-log-json, docs/reference-rules.md#rule-log-matching, docs/reference-rules.md#rule-limits).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AbiCoder, id as eventId, Interface } from 'ethers'
import type { Node } from '../../src/index.js'
import { Probe } from '../../fixtures/index.js'
import { COW, COW1, internals, rpc, rpcError, startNode } from '../helpers/node.js'
import { WsClient } from '../helpers/ws.js'
import {
  ADDR,
  addrWord,
  BLOCK_FIELDS,
  BLOOM,
  DATA,
  deploy,
  expectKeys,
  HASH,
  LOG_FIELDS,
  MINER,
  q,
  QTY,
  sendTx,
  TX_FIELDS,
  word,
  ZERO_HASH,
} from './shapes.js'

const probe = new Interface(Probe.abi)
const abi = AbiCoder.defaultAbiCoder()
const VALUE_CHANGED = eventId('ValueChanged(address,uint256,uint256)')
const TICK = eventId('Tick(uint256,uint256)')
const EMPTY_TRIE = '0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421'
const EMPTY_UNCLES = '0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347'
const ZERO_BLOOM = '0x' + '00'.repeat(256)
const QTY_BLOCK_FIELDS = [
  'number',
  'difficulty',
  'totalDifficulty',
  'size',
  'gasLimit',
  'gasUsed',
  'timestamp',
  'minimumGasPrice',
  'paidFees',
  'cumulativeDifficulty',
]

let node: Node
let url: string
let probeA: string
let probeB: string
/** Tx hashes by block number. */
const txOf: Record<number, string> = {}

/*
 * Chain built once:
 *   1: COW deploys Probe A        2: COW deploys Probe B
 *   3: A.setValue(5) from COW     → ValueChanged(COW, 0, 5)
 *   4: A.emitMany(3) from COW     → Tick(0,3) Tick(1,3) Tick(2,3)
 *   5: B.setValue(7) from COW1    → ValueChanged(COW1, 0, 7)
 *   6: COW → COW1 1 wei at gasPrice 2 (no logs)
 */
beforeAll(async () => {
  node = await startNode()
  url = node.url
  let r = await deploy(url, Probe.bytecode)
  probeA = r.address
  txOf[1] = r.receipt.transactionHash
  r = await deploy(url, Probe.bytecode)
  probeB = r.address
  txOf[2] = r.receipt.transactionHash
  const steps: [number, Record<string, unknown>][] = [
    [3, { to: probeA, data: probe.encodeFunctionData('setValue', [5]) }],
    [4, { to: probeA, data: probe.encodeFunctionData('emitMany', [3]) }],
    [5, { from: COW1.address, to: probeB, data: probe.encodeFunctionData('setValue', [7]) }],
    [6, { to: COW1.address, value: '0x1', gas: '0x5208', gasPrice: '0x2' }],
  ]
  for (const [n, tx] of steps) {
    const receipt = await sendTx(url, tx)
    expect(receipt.status).toBe('0x1')
    expect(receipt.blockNumber).toBe(q(n))
    txOf[n] = receipt.transactionHash
  }
})
afterAll(() => node?.close())

const byNumber = (block: unknown, full = false) => rpc(url, 'eth_getBlockByNumber', [block, full])
const logs = (filter: Record<string, unknown>) => rpc<any[]>(url, 'eth_getLogs', [filter])

describe('eth_getBlockByNumber / eth_getBlockByHash', () => {
  it('genesis: the reference block shape and regtest genesis values', async () => {
    const g = await byNumber('0x0')
    expectKeys(g, BLOCK_FIELDS)
    expect(g).toMatchObject({
      number: '0x0',
      parentHash: ZERO_HASH,
      mixHash: ZERO_HASH,
      nonce: '0x0000000000000000',
      sha3Uncles: EMPTY_UNCLES,
      logsBloom: ZERO_BLOOM,
      transactionsRoot: EMPTY_TRIE,
      receiptsRoot: EMPTY_TRIE,
      miner: '0x3333333333333333333333333333333333333333',
      difficulty: '0x1',
      totalDifficulty: '0x1',
      cumulativeDifficulty: '0x1',
      extraData: '0x686f727365',
      gasLimit: '0x989680',
      gasUsed: '0x0',
      timestamp: '0x0',
      transactions: [],
      uncles: [],
      minimumGasPrice: '0x0',
      paidFees: '0x0',
      rskPteEdges: null,
      baseEvent: null,
    })
    expect(g.hash).toMatch(HASH)
    expect(g.stateRoot).toMatch(HASH)
    expect(g.hashForMergedMining).toMatch(HASH)
    expect(g.size).toMatch(QTY)
    for (const f of [
      'bitcoinMergedMiningHeader',
      'bitcoinMergedMiningCoinbaseTransaction',
      'bitcoinMergedMiningMerkleProof',
    ]) {
      expect(g[f]).toMatch(DATA)
    }
    expect(await byNumber('earliest')).toEqual(g)
    expect(await rpc(url, 'eth_getBlockByHash', [g.hash, false])).toEqual(g)
  })

  it('a mined block: fields, links and values', async () => {
    const b2 = await byNumber('0x2')
    const b3 = await byNumber('0x3')
    const receipt = await rpc(url, 'eth_getTransactionReceipt', [txOf[3]])
    expectKeys(b3, BLOCK_FIELDS)
    expect(b3).toMatchObject({
      number: '0x3',
      parentHash: b2.hash,
      mixHash: ZERO_HASH,
      nonce: '0x0000000000000000',
      sha3Uncles: EMPTY_UNCLES,
      miner: MINER,
      difficulty: '0x1',
      totalDifficulty: '0x4',
      cumulativeDifficulty: '0x1',
      gasUsed: receipt.gasUsed,
      uncles: [],
      minimumGasPrice: '0x0',
      paidFees: '0x0',
      // RSKIP144: a 3 000 000-gas transaction does not fit a parallel sublist ((limit − 6.8 M)/2), so it runs in the
      // sequential one with the Remasc transaction: no edges
      rskPteEdges: [],
      baseEvent: null,
    })
    expect(b3.hash).toBe(receipt.blockHash)
    expect(b3.transactions[0]).toBe(txOf[3])
    expect(b3.logsBloom).toMatch(BLOOM)
    expect(b3.logsBloom).not.toBe(ZERO_BLOOM)
    expect(b3.logsBloom).toBe(receipt.logsBloom)
    expect(b3.transactionsRoot).not.toBe(EMPTY_TRIE)
    expect(b3.receiptsRoot).not.toBe(EMPTY_TRIE)
    expect(b3.stateRoot).not.toBe(b2.stateRoot)
    expect(BigInt(b3.timestamp)).toBeGreaterThan(BigInt(b2.timestamp))
    expect(b3.extraData).toMatch(DATA)
    expect(Number(b3.size)).toBeGreaterThan(500)
  })

  it('chain links, total difficulty and minimal-hex quantities across all blocks', async () => {
    let parent = await byNumber('0x0')
    for (let n = 1; n <= 6; n++) {
      const b = await byNumber(q(n))
      expect(b.number).toBe(q(n))
      expect(b.parentHash).toBe(parent.hash)
      expect(b.totalDifficulty).toBe(q(n + 1))
      expect(BigInt(b.timestamp)).toBeGreaterThan(BigInt(parent.timestamp))
      for (const f of QTY_BLOCK_FIELDS) expect(b[f], f).toMatch(QTY)
      expect(b.miner).toMatch(ADDR)
      parent = b
    }
  })

  it('paidFees = Σ gasUsed · gasPrice', async () => {
    const b6 = await byNumber('0x6')
    expect(b6.gasUsed).toBe('0x5208')
    expect(b6.paidFees).toBe(q(21_000 * 2))
  })

  it('full transactions: objects in the transaction shape, same as eth_getTransactionByHash', async () => {
    const b4 = await byNumber('0x4', true)
    const tx = b4.transactions[0]
    expectKeys(tx, TX_FIELDS)
    expect(tx).toEqual(await rpc(url, 'eth_getTransactionByHash', [txOf[4]]))
    expect(tx).toMatchObject({
      blockHash: b4.hash,
      blockNumber: '0x4',
      transactionIndex: '0x0',
      from: COW.address,
      to: probeA,
    })
    const hashes = await byNumber('0x4')
    expect(hashes.transactions[0]).toBe(txOf[4])
    expect(await byNumber('0x4', false)).toEqual(hashes)
    expect(await rpc(url, 'eth_getBlockByNumber', ['0x4'])).toEqual(hashes)
  })

  it('a creation shows to: null in the full transaction', async () => {
    const b1 = await byNumber('0x1', true)
    expect(b1.transactions[0].to).toBeNull()
    expect(b1.transactions[0].input).toBe(Probe.bytecode)
  })

  it('by hash equals by number (hashes and full), for every block', async () => {
    for (let n = 0; n <= 6; n++) {
      const b = await byNumber(q(n))
      expect(await rpc(url, 'eth_getBlockByHash', [b.hash, false])).toEqual(b)
      expect(await rpc(url, 'eth_getBlockByHash', [b.hash])).toEqual(b)
      expect(await rpc(url, 'eth_getBlockByHash', [b.hash, true])).toEqual(await byNumber(q(n), true))
    }
  })

  it('eth_getBlockByNumber also accepts a block hash and the {blockHash}/{blockNumber} map', async () => {
    const b5 = await byNumber('0x5')
    expect(await byNumber(b5.hash)).toEqual(b5)
    expect(await byNumber({ blockHash: b5.hash })).toEqual(b5)
    expect(await byNumber({ blockNumber: '0x5' })).toEqual(b5)
  })

  it('latest is the head', async () => {
    const latest = await byNumber('latest')
    expect(latest.number).toBe(await rpc(url, 'eth_blockNumber'))
    expect(latest).toEqual(await byNumber('0x6'))
  })

  it('pending: a block on top of latest with null number, hash, logsBloom and miner', async () => {
    const latest = await byNumber('latest')
    const pending = await byNumber('pending')
    expectKeys(pending, BLOCK_FIELDS)
    expect(pending).toMatchObject({
      number: null,
      hash: null,
      logsBloom: null,
      miner: null,
      parentHash: latest.hash,
      gasUsed: '0x0',
      paidFees: '0x0',
      uncles: [],
    })
    expect(BigInt(pending.timestamp)).toBeGreaterThan(BigInt(latest.timestamp))
    expect(pending.gasLimit).toMatch(QTY)
    expect(pending.totalDifficulty).toBe(q(BigInt(latest.totalDifficulty) + 1n))
    // reading it mines nothing
    expect(await rpc(url, 'eth_blockNumber')).toBe(latest.number)
  })

  it('unknown blocks are null', async () => {
    expect(await byNumber('0x7')).toBeNull()
    expect(await byNumber('0xffffffff', true)).toBeNull()
    expect(await rpc(url, 'eth_getBlockByHash', ['0x' + 'ab'.repeat(32), false])).toBeNull()
    expect(await byNumber('0x' + 'ab'.repeat(32))).toBeNull()
  })

  it.each([
    ['an unknown tag', ['newest', false]],
    ['a bare 0x', ['0x', false]],
    ['a non-boolean flag', ['0x1', 'yes']],
    ['no argument', []],
    ['three arguments', ['0x1', false, 1]],
  ])('eth_getBlockByNumber with %s is -32602 (HTTP 400)', async (_what, params) => {
    const e = await rpcError(url, 'eth_getBlockByNumber', params)
    expect(e.code).toBe(-32602)
    expect(e.status).toBe(400)
  })

  it.each([
    ['a short hash', ['0x1234', false]],
    ['a number', ['0x1', false]],
    ['a tag', ['latest', false]],
    ['a non-boolean flag', ['0x' + 'ab'.repeat(32), 1]],
    ['no argument', []],
  ])('eth_getBlockByHash with %s is -32602 (HTTP 400)', async (_what, params) => {
    const e = await rpcError(url, 'eth_getBlockByHash', params)
    expect(e.code).toBe(-32602)
    expect(e.status).toBe(400)
  })
})

describe('eth_getLogs', () => {
  const all = { fromBlock: 'earliest', toBlock: 'latest' }

  it('by address: the log objects in the reference shape, plus removed: false', async () => {
    const found = await logs({ ...all, address: probeA })
    expect(found).toHaveLength(4)
    for (const l of found) expectKeys(l, LOG_FIELDS)
    const b3 = await byNumber('0x3')
    expect(found[0]).toEqual({
      logIndex: '0x0',
      blockNumber: '0x3',
      blockHash: b3.hash,
      transactionHash: txOf[3],
      transactionIndex: '0x0',
      address: probeA,
      data: word(5),
      topics: [VALUE_CHANGED, addrWord(COW.address), word(0)],
      removed: false,
    })
    // Tick(i, 3): logIndex counts across the block
    expect(found.slice(1).map((l) => [l.blockNumber, l.logIndex, l.topics, l.data])).toEqual(
      [0, 1, 2].map((i) => ['0x4', q(i), [TICK, word(i)], abi.encode(['uint256'], [3])]),
    )
  })

  it('address as an array (OR) and matching is case-insensitive', async () => {
    expect(await logs({ ...all, address: [probeA, probeB] })).toHaveLength(5)
    expect(await logs({ ...all, address: [probeB] })).toHaveLength(1)
    expect(await logs({ ...all, address: probeB.toUpperCase().replace('0X', '0x') })).toHaveLength(1)
    expect(await logs({ ...all, address: COW.address })).toEqual([])
  })

  it('the same answer in a batch, over WebSocket, in process and under any request id (the answer is bytes)', async () => {
    const filter = { ...all, address: probeA }
    const single = await logs(filter)
    expect(single).toHaveLength(4)
    const post = async (body: unknown): Promise<any> =>
      (
        await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        })
      ).json()
    const request = (id: unknown) => ({ jsonrpc: '2.0', id, method: 'eth_getLogs', params: [filter] })
    // a batch joins its answers as text; an id longer than the room kept for the envelope, a non-ASCII one
    const batch = await post([request(1), request('x'.repeat(200)), request('é😀'), request(null)])
    expect(batch.map((r: any) => r.id)).toEqual([1, 'x'.repeat(200), 'é😀', null])
    for (const r of batch) expect(r.result).toEqual(single)
    expect(await post(request('ü'.repeat(100)))).toEqual({ jsonrpc: '2.0', id: 'ü'.repeat(100), result: single })
    const ws = await WsClient.open(url.replace('http', 'ws'))
    try {
      expect(await ws.call('eth_getLogs', [filter])).toEqual(single)
    } finally {
      await ws.close()
    }
    expect(await node.provider.request({ method: 'eth_getLogs', params: [filter] })).toEqual(single)
  })

  it('without address: every log of the range, in chain order', async () => {
    const found = await logs(all)
    expect(found.map((l) => [l.blockNumber, l.address])).toEqual([
      ['0x3', probeA],
      ['0x4', probeA],
      ['0x4', probeA],
      ['0x4', probeA],
      ['0x5', probeB],
    ])
  })

  it('topics: exact, null wildcard, OR-arrays, shorter filter', async () => {
    expect(await logs({ ...all, topics: [VALUE_CHANGED] })).toHaveLength(2)
    const byCow1 = await logs({ ...all, topics: [null, addrWord(COW1.address)] })
    expect(byCow1).toHaveLength(1)
    expect(byCow1[0]).toMatchObject({ address: probeB, blockNumber: '0x5', data: word(7) })
    expect(await logs({ ...all, topics: [[VALUE_CHANGED, TICK]] })).toHaveLength(5)
    const ticks = await logs({ ...all, topics: [TICK, [word(0), word(2)]] })
    expect(ticks.map((l) => l.topics[1])).toEqual([word(0), word(2)])
    expect(await logs({ ...all, topics: [VALUE_CHANGED, null, word(0)] })).toHaveLength(2)
    expect(await logs({ ...all, topics: [null, null, word(0)] })).toHaveLength(2)
    // a list longer than the log's topics never matches it (rskj AddressesTopicsFilter.matchesExactly)
    expect(await logs({ ...all, topics: [VALUE_CHANGED, null, null] })).toHaveLength(2)
    expect(await logs({ ...all, topics: [VALUE_CHANGED, null, null, null] })).toEqual([])
    expect(await logs({ ...all, topics: [TICK, null, null] })).toEqual([])
    expect(await logs({ ...all, topics: [TICK, null] })).toHaveLength(3)
    expect(await logs({ ...all, topics: [] })).toHaveLength(5)
    expect(await logs({ ...all, topics: [eventId('Nope()')] })).toEqual([])
    expect(await logs({ ...all, address: probeB, topics: [TICK] })).toEqual([])
  })

  it('blockHash selects one block (blockhash spelling too); unknown hash → []', async () => {
    const b4 = await byNumber('0x4')
    expect(await logs({ blockHash: b4.hash })).toHaveLength(3)
    expect(await logs({ blockhash: b4.hash })).toHaveLength(3)
    expect(await logs({ blockHash: b4.hash, topics: [TICK, word(1)] })).toHaveLength(1)
    expect(await logs({ blockHash: '0x' + 'cd'.repeat(32) })).toEqual([])
  })

  it('fromBlock / toBlock ranges', async () => {
    expect(await logs({ fromBlock: '0x4', toBlock: '0x4' })).toHaveLength(3)
    expect(await logs({ fromBlock: '0x3', toBlock: '0x5' })).toHaveLength(5)
    expect(await logs({ fromBlock: 'earliest', toBlock: '0x2' })).toEqual([])
    expect(await logs({ fromBlock: '0x6', toBlock: 'latest' })).toEqual([])
  })

  it('fromBlock alone runs to latest; toBlock past the head is clamped; fromBlock past the head → []', async () => {
    expect(await logs({ fromBlock: '0x5' })).toHaveLength(1)
    expect(await logs({ fromBlock: '0x4', toBlock: '0x100' })).toHaveLength(4)
    expect(await logs({ fromBlock: '0x100', toBlock: '0x200' })).toEqual([])
    expect(await logs({ fromBlock: { blockNumber: '0x3' }, toBlock: '0x3' })).toHaveLength(1)
  })

  it('no block selector: the latest block only', async () => {
    expect(await logs({})).toEqual([]) // block 6 has no logs
    expect(await logs({ address: probeA })).toEqual([])
  })

  it('fromBlock > toBlock → []', async () => {
    expect(await logs({ fromBlock: '0x5', toBlock: '0x3' })).toEqual([])
  })

  it.each([
    ['blockHash together with fromBlock', [{ blockHash: '0x' + 'cd'.repeat(32), fromBlock: '0x1' }]],
    ['a malformed address', [{ address: '0x1234' }]],
    ['a malformed address in an array', [{ address: [COW.address, 'nope'] }]],
    ['a malformed topic', [{ topics: ['0x1234'] }]],
    ['topics that are not an array', [{ topics: VALUE_CHANGED }]],
    ['a malformed fromBlock', [{ fromBlock: 'yesterday' }]],
    ['a malformed blockHash', [{ blockHash: '0x12' }]],
    ['a string instead of a filter', ['latest']],
    ['no argument', []],
    ['two arguments', [{}, {}]],
  ])('%s is -32602 (HTTP 400)', async (_what, params) => {
    const e = await rpcError(url, 'eth_getLogs', params)
    expect(e.code).toBe(-32602)
    expect(e.status).toBe(400)
  })

  describe('the 5000-block limit (rpc.logs.maxBlocksToQuery)', () => {
    let head: bigint
    beforeAll(async () => {
      // Setup only: 5001 empty blocks straight on the chain (evm_mine is not part of this suite).
      for (let i = 0; i < 5001; i++) await internals(node).chain.mineEmpty()
      head = BigInt(await rpc(url, 'eth_blockNumber'))
      expect(head).toBe(5007n)
    })

    it('a range over 5000 blocks is -32012', async () => {
      const e = await rpcError(url, 'eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest' }])
      expect(e).toEqual({ code: -32012, message: 'Cannot query more than 5000 blocks at once', status: 200 })
      const e2 = await rpcError(url, 'eth_getLogs', [{ fromBlock: 'earliest', toBlock: q(5002) }])
      expect(e2.code).toBe(-32012)
    })

    // every block from 15 on also has the Remasc contract's payment logs (maturity 10 + synthetic span 5)
    const notRemasc = (ls: any[]) => ls.filter((l) => l.address !== '0x0000000000000000000000000000000001000008')

    it('a range under the limit still answers; blockHash is one block', async () => {
      expect(notRemasc(await logs({ fromBlock: q(head - 100n), toBlock: 'latest' }))).toEqual([])
      expect(await logs({ fromBlock: q(head - 100n), toBlock: 'latest' })).toHaveLength(101 * 5)
      expect(notRemasc(await logs({ fromBlock: '0x1', toBlock: q(4000) }))).toHaveLength(5)
      const b4 = await byNumber('0x4')
      expect(await logs({ blockHash: b4.hash })).toHaveLength(3)
    })

    // The reference (LogFilter.checkLimit) rejects only when toBlock - fromBlock > 5000, so 0..5000 (5001
    // blocks) is allowed.
    it('the limit is on toBlock - fromBlock (0..5000 allowed, as the reference)', async () => {
      // (an address filter: the Remasc logs of 5000 blocks would exceed the 20 000-log limit)
      expect(await logs({ fromBlock: '0x0', toBlock: q(5000), address: [probeA, probeB] })).toHaveLength(5)
    })
  })
})
