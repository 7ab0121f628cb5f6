/**
 * Byte-faithful consensus data over real HTTP (docs/reference-rules.md#rule-remasc-transaction,
 * docs/reference-rules.md#rule-parallel-sublists, docs/reference-rules.md#rule-merged-mining-fields, docs/reference-rules.md#rule-raw-header,
 * docs/reference-rules.md#rule-receipt-nodes, docs/reference-rules.md#rule-get-proof): the Remasc transaction (fields, hash, receipt, listing, payments and storage), RSKIP144 block
 * order and edges, merged-mining fields, and the ext_ / mnr_ / eth_ consensus methods — checked with
 * verifiers written here, independent of the node's own encoders:
 * - a block hash recomputed from ext_getRawBlockHeaderByHash (decode, re-encode compressed, keccak);
 * - a receipt's inclusion from ext_getTransactionReceiptNodesByHash up to the header's receiptsRoot;
 * - the merged-mining fields against hashForMergedMining (coinbase tag, Bitcoin merkle root, target);
 * - eth_getProof node lists hash-linked up to the stateRoot.
 */
import { createHash } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RLP } from '@ethereumjs/rlp'
import { Interface } from 'ethers'
import { keccak256 } from '../../src/crypto/secp256k1.js'
import type { Node } from '../../src/index.js'
import { Probe } from '../../fixtures/index.js'
import { COW, COW1, internals, rpc, rpcError, startNode } from '../helpers/node.js'
import { deploy, sendTx } from '../rpc/shapes.js'

const REMASC = '0x0000000000000000000000000000000001000008'
const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000'
const MINER = '0xec4ddeb4380ad69b3e509baad9f158cdf4e4681d'
const RSK_LABS = '0xdabadabadabadabadabadabadabadabadaba0001'
const FEDERATORS = [
  '0x6b045752f4d650a510a353bbf7e52988331e7f5b',
  '0x85845342b0d5260d516d6da5280a7df9a96d1925',
  '0x138161cda86b55c0de1bc3a0adef974633c85fbe',
]
const MINING_FEE_TOPIC = '0x' + Buffer.from('mining_fee_topic').toString('hex').padStart(64, '0')
const TAG = Buffer.from('RSKBLOCK:')
const probe = new Interface(Probe.abi)

const hex = (b: Uint8Array) => '0x' + Buffer.from(b).toString('hex')
const bytes = (h: string) => Uint8Array.from(Buffer.from(h.replace(/^0x/, ''), 'hex'))
const sha256d = (b: Uint8Array) => createHash('sha256').update(createHash('sha256').update(b).digest()).digest()
const reversed = (b: Uint8Array) => Uint8Array.from(b).reverse()
const asciiHex = (s: string) => hex(Buffer.from(s, 'ascii'))

/**
 * The block hash from the uncompressed header (V2, regtest): fields 0-5, extensionData = RLP[0x02,
 * keccak(RLP[keccak(bloom), baseEvent, edges])] in place of the bloom, fields 7-16 (difficulty … ummRoot),
 * then the Bitcoin header. keccak of that list.
 */
function verifyHash(rawHeaderHex: string): string {
  const f = RLP.decode(bytes(rawHeaderHex)) as Uint8Array[]
  expect(f).toHaveLength(21) // 17 fields + version, edges, baseEvent, btcHeader (RSKIP92: no proof/coinbase)
  const [bloom, version, edges, baseEvent, btcHeader] = [f[6]!, f[17]!, f[18]!, f[19]!, f[20]!]
  expect(hex(version)).toBe('0x02')
  expect(btcHeader).toHaveLength(80)
  const ext = RLP.encode([version, keccak256(RLP.encode([keccak256(bloom), baseEvent, edges]))])
  return hex(keccak256(RLP.encode([...f.slice(0, 6), ext, ...f.slice(7, 17), btcHeader])))
}

