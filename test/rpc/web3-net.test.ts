/**
 * web3_*, net_* and the node-information eth_* methods over real HTTP (spec §4 "Node and network information";
 * docs/reference-rules.md#rule-node-info, docs/reference-rules.md#rule-dev-accounts, docs/reference-rules.md#rule-network-ids).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { keccak256, toUtf8Bytes, hexlify } from 'ethers'
import type { Node } from '../../src/index.js'
import { rpc, rpcError, rpcRaw, startNode } from '../helpers/node.js'
import { MINER } from './shapes.js'

let node: Node
let url: string

beforeAll(async () => {
  node = await startNode()
  url = node.url
})
afterAll(() => node?.close())

/** Cow accounts of rsk-dev.json in eth_accounts order (docs/reference-rules.md#rule-dev-accounts). */
const COW_ADDRESSES = [
  '0xcd2a3d9f938e13cd947ec05abc7fe734df8dd826',
  '0x7986b3df570230288501eea3d890bd66948c9b79',
  '0x0a3aa774752ec2042c46548456c094a76c7f3a79',
  '0xcf7cdbbb5f7ba79d3ffe74a0bba13fc0295f6036',
  '0x39b12c05e8503356e3a7df0b7b33efa4c054c409',
  '0xc354d97642faa06781b76ffb6786f72cd7746c97',
  '0xdebe71e1de41fc77c44df4b6db940026e31b0e71',
  '0x7857288e171c6159c5576d1bd9ac40c0c48a771c',
  '0xa4dea4d5c954f5fd9e87f0e9752911e83a3d18b3',
  '0x09a1eda29f664ac8f68106f6567276df0c65d859',
]

/** Methods that take no parameters and what they answer on a fresh regtest node. */
const NO_PARAM_RESULTS: [string, unknown][] = [
  ['net_version', '33'],
  ['net_listening', true],
  ['net_peerCount', '0x0'],
  ['eth_chainId', '0x21'],
  ['eth_protocolVersion', '0x3e'],
  ['eth_syncing', false],
  ['eth_coinbase', MINER],
  ['eth_mining', true],
  ['eth_hashrate', '0x0'],
  ['eth_gasPrice', '0x0'],
  ['eth_blockNumber', '0x0'],
]

describe('web3_clientVersion', () => {
  it('answers a non-empty client version string naming this node', async () => {
    const v = await rpc<string>(url, 'web3_clientVersion')
    expect(typeof v).toBe('string')
    expect(v).toMatch(/^node-cli\/v\d+\.\d+\.\d+/)
    expect(v).toContain(`Node${process.versions.node.split('.')[0]}`)
  })

  it('rejects parameters (-32602, HTTP 400)', async () => {
    const e = await rpcError(url, 'web3_clientVersion', ['extra'])
    expect(e.code).toBe(-32602)
    expect(e.status).toBe(400)
  })
})

describe('web3_sha3', () => {
  it('hashes DATA with Keccak-256 (not SHA3-256)', async () => {
    const data = hexlify(toUtf8Bytes('hello'))
    expect(await rpc(url, 'web3_sha3', [data])).toBe(
      '0x1c8aff950685c2ed4bc3174f3472287b56d9517b9c948127319a09a7a36deac8',
    )
    expect(await rpc(url, 'web3_sha3', [data])).toBe(keccak256(data))
  })

  it('hashes empty data', async () => {
    expect(await rpc(url, 'web3_sha3', ['0x'])).toBe(
      '0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470',
    )
  })

  it('accepts upper-case hex digits', async () => {
    expect(await rpc(url, 'web3_sha3', ['0xDEADBEEF'])).toBe(keccak256('0xdeadbeef'))
  })

  it.each([
    ['a plain string', ['hello']],
    ['hex without 0x', ['68656c6c6f']],
    ['odd-length hex', ['0x123']],
    ['non-hex characters', ['0xzz']],
    ['a number', [42]],
    ['no argument', []],
    ['two arguments', ['0x00', '0x00']],
  ])('rejects %s with -32602 and HTTP 400', async (_what, params) => {
    const e = await rpcError(url, 'web3_sha3', params)
    expect(e.code).toBe(-32602)
    expect(e.status).toBe(400)
  })
})

describe('parameterless methods', () => {
  it.each(NO_PARAM_RESULTS)('%s answers %j', async (method, expected) => {
    const { status, body } = await rpcRaw(url, method, [])
    expect(status).toBe(200)
    expect(body.jsonrpc).toBe('2.0')
    expect(body.error).toBeUndefined()
    expect(body.result).toEqual(expected)
  })

  it.each(NO_PARAM_RESULTS.map(([m]) => m))('%s with an extra parameter is -32602 (HTTP 400)', async (method) => {
    const e = await rpcError(url, method, ['0x1'])
    expect(e.code).toBe(-32602)
    expect(e.status).toBe(400)
  })

  it('net_version is a decimal string and eth_chainId the same id in hex', async () => {
    const version = await rpc<string>(url, 'net_version')
    const chainId = await rpc<string>(url, 'eth_chainId')
    expect(version).toMatch(/^\d+$/)
    expect(BigInt(chainId)).toBe(BigInt(version))
    expect(node.chainId).toBe(33)
  })

  it('params may be omitted altogether', async () => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'eth_chainId' }),
    })
    expect(await res.json()).toEqual({ jsonrpc: '2.0', id: 7, result: '0x21' })
  })
})

describe('eth_accounts', () => {
  it('lists the ten cow accounts in order, then the miner account', async () => {
    const accounts = await rpc<string[]>(url, 'eth_accounts')
    expect(accounts).toEqual([...COW_ADDRESSES, MINER])
  })

  it('matches the node handle and every listed dev account is funded with 1e30 wei', async () => {
    expect(node.accounts.map((a) => a.address)).toEqual(COW_ADDRESSES)
    for (const a of COW_ADDRESSES) {
      expect(await rpc(url, 'eth_getBalance', [a, 'latest'])).toBe('0xc9f2c9cd04674edea40000000')
    }
  })
})
