/**
 * The running node's first blocks against the reference regtest vectors (docs/reference-rules.md#rule-regtest-genesis,
 * docs/reference-rules.md#rule-block-hash, docs/reference-rules.md#rule-unitrie-tx-receipt-tries):
 * block 0 (hash 0x8ea789fa…68fe, stateRoot 0x9c13f6bf…723f) and an empty block 1 — whose stateRoot
 * 0xf276a3a8…272c, transactionsRoot 0x8c9664a3…7952 and receiptsRoot 0x66cfdb73…b0f6 are those of a real
 * regtest block 1 (third-party Go port vectors "verified against the actual RSK Java implementation"; the
 * Remasc transaction, its sender's nonce and the Remasc "siblings" storage make up the difference from the
 * genesis state), and whose hashForMergedMining preimage equals the real V2 block 1's once the
 * timestamp and extraData are the same (hash 0x90299cad…3b63).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RLP } from '@ethereumjs/rlp'
import { keccak256 } from '../../src/crypto/secp256k1.js'
import type { Node } from '../../src/index.js'
import { rpc, startNode } from '../helpers/node.js'

const GENESIS_HASH = '0x8ea789fabef0dd4946ed53f001e7b6f8a8d0c22a612a6099fc7f93c990af68fe'
const GENESIS_STATE_ROOT = '0x9c13f6bf26a9d1b13b708b5da083cb8f4e948bb7f903174081ad95810d52723f'
/** A real regtest block 1 (reference V2, 9.x): timestamp, extraData, and its hash without merged-mining fields. */
const REF_BLOCK1_TIMESTAMP = 0x69824213
const REF_BLOCK1_EXTRA = '0xd40192534e415053484f542d343031373966623937' // RLP[0x01, "SNAPSHOT-40179fb97"]
const REF_BLOCK1_HASH_WITHOUT_MM = '0x90299cad077d0759beee6c9625be98114874d9ae65ede6979752a97112043b63'

const hex = (b: Uint8Array) => '0x' + Buffer.from(b).toString('hex')
const bytes = (h: string) => Uint8Array.from(Buffer.from(h.slice(2), 'hex'))

let node: Node
let url: string
beforeAll(async () => {
  node = await startNode({ clock: () => REF_BLOCK1_TIMESTAMP * 1000 })
  url = node.url
  expect(await rpc(url, 'evm_mine')).toBeNull()
})
afterAll(() => node?.close())

describe('block 0 of a node (createNode, network 33)', () => {
  it('has the reference hash and stateRoot', async () => {
    const g = await rpc(url, 'eth_getBlockByNumber', ['0x0', false])
    expect(g.hash).toBe(GENESIS_HASH)
    expect(g.stateRoot).toBe(GENESIS_STATE_ROOT)
    expect(g.transactions).toEqual([])
    expect(g.size).toBe('0x1de')
  })
})

describe('an empty block 1', () => {
  it('has the real regtest block 1 roots (Remasc transaction, receipt and state effects)', async () => {
    const b1 = await rpc(url, 'eth_getBlockByNumber', ['0x1', false])
    expect(b1.parentHash).toBe(GENESIS_HASH)
    expect(b1.stateRoot).toBe('0xf276a3a8c9c4eb4dcbbfb9bf6965f36dc611b815614c0d7cd06e15b8890c272c')
    expect(b1.transactionsRoot).toBe('0x8c9664a30670ddc67aa13992fdd8751b7b797bbe172506ffd5cda10ebbf97952')
    expect(b1.receiptsRoot).toBe('0x66cfdb731f620cd96e2c2cb0f7d3c3a2879c29b40014aa27efbbf3cf9cd3b0f6')
    expect(b1.transactions).toHaveLength(1) // the Remasc transaction
    expect(b1.gasLimit).toBe('0x98705b') // 10 000 000 − 10 000 000/1024 toward 7 500 000
  })

  // The node behind the vector ran with targetgaslimit 10 000 000 (its block 1 keeps the genesis 10 M), while a
  // default regtest node steps toward 7 500 000 (docs/reference-rules.md#rule-derived-header-values); that field is substituted like extraData.
  it('with the reference timestamp, extraData and gasLimit, its merged-mining preimage hashes to the real block 1', async () => {
    const raw = bytes(await rpc<string>(url, 'ext_getRawBlockHeaderByNumber', ['0x1']))
    const f = RLP.decode(raw) as Uint8Array[]
    expect(Number(BigInt(hex(f[11]!)))).toBe(REF_BLOCK1_TIMESTAMP)
    // hashForMergedMining preimage = compressed header without merged-mining fields (block < 449: no fork data)
    const [bloom, version, edges, baseEvent] = [f[6]!, f[17]!, f[18]!, f[19]!]
    expect(hex(version)).toBe('0x02')
    const extHash = keccak256(RLP.encode([keccak256(bloom), baseEvent, edges]))
    const gasLimit10M = bytes('0x00989680')
    const preimage = RLP.encode([
      ...f.slice(0, 6),
      RLP.encode([version, extHash]),
      ...f.slice(7, 9),
      gasLimit10M,
      ...f.slice(10, 12),
      bytes(REF_BLOCK1_EXTRA),
      ...f.slice(13, 17),
    ])
    expect(hex(keccak256(preimage))).toBe(REF_BLOCK1_HASH_WITHOUT_MM)
  })
})
