/**
 * State files, node-cli to node-cli: a chain with contracts, logs, value transfers and in-place changes is
 * dumped and loaded into a new node, where every read answers as before (blocks, transactions, receipts, logs,
 * raw headers, state, byte storage cells, proofs) and mining continues from the head; anvil_dumpState /
 * anvil_loadState; keystore keys are never written.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { Interface } from 'ethers'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Probe, Token } from '../../fixtures/index.js'
import { createNode, type Node } from '../../src/index.js'
import { COW, COW1, rpc, rpcError, startNode } from '../helpers/node.js'
import { deploy, sendTx } from '../rpc/shapes.js'

const dir = mkdtempSync(join(tmpdir(), 'node-cli-state-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const probe = new Interface(Probe.abi)
const token = new Interface(Token.abi)
const REMASC = '0x0000000000000000000000000000000001000008'
const FRESH = '0x1111111111111111111111111111111111111111'

/** Everything a client can read of the chain `url` serves, block by block and account by account. */
async function reads(url: string, addresses: string[], txHashes: string[], byteCells: [string, string][]) {
  const head = BigInt(await rpc(url, 'eth_blockNumber'))
  const blocks = []
  for (let n = 0n; n <= head; n++) {
    const q = '0x' + n.toString(16)
    blocks.push({
      block: await rpc(url, 'eth_getBlockByNumber', [q, true]),
      raw: await rpc(url, 'ext_getRawBlockHeaderByNumber', [q]),
    })
  }
  const accounts = []
  for (const a of addresses) {
    accounts.push({
      balance: await rpc(url, 'eth_getBalance', [a, 'latest']),
      nonce: await rpc(url, 'eth_getTransactionCount', [a, 'latest']),
      code: await rpc(url, 'eth_getCode', [a, 'latest']),
      slots: await Promise.all(
        [0, 1, 2, 5].map((s) => rpc(url, 'eth_getStorageAt', [a, '0x' + s.toString(16), 'latest'])),
      ),
      proof: await rpc(url, 'eth_getProof', [a, ['0x0', '0x5'], 'latest']),
    })
  }
  return {
    head,
    blocks,
    accounts,
    txs: await Promise.all(txHashes.map((h) => rpc(url, 'eth_getTransactionByHash', [h]))),
    receipts: await Promise.all(txHashes.map((h) => rpc(url, 'eth_getTransactionReceipt', [h]))),
    logs: await rpc(url, 'eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest' }]),
    // the Remasc byte cells (not 32-byte words): carried in node_cli.storageBytes
    byteCells: await Promise.all(byteCells.map(([a, slot]) => rpc(url, 'ext_getStorageBytesAt', [a, slot, 'latest']))),
  }
}

/** The byte cells a node's state file lists under node_cli.storageBytes, as [address, slot]. */
async function byteCellsOf(url: string): Promise<[string, string][]> {
  const hex = await rpc<string>(url, 'anvil_dumpState')
  const json = JSON.parse(gunzipSync(Buffer.from(hex.slice(2), 'hex')).toString('utf8'))
  return Object.entries(json.node_cli.storageBytes as Record<string, Record<string, string>>).flatMap(([a, cells]) =>
    Object.keys(cells).map((slot) => [a, slot] as [string, string]),
  )
}