/** Edges of a raw header (little-endian int16 values). */
function edgesOf(rawHeaderHex: string): number[] {
  const e = (RLP.decode(bytes(rawHeaderHex)) as Uint8Array[])[18]!
  const out: number[] = []
  for (let i = 0; i < e.length; i += 2) out.push(e[i]! | (e[i + 1]! << 8))
  return out
}

/**
 * A node list (leaf first, root last) proves `leafValue` under `root`: keccak(last) = root, every node is
 * referenced by the next one (its hash, or embedded whole), and the leaf carries the value (inline, or
 * keccak(value) for values over 32 bytes).
 */
function verifyNodes(nodes: string[], root: string, leafValue?: Uint8Array): void {
  expect(nodes.length).toBeGreaterThan(0)
  const msgs = nodes.map(bytes)
  expect(hex(keccak256(msgs[msgs.length - 1]!))).toBe(root)
  for (let i = 0; i + 1 < msgs.length; i++) {
    const child = Buffer.from(msgs[i]!)
    const parent = Buffer.from(msgs[i + 1]!)
    expect(parent.includes(Buffer.from(keccak256(child))) || parent.includes(child)).toBe(true)
  }
  if (leafValue) {
    const leaf = Buffer.from(msgs[0]!)
    const needle = leafValue.length > 32 ? Buffer.from(keccak256(leafValue)) : Buffer.from(leafValue)
    expect(leaf.includes(needle)).toBe(true)
  }
}

let node: Node
let url: string
const block = (n: number | string, full = false) =>
  rpc(url, 'eth_getBlockByNumber', [typeof n === 'number' ? '0x' + n.toString(16) : n, full])
const balance = async (a: string, at = 'latest') => BigInt(await rpc(url, 'eth_getBalance', [a, at]))

beforeAll(async () => {
  node = await startNode()
  url = node.url
})
afterAll(() => node?.close())

