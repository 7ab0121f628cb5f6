import { describe, it, expect } from 'vitest'
import { bytesToHex, hexToBytes } from '@ethereumjs/util'
import { EMPTY_LIST_HASH, keccak256 } from '../../src/crypto/keccak.js'
import {
  decodeEdges,
  encodeBlock,
  encodeEdges,
  encodedForHash,
  extensionData,
  extensionHash,
  fullEncodedHeader,
  headerHash,
  rawHeader,
  unclesHash,
  type RskHeader,
} from '../../src/rsk/header.js'
import { decodeBlock, decodeHeader } from '../../src/rsk/header-decode.js'
import {
  RSK_TAG,
  calculateForkDetectionData,
  hashForMergedMining,
} from '../../src/rsk/merged-mining/merged-mining-hash.js'
import { javaBigIntegerBytes, rlpBytes, rlpList, rlpSignedCoin, rlpUnsigned } from '../../src/rsk/rlp-encoding.js'

const hex = bytesToHex

describe('number encodings (RLP.java)', () => {
  it('unsigned numbers: zero → 0x80, minimal big-endian', () => {
    expect(hex(rlpUnsigned(0n))).toBe('0x80')
    expect(hex(rlpUnsigned(1n))).toBe('0x01')
    expect(hex(rlpUnsigned(0x80n))).toBe('0x8180')
    expect(hex(rlpUnsigned(0x696e7bb2n))).toBe('0x84696e7bb2')
  })
  it('Java BigInteger.toByteArray: 0 → 00, top bit → 00 prefix', () => {
    expect(hex(javaBigIntegerBytes(0n))).toBe('0x00')
    expect(hex(javaBigIntegerBytes(10_000_000n))).toBe('0x00989680')
    expect(hex(javaBigIntegerBytes(0x7fffffn))).toBe('0x7fffff')
  })
  it('minimumGasPrice: 0 → raw 00, null → 80', () => {
    expect(hex(rlpSignedCoin(0n))).toBe('0x00')
    expect(hex(rlpSignedCoin(null))).toBe('0x80')
    expect(hex(rlpSignedCoin(0x1699280n))).toBe('0x8401699280')
  })
  it('edges are an RLP string of little-endian int16', () => {
    expect(hex(encodeEdges([]))).toBe('0x80')
    expect(hex(encodeEdges([1, 258]))).toBe('0x8401000201')
    expect(decodeEdges(hexToBytes('0x01000201'))).toEqual([1, 258])
    expect(decodeEdges(hexToBytes('0xffff'))).toEqual([-1])
  })
  it('RLP long strings and lists', () => {
    expect(hex(rlpBytes(new Uint8Array(56)).subarray(0, 2))).toBe('0xb838')
    expect(hex(rlpList([]))).toBe('0xc0')
    expect(rlpList([rlpBytes(new Uint8Array(60))]).subarray(0, 2)).toEqual(Uint8Array.of(0xf8, 62))
  })
})

describe('extension hash (RSKIP351/535)', () => {
  it('V2 with zero bloom, empty baseEvent and [] edges = 9aca8469…d3c2', () => {
    const h = bytesToHex(
      extensionHash({ version: 2, logsBloom: new Uint8Array(256), baseEvent: new Uint8Array(0), edges: [] }),
    )
    expect(h).toBe('0x9aca8469839f117b1a26abbdea244a32cb0833e387cf6af9dc13eb336094d3c2')
    // null baseEvent is encoded as empty
    expect(bytesToHex(extensionHash({ version: 2, logsBloom: new Uint8Array(256), baseEvent: null, edges: [] }))).toBe(
      h,
    )
  })
  it('V1 with zero bloom and [] edges = 339bef53…c6ef (third-party vector)', () => {
    expect(bytesToHex(extensionHash({ version: 1, logsBloom: new Uint8Array(256), baseEvent: null, edges: [] }))).toBe(
      '0x339bef53725a6ddba6dd20e727e3fe46866efc57a35164222577762e02d8c6ef',
    )
  })
})

/**
 * Regtest block 1 vectors published by a third-party Go port of the header hashing
 * ("verified against the actual RSK Java implementation"); data only.
 */
