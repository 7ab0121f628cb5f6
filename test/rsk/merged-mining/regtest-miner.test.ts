/**
 * The regtest miner client (src/rsk/merged-mining/merged-mining-miner.ts) writes each block's hash, merkle root, time
 * and nonce into bytes all blocks share: its fields equal the ones serialized from scratch here, with Node's own
 * SHA-256 and the nonce search spelled out, for many hashes, times and difficulties.
 */
import { createHash, randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { compressCoinbase } from '../../../src/rsk/merged-mining/merged-mining-coinbase.js'
import { mineMergedMiningFields } from '../../../src/rsk/merged-mining/merged-mining-miner.js'
import { validateMergedMining } from '../../../src/rsk/merged-mining/merged-mining.js'

const sha256d = (b: Uint8Array) => createHash('sha256').update(createHash('sha256').update(b).digest()).digest()
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex')
const G = '0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798'

/** MinerClientImpl's block, serialized from scratch: coinbase (50 BTC to G, then RSKBLOCK: ‖ hash), header, nonce. */
function reference(hash: Uint8Array, difficulty: bigint, time: bigint) {
  const coinbase = Buffer.from(
    '01000000' +
      '01' +
      '00'.repeat(32) +
      'ffffffff' +
      '00' +
      'ffffffff' +
      '02' +
      '00f2052a01000000' +
      '23' +
      '21' +
      G +
      'ac' +
      '0000000000000000' +
      '29' +
      Buffer.from('RSKBLOCK:').toString('hex') +
      hex(hash) +
      '00000000',
    'hex',
  )
  const header = Buffer.alloc(80)
  header.writeUInt32LE(70001, 0)
  sha256d(coinbase).copy(header, 36)
  header.writeUInt32LE(Number(BigInt.asUintN(32, time)), 68)
  header.writeUInt32LE(0x217fffff, 72)
  const target = (1n << 256n) / (difficulty < 3n ? 3n : difficulty)
  for (let nonce = 0; ; nonce++) {
    header.writeUInt32LE(nonce, 76)
    if (BigInt('0x' + hex(sha256d(header).reverse())) <= target) break
  }
  return { header, coinbase: compressCoinbase(coinbase) }
}

describe('the regtest miner client', () => {
  it('gives the fields serialized from scratch (300 hashes, times and difficulties)', () => {
    const difficulties = [1n, 2n, 3n, 4n, 7n, 100n, 300n]
    for (let i = 0; i < 300; i++) {
      const hash = randomBytes(32)
      const difficulty = difficulties[i % difficulties.length]!
      const time = i % 50 === 0 ? (1n << 40n) + BigInt(i) : 1_700_000_000n + BigInt(i * 13)
      const mm = mineMergedMiningFields(hash, difficulty, time)
      const ref = reference(hash, difficulty, time)
      expect(hex(mm.bitcoinMergedMiningHeader)).toBe(hex(ref.header))
      expect(hex(mm.bitcoinMergedMiningCoinbaseTransaction)).toBe(hex(ref.coinbase))
      expect(mm.bitcoinMergedMiningMerkleProof).toHaveLength(0)
      expect(validateMergedMining(mm, hash, difficulty)).toBeUndefined()
    }
  })

  it('hands out arrays of their own (a later block does not change an earlier one)', () => {
    const a = mineMergedMiningFields(new Uint8Array(32).fill(1), 1n, 1n)
    const before = hex(a.bitcoinMergedMiningHeader) + hex(a.bitcoinMergedMiningCoinbaseTransaction)
    mineMergedMiningFields(new Uint8Array(32).fill(2), 5n, 2n)
    expect(hex(a.bitcoinMergedMiningHeader) + hex(a.bitcoinMergedMiningCoinbaseTransaction)).toBe(before)
  })
})