describe('the Remasc transaction', () => {
  let feeBlock: any
  const FEE = 21_000n * 1000n

  beforeAll(async () => {
    // block 1: a transfer paying 21 000 × 1000 wei of fees; then empty blocks up to 16
    const r = await sendTx(url, { to: COW1.address, value: '0x1', gas: '0x5208', gasPrice: '0x3e8' })
    expect(r.blockNumber).toBe('0x1')
    feeBlock = await block(1, true)
    for (let i = 0; i < 15; i++) await rpc(url, 'evm_mine')
    expect(await rpc(url, 'eth_blockNumber')).toBe('0x10')
  })

  it('is the last transaction of every block, with the reference JSON fields', async () => {
    const remasc = feeBlock.transactions[1]
    expect(feeBlock.transactions).toHaveLength(2)
    expect(remasc).toEqual({
      hash: remasc.hash,
      nonce: '0x0',
      blockHash: feeBlock.hash,
      blockNumber: '0x1',
      transactionIndex: '0x1',
      from: ZERO_ADDRESS,
      to: REMASC,
      gas: '0x0',
      gasPrice: '0x0',
      value: '0x0',
      input: '0x',
      v: '0x0',
      r: '0x0',
      s: '0x0',
      type: '0x0',
    })
    // hash = keccak(RLP[nonce = number − 1, 0x00, 0x00, to, 0x80 ×5])
    const rlp = '0xdd80000094' + REMASC.slice(2) + '8080808080'
    expect(remasc.hash).toBe(hex(keccak256(bytes(rlp))))
    const b5 = await block(5, true)
    expect(b5.transactions.at(-1).nonce).toBe('0x4')
    expect(await rpc(url, 'eth_getTransactionByHash', [remasc.hash])).toEqual(remasc)
    expect(await rpc(url, 'eth_getBlockTransactionCountByNumber', ['0x1'])).toBe('0x2')
    expect(await rpc(url, 'eth_getBlockTransactionCountByNumber', ['0x2'])).toBe('0x1')
    expect(await rpc(url, 'eth_getTransactionByBlockNumberAndIndex', ['0x1', '0x1'])).toEqual(remasc)
  })

  it('has a receipt: status 1, no gas, the sequential sublist cumulative gas; its reference RLP', async () => {
    const remasc = feeBlock.transactions[1]
    const receipt = await rpc(url, 'eth_getTransactionReceipt', [remasc.hash])
    expect(receipt).toMatchObject({
      transactionHash: remasc.hash,
      transactionIndex: '0x1',
      blockNumber: '0x1',
      from: ZERO_ADDRESS,
      to: REMASC,
      gasUsed: '0x0',
      cumulativeGasUsed: '0x0', // the transfer ran in parallel sublist 0
      status: '0x1',
      logs: [],
      contractAddress: null,
      effectiveGasPrice: '0x0',
    })
    const raw = await rpc(url, 'ext_getRawTransactionReceiptByHash', [remasc.hash])
    expect(raw).toBe('0xf901080180b90100' + '00'.repeat(256) + 'c08001') // [01, 80, bloom, c0, 80, 01]
    const transfer = RLP.decode(
      bytes(await rpc(url, 'ext_getRawTransactionReceiptByHash', [feeBlock.transactions[0].hash])),
    ) as Uint8Array[]
    expect(transfer.map((x) => hex(x as Uint8Array))).toEqual([
      '0x01',
      '0x5208',
      '0x' + '00'.repeat(256),
      '0x',
      '0x5208',
      '0x01',
    ])
  })

  it('the empty block 2 has the known Remasc-only receiptsRoot', async () => {
    expect((await block(2)).receiptsRoot).toBe('0x66cfdb731f620cd96e2c2cb0f7d3c3a2879c29b40014aa27efbbf3cf9cd3b0f6')
  })

  it('fees go to the Remasc contract; block 11 adds block 1 fees to the reward balance', async () => {
    expect(feeBlock.paidFees).toBe('0x' + FEE.toString(16))
    expect(await balance(REMASC, '0x1')).toBe(FEE)
    expect(await balance(MINER, '0x1')).toBe(0n)
    const siblings = asciiHex('siblings')
    const reward = asciiHex('rewardBalance')
    expect(await rpc(url, 'ext_getStorageBytesAt', [REMASC, siblings, '0x1'])).toBe('0xc0')
    expect(await rpc(url, 'ext_getStorageBytesAt', [REMASC, reward, '0xa'])).toBe('0x0') // unset
    expect(await rpc(url, 'ext_getStorageBytesAt', [REMASC, reward, '0xb'])).toBe('0x01406f40') // 21 000 000, minimal bytes
    expect(await rpc(url, 'ext_getStorageBytesAt', [REMASC, asciiHex('brokenSelectionRule'), '0xe'])).toBe('0x0')
    expect(await rpc(url, 'ext_getStorageBytesAt', [REMASC, asciiHex('brokenSelectionRule'), '0xf'])).toBe('0x00')
  })

  it('block 15 pays a fifth of the reward: RSK Labs 1/5, the federation 1/100 of the rest, the miner the remainder', async () => {
    const synthetic = FEE / 5n
    const toRskLabs = synthetic / 5n
    const toFederation = (synthetic - toRskLabs) / 100n
    const toMiner = synthetic - toRskLabs - toFederation
    expect(await balance(RSK_LABS, '0xe')).toBe(0n)
    expect(await balance(RSK_LABS, '0xf')).toBe(toRskLabs)
    for (const f of FEDERATORS) expect(await balance(f, '0xf')).toBe(toFederation / 3n)
    expect(await balance(MINER, '0xf')).toBe(toMiner)
    expect(await balance(REMASC, '0xf')).toBe(FEE - synthetic)
    const reward = await rpc(url, 'ext_getStorageBytesAt', [REMASC, asciiHex('rewardBalance'), '0xf'])
    expect(BigInt(reward)).toBe(FEE - synthetic)
    // one log per payment, by the Remasc contract: [MINING_FEE_TOPIC, payee], data RLP[processing block hash, value]
    const b15 = await block(15, true)
    const b5 = await block(5)
    const receipt = await rpc(url, 'eth_getTransactionReceipt', [b15.transactions.at(-1).hash])
    expect(receipt.logs.map((l: any) => [l.address, l.topics[0], '0x' + l.topics[1].slice(26), l.logIndex])).toEqual(
      [RSK_LABS, ...FEDERATORS, MINER].map((a, i) => [REMASC, MINING_FEE_TOPIC, a, '0x' + i.toString(16)]),
    )
    const data = RLP.decode(bytes(receipt.logs[0].data)) as Uint8Array[]
    expect([hex(data[0]!), BigInt(hex(data[1]!) === '0x' ? 0 : hex(data[1]!))]).toEqual([b5.hash, toRskLabs])
    expect(b15.logsBloom).toBe(receipt.logsBloom)
    // the next blocks pay a fifth of what is left each time
    expect(await balance(RSK_LABS, '0x10')).toBe(toRskLabs + (FEE - synthetic) / 5n / 5n)
  })
})