function block1(version: 1 | 2): RskHeader {
  return {
    parentHash: hexToBytes('0x8ea789fabef0dd4946ed53f001e7b6f8a8d0c22a612a6099fc7f93c990af68fe'),
    unclesHash: EMPTY_LIST_HASH,
    coinbase: hexToBytes('0xec4ddeb4380ad69b3e509baad9f158cdf4e4681d'),
    stateRoot: hexToBytes('0xf276a3a8c9c4eb4dcbbfb9bf6965f36dc611b815614c0d7cd06e15b8890c272c'),
    txTrieRoot: hexToBytes('0x8c9664a30670ddc67aa13992fdd8751b7b797bbe172506ffd5cda10ebbf97952'),
    receiptTrieRoot: hexToBytes('0x66cfdb731f620cd96e2c2cb0f7d3c3a2879c29b40014aa27efbbf3cf9cd3b0f6'),
    logsBloom: new Uint8Array(256),
    difficulty: 1n,
    number: 1n,
    gasLimit: javaBigIntegerBytes(10_000_000n),
    gasUsed: 0n,
    timestamp: version === 2 ? 0x69824213n : 1768848306n,
    extraData: hexToBytes(
      version === 2 ? '0xd40192534e415053484f542d343031373966623937' : '0xd40192534e415053484f542d343661653533386532',
    ),
    paidFees: 0n,
    minimumGasPrice: 0n,
    uncleCount: 0,
    ummRoot: new Uint8Array(0),
    version,
    edges: [],
    baseEvent: version === 2 ? new Uint8Array(0) : null,
    bitcoinMergedMiningHeader:
      version === 2
        ? null
        : hexToBytes(
            '0x711101000000000000000000000000000000000000000000000000000000000000000000f452061f4aea40ba9a9dca66ce43eaad20e9d59b4d19fa4415dd22d3de8c2ec3b27b6e69ffff7f2103000000',
          ),
    bitcoinMergedMiningMerkleProof: null,
    bitcoinMergedMiningCoinbaseTransaction: null,
  }
}

describe('regtest block 1 (V1 / V2) — third-party vectors', () => {
  it('V2 (no MM fields): preimage and hash 0x90299cad…3b63', () => {
    const h = block1(2)
    expect(bytesToHex(encodedForHash(h))).toBe(
      '0xf90105a08ea789fabef0dd4946ed53f001e7b6f8a8d0c22a612a6099fc7f93c990af68fea01dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d4934794ec4ddeb4380ad69b3e509baad9f158cdf4e4681da0f276a3a8c9c4eb4dcbbfb9bf6965f36dc611b815614c0d7cd06e15b8890c272ca08c9664a30670ddc67aa13992fdd8751b7b797bbe172506ffd5cda10ebbf97952a066cfdb731f620cd96e2c2cb0f7d3c3a2879c29b40014aa27efbbf3cf9cd3b0f6a3e202a09aca8469839f117b1a26abbdea244a32cb0833e387cf6af9dc13eb336094d3c20101840098968080846982421395d40192534e415053484f542d34303137396662393780008080',
    )
    expect(bytesToHex(headerHash(h))).toBe('0x90299cad077d0759beee6c9625be98114874d9ae65ede6979752a97112043b63')
  })

  it('V1 with a BTC header: preimage and hash 0xfe10930e…cffe', () => {
    const h = block1(1)
    expect(bytesToHex(encodedForHash(h))).toBe(
      '0xf90157a08ea789fabef0dd4946ed53f001e7b6f8a8d0c22a612a6099fc7f93c990af68fea01dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d4934794ec4ddeb4380ad69b3e509baad9f158cdf4e4681da0f276a3a8c9c4eb4dcbbfb9bf6965f36dc611b815614c0d7cd06e15b8890c272ca08c9664a30670ddc67aa13992fdd8751b7b797bbe172506ffd5cda10ebbf97952a066cfdb731f620cd96e2c2cb0f7d3c3a2879c29b40014aa27efbbf3cf9cd3b0f6a3e201a0339bef53725a6ddba6dd20e727e3fe46866efc57a35164222577762e02d8c6ef010184009896808084696e7bb295d40192534e415053484f542d34366165353338653280008080b850711101000000000000000000000000000000000000000000000000000000000000000000f452061f4aea40ba9a9dca66ce43eaad20e9d59b4d19fa4415dd22d3de8c2ec3b27b6e69ffff7f2103000000',
    )
    expect(bytesToHex(headerHash(h))).toBe('0xfe10930e0ad3742e3fe1d7200c4d54573d58033cc03484137dc7ec5a761ecffe')
  })

  it('V2 uncompressed raw header carries bloom, version, edges, baseEvent; keccak(raw) ≠ hash', () => {
    const h = {
      ...block1(2),
      bitcoinMergedMiningHeader: new Uint8Array(80).fill(1),
      bitcoinMergedMiningMerkleProof: Uint8Array.of(1, 2),
      bitcoinMergedMiningCoinbaseTransaction: Uint8Array.of(3, 4, 5),
    }
    const raw = rawHeader(h)
    // bloom field (b90100 + 256 zero bytes) is present instead of the a3 e2 02 a0 extension data
    expect(bytesToHex(raw).includes('b90100' + '00'.repeat(256))).toBe(true)
    // …, uncleCount 80, ummRoot 80, version 02, edges 80, baseEvent 80, btcHeader (RSKIP92: no proof/coinbase)
    expect(bytesToHex(raw).endsWith('8080028080b850' + '01'.repeat(80))).toBe(true)
    expect(keccak256(raw)).not.toEqual(headerHash(h))
    // the full encoding adds the merkle proof and coinbase
    expect(bytesToHex(fullEncodedHeader(h)).endsWith('b850' + '01'.repeat(80) + '820102' + '83030405')).toBe(true)
    // compressed extension data is a3 e2 02 a0 <32 B>
    expect(bytesToHex(rlpBytes(extensionData(h))).startsWith('0xa3e202a0')).toBe(true)
  })

  it('block RLP = [fullHeader, txs, uncles] and uncles hash', () => {
    const h = block1(2)
    const tx = hexToBytes('0xc3010203')
    const blk = encodeBlock(h, [tx], [])
    const full = fullEncodedHeader(h)
    expect(bytesToHex(blk)).toBe(bytesToHex(rlpList([full, rlpList([tx]), rlpList([])])))
    expect(unclesHash([])).toEqual(EMPTY_LIST_HASH)
  })
})

