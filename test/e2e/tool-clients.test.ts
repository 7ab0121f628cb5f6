/**
 * First contact with real tools: viem's revert decoding under --compat, web3.js 4 (legacy transactions with
 * `defaultTransactionType: '0x0'`, the clear refusal of its EIP-1559 default), cast from the @foundry-rs/cast npm
 * package (`send` without and with `--legacy`), ethers signing a typed transaction, and createNode restarted on
 * the same port with both transports.
 */
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { JsonRpcProvider, Wallet, type TransactionRequest } from 'ethers'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BaseError, ContractFunctionRevertedError, createPublicClient, defineChain, http, type Hex } from 'viem'
import { Probe } from '../../fixtures/index.js'
import { createNode, type Node } from '../../src/index.js'
import { clientBin, CLIENTS_DIR, runCommand } from '../helpers/clients.js'
import { COW, COW1, rpc, rpcError, startNode } from '../helpers/node.js'
import { deploy } from '../rpc/shapes.js'

const requireClient = createRequire(join(CLIENTS_DIR, 'package.json'))
// web3.js lives in test/clients (kept out of the root install); typed loosely here
const { Web3 } = requireClient('web3') as { Web3: any }

describe.each(['hardhat', 'anvil'] as const)('viem under --compat %s', (compat) => {
  let node: Node
  let probeAddress: Hex
  beforeAll(async () => {
    node = await startNode({ compat })
    probeAddress = (await deploy(node.url, Probe.bytecode)).address as Hex
  })
  afterAll(() => node.close())

  const client = () =>
    createPublicClient({
      chain: defineChain({
        id: 33,
        name: 'regtest',
        nativeCurrency: { name: 'RBTC', symbol: 'RBTC', decimals: 18 },
        rpcUrls: { default: { http: [node.url] } },
      }),
      transport: http(node.url),
    })

  /** The ContractFunctionRevertedError viem builds for a simulated call. */
  async function reverted(functionName: string, args: unknown[] = []): Promise<ContractFunctionRevertedError> {
    try {
      await client().simulateContract({
        address: probeAddress,
        abi: Probe.abi,
        functionName,
        args,
        account: COW.address as Hex,
      })
    } catch (err) {
      expect(err).toBeInstanceOf(BaseError)
      const inner = (err as BaseError).walk((e) => e instanceof ContractFunctionRevertedError)
      expect(inner, String(err)).toBeInstanceOf(ContractFunctionRevertedError)
      return inner as ContractFunctionRevertedError
    }
    throw new Error('expected a revert')
  }

  it('simulateContract: ContractFunctionRevertedError with the reason of Error(string)', async () => {
    const e = await reverted('failWithReason')
    expect(e.reason).toBe('Probe: failed')
    expect(e.data?.errorName).toBe('Error')
  })

  it('simulateContract and readContract: the custom error decoded (errorName, args)', async () => {
    const e = await reverted('failCustom', [7n])
    expect(e.data?.errorName).toBe('ProbeError')
    expect(e.data?.args).toEqual([7n, 'custom failure'])
    try {
      await client().readContract({ address: probeAddress, abi: Probe.abi, functionName: 'failCustom', args: [9n] })
      throw new Error('expected a revert')
    } catch (err) {
      const inner = (err as BaseError).walk(
        (x) => x instanceof ContractFunctionRevertedError,
      ) as ContractFunctionRevertedError
      expect(inner.data?.args).toEqual([9n, 'custom failure'])
    }
  })
})

