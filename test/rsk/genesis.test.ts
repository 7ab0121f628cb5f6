import { describe, it, expect } from 'vitest'
import { readFileSync } from 'node:fs'
import { bytesToHex, hexToBytes } from '@ethereumjs/util'
import { EMPTY_LIST_HASH, EMPTY_TRIE_HASH } from '../../src/crypto/keccak.js'
import {
  CONSENSUS_PRECOMPILE_ADDRESSES,
  GENESIS_PRECOMPILE_ADDRESSES,
  genesisHeader,
  genesisStateTrie,
  parseGenesisAlloc,
} from '../../src/rsk/genesis-state.js'
import { accountKey, decodeAccountState, storagePrefixKey } from '../../src/rsk/trie-keys.js'
import {
  encodeBlock,
  encodedForHash,
  fullEncodedHeader,
  headerHash,
  rawHeader,
  type RskHeader,
} from '../../src/rsk/header.js'
import { hashForMergedMining } from '../../src/rsk/merged-mining/merged-mining-hash.js'

const devJson = JSON.parse(readFileSync(new URL('../../src/rsk/genesis/rsk-dev.json', import.meta.url), 'utf8')) as {
  alloc: Record<string, { balance: string }>
}

function regtestGenesisHeader(stateRoot: Uint8Array): RskHeader {
  return {
    parentHash: new Uint8Array(32),
    unclesHash: EMPTY_LIST_HASH,
    coinbase: hexToBytes('0x3333333333333333333333333333333333333333'),
    stateRoot,
    txTrieRoot: EMPTY_TRIE_HASH,
    receiptTrieRoot: EMPTY_TRIE_HASH,
    logsBloom: new Uint8Array(256),
    difficulty: hexToBytes('0x0000000001'), // kept as the JSON bytes (GenesisHeader)
    number: 0n,
    gasLimit: hexToBytes('0x989680'), // leading zeros stripped
    gasUsed: 0n,
    timestamp: 0n,
    extraData: hexToBytes('0x686f727365'),
    paidFees: 0n,
    minimumGasPrice: 0n,
    uncleCount: 0,
    ummRoot: null, // RSKIPUMM activates at 1 on regtest
    version: 0,
    edges: null,
    baseEvent: null,
    bitcoinMergedMiningHeader: hexToBytes('0x00'),
    bitcoinMergedMiningMerkleProof: hexToBytes('0x00'),
    bitcoinMergedMiningCoinbaseTransaction: hexToBytes('0x00'),
  }
}

describe('regtest genesis state', () => {
  const trie = genesisStateTrie(parseGenesisAlloc(devJson), 33)

  it('stateRoot matches the reference node (rskj 9.0.x / master)', () => {
    expect(bytesToHex(trie.hash())).toBe('0x9c13f6bf26a9d1b13b708b5da083cb8f4e948bb7f903174081ad95810d52723f')
  })

  it('accepts a plain address → balance map', () => {
    const m = new Map<string, bigint>()
    for (const [k, v] of Object.entries(devJson.alloc)) m.set(k, BigInt(v.balance))
    expect(bytesToHex(genesisStateTrie(m, 33).hash())).toBe(bytesToHex(trie.hash()))
  })

  it('has the funded accounts, the bridge balance and every precompile with its storage marker', () => {
    const bridge = hexToBytes('0x0000000000000000000000000000000001000006')
    expect(decodeAccountState(trie.get(accountKey(bridge))!)).toEqual({
      nonce: 0n,
      balance: 21000000000000000000000000n,
    })
    const cow = hexToBytes('0xcd2a3d9f938e13cd947ec05abc7fe734df8dd826')
    expect(decodeAccountState(trie.get(accountKey(cow))!)).toEqual({ nonce: 0n, balance: 10n ** 30n })
    expect(trie.get(storagePrefixKey(cow))).toBeUndefined()
    const pccs = [...GENESIS_PRECOMPILE_ADDRESSES, ...CONSENSUS_PRECOMPILE_ADDRESSES.map(([a]) => a)]
    expect(pccs.length).toBe(16)
    for (const a of pccs) {
      expect(trie.get(accountKey(a))).toBeDefined()
      expect(bytesToHex(trie.get(storagePrefixKey(a))!)).toBe('0x01')
    }
    const ecrecover = hexToBytes('0x0000000000000000000000000000000000000001')
    expect(bytesToHex(trie.get(accountKey(ecrecover))!)).toBe('0xc28000')
    // 11 alloc accounts + 15 new precompile accounts (bridge is in both) + 16 markers
    expect([...trie.entries()].length).toBe(11 + 15 + 16)
  })

  it('mainnet (no RSKIP126 at 0) gets only the alloc; testnet gets the wasabi precompiles', () => {
    const t = genesisStateTrie(parseGenesisAlloc(devJson), 30)
    expect([...t.entries()].length).toBe(11)
    const tn = genesisStateTrie(parseGenesisAlloc(devJson), 31)
    // + 6 new genesis precompile accounts (bridge exists) + HDWalletUtils + BlockHeader, 9 markers
    expect([...tn.entries()].length).toBe(11 + 6 + 2 + 9)
  })
})

