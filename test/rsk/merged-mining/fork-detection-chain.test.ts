/**
 * RSKIP110 fork detection data of blocks a node mines (src/chain/mining/fork-detection-window.ts through
 * src/chain/mining/consensus.ts `mergeMine`), across reverts shallow and deep: every block's hashForMergedMining ends
 * with the 12 bytes computed here from its ancestors as the node serves them (ForkDetectionDataCalculator: the last
 * byte of the Bitcoin block hash of blocks (best − best mod 64) − 64·i, the uncle count of the 32 newest, the number).
 */
import { createHash } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Node } from '../../../src/index.js'
import { rpc, startNode } from '../../helpers/node.js'

const sha256d = (b: Uint8Array) => createHash('sha256').update(createHash('sha256').update(b).digest()).digest()

let node: Node
let url: string
beforeAll(async () => {
  node = await startNode()
  url = node.url
})
afterAll(() => node?.close())

const readBlock = (n: number) => rpc(url, 'eth_getBlockByNumber', ['0x' + n.toString(16), false])
const mine = (n: number) => rpc(url, 'hardhat_mine', ['0x' + n.toString(16)])
const head = async () => Number(await rpc(url, 'eth_blockNumber'))

/** Checks blocks `from` … `to`: their hashForMergedMining ends with the fork detection data of their ancestors. */
async function check(from: number, to: number): Promise<void> {
  const last = new Map<number, number>()
  // each block read once per check (the branch does not change during it)
  const blocks = new Map<number, Promise<any>>()
  const block = (n: number) => {
    if (!blocks.has(n)) blocks.set(n, readBlock(n))
    return blocks.get(n)!
  }
  for (let n = from; n <= to; n++) {
    const best = n - 1
    const expected = Buffer.alloc(12)
    for (let i = 0; i < 7; i++) {
      const at = best - (best % 64) - 64 * i
      if (!last.has(at)) {
        const btc = Buffer.from((await block(at)).bitcoinMergedMiningHeader.slice(2), 'hex')
        last.set(at, sha256d(btc)[0]!) // the display-order hash's last byte: the double SHA-256's first
      }
      expected[i] = last.get(at)!
    }
    let uncles = 0
    for (let i = 0; i < 32; i++) uncles += (await block(best - i)).uncles.length
    expected[7] = Math.min(uncles, 255)
    expected.writeUInt32BE(n, 8)
    const b = await block(n)
    expect(b.hashForMergedMining.slice(-24), `block ${n}`).toBe(expected.toString('hex'))
  }
}

describe('fork detection data of mined blocks', () => {
  it('from block 449, and after reverts within the window and below it', async () => {
    await mine(470)
    const deep = await rpc(url, 'evm_snapshot')
    await mine(60)
    const shallow = await rpc(url, 'evm_snapshot')
    await mine(20)
    expect(await head()).toBe(550)
    await check(449, 550)
    // a revert of 20 blocks, then another branch (later timestamps, so other hashes)
    expect(await rpc(url, 'evm_revert', [shallow])).toBe(true)
    await rpc(url, 'evm_increaseTime', [1000])
    await mine(30)
    await check(531, 560)
    // a revert of 90 blocks, then another branch
    expect(await rpc(url, 'evm_revert', [deep])).toBe(true)
    await rpc(url, 'evm_increaseTime', [5000])
    await mine(100)
    await check(471, 570)
  })
})
