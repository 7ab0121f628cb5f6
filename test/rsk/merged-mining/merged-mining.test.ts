/**
 * Merged-mining and Remasc primitives (src/rsk/merged-mining*.ts, src/rsk/bitcoin-*.ts, src/rsk/remasc.ts,
 * src/chain/mining/consensus.ts)
 * against independent computations: the compressed coinbase (SHA-256 midstate + tail) resumes to the
 * coinbase's id, RSKIP92 merkle branches give the Bitcoin merkle root, the proof-of-work rule accepts what the
 * miner client builds and rejects tampering, fork detection data equals the header module's calculator, and
 * the Remasc transaction / storage keys have the reference encodings.
 */
import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { forkDetectionDataFor } from '../../../src/chain/mining/consensus.js'
import { ForkDetectionWindow } from '../../../src/chain/mining/fork-detection-window.js'
import type { BlockRecord } from '../../../src/types/records.js'
import { calculateForkDetectionData } from '../../../src/rsk/merged-mining/merged-mining-hash.js'
import { parseBtcTransaction, serializeCoinbase } from '../../../src/rsk/merged-mining/bitcoin-codec.js'
import { coinbaseMerkleBranch, merkleRootFromProof } from '../../../src/rsk/merged-mining/bitcoin-merkle-proof.js'
import { targetBytes, validateMergedMining } from '../../../src/rsk/merged-mining/merged-mining.js'
import { compressCoinbase, compressedCoinbaseTxid } from '../../../src/rsk/merged-mining/merged-mining-coinbase.js'
import { mergedMiningCoinbase, mineMergedMiningFields } from '../../../src/rsk/merged-mining/merged-mining-miner.js'
import {
  dataWordFromString,
  remascTransactionHash,
  remascTransactionRlp,
  REMASC_KEYS,
} from '../../../src/rsk/remasc.js'
import { keccak256 } from '../../../src/crypto/keccak.js'

const sha256d = (b: Uint8Array) => createHash('sha256').update(createHash('sha256').update(b).digest()).digest()
const rev = (b: Uint8Array) => Uint8Array.from(b).reverse()
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex')
const TAG = Buffer.from('RSKBLOCK:')

describe('compressed coinbase', () => {
  it('midstate + tail resume to the coinbase id, for tags in the 1st, 2nd and 4th 64-byte block', () => {
    for (const prefixLen of [0, 40, 150]) {
      const cb = mergedMiningCoinbase(new Uint8Array(32).fill(0xab), new Uint8Array(prefixLen).fill(7))
      const c = compressCoinbase(cb)
      const tagAt = Buffer.from(cb).lastIndexOf(TAG)
      const hashed = Math.floor(tagAt / 64) * 64
      expect(c.length).toBe(40 + cb.length - hashed)
      expect(Number(Buffer.from(c.subarray(0, 8)).readBigUInt64BE())).toBe(hashed)
      expect(hex(c.subarray(40))).toBe(hex(cb.subarray(hashed)))
      expect(hex(compressedCoinbaseTxid(c))).toBe(hex(rev(sha256d(cb))))
    }
  })

  it('a segwit coinbase is compressed in its legacy (txid) serialization', () => {
    const legacy = serializeCoinbase([{ value: 1n, script: Buffer.concat([TAG, Buffer.alloc(32, 1)]) }])
    const segwit = Buffer.concat([
      legacy.subarray(0, 4),
      Buffer.from([0, 1]),
      legacy.subarray(4, -4),
      Buffer.from([1, 32]),
      Buffer.alloc(32),
      legacy.subarray(-4),
    ])
    expect(hex(parseBtcTransaction(segwit))).toBe(hex(legacy))
  })
})

describe('RSKIP92 merkle proofs', () => {
  it('the coinbase branch gives the Bitcoin merkle root for 1 to 9 transactions', () => {
    for (let n = 1; n <= 9; n++) {
      const leaves = Array.from({ length: n }, (_, i) => sha256d(Buffer.from([i]))) // internal order
      let level: Buffer[] = leaves
      while (level.length > 1) {
        const next: Buffer[] = []
        for (let i = 0; i < level.length; i += 2)
          next.push(sha256d(Buffer.concat([level[i]!, level[i + 1] ?? level[i]!])))
        level = next
      }
      const branch = coinbaseMerkleBranch(leaves.map(rev))
      expect(branch).toHaveLength(Math.ceil(Math.log2(n)))
      expect(hex(merkleRootFromProof(rev(leaves[0]!), Buffer.concat(branch)))).toBe(hex(rev(level[0]!)))
    }
  })
})

