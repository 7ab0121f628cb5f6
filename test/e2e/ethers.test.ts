/**
 * End-to-end: ethers v6 against a real node over HTTP and WebSocket (deploy, calls, transfers, events,
 * revert decoding, the node's unlocked accounts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  Contract,
  ContractFactory,
  JsonRpcProvider,
  Network,
  Wallet,
  WebSocketProvider,
  ZeroAddress,
  isCallException,
  isError,
  parseEther,
  type ContractTransactionReceipt,
  type ContractTransactionResponse,
  type EventLog,
  type JsonRpcSigner,
} from 'ethers'
import { Token } from '../../fixtures/index.js'
import type { Node } from '../../src/index.js'
import { COW, COW1, startNode } from '../helpers/node.js'

const SUPPLY = 1_000_000n * 10n ** 18n
const network = () => Network.from({ chainId: 33, name: 'rsk-regtest' })

/** Every request the node saw, with the error code it answered (for "methods we don't have"). */
const seen: { method: string; code?: number }[] = []

let node: Node
let provider: JsonRpcProvider
let wallet: Wallet
let token: Contract
let tokenAddress: string
let deployReceipt: ContractTransactionReceipt

beforeAll(async () => {
  node = await startNode({ onRequest: (method, _ms, error) => seen.push({ method, code: error?.code }) })
  provider = new JsonRpcProvider(node.url, network(), {
    staticNetwork: network(),
    pollingInterval: 50,
    cacheTimeout: -1,
  })
  wallet = new Wallet(COW.privateKey, provider)
  const factory = new ContractFactory(Token.abi, Token.bytecode, wallet)
  const deployed = await factory.deploy('Test Token', 'TT', SUPPLY)
  await deployed.waitForDeployment()
  tokenAddress = await deployed.getAddress()
  deployReceipt = (await deployed.deploymentTransaction()!.wait())!
  token = new Contract(tokenAddress, Token.abi, wallet)
})

afterAll(async () => {
  provider?.destroy()
  await node?.close()
})

/** Runs `fn`, which must reject, and returns the error. */
async function rejection(fn: () => Promise<unknown>): Promise<any> {
  try {
    await fn()
  } catch (err) {
    return err
  }
  throw new Error('expected a rejection')
}