describe('blocks with several transactions (manual mining)', () => {
  let b: any
  let hashes: string[]

  beforeAll(async () => {
    const { address } = await deploy(url, Probe.bytecode)
    expect(await rpc(url, 'evm_setAutomine', [false])).toBeNull()
    try {
      const send = (tx: Record<string, unknown>) => rpc<string>(url, 'eth_sendTransaction', [{ gas: '0x186a0', ...tx }])
      hashes = [
        await send({ from: COW.address, to: '0x00000000000000000000000000000000000000a1', value: '0x1' }),
        await send({ from: COW1.address, to: '0x00000000000000000000000000000000000000b2', value: '0x2' }),
        await send({ from: COW.address, to: address, data: probe.encodeFunctionData('emitMany', [2]) }),
      ]
      expect(await rpc(url, 'evm_mine')).toBeNull()
    } finally {
      await rpc(url, 'evm_setAutomine', [true])
    }
    b = await block('latest', true)
  })

  it('lists them in RSKIP144 order: parallel sublists (same sender, same sublist), then the sequential one with Remasc', async () => {
    expect(b.transactions.map((t: any) => t.hash)).toEqual([hashes[0], hashes[2], hashes[1], b.transactions[3].hash])
    expect(b.transactions[3].to).toBe(REMASC)
    expect(b.rskPteEdges).toEqual([2, 3])
    const raw = await rpc(url, 'ext_getRawBlockHeaderByHash', [b.hash])
    expect(edgesOf(raw)).toEqual([2, 3])
    const receipts = await Promise.all(b.transactions.map((t: any) => rpc(url, 'eth_getTransactionReceipt', [t.hash])))
    // cumulativeGasUsed counts per sublist
    expect(BigInt(receipts[0].cumulativeGasUsed)).toBe(21_000n)
    expect(BigInt(receipts[1].cumulativeGasUsed)).toBe(21_000n + BigInt(receipts[1].gasUsed))
    expect(BigInt(receipts[2].cumulativeGasUsed)).toBe(21_000n)
    expect(receipts[3].cumulativeGasUsed).toBe('0x0')
    // log indexes count across the block in block order, the Remasc payments last
    expect(receipts[1].logs.map((l: any) => l.logIndex)).toEqual(['0x0', '0x1'])
    expect(receipts[3].logs.map((l: any) => l.logIndex)).toEqual(['0x2', '0x3', '0x4', '0x5', '0x6'])
  })

  it('the block hash recomputes from ext_getRawBlockHeaderByHash; keccak(raw) is not the hash', async () => {
    const raw = await rpc(url, 'ext_getRawBlockHeaderByHash', [b.hash])
    expect(verifyHash(raw)).toBe(b.hash)
    expect(hex(keccak256(bytes(raw)))).not.toBe(b.hash)
    expect(await rpc(url, 'ext_getRawBlockHeaderByNumber', [b.number])).toBe(raw)
    expect(await rpc(url, 'ext_getRawBlockHeaderByNumber', ['latest'])).toBe(raw)
    for (const n of [1, 2, 16]) {
      const other = await block(n)
      expect(verifyHash(await rpc(url, 'ext_getRawBlockHeaderByHash', [other.hash]))).toBe(other.hash)
    }
    expect(await rpc(url, 'ext_getRawBlockHeaderByHash', ['0x' + 'ab'.repeat(32)])).toBeNull()
    expect(await rpc(url, 'ext_getRawBlockHeaderByNumber', ['0xffff'])).toBeNull()
  })

  it('every receipt is included under the receiptsRoot (ext_getTransactionReceiptNodesByHash)', async () => {
    for (const t of b.transactions) {
      const nodes = await rpc<string[]>(url, 'ext_getTransactionReceiptNodesByHash', [b.hash, t.hash])
      const receipt = bytes(await rpc(url, 'ext_getRawTransactionReceiptByHash', [t.hash]))
      verifyNodes(nodes, b.receiptsRoot, receipt)
    }
    const other = await block(1, false)
    expect(await rpc(url, 'ext_getTransactionReceiptNodesByHash', [other.hash, b.transactions[0].hash])).toBeNull()
  })

  it('transactions touching the same account share a sublist (state-key conflicts)', async () => {
    const same = '0x00000000000000000000000000000000000000c3'
    expect(await rpc(url, 'evm_setAutomine', [false])).toBeNull()
    let h: string[]
    try {
      const send = (from: string, to: string) => rpc<string>(url, 'eth_sendTransaction', [{ from, to, value: '0x1' }])
      const accounts = await rpc<string[]>(url, 'eth_accounts')
      h = [
        await send(accounts[2]!, same),
        await send(accounts[3]!, '0x00000000000000000000000000000000000000c4'),
        await send(accounts[4]!, same),
      ]
      await rpc(url, 'evm_mine')
    } finally {
      await rpc(url, 'evm_setAutomine', [true])
    }
    const m = await block('latest')
    // 1st and 3rd both pay `same`: sublist 0; the 2nd is independent: sublist 1
    expect(m.transactions.slice(0, 3)).toEqual([h[0], h[2], h[1]])
    expect(m.rskPteEdges).toEqual([2, 3])
  })
})

