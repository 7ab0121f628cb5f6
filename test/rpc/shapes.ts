/**
 * Shared expectations for the RPC tests: the reference JSON shapes
 * (docs/reference-rules.md#rule-block-json … docs/reference-rules.md#rule-log-json), hex formats,
 * and small send/deploy helpers that go through the node's HTTP JSON-RPC.
 */
import { expect } from 'vitest'
import { COW, rpc } from '../helpers/node.js'

/** Minimal-hex QUANTITY. */
export const QTY = /^0x(0|[1-9a-f][0-9a-f]*)$/
/** 32-byte hash. */
export const HASH = /^0x[0-9a-f]{64}$/
/** 20-byte address. */
export const ADDR = /^0x[0-9a-f]{40}$/
/** 256-byte bloom. */
export const BLOOM = /^0x[0-9a-f]{512}$/
/** DATA (even-length hex). */
export const DATA = /^0x([0-9a-f]{2})*$/

/** Regtest miner coinbase: keccak("regtest_miner_secret_please_change") (docs/reference-rules.md#rule-regtest-genesis). */
export const MINER = '0xec4ddeb4380ad69b3e509baad9f158cdf4e4681d'
export const ZERO_HASH = '0x' + '00'.repeat(32)
export const ZERO_WORD = ZERO_HASH

/** BlockResultDTO fields (docs/reference-rules.md#rule-block-json). */
export const BLOCK_FIELDS = [
  'number',
  'hash',
  'parentHash',
  'mixHash',
  'nonce',
  'sha3Uncles',
  'logsBloom',
  'transactionsRoot',
  'stateRoot',
  'receiptsRoot',
  'miner',
  'difficulty',
  'totalDifficulty',
  'extraData',
  'size',
  'gasLimit',
  'gasUsed',
  'timestamp',
  'transactions',
  'uncles',
  'minimumGasPrice',
  'bitcoinMergedMiningHeader',
  'bitcoinMergedMiningCoinbaseTransaction',
  'bitcoinMergedMiningMerkleProof',
  'hashForMergedMining',
  'paidFees',
  'cumulativeDifficulty',
  'rskPteEdges',
  'baseEvent',
]
/** TransactionResultDTO fields (docs/reference-rules.md#rule-transaction-json): no chainId / yParity. */
export const TX_FIELDS = [
  'hash',
  'nonce',
  'blockHash',
  'blockNumber',
  'transactionIndex',
  'from',
  'to',
  'gas',
  'gasPrice',
  'value',
  'input',
  'v',
  'r',
  's',
  'type',
]
/** TransactionReceiptDTO fields (docs/reference-rules.md#rule-receipt-json). */
export const RECEIPT_FIELDS = [
  'transactionHash',
  'transactionIndex',
  'blockHash',
  'blockNumber',
  'cumulativeGasUsed',
  'gasUsed',
  'contractAddress',
  'logs',
  'from',
  'to',
  'status',
  'logsBloom',
  'type',
  'effectiveGasPrice',
]
/** LogFilterElement fields (docs/reference-rules.md#rule-log-json) plus `removed` (false), which geth/Anvil send and hardhat-ethers requires. */
export const LOG_FIELDS = [
  'logIndex',
  'blockNumber',
  'blockHash',
  'transactionHash',
  'transactionIndex',
  'address',
  'data',
  'topics',
  'removed',
]

/** Asserts the object has exactly these keys (order-independent). */
export function expectKeys(obj: unknown, fields: readonly string[]): void {
  expect(obj).toBeTypeOf('object')
  expect(Object.keys(obj as object).sort()).toEqual([...fields].sort())
}

/** A QUANTITY of a bigint. */
export const q = (n: bigint | number): string => '0x' + n.toString(16)

/** A 32-byte word of a bigint. */
export const word = (n: bigint | number): string => '0x' + n.toString(16).padStart(64, '0')

/** An address left-padded to a 32-byte topic/word. */
export const addrWord = (a: string): string => '0x' + a.slice(2).toLowerCase().padStart(64, '0')

/** Sends with eth_sendTransaction (from COW by default) and returns the receipt. */
export async function sendTx(url: string, tx: Record<string, unknown>): Promise<any> {
  const hash = await rpc<string>(url, 'eth_sendTransaction', [{ from: COW.address, gas: '0x2dc6c0', ...tx }])
  return rpc(url, 'eth_getTransactionReceipt', [hash])
}

/** Deploys bytecode from COW; returns the contract address and the receipt. */
export async function deploy(
  url: string,
  bytecode: string,
  from = COW.address,
): Promise<{ address: string; receipt: any }> {
  const receipt = await sendTx(url, { from, data: bytecode, gas: '0x5b8d80' })
  expect(receipt.status).toBe('0x1')
  return { address: receipt.contractAddress as string, receipt }
}

/**
 * Sends a transaction with automine off, mines it with evm_mine and turns automine back on (a send that fails is
 * then still mined, instead of answered with -32015).
 * @param tx eth_sendTransaction fields; `from` defaults to COW, `gas` to 3 000 000
 * @returns the transaction hash
 */
export async function sendMined(url: string, tx: Record<string, unknown>): Promise<string> {
  await rpc(url, 'evm_setAutomine', [false])
  try {
    const hash = await rpc<string>(url, 'eth_sendTransaction', [{ from: COW.address, gas: q(3_000_000), ...tx }])
    await rpc(url, 'evm_mine')
    return hash
  } finally {
    await rpc(url, 'evm_setAutomine', [true])
  }
}

/** {@link sendMined}, answering the receipt's status and gas used. */
export async function minedReceipt(
  url: string,
  tx: Record<string, unknown>,
): Promise<{ status: string; gasUsed: bigint }> {
  const r = await rpc(url, 'eth_getTransactionReceipt', [await sendMined(url, tx)])
  return { status: r.status, gasUsed: BigInt(r.gasUsed) }
}
