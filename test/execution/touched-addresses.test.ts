/**
 * The addresses each mined transaction touched (src/execution/touched-addresses.ts), read back from a real node's
 * address index after mining (AddressIndex.blockRecords, in the block's transaction order, Remasc last) and compared
 * with the frames `ots_traceTransaction` reports for the same transaction — an independent re-execution — on
 * the OtsProbe fixtures (nested CALL, STATICCALL, DELEGATECALL, CREATE, CREATE2, SELFDESTRUCT, reverts) and an
 * ERC-20: every frame's from/to is listed, anything else is a precompile the trace leaves out; a reverted
 * transaction keeps its sender, recipient and inner frames; creator pairs name the direct creator (the factory)
 * and leave out what a failed frame created; eth_call and pending previews collect nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AbiCoder, getCreate2Address, getCreateAddress, Interface, keccak256 } from 'ethers'
import type { Node } from '../../src/index.js'
import type { IndexedTx } from '../../src/blocks/address-index.js'
import { OtsChild, OtsProbe, OtsTarget, Token } from '../../fixtures/index.js'
import { COW, COW1, internals, rpc, startNode } from '../helpers/node.js'
import { deploy, q, sendMined, sendTx } from '../rpc/shapes.js'

const probe = new Interface(OtsProbe.abi)
const token = new Interface(Token.abi)
const REMASC = '0x0000000000000000000000000000000001000008'
const ZERO = '0x' + '00'.repeat(20)
const hex = (a: Uint8Array): string => '0x' + Buffer.from(a).toString('hex')
const lower = (a: string): string => a.toLowerCase()
/** Precompiles and native contracts: the frames ots_traceTransaction may leave out (0x…01 to 0x…01ffffff). */
const isPrecompile = (a: string): boolean => /^0x0{32}0[01][0-9a-f]{6}$/.test(a)

let node: Node
let url: string
let probeAddr: string
let targetAddr: string

/** The mined block of `hash`'s collected addresses: [the transaction's, Remasc's] (one transaction per block). */
async function addressesOf(hash: string): Promise<{ tx: IndexedTx; remasc: IndexedTx; block: any }> {
  const receipt = await rpc(url, 'eth_getTransactionReceipt', [hash])
  const records = (await internals(node).chain.addressIndex()).blockRecords()
  const txs = records.get(Number(receipt.blockNumber))!
  const block = await rpc(url, 'eth_getBlockByNumber', [receipt.blockNumber, false])
  expect(txs).toHaveLength(block.transactions.length)
  const i = block.transactions.indexOf(hash)
  expect(i).toBeGreaterThanOrEqual(0)
  return { tx: txs[i]!, remasc: txs[txs.length - 1]!, block }
}

/** The touched set as lower-case hex, each once (checks that no address is listed twice). */
function touchedSet(a: IndexedTx): Set<string> {
  const list = a.touched.map(hex)
  const set = new Set(list)
  expect(set.size).toBe(list.length)
  for (const x of list) expect(x).toMatch(/^0x[0-9a-f]{40}$/)
  return set
}

/** Compares a transaction's touched set with the from/to of its ots_traceTransaction entries. */
async function expectMatchesTrace(hash: string): Promise<Set<string>> {
  const { tx } = await addressesOf(hash)
  const touched = touchedSet(tx)
  const entries: { from: string; to: string }[] = await rpc(url, 'ots_traceTransaction', [hash])
  const traced = new Set(entries.flatMap((e) => [lower(e.from), lower(e.to)]))
  for (const a of traced) expect(touched, `${a} of the trace`).toContain(a)
  for (const a of touched) if (!traced.has(a)) expect(isPrecompile(a), `${a} touched, not traced`).toBe(true)
  return touched
}

const pairs = (a: IndexedTx): [string, string][] => (a.created ?? []).map((c) => [hex(c.address), hex(c.creator)])