describe('regtest genesis block', () => {
  const stateRoot = genesisStateTrie(parseGenesisAlloc(devJson), 33).hash()
  const h = regtestGenesisHeader(stateRoot)

  it('hash = 0x8ea789fa…68fe over a 471-byte RSKIP92 preimage', () => {
    expect(encodedForHash(h).length).toBe(471)
    expect(bytesToHex(headerHash(h))).toBe('0x8ea789fabef0dd4946ed53f001e7b6f8a8d0c22a612a6099fc7f93c990af68fe')
  })

  it('block RLP is 0x1de (478) bytes', () => {
    expect(encodeBlock(h, [], []).length).toBe(0x1de)
    expect(fullEncodedHeader(h).length).toBe(473)
  })

  it('hashForMergedMining = 0x4fa9456f…d8e1', () => {
    const hfmm = bytesToHex(hashForMergedMining(h))
    expect(hfmm.startsWith('0x4fa9456f')).toBe(true)
    expect(hfmm.endsWith('d8e1')).toBe(true)
  })

  it('for V0 the raw header equals the hash preimage', () => {
    expect(rawHeader(h)).toEqual(encodedForHash(h))
  })
})

describe('genesisHeader()', () => {
  function fromJson(file: string, network: 30 | 31 | 33) {
    const g = JSON.parse(readFileSync(new URL(`../../src/rsk/genesis/${file}`, import.meta.url), 'utf8')) as Record<
      string,
      string
    > & {
      alloc: Record<string, { balance: string }>
    }
    const stateRoot = g['stateRoot']
      ? hexToBytes(g['stateRoot'] as `0x${string}`)
      : genesisStateTrie(parseGenesisAlloc(g), network).hash()
    return genesisHeader(
      {
        stateRoot,
        coinbase: hexToBytes(g['coinbase'] as `0x${string}`),
        extraData: hexToBytes(g['extraData'] as `0x${string}`),
        gasLimit: BigInt(g['gasLimit']!),
        difficultyBytes: hexToBytes(g['difficulty'] as `0x${string}`),
        timestamp: BigInt(g['timestamp']!),
        minimumGasPrice: BigInt(g['minimumGasPrice']!),
      },
      network,
    )
  }

  it('regtest: 0x8ea789fa…68fe', () => {
    expect(bytesToHex(headerHash(fromJson('rsk-dev.json', 33)))).toBe(
      '0x8ea789fabef0dd4946ed53f001e7b6f8a8d0c22a612a6099fc7f93c990af68fe',
    )
  })

  it('mainnet genesis hash starts f88529d4 (pre-RSKIP92: proof and coinbase hashed)', () => {
    expect(bytesToHex(headerHash(fromJson('rsk-mainnet.json', 30))).startsWith('0xf88529d4')).toBe(true)
  })

  it('testnet genesis hash starts cabb7fbe', () => {
    expect(bytesToHex(headerHash(fromJson('orchid-testnet.json', 31))).startsWith('0xcabb7fbe')).toBe(true)
  })
})