describe('node-cli → node-cli', () => {
  let source: Node
  let addresses: string[]
  const txHashes: string[] = []
  let before: Awaited<ReturnType<typeof reads>>
  let byteCells: [string, string][]
  const file = join(dir, 'chain.json')

  beforeAll(async () => {
    source = await startNode()
    const url = source.url
    const p = await deploy(url, Probe.bytecode)
    const t = await deploy(url, Token.bytecode + token.encodeDeploy(['T', 'T', 10n ** 24n]).slice(2))
    txHashes.push(p.receipt.transactionHash, t.receipt.transactionHash)
    for (const [to, data, value] of [
      [p.address, probe.encodeFunctionData('setValue', [7n]), '0x0'],
      [p.address, probe.encodeFunctionData('emitMany', [3n]), '0x0'],
      [p.address, probe.encodeFunctionData('deposit'), '0x3e8'],
      [t.address, token.encodeFunctionData('transfer', [COW1.address, 5000n]), '0x0'],
      [FRESH, '0x', '0x5'],
    ] as const) {
      txHashes.push((await sendTx(url, { to, data, value })).transactionHash)
    }
    await rpc(url, 'anvil_mine', ['0x14']) // past Remasc maturity: payments and byte cells
    await rpc(url, 'anvil_setStorageAt', [p.address, '0x5', '0x' + 'ab'.repeat(32)])
    await rpc(url, 'anvil_setBalance', [FRESH, '0x123456789'])
    // keystore accounts: their keys must never reach a state file
    await rpc(url, 'personal_importRawKey', ['5'.repeat(64), 'pass'])
    addresses = [COW.address, COW1.address, FRESH, p.address, t.address, REMASC]
    byteCells = await byteCellsOf(url)
    before = await reads(url, addresses, txHashes, byteCells)
    await source.dumpState(file)
  }, 60_000)
  afterAll(() => source?.close())

  it('the file is Anvil-shaped JSON with the node_cli member; no keystore key in it', () => {
    const text = readFileSync(file, 'utf8')
    const json = JSON.parse(text)
    expect(Object.keys(json)).toEqual([
      'block',
      'accounts',
      'best_block_number',
      'blocks',
      'transactions',
      'historical_states',
      'node_cli',
    ])
    expect(json.accounts[FRESH]).toEqual({ nonce: 0, balance: '0x123456789', code: '0x', storage: {} })
    expect(json.node_cli).toMatchObject({ version: 1, network: 33, chainId: 33, head: '0x' + before.head.toString(16) })
    expect(json.node_cli.blocks).toHaveLength(Number(before.head))
    expect(Object.keys(json.node_cli.storageBytes)).toContain(REMASC)
    expect(text).not.toContain('5'.repeat(64))
  })

  it('a new node loads it: every read answers as before the dump', async () => {
    const loaded = await createNode({ port: 0, loadState: file })
    try {
      expect(loaded.loadedState).toMatchObject({ kind: 'chain', head: before.head })
      expect(byteCells.length).toBeGreaterThan(0)
      expect(await reads(loaded.url, addresses, txHashes, byteCells)).toEqual(before)
    } finally {
      await loaded.close()
    }
  })

  it('the loaded chain goes on: the next block follows the dumped head, transactions and calls work', async () => {
    const loaded = await createNode({ port: 0, loadState: file })
    try {
      const head = before.blocks[before.blocks.length - 1]!.block
      const receipt = await sendTx(loaded.url, { to: FRESH, value: '0x1' })
      expect(receipt.blockNumber).toBe('0x' + (before.head + 1n).toString(16))
      expect((await rpc(loaded.url, 'eth_getBlockByNumber', [receipt.blockNumber, false])).parentHash).toBe(head.hash)
      expect(await rpc(loaded.url, 'eth_getBalance', [FRESH, 'latest'])).toBe('0x12345678a')
      const call = await rpc(loaded.url, 'eth_call', [
        { to: addresses[3], data: probe.encodeFunctionData('value') },
        'latest',
      ])
      expect(BigInt(call)).toBe(7n)
    } finally {
      await loaded.close()
    }
  })

  it('anvil_dumpState answers the same file gzipped as hex; anvil_loadState merges it into a running node', async () => {
    const hex = await rpc<string>(source.url, 'anvil_dumpState')
    const json = JSON.parse(gunzipSync(Buffer.from(hex.slice(2), 'hex')).toString('utf8'))
    expect(json.node_cli.stateRoot).toBe(JSON.parse(readFileSync(file, 'utf8')).node_cli.stateRoot)
    const other = await startNode()
    try {
      expect(await rpc(other.url, 'anvil_loadState', [hex])).toBe(true)
      expect(await rpc(other.url, 'eth_getBalance', [FRESH, 'latest'])).toBe('0x123456789')
      expect(await rpc(other.url, 'eth_getCode', [addresses[3], 'latest'])).toBe(Probe.deployedBytecode)
      expect(await rpc(other.url, 'eth_getStorageAt', [addresses[3], '0x5', 'latest'])).toBe('0x' + 'ab'.repeat(32))
      // merged as an in-place change: no block is mined, the blocks are not taken over
      expect(await rpc(other.url, 'eth_blockNumber')).toBe('0x0')
      // plain JSON (not gzipped) is accepted too
      const plain =
        '0x' +
        Buffer.from(
          JSON.stringify({ accounts: { [COW1.address]: { nonce: 3, balance: '0x10', code: '0x', storage: {} } } }),
        ).toString('hex')
      expect(await rpc(other.url, 'anvil_loadState', [plain])).toBe(true)
      expect(await rpc(other.url, 'eth_getTransactionCount', [COW1.address, 'latest'])).toBe('0x3')
    } finally {
      await other.close()
    }
  })

  it('storage cells longer than 32 bytes and raw entries go through node_cli.storageBytes / rawEntries', async () => {
    const node = await startNode()
    try {
      const slot = '0x' + '00'.repeat(31) + '07'
      const long = '0x' + 'cd'.repeat(40)
      const state = { accounts: {}, node_cli: { storageBytes: { [FRESH]: { [slot]: long } } } }
      expect(await rpc(node.url, 'anvil_loadState', ['0x' + Buffer.from(JSON.stringify(state)).toString('hex')])).toBe(
        true,
      )
      expect(await rpc(node.url, 'ext_getStorageBytesAt', [FRESH, slot, 'latest'])).toBe(long)
      const file = join(dir, 'long.json')
      await node.dumpState(file)
      const json = JSON.parse(readFileSync(file, 'utf8'))
      expect(json.node_cli.storageBytes[FRESH]).toEqual({ [slot]: long })
      const loaded = await createNode({ port: 0, loadState: file })
      try {
        expect(await rpc(loaded.url, 'ext_getStorageBytesAt', [FRESH, slot, 'latest'])).toBe(long)
      } finally {
        await loaded.close()
      }
    } finally {
      await node.close()
    }
  })

  it('anvil_loadState of something that is not a state: -32602 naming the problem, nothing changed', async () => {
    const node = await startNode()
    try {
      const liveRoot = async () =>
        JSON.parse(gunzipSync(Buffer.from((await rpc<string>(node.url, 'anvil_dumpState')).slice(2), 'hex')).toString())
          .node_cli.stateRoot
      const root = await liveRoot()
      const cases: [string, RegExp][] = [
        ['0x' + Buffer.from('{"accounts": {').toString('hex'), /is not a valid state file/],
        ['0x' + Buffer.from('{"blocks": []}').toString('hex'), /has no "accounts"/],
        [
          '0x' + Buffer.from(`{"accounts": {"${FRESH}": {"balance": "lots"}}}`).toString('hex'),
          new RegExp(`account ${FRESH}: balance: expected a non-negative integer`),
        ],
        ['0x' + Buffer.from('{"accounts": {"0x12": {}}}').toString('hex'), /"0x12" is not an address/],
      ]
      for (const [data, message] of cases) {
        const e = await rpcError(node.url, 'anvil_loadState', [data])
        expect(e.code).toBe(-32602)
        expect(e.message).toMatch(message)
      }
      expect((await rpcError(node.url, 'anvil_loadState', ['nothex'])).code).toBe(-32602)
      expect(await rpc(node.url, 'eth_getBalance', [FRESH, 'latest'])).toBe('0x0')
      expect(await liveRoot()).toBe(root)
    } finally {
      await node.close()
    }
  })
})