describe('hashForMergedMining / RSKIP110', () => {
  it('below 449 the base hash is used unchanged', () => {
    const h = block1(2)
    expect(hashForMergedMining(h)).toEqual(hashForMergedMining(h, { includeForkDetectionData: false }))
  })

  it('from 449 on the last 12 bytes come from the coinbase after RSKBLOCK:+base[0..20]', () => {
    const h0: RskHeader = { ...block1(2), number: 500n, bitcoinMergedMiningHeader: new Uint8Array(80) }
    const base = hashForMergedMining(h0, { includeForkDetectionData: false })
    const fdd = hexToBytes('0x0102030405060708090a0b0c')
    const cb = new Uint8Array([...new Uint8Array(10), ...RSK_TAG, ...base.subarray(0, 20), ...fdd, 0xee])
    const h = { ...h0, bitcoinMergedMiningCoinbaseTransaction: cb }
    // the base hash does not depend on the MM fields
    expect(hashForMergedMining(h, { includeForkDetectionData: false })).toEqual(base)
    const hfmm = hashForMergedMining(h)
    expect(hfmm.subarray(0, 20)).toEqual(base.subarray(0, 20))
    expect(hfmm.subarray(20)).toEqual(fdd)
    // a block being mined (no MM fields) uses the calculator's data
    const pending = { ...h0, bitcoinMergedMiningHeader: null }
    expect(hashForMergedMining(pending, { forkDetectionData: fdd }).subarray(20)).toEqual(fdd)
  })

  it('fork detection data: empty below 449 headers, else 7 CPV bytes, uncles, height', () => {
    expect(calculateForkDetectionData([]).length).toBe(0)
    const chain = Array.from({ length: 449 }, (_, i) => ({
      number: BigInt(600 - i),
      uncleCount: i < 40 ? 1 : 0,
      bitcoinMergedMiningHeader: new Uint8Array(80).fill(i & 0xff),
    }))
    const fdd = calculateForkDetectionData(chain)
    expect(fdd.length).toBe(12)
    expect(fdd[7]).toBe(32) // uncles over the 32 newest
    expect(bytesToHex(fdd.subarray(8))).toBe('0x00000259') // 601
  })
})

describe('decoding (BlockFactory.decodeHeader / decodeBlock)', () => {
  it('round-trips a V2 block with MM fields, txs and an uncle', () => {
    const uncle: RskHeader = {
      ...block1(2),
      number: 2n,
      edges: [3, 7],
      baseEvent: Uint8Array.of(9, 9),
      bitcoinMergedMiningHeader: new Uint8Array(80).fill(2),
      bitcoinMergedMiningMerkleProof: Uint8Array.of(5),
      bitcoinMergedMiningCoinbaseTransaction: new Uint8Array(50).fill(6),
      useRskip92Encoding: true,
    }
    const h: RskHeader = { ...uncle, number: 3n, difficulty: 0x80n, minimumGasPrice: 0x1699280n, uncleCount: 1 }
    const txs = [hexToBytes('0xc3010203'), hexToBytes('0xc58203e80102')]
    const blk = encodeBlock(h, txs, [uncle])
    const d = decodeBlock(blk)
    expect(d.header).toEqual(h)
    expect(d.uncles).toEqual([uncle])
    expect(d.txsRlp.map(bytesToHex)).toEqual(txs.map(bytesToHex))
    expect(encodeBlock(d.header, d.txsRlp, d.uncles)).toEqual(blk)
    expect(headerHash(d.header)).toEqual(headerHash(h))
  })

  it('round-trips the V0 genesis (difficulty bytes kept verbatim) and a pending-style V2 header', () => {
    const g: RskHeader = {
      ...block1(2),
      number: 0n,
      version: 0,
      ummRoot: null,
      edges: null,
      baseEvent: null,
      difficulty: hexToBytes('0x0000000001'),
      bitcoinMergedMiningHeader: Uint8Array.of(0),
      bitcoinMergedMiningMerkleProof: Uint8Array.of(0),
      bitcoinMergedMiningCoinbaseTransaction: Uint8Array.of(0),
      useRskip92Encoding: true,
    }
    expect(decodeHeader(fullEncodedHeader(g))).toEqual(g)
    const p: RskHeader = { ...block1(2), useRskip92Encoding: true }
    const dp = decodeHeader(rawHeader(p))
    expect(dp).toEqual(p)
  })
})