describe('ethers JsonRpcProvider + Wallet', () => {
  it('sees the network and the dev account', async () => {
    expect((await provider.getNetwork()).chainId).toBe(33n)
    expect(await provider.send('eth_chainId', [])).toBe('0x21')
    expect(wallet.address.toLowerCase()).toBe(COW.address)
    expect(await provider.getBalance(COW1.address)).toBeGreaterThan(0n)
  })

  it('deploys Token with ContractFactory', async () => {
    expect(deployReceipt.status).toBe(1)
    expect(deployReceipt.contractAddress?.toLowerCase()).toBe(tokenAddress.toLowerCase())
    expect(await provider.getCode(tokenAddress)).toBe(Token.deployedBytecode)
    const mint = deployReceipt.logs.map((l) => token.interface.parseLog(l)).find((l) => l?.name === 'Transfer')
    expect(mint?.args.toArray()).toEqual([ZeroAddress, wallet.address, SUPPLY])
  })

  it('reads name, symbol, decimals, totalSupply, balanceOf', async () => {
    expect(await token.name!()).toBe('Test Token')
    expect(await token.symbol!()).toBe('TT')
    expect(await token.decimals!()).toBe(18n)
    expect(await token.totalSupply!()).toBe(SUPPLY)
    expect(await token.balanceOf!(wallet.address)).toBe(SUPPLY)
  })

  it('transfers and parses the Transfer event from the receipt', async () => {
    const nonce = await provider.getTransactionCount(wallet.address)
    const tx = (await token.transfer!(COW1.address, 1234n)) as ContractTransactionResponse
    expect(tx.nonce).toBe(nonce)
    expect(tx.type).toBe(0)
    const receipt = (await tx.wait())!
    expect(receipt.status).toBe(1)
    expect(receipt.hash).toBe(tx.hash)
    const ev = receipt.logs.find((l): l is EventLog => 'eventName' in l && l.eventName === 'Transfer')!
    expect(ev).toBeDefined()
    expect(ev.args.from).toBe(wallet.address)
    expect(ev.args.to.toLowerCase()).toBe(COW1.address)
    expect(ev.args.value).toBe(1234n)
    expect(await token.balanceOf!(COW1.address)).toBe(1234n)
    expect(await provider.getTransactionCount(wallet.address)).toBe(nonce + 1)

    // eth_getLogs through queryFilter (indexed args) and provider.getLogs
    const events = (await token.queryFilter(
      token.filters.Transfer!(wallet.address, COW1.address),
      0,
      'latest',
    )) as EventLog[]
    expect(events).toHaveLength(1)
    expect(events[0]!.transactionHash).toBe(tx.hash)
    expect(events[0]!.args.value).toBe(1234n)
    expect(events[0]!.blockNumber).toBe(receipt.blockNumber)
    const all = (await token.queryFilter('Transfer')) as EventLog[]
    expect(all.length).toBeGreaterThanOrEqual(2)

    const logs = await provider.getLogs({
      address: tokenAddress,
      fromBlock: receipt.blockNumber,
      toBlock: receipt.blockNumber,
    })
    expect(logs).toHaveLength(1)
    expect(logs[0]!.topics[0]).toBe(token.interface.getEvent('Transfer')!.topicHash)
    expect(token.interface.parseLog(logs[0]!)!.args.value).toBe(1234n)
    const byHash = await provider.getLogs({ address: tokenAddress, blockHash: receipt.blockHash })
    expect(byHash.map((l) => l.transactionHash)).toEqual([tx.hash])
  })

  it('a transfer to the zero address rejects with the revert reason', async () => {
    const err = await rejection(() => token.transfer!(ZeroAddress, 1n))
    expect(isCallException(err)).toBe(true)
    expect(err.reason).toBe('Token: transfer to zero address')
    expect(err.revert).toMatchObject({ name: 'Error', args: ['Token: transfer to zero address'] })
    expect(typeof err.data).toBe('string')
    expect(token.interface.parseError(err.data)?.args[0]).toBe('Token: transfer to zero address')
  })

  it('a transfer over the balance rejects with the decoded custom error', async () => {
    const cow1 = new Wallet(COW1.privateKey, provider)
    const bal = (await token.balanceOf!(cow1.address)) as bigint
    const err = await rejection(() => token.connect(cow1).getFunction('transfer')(COW.address, bal + 10_000n))
    // On send, ethers fails in eth_estimateGas and only decodes builtin errors itself (err.revert stays null
    // for custom errors); the revert bytes are in err.data, decoded with the contract interface.
    expect(isCallException(err)).toBe(true)
    expect(err.action).toBe('estimateGas')
    expect(err.info.error.code).toBe(-32015)
    const parsed = token.interface.parseError(err.data)!
    expect(parsed.name).toBe('InsufficientBalance')
    expect(parsed.args.toArray()).toEqual([cow1.address, bal, bal + 10_000n])
  })

  it('estimateGas and staticCall', async () => {
    const gas = await token.transfer!.estimateGas(COW1.address, 1n)
    expect(gas).toBeGreaterThan(21_000n)
    expect(gas).toBeLessThan(100_000n)
    expect(await token.transfer!.staticCall(COW1.address, 1n)).toBe(true)
    const err = await rejection(() => token.transfer!.staticCall(ZeroAddress, 1n))
    expect(isCallException(err)).toBe(true)
    expect(err.reason).toBe('Token: transfer to zero address')
    const custom = await rejection(() => token.transfer!.staticCall(COW1.address, SUPPLY + 1n))
    expect(isCallException(custom)).toBe(true)
    expect(custom.revert?.name).toBe('InsufficientBalance')
    expect(custom.revert?.args.toArray()).toEqual([wallet.address, SUPPLY - 1234n, SUPPLY + 1n])
    // a plain provider.call surfaces the revert data too
    const raw = await rejection(() =>
      provider.call({ to: tokenAddress, data: token.interface.encodeFunctionData('transfer', [ZeroAddress, 1n]) }),
    )
    expect(isCallException(raw)).toBe(true)
    expect(raw.reason).toBe('Token: transfer to zero address')
  })

  it('sends value from the wallet; nonces increase', async () => {
    const n0 = await wallet.getNonce()
    const before = await provider.getBalance(COW1.address)
    const tx = await wallet.sendTransaction({ to: COW1.address, value: parseEther('1') })
    const r = (await tx.wait())!
    expect(r.status).toBe(1)
    expect(r.gasUsed).toBe(21_000n)
    expect(await provider.getBalance(COW1.address)).toBe(before + parseEther('1'))
    expect(await wallet.getNonce()).toBe(n0 + 1)
    expect(await wallet.getNonce('pending')).toBe(n0 + 1)
  })

  it('reads blocks, transactions, receipts, balances, code and storage', async () => {
    const tx = (await token.transfer!(COW1.address, 1n)) as ContractTransactionResponse
    const receipt = (await tx.wait())!
    const block = (await provider.getBlock('latest'))!
    expect(block.number).toBe(receipt.blockNumber)
    expect(block.hash).toBe(receipt.blockHash)
    // every block ends with the Remasc transaction (docs/reference-rules.md#rule-remasc-transaction)
    expect(block.transactions).toHaveLength(2)
    expect(block.transactions[0]).toBe(tx.hash)
    expect(block.baseFeePerGas).toBeNull()
    expect(block.gasUsed).toBe(receipt.gasUsed)
    expect(block.parentHash).toBe((await provider.getBlock(block.number - 1))!.hash)
    const full = (await provider.getBlock(block.hash!, true))!
    expect(full.prefetchedTransactions.map((t) => t.hash)).toEqual(block.transactions)
    // ethers parses the unsigned Remasc transaction (v, r, s "0x0")
    const remasc = full.prefetchedTransactions[1]!
    expect(remasc.from).toBe('0x0000000000000000000000000000000000000000')
    expect(remasc.to).toBe('0x0000000000000000000000000000000001000008')
    expect(remasc.gasLimit).toBe(0n)
    expect(remasc.nonce).toBe(block.number - 1)
    expect((await provider.getTransaction(remasc.hash))!.blockNumber).toBe(block.number)
    expect((await provider.getTransactionReceipt(remasc.hash))!.status).toBe(1)
    expect(await provider.getBlockNumber()).toBe(block.number)

    const got = (await provider.getTransaction(tx.hash))!
    expect(got.hash).toBe(tx.hash)
    expect(got.from).toBe(wallet.address)
    expect(got.to).toBe(tokenAddress)
    expect(got.blockNumber).toBe(block.number)
    expect(got.type).toBe(0)
    expect(got.chainId).toBe(33n)
    expect(got.data).toBe(tx.data)
    expect(got.signature.v).toBe(tx.signature.v)
    const rc = (await provider.getTransactionReceipt(tx.hash))!
    expect(rc.status).toBe(1)
    expect(rc.logs).toHaveLength(1)
    expect(rc.gasPrice).toBe(tx.gasPrice)
    expect(await provider.getTransaction('0x' + '11'.repeat(32))).toBeNull()
    expect(await provider.getTransactionReceipt('0x' + '11'.repeat(32))).toBeNull()

    expect(await provider.getBalance(tokenAddress)).toBe(0n)
    expect(await provider.getCode(COW1.address)).toBe('0x')
    // Token storage: slot 2 = totalSupply
    expect(BigInt(await provider.getStorage(tokenAddress, 2))).toBe(SUPPLY)
    // past state: totalSupply before deployment is 0, code absent
    expect(BigInt(await provider.getStorage(tokenAddress, 2, deployReceipt.blockNumber - 1))).toBe(0n)
    expect(await provider.getCode(tokenAddress, deployReceipt.blockNumber - 1)).toBe('0x')
    const fee = await provider.getFeeData()
    expect(fee.gasPrice).toBe(0n)
    expect(fee.maxFeePerGas).toBeNull()
  })

  it('a mined transaction that reverts: eth_sendRawTransaction answers -32015 (instant mining, as the reference)', async () => {
    // An explicit gasLimit skips ethers' eth_estimateGas, so the failing transaction reaches the node. The
    // node mines it and answers -32015 instead of the hash; ethers has no mapping for that on a send and
    // reports UNKNOWN_ERROR ("could not coalesce error") with the node's error in `err.error`.
    const nonce = await wallet.getNonce()
    const err = await rejection(() => token.transfer!(ZeroAddress, 1n, { gasLimit: 100_000n }))
    expect(isError(err, 'UNKNOWN_ERROR')).toBe(true)
    expect(err.error.code).toBe(-32015)
    expect(err.error.message).toBe('VM Exception while processing transaction: revert Token: transfer to zero address')
    expect(token.interface.parseError(err.error.data)?.args[0]).toBe('Token: transfer to zero address')
    // it was mined: the nonce is used and the receipt has status 0
    expect(await wallet.getNonce()).toBe(nonce + 1)
    const block = (await provider.getBlock('latest'))!
    const receipt = (await provider.getTransactionReceipt(block.transactions[0]!))!
    expect(receipt.from).toBe(wallet.address)
    expect(receipt.status).toBe(0)
    expect(receipt.logs).toHaveLength(0)
  })

  it('handles concurrent requests (ethers batches them) up to the node batch limit of 50', async () => {
    const balances = await Promise.all(Array.from({ length: 50 }, () => provider.getBalance(COW.address)))
    expect(new Set(balances).size).toBe(1)
    const capped = new JsonRpcProvider(node.url, network(), { staticNetwork: network(), batchMaxCount: 50 })
    try {
      const many = await Promise.all(Array.from({ length: 120 }, () => capped.getBalance(COW.address)))
      expect(many).toHaveLength(120)
    } finally {
      capped.destroy()
    }
  })

  // Fails: ethers' default batchMaxCount is 100 but the node (as the reference) rejects batches over 50 with
  // HTTP 400, so every request of a >50 burst fails with SERVER_ERROR "server response 400 Bad Request".
  // A dev node should probably default maxBatchSize to >= 100 (config.ts) — reported, not changed here.
  it.fails('handles more than 50 concurrent requests with ethers defaults', async () => {
    const balances = await Promise.all(Array.from({ length: 60 }, () => provider.getBalance(COW.address)))
    expect(balances).toHaveLength(60)
  })
})

