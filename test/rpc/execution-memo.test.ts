/**
 * eth_call / eth_estimateGas results are memoized by (block, state root, context, request): every state change
 * must still be seen — mined transactions, in-place changes (setStorageAt, setBalance, setCode), snapshot
 * reverts — and different blocks must not share results.
 */
import { AbiCoder, ContractFactory, Interface, Wallet } from 'ethers'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Probe, Token } from '../../fixtures/index.js'
import type { Node } from '../../src/index.js'
import { COW, COW1, internals, rpc, startNode } from '../helpers/node.js'

const token = new Interface(Token.abi)
const probe = new Interface(Probe.abi)
const abi = AbiCoder.defaultAbiCoder()
const wallet = new Wallet(COW.privateKey)

describe('execution memo', () => {
  let node: Node
  let url: string
  let tokenAddress: string
  let probeAddress: string
  let nonce = 0
  const send = async (tx: { to?: string; data: string; gasLimit?: number }) => {
    const raw = await wallet.signTransaction({
      gasLimit: 3_000_000,
      ...tx,
      nonce: nonce++,
      gasPrice: 0,
      chainId: 33,
      type: 0,
    })
    const hash = await rpc<string>(url, 'eth_sendRawTransaction', [raw])
    return rpc(url, 'eth_getTransactionReceipt', [hash])
  }
  const balanceOf = (who: string, block = 'latest') =>
    rpc<string>(url, 'eth_call', [
      { to: tokenAddress, data: token.encodeFunctionData('balanceOf', [who]) },
      block,
    ]).then(BigInt)

  beforeAll(async () => {
    node = await startNode()
    url = node.url
    const deployToken = await new ContractFactory(Token.abi, Token.bytecode).getDeployTransaction('T', 'T', 1000n)
    tokenAddress = (await send({ data: deployToken.data })).contractAddress
    probeAddress = (await send({ data: Probe.bytecode })).contractAddress
  })
  afterAll(() => node.close())

  it('sees mined transactions, and keeps per-block results apart', async () => {
    expect(await balanceOf(COW.address)).toBe(1000n)
    expect(await balanceOf(COW.address)).toBe(1000n)
    const before = await rpc<string>(url, 'eth_blockNumber')
    await send({ to: tokenAddress, data: token.encodeFunctionData('transfer', [COW1.address, 7n]) })
    expect(await balanceOf(COW.address)).toBe(993n)
    expect(await balanceOf(COW.address, before)).toBe(1000n)
  })

  it('sees in-place state changes (setStorageAt, setCode) at the same block', async () => {
    const head = await rpc<string>(url, 'eth_blockNumber')
    const valueOf = () =>
      rpc<string>(url, 'eth_call', [{ to: probeAddress, data: probe.encodeFunctionData('value') }, 'latest'])
    expect(await valueOf()).toBe(abi.encode(['uint256'], [0n]))
    await rpc(url, 'anvil_setStorageAt', [probeAddress, '0x0', '0x' + '2a'.padStart(64, '0')])
    expect(await valueOf()).toBe(abi.encode(['uint256'], [42n]))
    expect(await rpc(url, 'eth_blockNumber')).toBe(head)
    await rpc(url, 'anvil_setCode', [probeAddress, '0x'])
    expect(await valueOf()).toBe('0x')
    await rpc(url, 'anvil_setCode', [probeAddress, Probe.deployedBytecode])
  })

  it('estimates follow the state (a first write to a slot costs more than a rewrite)', async () => {
    const req = { from: COW.address, to: probeAddress, data: probe.encodeFunctionData('setValue', [5n]) }
    await rpc(url, 'anvil_setStorageAt', [probeAddress, '0x0', '0x' + '0'.repeat(64)])
    const fromZero = BigInt(await rpc(url, 'eth_estimateGas', [req]))
    expect(BigInt(await rpc(url, 'eth_estimateGas', [req]))).toBe(fromZero)
    await rpc(url, 'anvil_setStorageAt', [probeAddress, '0x0', '0x' + '01'.padStart(64, '0')])
    const fromNonZero = BigInt(await rpc(url, 'eth_estimateGas', [req]))
    expect(fromNonZero).toBeLessThan(fromZero)
  })

  it('admits a result on the second arrival of its request: requests that never repeat leave the memo as it was', async () => {
    const memo = (internals(node).chain as unknown as { parts: { queries: { executionMemo: { size: number } } } }).parts
      .queries.executionMemo
    const fresh = (i: number) => '0x' + (0xc0000000 + i).toString(16).padStart(40, '0')
    const before = memo.size
    for (let i = 0; i < 20; i++) expect(await balanceOf(fresh(i))).toBe(0n)
    expect(memo.size).toBe(before)
    // the same request again: admitted now, then answered from the memo with the same result
    expect(await balanceOf(fresh(3))).toBe(0n)
    expect(memo.size).toBe(before + 1)
    expect(await balanceOf(fresh(3))).toBe(0n)
    expect(memo.size).toBe(before + 1)
    // estimates too
    const req = { from: COW.address, to: tokenAddress, data: token.encodeFunctionData('transfer', [COW1.address, 1n]) }
    const first = await rpc<string>(url, 'eth_estimateGas', [req])
    expect(memo.size).toBe(before + 1)
    expect(await rpc<string>(url, 'eth_estimateGas', [req])).toBe(first)
    expect(memo.size).toBe(before + 2)
    expect(await rpc<string>(url, 'eth_estimateGas', [req])).toBe(first)
    expect(memo.size).toBe(before + 2)
  })

  it('sees a snapshot revert', async () => {
    const id = await rpc<string>(url, 'evm_snapshot')
    const start = await balanceOf(COW1.address)
    await send({ to: tokenAddress, data: token.encodeFunctionData('transfer', [COW1.address, 1n]) })
    expect(await balanceOf(COW1.address)).toBe(start + 1n)
    expect(await rpc(url, 'evm_revert', [id])).toBe(true)
    nonce--
    expect(await balanceOf(COW1.address)).toBe(start)
  })
})

describe('eth_call leaves nothing behind', () => {
  it('the EVM journal does not grow with distinct calls (regression: a bare runCall skipped the journal cleanup)', async () => {
    const node = await startNode()
    try {
      const deploy = await new ContractFactory(Token.abi, Token.bytecode).getDeployTransaction('T', 'T', 1000n)
      const raw = await wallet.signTransaction({
        data: deploy.data,
        gasLimit: 3_000_000,
        nonce: 0,
        gasPrice: 0,
        chainId: 33,
        type: 0,
      })
      const receipt = await rpc(node.url, 'eth_getTransactionReceipt', [
        await rpc<string>(node.url, 'eth_sendRawTransaction', [raw]),
      ])
      const journal = (internals(node).chain.executor.vm.evm as unknown as { journal: { journalDiff: unknown[] } })
        .journal
      const call = (i: number) =>
        node.provider.request({
          method: 'eth_call',
          params: [
            {
              to: receipt.contractAddress,
              data: token.encodeFunctionData('balanceOf', ['0x' + (0xb0000000 + i).toString(16).padStart(40, '0')]),
            },
            'latest',
          ],
        })
      await call(0)
      const after1 = journal.journalDiff.length
      for (let i = 1; i <= 300; i++) await call(i)
      expect(journal.journalDiff.length).toBe(after1)
    } finally {
      await node.close()
    }
  })
})