describe('BLOCKHASH inside the EVM', () => {
  it('returns the reference block hashes (eth_getBlockByNumber(n).hash)', async () => {
    const { address } = await deploy(url, Probe.bytecode)
    const head = Number(await rpc(url, 'eth_blockNumber'))
    for (const n of [0, 1, 2, 15, head - 1]) {
      const data = probe.encodeFunctionData('blockHash', [n])
      const got = await rpc(url, 'eth_call', [{ to: address, data }, 'latest'])
      expect(got).toBe((await block(n)).hash)
    }
  })
})

describe('merged mining', () => {
  it('mined blocks carry a Bitcoin header, compressed coinbase and proof committing to hashForMergedMining', async () => {
    const b = await block('latest')
    const header = bytes(b.bitcoinMergedMiningHeader)
    const compressed = bytes(b.bitcoinMergedMiningCoinbaseTransaction)
    expect(header).toHaveLength(80)
    expect(b.bitcoinMergedMiningMerkleProof).toBe('0x') // a one-transaction Bitcoin block
    // compressed coinbase = 8-byte byte count + 32-byte SHA-256 state (40 B), then the tail with the tag
    const tail = Buffer.from(compressed.subarray(40))
    const at = tail.lastIndexOf(Buffer.concat([TAG, bytes(b.hashForMergedMining)]))
    expect(at).toBeGreaterThanOrEqual(0)
    expect(at).toBeLessThan(64)
    // the Bitcoin block hash meets the target of difficulty 1 (2^256 / 3)
    expect(BigInt(hex(reversed(sha256d(header))))).toBeLessThanOrEqual((1n << 256n) / 3n)
  })

  it('mnr_getWork + a Bitcoin block built here → mnr_submitBitcoinBlock imports it (IMPORTED_BEST)', async () => {
    const work = await rpc(url, 'mnr_getWork')
    const head = await block('latest')
    expect(work).toEqual({
      blockHashForMergedMining: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      target: '0x' + '55'.repeat(32),
      feesPaidToMiner: '0',
      notify: true,
      parentBlockHash: head.hash,
    })
    expect((await rpc(url, 'mnr_getWork')).notify).toBe(false)
    expect((await rpc(url, 'eth_getWork'))[0]).toBe(work.blockHashForMergedMining)
    const btc = buildBitcoinBlock(work.blockHashForMergedMining, BigInt(work.target), [bitcoinTx(1)])
    const res = await rpc(url, 'mnr_submitBitcoinBlock', [hex(btc.block)])
    expect(res).toEqual({
      blockImportedResult: asciiHex('IMPORTED_BEST'),
      blockHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      blockIncludedHeight: '0x' + (BigInt(head.number) + 1n).toString(16),
    })
    const mined = await block('latest')
    expect(mined.hash).toBe(res.blockHash)
    expect(mined.parentHash).toBe(head.hash)
    expect(mined.hashForMergedMining).toBe(work.blockHashForMergedMining)
    expect(mined.bitcoinMergedMiningHeader).toBe(hex(btc.header))
    expect(mined.bitcoinMergedMiningMerkleProof).toBe(hex(btc.proof)) // the sibling of the coinbase (display order)
    expect(verifyHash(await rpc(url, 'ext_getRawBlockHeaderByHash', [mined.hash]))).toBe(mined.hash)
    // the work is used up
    const again = await rpcError(url, 'mnr_submitBitcoinBlock', [hex(btc.block)])
    expect(again.code).toBe(-33000)
  })

  it('mnr_submitBitcoinBlockTransactions and …PartialMerkle import the same way; a wrong proof is -33000', async () => {
    let work = await rpc(url, 'mnr_getWork')
    let btc = buildBitcoinBlock(work.blockHashForMergedMining, BigInt(work.target), [bitcoinTx(2), bitcoinTx(3)])
    const txids = btc.txids.map((t) => hex(reversed(t)).slice(2)).join(' ') // display order, as txids are shown
    const r1 = await rpc(url, 'mnr_submitBitcoinBlockTransactions', [
      work.blockHashForMergedMining,
      hex(btc.header),
      hex(btc.coinbase),
      txids,
    ])
    expect(r1.blockImportedResult).toBe(asciiHex('IMPORTED_BEST'))
    expect(bytes((await block('latest')).bitcoinMergedMiningMerkleProof)).toHaveLength(64) // 3 txs: 2 levels

    work = await rpc(url, 'mnr_getWork')
    btc = buildBitcoinBlock(work.blockHashForMergedMining, BigInt(work.target), [bitcoinTx(4)])
    const wrong = [btc.txids[0]!, sha256d(Buffer.from('not in the block'))].map((t) => hex(t).slice(2)).join(' ')
    const e = await rpcError(url, 'mnr_submitBitcoinBlockPartialMerkle', [
      work.blockHashForMergedMining,
      hex(btc.header),
      hex(btc.coinbase),
      wrong,
      '2',
    ])
    expect(e.code).toBe(-33000)
    expect(e.message).toMatch(/^Invalid block supplied by miner/)
    const branch = btc.txids.map((t) => hex(t).slice(2)).join(' ') // internal byte order, the coinbase's first
    const r2 = await rpc(url, 'mnr_submitBitcoinBlockPartialMerkle', [
      work.blockHashForMergedMining,
      hex(btc.header),
      hex(btc.coinbase),
      branch,
      '2',
    ])
    expect(r2.blockImportedResult).toBe(asciiHex('IMPORTED_BEST'))
    expect((await block('latest')).hash).toBe(r2.blockHash)

    const unknown = buildBitcoinBlock('0x' + '11'.repeat(32), BigInt(work.target), [])
    expect((await rpcError(url, 'mnr_submitBitcoinBlock', [hex(unknown.block)])).message).toMatch(/could not find hash/)
  })

  it('eth_submitWork is false, eth_submitHashrate true, eth_bridgeState a fresh bridge', async () => {
    expect(
      await rpc(url, 'eth_submitWork', ['0x0000000000000001', '0x' + '00'.repeat(32), '0x' + '00'.repeat(32)]),
    ).toBe(false)
    expect(await rpc(url, 'eth_submitHashrate', ['0x' + '00'.repeat(31) + '01', '0x' + '00'.repeat(32)])).toBe(true)
    expect(await rpc(url, 'eth_bridgeState')).toEqual({
      rskTxsWaitingForSignatures: [],
      btcBlockchainBestChainHeight: 0,
    })
  })
})

