/**
 * End-to-end: viem public/wallet clients against a real node over HTTP and WebSocket (deploy, reads,
 * writes as legacy transactions, events, revert decoding, the node's unlocked accounts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  BaseError,
  ContractFunctionRevertedError,
  RpcRequestError,
  createPublicClient,
  createWalletClient,
  decodeErrorResult,
  defineChain,
  getAddress,
  http,
  parseAbiItem,
  parseEther,
  parseTransaction,
  webSocket,
  zeroAddress,
  type Address,
  type Chain,
  type Hex,
  type PublicClient,
  type Transport,
  type WalletClient,
  type Account,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { Token } from '../../fixtures/index.js'
import type { Node } from '../../src/index.js'
import { COW, COW1, startNode } from '../helpers/node.js'

const SUPPLY = 1_000_000n * 10n ** 18n
const transferEvent = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)')
const account = privateKeyToAccount(COW.privateKey as Hex)
const cow1 = getAddress(COW1.address)

/** Every request the node saw, with the error code it answered. */
const seen: { method: string; code?: number }[] = []
/** Raw transactions viem sent (eth_sendRawTransaction params). */
const rawSent: Hex[] = []

let node: Node
let chain: Chain
let publicClient: PublicClient<Transport, Chain>
let walletClient: WalletClient<Transport, Chain, Account>
let token: Address
let deployBlock: bigint

/** Runs `fn`, which must reject, and returns the error. */
async function rejection(fn: () => Promise<unknown>): Promise<BaseError> {
  try {
    await fn()
  } catch (err) {
    expect(err).toBeInstanceOf(BaseError)
    return err as BaseError
  }
  throw new Error('expected a rejection')
}

const cow1TokenBalance = () =>
  publicClient.readContract({
    address: token,
    abi: Token.abi,
    functionName: 'balanceOf',
    args: [cow1],
  }) as Promise<bigint>

function recordRaw(_req: Request, init: RequestInit): void {
  const body = JSON.parse(String(init.body)) as
    { method: string; params: unknown[] } | { method: string; params: unknown[] }[]
  for (const r of Array.isArray(body) ? body : [body]) {
    if (r.method === 'eth_sendRawTransaction') rawSent.push(r.params[0] as Hex)
  }
}

beforeAll(async () => {
  node = await startNode({ onRequest: (method, _ms, error) => seen.push({ method, code: error?.code }) })
  chain = defineChain({
    id: 33,
    name: 'RSK regtest',
    nativeCurrency: { name: 'RBTC', symbol: 'RBTC', decimals: 18 },
    rpcUrls: { default: { http: [node.url], webSocket: [node.wsUrl] } },
  })
  publicClient = createPublicClient({ chain, transport: http(node.url), pollingInterval: 50 })
  walletClient = createWalletClient({
    chain,
    account,
    transport: http(node.url, { onFetchRequest: recordRaw }),
    pollingInterval: 50,
  })
  const hash = await walletClient.deployContract({
    abi: Token.abi,
    bytecode: Token.bytecode,
    args: ['Viem Token', 'VT', SUPPLY],
  })
  const receipt = await publicClient.waitForTransactionReceipt({ hash })
  expect(receipt.status).toBe('success')
  token = receipt.contractAddress!
  deployBlock = receipt.blockNumber
})

afterAll(async () => {
  await node?.close()
})