describe('the proof-of-work rule', () => {
  const hfmm = new Uint8Array(32).fill(0x5c)
  const mm = mineMergedMiningFields(hfmm, 1n, 1_700_000_000n)

  it('accepts what the regtest miner client builds (80-byte header, empty proof, target 2^256/3)', () => {
    expect(mm.bitcoinMergedMiningHeader).toHaveLength(80)
    expect(mm.bitcoinMergedMiningMerkleProof).toHaveLength(0)
    expect(hex(targetBytes(1n))).toBe('55'.repeat(32))
    expect(validateMergedMining(mm, hfmm, 1n)).toBeUndefined()
    // the Bitcoin header commits to the coinbase: merkle root = its id
    expect(hex(mm.bitcoinMergedMiningHeader.subarray(36, 68))).toBe(
      hex(rev(compressedCoinbaseTxid(mm.bitcoinMergedMiningCoinbaseTransaction))),
    )
  })

  it('rejects another hash, a wrong proof, a header above the target, a short header', () => {
    expect(validateMergedMining(mm, new Uint8Array(32), 1n)).toMatch(/does not contain expected/)
    expect(validateMergedMining({ ...mm, bitcoinMergedMiningMerkleProof: new Uint8Array(32) }, hfmm, 1n)).toMatch(
      /merkle branch/,
    )
    expect(validateMergedMining({ ...mm, bitcoinMergedMiningMerkleProof: new Uint8Array(31) }, hfmm, 1n)).toMatch(
      /expected format/,
    )
    expect(validateMergedMining(mm, hfmm, 1n << 250n)).toMatch(/higher than the target/)
    expect(
      validateMergedMining(
        { ...mm, bitcoinMergedMiningHeader: mm.bitcoinMergedMiningHeader.subarray(0, 79) },
        hfmm,
        1n,
      ),
    ).toMatch(/80 bytes/)
  })

  it('rejects more than 128 bytes after the tag and a later second tag', () => {
    const long = serializeCoinbase([{ value: 0n, script: Buffer.concat([TAG, hfmm, Buffer.alloc(130)]) }])
    const c = compressCoinbase(long)
    const withHeader = { ...mm, bitcoinMergedMiningCoinbaseTransaction: c }
    expect(validateMergedMining(withHeader, hfmm, 1n)).toMatch(/128 bytes/)
    const twoTags = serializeCoinbase([{ value: 0n, script: Buffer.concat([TAG, hfmm, TAG, Buffer.alloc(32)]) }])
    expect(
      validateMergedMining(
        { ...mm, bitcoinMergedMiningCoinbaseTransaction: compressCoinbase(twoTags, false) },
        hfmm,
        1n,
      ),
    ).toMatch(/not the last RSK tag/)
  })
})

describe('fork detection data', () => {
  it('equals calculateForkDetectionData over the same ancestors', async () => {
    const blocks: BlockRecord[] = []
    for (let n = 0; n < 600; n++) {
      const btc = n === 0 ? Uint8Array.of(0) : createHash('sha256').update(`btc ${n}`).digest()
      const hash = createHash('sha256').update(`block ${n}`).digest()
      const parentHash = n === 0 ? new Uint8Array(32) : blocks[n - 1]!.hash
      blocks.push({
        hash,
        header: { number: BigInt(n), parentHash, uncleCount: n % 5 === 0 ? 1 : 0, bitcoinMergedMiningHeader: btc },
      } as unknown as BlockRecord)
    }
    const lookup = async (n: bigint) => blocks[Number(n)]
    for (const number of [448n, 449n, 450n, 512n, 513n, 599n]) {
      const mainchain = []
      for (let n = number - 1n; n >= 0n && n >= number - 449n; n--) mainchain.push({ ...blocks[Number(n)]!.header })
      expect(hex(await forkDetectionDataFor(new ForkDetectionWindow(), number, lookup))).toBe(
        hex(calculateForkDetectionData(mainchain)),
      )
    }
  })
})

describe('Remasc encodings', () => {
  it('the transaction RLP and hash', () => {
    expect(hex(remascTransactionRlp(1n))).toBe('dd80000094' + '0000000000000000000000000000000001000008' + '8080808080')
    expect(hex(remascTransactionRlp(0x101n))).toBe(
      'df820100000094' + '0000000000000000000000000000000001000008' + '8080808080',
    )
    expect(hex(remascTransactionHash(1n))).toBe(hex(keccak256(remascTransactionRlp(1n))))
  })

  it('storage keys are the ASCII names right-aligned in 32 bytes (DataWord.fromString)', () => {
    expect(hex(REMASC_KEYS.siblings)).toBe('00'.repeat(24) + hex(Buffer.from('siblings')))
    expect(hex(dataWordFromString('mining_fee_topic'))).toBe('00'.repeat(16) + hex(Buffer.from('mining_fee_topic')))
  })
})