describe('ethers JsonRpcSigner (node-held keys, eth_sendTransaction)', () => {
  let signer: JsonRpcSigner

  beforeAll(async () => {
    signer = await provider.getSigner(COW.address)
  })

  it('lists the accounts', async () => {
    const accounts = await provider.listAccounts()
    expect(accounts.map((a) => a.address.toLowerCase())).toContain(COW.address)
    expect((await provider.getSigner(0)).address.toLowerCase()).toBe(node.accounts[0]!.address)
  })

  it('sends value', async () => {
    const n0 = await signer.getNonce()
    const before = await provider.getBalance(COW1.address)
    const tx = await signer.sendTransaction({ to: COW1.address, value: 12345n })
    expect(tx.from.toLowerCase()).toBe(COW.address)
    expect(tx.nonce).toBe(n0)
    const r = (await tx.wait())!
    expect(r.status).toBe(1)
    expect(await provider.getBalance(COW1.address)).toBe(before + 12345n)
    expect(await signer.getNonce()).toBe(n0 + 1)
  })

  it('deploys and transacts', async () => {
    const factory = new ContractFactory(Token.abi, Token.bytecode, signer)
    const c = await factory.deploy('Signer Token', 'ST', 77n)
    await c.waitForDeployment()
    const addr = await c.getAddress()
    const t = new Contract(addr, Token.abi, signer)
    expect(await t.name!()).toBe('Signer Token')
    expect(await t.balanceOf!(COW.address)).toBe(77n)
    const r = (await ((await t.transfer!(COW1.address, 7n)) as ContractTransactionResponse).wait())!
    expect(r.status).toBe(1)
    expect(await t.balanceOf!(COW1.address)).toBe(7n)
    const err = await rejection(() => t.transfer!(ZeroAddress, 1n))
    expect(isCallException(err)).toBe(true)
    expect(err.reason).toBe('Token: transfer to zero address')
  })
})

describe('ethers WebSocketProvider', () => {
  it('reads the block number and calls a contract', async () => {
    const ws = new WebSocketProvider(node.wsUrl, network(), { staticNetwork: network() })
    try {
      expect(await ws.getBlockNumber()).toBe(await provider.getBlockNumber())
      const t = new Contract(tokenAddress, Token.abi, ws)
      expect(await t.symbol!()).toBe('TT')
      expect(await t.totalSupply!()).toBe(SUPPLY)
      expect(await ws.getBalance(tokenAddress)).toBe(0n)
      const err = await rejection(() => t.transfer!.staticCall(ZeroAddress, 1n, { from: COW.address }))
      expect(isError(err, 'CALL_EXCEPTION')).toBe(true)
      expect(err.reason).toBe('Token: transfer to zero address')
    } finally {
      await ws.destroy()
    }
  })
})

describe('methods ethers called that the node lacks', () => {
  it('only eth_maxPriorityFeePerGas (getFeeData swallows the -32601 and reports no EIP-1559 fees)', () => {
    const missing = [...new Set(seen.filter((s) => s.code === -32601).map((s) => s.method))]
    expect(missing.filter((m) => m !== 'eth_maxPriorityFeePerGas')).toEqual([])
  })
})