describe('viem public + wallet client (local account)', () => {
  it('deployed Token as a legacy transaction', async () => {
    expect(await publicClient.getChainId()).toBe(33)
    expect(await publicClient.getCode({ address: token })).toBe(Token.deployedBytecode)
    expect(rawSent).toHaveLength(1)
    const parsed = parseTransaction(rawSent[0]!)
    expect(parsed.type).toBe('legacy')
    expect(parsed.chainId).toBe(33)
  })

  it('reads name, symbol, totalSupply, balanceOf', async () => {
    expect(await publicClient.readContract({ address: token, abi: Token.abi, functionName: 'name' })).toBe('Viem Token')
    expect(await publicClient.readContract({ address: token, abi: Token.abi, functionName: 'symbol' })).toBe('VT')
    expect(await publicClient.readContract({ address: token, abi: Token.abi, functionName: 'totalSupply' })).toBe(
      SUPPLY,
    )
    expect(
      await publicClient.readContract({
        address: token,
        abi: Token.abi,
        functionName: 'balanceOf',
        args: [account.address],
      }),
    ).toBe(SUPPLY)
  })

  it('writeContract sends a legacy transfer; events via getContractEvents and getLogs', async () => {
    const nonce = await publicClient.getTransactionCount({ address: account.address })
    const before = rawSent.length
    const hash = await walletClient.writeContract({
      address: token,
      abi: Token.abi,
      functionName: 'transfer',
      args: [cow1, 500n],
    })
    const receipt = await publicClient.waitForTransactionReceipt({ hash })
    expect(receipt.status).toBe('success')
    expect(receipt.type).toBe('legacy')
    expect(receipt.effectiveGasPrice).toBe(0n)

    // viem chose a legacy transaction (blocks have no baseFeePerGas)
    expect(rawSent).toHaveLength(before + 1)
    const sent = parseTransaction(rawSent[before]!)
    expect(sent.type).toBe('legacy')
    expect(sent.gasPrice ?? 0n).toBe(0n) // viem's parser omits a zero gasPrice
    expect(sent.maxFeePerGas).toBeUndefined()
    expect(sent.nonce).toBe(nonce)
    const tx = await publicClient.getTransaction({ hash })
    expect(tx.type).toBe('legacy')
    expect(tx.typeHex).toBe('0x0')
    expect(tx.from).toBe(account.address.toLowerCase())
    expect(await publicClient.getTransactionCount({ address: account.address })).toBe(nonce + 1)

    expect(
      await publicClient.readContract({ address: token, abi: Token.abi, functionName: 'balanceOf', args: [cow1] }),
    ).toBe(500n)

    const events = await publicClient.getContractEvents({
      address: token,
      abi: Token.abi,
      eventName: 'Transfer',
      args: { from: account.address, to: cow1 },
      fromBlock: deployBlock,
      toBlock: 'latest',
    })
    expect(events).toHaveLength(1)
    expect(events[0]!.transactionHash).toBe(hash)
    expect(events[0]!.args).toEqual({ from: account.address, to: cow1, value: 500n })

    const logs = await publicClient.getLogs({ address: token, event: transferEvent, fromBlock: 0n })
    expect(logs.map((l) => l.args)).toEqual([
      { from: zeroAddress, to: account.address, value: SUPPLY },
      { from: account.address, to: cow1, value: 500n },
    ])
    const byBlock = await publicClient.getLogs({ event: transferEvent, blockHash: receipt.blockHash })
    expect(byBlock.map((l) => l.transactionHash)).toEqual([hash])
    const mints = await publicClient.getLogs({ address: token, event: transferEvent, args: { from: zeroAddress } })
    // no fromBlock: latest only (no mint in the latest block)
    expect(mints).toHaveLength(0)
  })

  it('estimateContractGas and simulateContract of a succeeding call', async () => {
    const gas = await publicClient.estimateContractGas({
      address: token,
      abi: Token.abi,
      functionName: 'transfer',
      args: [cow1, 1n],
      account,
    })
    expect(gas).toBeGreaterThan(21_000n)
    expect(gas).toBeLessThan(100_000n)
    const { result, request } = await publicClient.simulateContract({
      address: token,
      abi: Token.abi,
      functionName: 'transfer',
      args: [cow1, 1n],
      account,
    })
    expect(result).toBe(true)
    const hash = await walletClient.writeContract(request)
    expect((await publicClient.waitForTransactionReceipt({ hash })).status).toBe('success')
  })

  it('the revert data of a failing call reaches viem (RpcRequestError.data)', async () => {
    const err = await rejection(() =>
      publicClient.simulateContract({
        address: token,
        abi: Token.abi,
        functionName: 'transfer',
        args: [zeroAddress, 1n],
        account,
      }),
    )
    const rpcErr = err.walk((e) => e instanceof RpcRequestError) as RpcRequestError
    expect(rpcErr.code).toBe(-32015)
    const decoded = decodeErrorResult({ abi: Token.abi, data: rpcErr.data as Hex })
    expect(decoded.errorName).toBe('Error')
    expect(decoded.args).toEqual(['Token: transfer to zero address'])
  })

  // Fails: viem turns a call error into ContractFunctionRevertedError only for JSON-RPC code 3 (geth's
  // "execution reverted") or -32603 (viem utils/errors/getContractError.ts); the node answers -32015 (the
  // reference's code), so viem reports "RPC Request failed." with an RpcRequestError cause and no decoded
  // reason. Reported; not changed here (the code is the reference node's).
  it.fails('simulateContract of a revert string → ContractFunctionRevertedError with the reason', async () => {
    const err = await rejection(() =>
      publicClient.simulateContract({
        address: token,
        abi: Token.abi,
        functionName: 'transfer',
        args: [zeroAddress, 1n],
        account,
      }),
    )
    const reverted = err.walk((e) => e instanceof ContractFunctionRevertedError) as ContractFunctionRevertedError | null
    expect(reverted).toBeInstanceOf(ContractFunctionRevertedError)
    expect(reverted!.reason).toBe('Token: transfer to zero address')
  })

  /** cow1 simulates a token transfer of one more than its balance (InsufficientBalance). */
  const overBalanceTransfer = async () => {
    const bal = await cow1TokenBalance()
    const err = await rejection(() =>
      publicClient.simulateContract({
        address: token,
        abi: Token.abi,
        functionName: 'transfer',
        args: [account.address, bal + 1n],
        account: cow1,
      }),
    )
    return { bal, err }
  }

  // Fails for the same reason as above (-32015 instead of 3).
  it.fails('simulateContract of a custom error → ContractFunctionRevertedError with errorName and args', async () => {
    const { bal, err } = await overBalanceTransfer()
    const reverted = err.walk((e) => e instanceof ContractFunctionRevertedError) as ContractFunctionRevertedError | null
    expect(reverted).toBeInstanceOf(ContractFunctionRevertedError)
    expect(reverted!.data?.errorName).toBe('InsufficientBalance')
    expect(reverted!.data?.args).toEqual([cow1, bal, bal + 1n])
  })

  it('a custom error is decodable from the RpcRequestError data', async () => {
    const { bal, err } = await overBalanceTransfer()
    const rpcErr = err.walk((e) => e instanceof RpcRequestError) as RpcRequestError
    expect(rpcErr.code).toBe(-32015)
    const decoded = decodeErrorResult({ abi: Token.abi, data: rpcErr.data as Hex })
    expect(decoded.errorName).toBe('InsufficientBalance')
    expect(decoded.args).toEqual([cow1, bal, bal + 1n])
  })

  it('estimateContractGas of a reverting call rejects', async () => {
    const err = await rejection(() =>
      publicClient.estimateContractGas({
        address: token,
        abi: Token.abi,
        functionName: 'transfer',
        args: [zeroAddress, 1n],
        account,
      }),
    )
    const rpcErr = err.walk((e) => e instanceof RpcRequestError) as RpcRequestError
    expect(rpcErr.code).toBe(-32015)
    expect(rpcErr.details).toBe('VM Exception while processing transaction: revert Token: transfer to zero address')
  })

  it('getBalance, getBlock with transactions, getTransactionCount', async () => {
    const before = await publicClient.getBalance({ address: cow1 })
    const nonce = await publicClient.getTransactionCount({ address: account.address })
    const hash = await walletClient.sendTransaction({ to: cow1, value: parseEther('0.5') })
    const receipt = await publicClient.waitForTransactionReceipt({ hash })
    expect(receipt.status).toBe('success')
    expect(receipt.gasUsed).toBe(21_000n)
    expect(await publicClient.getBalance({ address: cow1 })).toBe(before + parseEther('0.5'))
    expect(await publicClient.getTransactionCount({ address: account.address })).toBe(nonce + 1)
    expect(await publicClient.getTransactionCount({ address: account.address, blockTag: 'pending' })).toBe(nonce + 1)
    expect(await publicClient.getBalance({ address: cow1, blockNumber: receipt.blockNumber - 1n })).toBe(before)

    const block = await publicClient.getBlock({ blockTag: 'latest', includeTransactions: true })
    expect(block.number).toBe(receipt.blockNumber)
    expect(block.hash).toBe(receipt.blockHash)
    expect(block.baseFeePerGas).toBeNull()
    // every block ends with the Remasc transaction (docs/reference-rules.md#rule-remasc-transaction); viem parses it (v, r, s "0x0")
    expect(block.transactions).toHaveLength(2)
    expect(block.transactions[1]!.from).toBe('0x0000000000000000000000000000000000000000')
    expect(block.transactions[1]!.to).toBe('0x0000000000000000000000000000000001000008')
    expect(block.transactions[1]!.gas).toBe(0n)
    const t = block.transactions[0]!
    expect(t.hash).toBe(hash)
    expect(t.type).toBe('legacy')
    expect(t.value).toBe(parseEther('0.5'))
    expect(t.to).toBe(cow1.toLowerCase())
    expect(await publicClient.getBlockNumber({ cacheTime: 0 })).toBe(block.number)
    const byHash = await publicClient.getBlock({ blockHash: block.hash })
    expect(byHash.transactions).toEqual([hash, block.transactions[1]!.hash])
    expect((await publicClient.getTransactionReceipt({ hash })).transactionHash).toBe(hash)
  })

  it('estimateFeesPerGas falls back to legacy gasPrice', async () => {
    const fees = await publicClient.estimateFeesPerGas({ type: 'legacy' })
    expect(fees.gasPrice).toBe(0n)
    expect(await publicClient.getGasPrice()).toBe(0n)
  })
})