describe('eth_getProof', () => {
  it('account and storage proofs verify against the block stateRoot', async () => {
    const { address } = await deploy(url, Probe.bytecode)
    await sendTx(url, { to: address, data: probe.encodeFunctionData('setValue', [42]) })
    const b = await block('latest')
    const proof = await rpc(url, 'eth_getProof', [address, ['0x0', '0x1', '0x5'], b.number])
    expect(Object.keys(proof).sort()).toEqual([
      'accountProof',
      'address',
      'balance',
      'codeHash',
      'nonce',
      'storageHash',
      'storageProof',
    ])
    verifyNodes(proof.accountProof, b.stateRoot)
    expect(proof.codeHash).toBe(hex(keccak256(bytes(await rpc(url, 'eth_getCode', [address, b.number])))))
    for (const sp of proof.storageProof) {
      expect(BigInt(sp.value)).toBe(BigInt(await rpc(url, 'eth_getStorageAt', [address, sp.key, b.number])))
      verifyNodes(sp.proof, b.stateRoot)
    }
    const set = proof.storageProof.find((sp: any) => sp.value !== '0x0')
    expect(set).toBeDefined()
    const cow = await rpc(url, 'eth_getProof', [COW.address, [], 'latest'])
    expect(BigInt(cow.balance)).toBe(await balance(COW.address))
    expect(cow.storageHash).toBe('0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421')
    // the leaf holds the account RLP [nonce, balance as Java BigInteger bytes]
    const javaBytes = (v: bigint) => {
      const h = v.toString(16)
      const b = bytes(h.length % 2 ? '0' + h : h)
      return b[0]! & 0x80 ? Uint8Array.from([0, ...b]) : b
    }
    verifyNodes(cow.accountProof, b.stateRoot, RLP.encode([BigInt(cow.nonce), javaBytes(BigInt(cow.balance))]))
    // an absent account: nodes down to where its path leaves the trie, still hash-linked to the root
    const absent = await rpc(url, 'eth_getProof', ['0x00000000000000000000000000000000000000ee', [], 'latest'])
    expect(absent).toMatchObject({ balance: '0x0', nonce: '0x0', codeHash: '0x' + '00'.repeat(32) })
    verifyNodes(absent.accountProof, b.stateRoot)
  })
})