describe('web3.js 4, cast and typed transactions against the default node', () => {
  let node: Node
  beforeAll(async () => {
    node = await startNode()
  })
  afterAll(() => node.close())

  it("web3.js with defaultTransactionType '0x0': deploy, send, events", async () => {
    const web3 = new Web3(node.url)
    web3.defaultTransactionType = '0x0'
    const [from] = (await web3.eth.getAccounts()) as string[]
    const contract = new web3.eth.Contract(Probe.abi)
    // json-rpc accounts do not estimate: a deployment names its gas (the node's default is 90 000)
    const deployed = await contract.deploy({ data: Probe.bytecode }).send({ from, gas: '3000000' })
    const address = deployed.options.address as string
    expect(await web3.eth.getCode(address)).toBe(Probe.deployedBytecode)
    const receipt = await deployed.methods.setValue(42).send({ from, gas: '200000' })
    expect(receipt.status).toBe(1n)
    expect(receipt.type).toBe(0n)
    expect(receipt.events.ValueChanged.returnValues.newValue).toBe(42n)
    const events = await deployed.getPastEvents('ValueChanged', { fromBlock: 0 })
    expect(events).toHaveLength(1)
    expect(events[0].removed).toBe(false)
    expect(await deployed.methods.value().call()).toBe(42n)
  })

  it('web3.js with its EIP-1559 default: its own clear Eip1559NotSupportedError, nothing sent', async () => {
    const web3 = new Web3(node.url)
    const before = await rpc(node.url, 'eth_blockNumber')
    const err = await web3.eth.sendTransaction({ from: COW.address, to: COW1.address, value: 1 }).then(
      () => undefined,
      (e: Error) => e,
    )
    expect(err?.constructor.name).toBe('Eip1559NotSupportedError')
    expect(err?.message).toMatch(/Network doesn't support eip-1559/)
    expect(await rpc(node.url, 'eth_blockNumber')).toBe(before)
  })

  it('cast send without --legacy: the error names eth_feeHistory, legacy-only and the switch; with --legacy it is mined', async () => {
    const args = ['send', '--rpc-url', node.url, '--private-key', COW.privateKey, COW1.address, '--value', '1']
    // (the npm package's wrapper exits 0 whatever cast exits with: the message is what a user sees)
    const refused = await runCommand(clientBin('cast'), args)
    expect(refused.stderr).toMatch(
      /error code -32601: the method eth_feeHistory is not available: .*legacy \(type 0\) transactions only.*--legacy/,
    )
    const sent = await runCommand(clientBin('cast'), [...args, '--legacy'])
    expect(sent.code, sent.stderr).toBe(0)
    expect(sent.stdout).toMatch(/status\s+1 \(success\)/)
  }, 60_000)

  it('fee-market methods: -32601 naming the method and the legacy-only rule', async () => {
    for (const m of ['eth_feeHistory', 'eth_maxPriorityFeePerGas', 'eth_blobBaseFee']) {
      const e = await rpcError(node.url, m, m === 'eth_feeHistory' ? ['0x1', 'latest', []] : [])
      expect(e.code).toBe(-32601)
      expect(e.message).toMatch(new RegExp(`^the method ${m} is not available: this chain has no fee market`))
      expect(e.message).toMatch(/defaultTransactionType: '0x0'/)
    }
  })

  it('a typed raw transaction: -32602 naming its type and the legacy-only rule (not an RLP error)', async () => {
    const wallet = new Wallet(COW.privateKey, new JsonRpcProvider(node.url, 33, { staticNetwork: true }))
    const nonce = Number(await rpc(node.url, 'eth_getTransactionCount', [COW.address, 'pending']))
    const base = { to: COW1.address, value: 1n, gasLimit: 21000n, nonce, chainId: 33n }
    const cases: [TransactionRequest, string][] = [
      [{ ...base, type: 2, maxFeePerGas: 1n, maxPriorityFeePerGas: 1n }, 'type 0x02, EIP-1559'],
      [{ ...base, type: 1, gasPrice: 0n, accessList: [] }, 'type 0x01, EIP-2930'],
    ]
    for (const [tx, name] of cases) {
      const raw = await wallet.signTransaction(tx)
      const e = await rpcError(node.url, 'eth_sendRawTransaction', [raw])
      expect(e.code).toBe(-32602)
      expect(e.message).toBe(
        `Invalid input: typed transaction (${name}) not supported: this chain has no fee market (no base fee, no EIP-1559) ` +
          'and takes legacy (type 0) transactions only; send legacy transactions with gasPrice (cast/forge --legacy, ' +
          "web3.js defaultTransactionType: '0x0', ethers { type: 0 }, viem { type: 'legacy' })",
      )
    }
    const legacy = await wallet.signTransaction({ ...base, type: 0, gasPrice: 0n })
    expect(await rpc(node.url, 'eth_sendRawTransaction', [legacy])).toMatch(/^0x[0-9a-f]{64}$/)
  })

  it('web3.js deploy without gas: out of gas naming the 90 000 default; under --compat hardhat it is estimated', async () => {
    const web3 = new Web3(node.url)
    web3.defaultTransactionType = '0x0'
    const err = await new web3.eth.Contract(Probe.abi)
      .deploy({ data: Probe.bytecode })
      .send({ from: COW1.address })
      .then(
        () => undefined,
        (e: Error & { cause?: { message?: string } }) => e,
      )
    // Probe's init code alone costs more than 90 000 gas: the pool refuses it before execution
    expect(JSON.stringify({ message: err?.message, cause: err?.cause?.message })).toMatch(
      /basic cost is above the gas limit|out of gas/,
    )
    const compat = await startNode({ compat: 'hardhat' })
    try {
      const w = new Web3(compat.url)
      w.defaultTransactionType = '0x0'
      const deployed = await new w.eth.Contract(Probe.abi).deploy({ data: Probe.bytecode }).send({ from: COW1.address })
      expect(await w.eth.getCode(deployed.options.address)).toBe(Probe.deployedBytecode)
    } finally {
      await compat.close()
    }
  })
})

describe.each(['uws', 'node'] as const)('createNode → close → createNode on the same port (%s)', (transport) => {
  it('starts again at once and serves, after serving requests', async () => {
    const first = await createNode({ port: 0, transport })
    const { port } = first
    expect(await rpc(first.url, 'eth_chainId')).toBe('0x21')
    await first.close()
    for (let i = 0; i < 3; i++) {
      const again = await createNode({ port, transport })
      try {
        expect(again.port).toBe(port)
        expect(again.transport).toBe(transport)
        expect(await rpc(again.url, 'eth_blockNumber')).toBe('0x0')
      } finally {
        await again.close()
      }
    }
  })
})