describe('viem wallet client with the node account (json-rpc account, eth_sendTransaction)', () => {
  it('lists the accounts and sends value', async () => {
    const wc = createWalletClient({ chain, account: getAddress(COW.address), transport: http(node.url) })
    expect((await wc.getAddresses()).map((a) => a.toLowerCase())).toContain(COW.address)
    const before = await publicClient.getBalance({ address: cow1 })
    const nonce = await publicClient.getTransactionCount({ address: COW.address as Address })
    const hash = await wc.sendTransaction({ to: cow1, value: 777n })
    const receipt = await publicClient.waitForTransactionReceipt({ hash })
    expect(receipt.status).toBe('success')
    expect(receipt.from).toBe(COW.address)
    expect(await publicClient.getBalance({ address: cow1 })).toBe(before + 777n)
    expect(await publicClient.getTransactionCount({ address: COW.address as Address })).toBe(nonce + 1)
  })

  // Fails: for a json-rpc account viem sends eth_sendTransaction without `gas` (it does not estimate); the node
  // then uses the reference's default of 90 000 and rejects the deployment with -32010 "transaction's basic
  // cost is above the gas limit". Anvil and Hardhat estimate the gas when it is omitted. Reported, not changed.
  it.fails('deploys without an explicit gas limit', async () => {
    const wc = createWalletClient({ chain, account: getAddress(COW.address), transport: http(node.url) })
    const hash = await wc.deployContract({ abi: Token.abi, bytecode: Token.bytecode, args: ['RPC Token', 'RT', 9n] })
    expect((await publicClient.waitForTransactionReceipt({ hash })).status).toBe('success')
  })

  it('deploys and writes with an explicit gas limit', async () => {
    const wc = createWalletClient({ chain, account: getAddress(COW.address), transport: http(node.url) })
    const hash = await wc.deployContract({
      abi: Token.abi,
      bytecode: Token.bytecode,
      args: ['RPC Token', 'RT', 9n],
      gas: 1_500_000n,
    })
    const receipt = await publicClient.waitForTransactionReceipt({ hash })
    expect(receipt.status).toBe('success')
    const addr = receipt.contractAddress!
    expect(
      await publicClient.readContract({
        address: addr,
        abi: Token.abi,
        functionName: 'balanceOf',
        args: [COW.address],
      }),
    ).toBe(9n)
    const w = await wc.writeContract({
      address: addr,
      abi: Token.abi,
      functionName: 'transfer',
      args: [cow1, 4n],
      gas: 100_000n,
    })
    expect((await publicClient.waitForTransactionReceipt({ hash: w })).status).toBe('success')
    expect(
      await publicClient.readContract({ address: addr, abi: Token.abi, functionName: 'balanceOf', args: [cow1] }),
    ).toBe(4n)
  })
})

describe('viem webSocket transport', () => {
  it('reads the block number and calls a contract', async () => {
    const transport = webSocket(node.wsUrl)
    const ws = createPublicClient({ chain, transport })
    try {
      expect(await ws.getBlockNumber({ cacheTime: 0 })).toBe(await publicClient.getBlockNumber({ cacheTime: 0 }))
      expect(await ws.readContract({ address: token, abi: Token.abi, functionName: 'symbol' })).toBe('VT')
      expect(await ws.getChainId()).toBe(33)
    } finally {
      const rpcClient = await ws.transport.getRpcClient()
      rpcClient.close()
    }
  })
})

describe('methods viem called that the node lacks', () => {
  it('only eth_fillTransaction (viem falls back to individual calls on -32601)', () => {
    const missing = [...new Set(seen.filter((s) => s.code === -32601).map((s) => s.method))]
    expect(missing.filter((m) => m !== 'eth_fillTransaction')).toEqual([])
  })
})