beforeAll(async () => {
  node = await startNode()
  url = node.url
  ;({ address: probeAddr } = await deploy(url, OtsProbe.bytecode))
  ;({ address: targetAddr } = await deploy(url, OtsTarget.bytecode))
})
afterAll(() => node?.close())

describe('touched addresses of mined transactions', () => {
  it('a plain transfer: exactly the sender and the recipient, nothing created', async () => {
    const r = await sendTx(url, { to: COW1.address, value: q(1234) })
    const { tx } = await addressesOf(r.transactionHash)
    expect(tx.touched.map(hex)).toEqual([lower(COW.address), lower(COW1.address)])
    expect(tx.created).toEqual([])
    await expectMatchesTrace(r.transactionHash)
  })

  it('a deployment: the sender and the new contract, created by the sender', async () => {
    const { address, receipt } = await deploy(url, OtsChild.bytecode)
    const { tx } = await addressesOf(receipt.transactionHash)
    expect(tx.touched.map(hex)).toEqual([lower(COW.address), lower(address)])
    expect(pairs(tx)).toEqual([[lower(address), lower(COW.address)]])
  })

  it('an ERC-20 deployment and transfer: the sender and the token (the recipient is only in the calldata)', async () => {
    const args = AbiCoder.defaultAbiCoder().encode(['string', 'string', 'uint256'], ['T', 'T', 10n ** 24n])
    const { address } = await deploy(url, Token.bytecode + args.slice(2))
    const r = await sendTx(url, { to: address, data: token.encodeFunctionData('transfer', [COW1.address, 5n]) })
    expect(r.status).toBe('0x1')
    const touched = await expectMatchesTrace(r.transactionHash)
    expect([...touched]).toEqual([lower(COW.address), lower(address)])
  })

  it('nested CALL, STATICCALL and DELEGATECALL: every frame’s from and to', async () => {
    const r = await sendTx(url, {
      to: probeAddr,
      value: q(100),
      data: probe.encodeFunctionData('nested', [targetAddr]),
    })
    expect(r.status).toBe('0x1')
    const touched = await expectMatchesTrace(r.transactionHash)
    expect([...touched].sort()).toEqual([lower(COW.address), lower(probeAddr), lower(targetAddr)].sort())
  })

  it('CREATE and CREATE2 from a factory: both listed, each created by the factory', async () => {
    const salt = 501n
    const nonce = Number(await rpc(url, 'eth_getTransactionCount', [probeAddr, 'latest']))
    const r = await sendTx(url, { to: probeAddr, value: q(3), data: probe.encodeFunctionData('create', [salt]) })
    expect(r.status).toBe('0x1')
    const a = lower(getCreateAddress({ from: probeAddr, nonce }))
    const b = lower(
      getCreate2Address(probeAddr, '0x' + salt.toString(16).padStart(64, '0'), keccak256(OtsChild.bytecode)),
    )
    const touched = await expectMatchesTrace(r.transactionHash)
    expect(touched).toContain(a)
    expect(touched).toContain(b)
    const { tx } = await addressesOf(r.transactionHash)
    expect(pairs(tx)).toEqual([
      [a, lower(probeAddr)],
      [b, lower(probeAddr)],
    ])
  })

  it('SELFDESTRUCT: the destroyed contract and the beneficiary', async () => {
    const nonce = Number(await rpc(url, 'eth_getTransactionCount', [probeAddr, 'latest']))
    const c = lower(getCreateAddress({ from: probeAddr, nonce }))
    const beneficiary = '0x00000000000000000000000000000000000c0c0c'
    const r = await sendTx(url, {
      to: probeAddr,
      value: q(9),
      data: probe.encodeFunctionData('destroy', [beneficiary]),
    })
    expect(r.status).toBe('0x1')
    const touched = await expectMatchesTrace(r.transactionHash)
    expect([...touched].sort()).toEqual([lower(COW.address), lower(probeAddr), c, beneficiary].sort())
    const { tx } = await addressesOf(r.transactionHash)
    expect(pairs(tx)).toEqual([[c, lower(probeAddr)]])
  })

  it('a precompile and a native contract called from a contract are listed', async () => {
    const r = await sendTx(url, { to: probeAddr, data: probe.encodeFunctionData('precompiles') })
    const touched = await expectMatchesTrace(r.transactionHash)
    expect(touched).toContain('0x' + '00'.repeat(19) + '02')
    expect(touched).toContain('0x0000000000000000000000000000000001000011')
  })

  it('a reverted transaction: its sender and recipient', async () => {
    const hash = await sendMined(url, { to: probeAddr, data: probe.encodeFunctionData('fail') })
    expect((await rpc(url, 'eth_getTransactionReceipt', [hash])).status).toBe('0x0')
    const { tx } = await addressesOf(hash)
    expect(tx.touched.map(hex)).toEqual([lower(COW.address), lower(probeAddr)])
    expect(tx.created).toEqual([])
    await expectMatchesTrace(hash)
  })

  it('a reverted transaction keeps its inner frames, and what it created is not a created contract', async () => {
    // create(salt) again with a used salt: the CREATE succeeds, the CREATE2 collides, the whole call reverts
    const salt = 502n
    expect(
      (await sendTx(url, { to: probeAddr, value: q(3), data: probe.encodeFunctionData('create', [salt]) })).status,
    ).toBe('0x1')
    const nonce = Number(await rpc(url, 'eth_getTransactionCount', [probeAddr, 'latest']))
    const hash = await sendMined(url, { to: probeAddr, value: q(3), data: probe.encodeFunctionData('create', [salt]) })
    expect((await rpc(url, 'eth_getTransactionReceipt', [hash])).status).toBe('0x0')
    const a = lower(getCreateAddress({ from: probeAddr, nonce }))
    expect(await rpc(url, 'eth_getCode', [a, 'latest'])).toBe('0x')
    const touched = await expectMatchesTrace(hash)
    expect(touched).toContain(a)
    expect(touched.size).toBe(4) // the sender, the factory, the undone CREATE and the colliding CREATE2
    const { tx } = await addressesOf(hash)
    expect(tx.created).toEqual([])
  })

  it('the Remasc transaction: the zero sender and the Remasc contract first', async () => {
    const r = await sendTx(url, { to: COW1.address, value: q(1) })
    const { remasc, block } = await addressesOf(r.transactionHash)
    const list = touchedSet(remasc)
    expect([...list].slice(0, 2)).toEqual([ZERO, REMASC])
    expect(remasc.created).toEqual([])
    const remascTx = await rpc(url, 'eth_getTransactionByHash', [block.transactions[block.transactions.length - 1]])
    expect([lower(remascTx.from), lower(remascTx.to)]).toEqual([ZERO, REMASC])
  })

  it('eth_call, eth_estimateGas and the pending preview collect nothing', async () => {
    const r = await sendTx(url, { to: COW1.address, value: q(2) })
    const index = await internals(node).chain.addressIndex()
    expect(index.lastBlock).toBe(Number(r.blockNumber))
    const before = index.size
    const data = probe.encodeFunctionData('nested', [targetAddr])
    await rpc(url, 'eth_call', [{ from: COW.address, to: probeAddr, value: q(100), data }, 'latest'])
    await rpc(url, 'eth_estimateGas', [{ from: COW.address, to: probeAddr, value: q(100), data }])
    await rpc(url, 'evm_setAutomine', [false])
    try {
      await rpc(url, 'eth_sendTransaction', [{ from: COW.address, to: probeAddr, value: q(100), data }])
      await rpc(url, 'eth_getBlockByNumber', ['pending', false])
      expect(index.size).toBe(before)
      expect(index.lastBlock).toBe(Number(r.blockNumber))
      await rpc(url, 'evm_mine')
    } finally {
      await rpc(url, 'evm_setAutomine', [true])
    }
    expect(index.size).toBeGreaterThan(before)
    expect(index.lastBlock).toBe(Number(r.blockNumber) + 1)
  })
})