/** A minimal legacy Bitcoin transaction (one input, one output), serialized. */
function bitcoinTx(seed: number): Buffer {
  return Buffer.concat([
    Buffer.from([1, 0, 0, 0, 1]),
    Buffer.alloc(32, seed),
    Buffer.from([0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 1]),
    Buffer.from([0x10, 0x27, 0, 0, 0, 0, 0, 0, 1, 0x51]),
    Buffer.alloc(4),
  ])
}

/** A Bitcoin block built here: a coinbase committing "RSKBLOCK:" + hash, `others`, a nonce meeting `target`. */
function buildBitcoinBlock(hashForMergedMining: string, target: bigint, others: Buffer[]) {
  const u32 = (n: number) => {
    const b = Buffer.alloc(4)
    b.writeUInt32LE(n >>> 0)
    return b
  }
  const u64 = (n: bigint) => {
    const b = Buffer.alloc(8)
    b.writeBigUInt64LE(n)
    return b
  }
  const commit = Buffer.concat([Buffer.from('some miner data'), TAG, bytes(hashForMergedMining)])
  const p2pk = Buffer.concat([Buffer.from([0x21, 0x02]), Buffer.alloc(32, 7), Buffer.from([0xac])])
  const coinbase = Buffer.concat([
    u32(1),
    Buffer.from([1]),
    Buffer.alloc(32),
    u32(0xffffffff),
    Buffer.from([4, 1, 2, 3, 4]), // scriptSig
    u32(0xffffffff),
    Buffer.from([2]),
    u64(625_000_000n),
    Buffer.from([p2pk.length]),
    p2pk,
    u64(0n),
    Buffer.from([commit.length]),
    commit,
    u32(0),
  ])
  const txs = [coinbase, ...others]
  const txids = txs.map((t) => sha256d(t)) // internal byte order
  let level = txids
  while (level.length > 1) {
    const next: Buffer[] = []
    for (let i = 0; i < level.length; i += 2) next.push(sha256d(Buffer.concat([level[i]!, level[i + 1] ?? level[i]!])))
    level = next
  }
  const header = Buffer.concat([
    u32(0x20000000),
    Buffer.alloc(32, 9),
    level[0]!,
    u32(1_700_000_000),
    u32(0x207fffff),
    u32(0),
  ])
  for (let nonce = 0; ; nonce++) {
    header.writeUInt32LE(nonce, 76)
    if (BigInt(hex(reversed(sha256d(header)))) <= target) break
  }
  const block = Buffer.concat([header, Buffer.from([txs.length]), ...txs])
  // the RSKIP92 proof of a two-transaction block: the other txid in display order
  const proof = others.length > 0 ? reversed(txids[1]!) : new Uint8Array(0)
  return {
    header: Uint8Array.from(header),
    coinbase: Uint8Array.from(coinbase),
    txids,
    block: Uint8Array.from(block),
    proof,
  }
}

describe('RSKIP110 fork detection data (from block 449)', () => {
  it('hashForMergedMining ends with the 12 bytes computed from the ancestors’ Bitcoin headers, as the coinbase commits', async () => {
    while (BigInt(await rpc(url, 'eth_blockNumber')) < 449n) await internals(node).chain.mineEmpty()
    const b449 = await block(449)
    const b448 = await block(448)
    // below 449 the hash is the plain keccak of the header without merged-mining fields (no fork data)
    expect(b448.hashForMergedMining.slice(-24)).not.toBe('0'.repeat(24))
    // commit-to-parents: the last byte of the Bitcoin block hash of blocks 448, 384, …, 64 (best = 448, 448 mod 64 = 0)
    const expected = new Uint8Array(12)
    for (let i = 0; i < 7; i++) {
      const ancestor = await block(448 - 64 * i)
      expected[i] = reversed(sha256d(bytes(ancestor.bitcoinMergedMiningHeader))).at(-1)!
    }
    expected[7] = 0 // uncles in the last 32 blocks
    new DataView(expected.buffer).setUint32(8, 449)
    expect(b449.hashForMergedMining.slice(-24)).toBe(hex(expected).slice(2))
    const tail = Buffer.from(bytes(b449.bitcoinMergedMiningCoinbaseTransaction).subarray(40))
    expect(tail.includes(Buffer.concat([TAG, bytes(b449.hashForMergedMining)]))).toBe(true)
    expect(verifyHash(await rpc(url, 'ext_getRawBlockHeaderByHash', [b449.hash]))).toBe(b449.hash)
    // and the work for the next block carries it too
    const work = await rpc(url, 'mnr_getWork')
    const best = Number(await rpc(url, 'eth_blockNumber'))
    expect(Number(BigInt('0x' + work.blockHashForMergedMining.slice(-8)))).toBe(best + 1)
  })
})
