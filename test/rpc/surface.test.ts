/**
 * The method surface: every method the spec lists as supported (spec §4 "Support status of methods":
 * "Supported in full" and "Partially supported") is called over real HTTP with plausible params and must not
 * answer -32601. Methods that later issues implement are listed in PENDING with the reason; they must answer
 * -32601 today, so the list fails (and gets updated) as soon as one of them starts answering.
 *
 * The lists are copied from the JSON-RPC spec, §4 "Support status of methods".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Wallet } from 'ethers'
import type { Node } from '../../src/index.js'
import { COW, COW1, rpc, rpcRaw, startNode } from '../helpers/node.js'

/** Spec §4 "Support status of methods" — "Supported in full" (in the spec's order). */
const SUPPORTED_IN_FULL = [
  'web3_clientVersion',
  'web3_sha3',
  'net_version',
  'net_peerCount',
  'net_peerList',
  'net_listening',
  'eth_chainId',
  'eth_protocolVersion',
  'eth_syncing',
  'eth_coinbase',
  'eth_mining',
  'eth_hashrate',
  'eth_gasPrice',
  'eth_accounts',
  'eth_blockNumber',
  'eth_getBalance',
  'eth_getStorageAt',
  'eth_getTransactionCount',
  'eth_getBlockTransactionCountByHash',
  'eth_getBlockTransactionCountByNumber',
  'eth_getUncleCountByBlockHash',
  'eth_sign',
  'eth_sendTransaction',
  'eth_sendRawTransaction',
  'eth_call',
  'eth_estimateGas',
  'eth_getBlockByHash',
  'eth_getTransactionByHash',
  'eth_getTransactionByBlockHashAndIndex',
  'eth_getTransactionReceipt',
  'eth_pendingTransactions',
  'eth_getUncleByBlockHashAndIndex',
  'eth_newFilter',
  'eth_newBlockFilter',
  'eth_newPendingTransactionFilter',
  'eth_uninstallFilter',
  'eth_getFilterChanges',
  'eth_getFilterLogs',
  'eth_getLogs',
  'eth_bridgeState',
  'eth_netHashrate',
  'debug_traceTransaction',
  'debug_traceBlockByHash',
  'debug_wireProtocolQueueSize',
  'evm_increaseTime',
  'evm_mine',
  'evm_reset',
  'evm_revert',
  'evm_snapshot',
  'evm_startMining',
  'evm_stopMining',
  'mnr_submitBitcoinBlock',
  'mnr_submitBitcoinBlockTransactions',
  'mnr_submitBitcoinBlockPartialMerkle',
  'mnr_getWork',
  'personal_dumpRawKey',
  'personal_importRawKey',
  'personal_listAccounts',
  'personal_lockAccount',
  'personal_newAccountWithSeed',
  'personal_newAccount',
  'personal_sendTransaction',
  'personal_unlockAccount',
  'ext_getRawTransactionReceiptByHash',
  'ext_getTransactionReceiptNodesByHash',
  'ext_getRawBlockHeaderByHash',
  'ext_getRawBlockHeaderByNumber',
  'ext_protocolVersion',
  'trace_transaction',
  'trace_block',
  'trace_filter',
  'txpool_content',
  'txpool_inspect',
  'txpool_status',
  'sco_banAddress',
  'sco_unbanAddress',
  'sco_peerList',
  'sco_bannedAddresses',
  'sco_reputationSummary',
] as const

/** Spec §4 "Support status of methods" — "Partially supported (the `pending` option is not yet supported)". */
const PARTIALLY_SUPPORTED = [
  'eth_getUncleCountByBlockNumber',
  'eth_getCode',
  'eth_getBlockByNumber',
  'eth_getTransactionByBlockNumberAndIndex',
  'eth_getUncleByBlockNumberAndIndex',
] as const

type Listed = (typeof SUPPORTED_IN_FULL)[number] | (typeof PARTIALLY_SUPPORTED)[number]

/** Methods of later issues, with the reason. They must answer -32601 until implemented (then remove them here). */
const PENDING: Partial<Record<Listed, string>> = {}

/** Methods that change the chain wholesale: called last, in this order. */
const LAST: readonly Listed[] = [
  'evm_stopMining',
  'evm_startMining',
  'evm_snapshot',
  'evm_increaseTime',
  'evm_mine',
  'evm_revert',
  'evm_reset',
]

let node: Node
let url: string
/** Values the params refer to, filled in beforeAll / by earlier calls. */
const ctx = {
  blockHash: '',
  txHash: '',
  filterId: '',
  snapshotId: '0x1',
}
const outsider = new Wallet('0x' + '24'.repeat(32))

/** Plausible params for each listed method (evaluated at call time). */
const PARAMS: Record<Listed, () => unknown[] | Promise<unknown[]>> = {
  web3_clientVersion: () => [],
  web3_sha3: () => ['0x68656c6c6f'],
  net_version: () => [],
  net_peerCount: () => [],
  net_peerList: () => [],
  net_listening: () => [],
  eth_chainId: () => [],
  eth_protocolVersion: () => [],
  eth_syncing: () => [],
  eth_coinbase: () => [],
  eth_mining: () => [],
  eth_hashrate: () => [],
  eth_gasPrice: () => [],
  eth_accounts: () => [],
  eth_blockNumber: () => [],
  eth_getBalance: () => [COW.address, 'latest'],
  eth_getStorageAt: () => [COW.address, '0x0', 'latest'],
  eth_getTransactionCount: () => [COW.address, 'latest'],
  eth_getBlockTransactionCountByHash: () => [ctx.blockHash],
  eth_getBlockTransactionCountByNumber: () => ['latest'],
  eth_getUncleCountByBlockHash: () => [ctx.blockHash],
  eth_sign: () => [COW.address, '0x68656c6c6f'],
  eth_sendTransaction: () => [{ from: COW.address, to: COW1.address, value: '0x1' }],
  eth_sendRawTransaction: async () => {
    const nonce = Number(await rpc(url, 'eth_getTransactionCount', [outsider.address, 'latest']))
    return [
      await outsider.signTransaction({
        type: 0,
        chainId: 33,
        nonce,
        gasPrice: 0,
        gasLimit: 21_000,
        to: COW1.address,
        value: 1,
      }),
    ]
  },
  eth_call: () => [{ to: COW1.address, data: '0x' }, 'latest'],
  eth_estimateGas: () => [{ from: COW.address, to: COW1.address, value: '0x1' }],
  eth_getBlockByHash: () => [ctx.blockHash, false],
  eth_getTransactionByHash: () => [ctx.txHash],
  eth_getTransactionByBlockHashAndIndex: () => [ctx.blockHash, '0x0'],
  eth_getTransactionReceipt: () => [ctx.txHash],
  eth_pendingTransactions: () => [],
  eth_getUncleByBlockHashAndIndex: () => [ctx.blockHash, '0x0'],
  eth_newFilter: () => [{ fromBlock: '0x0', toBlock: 'latest' }],
  eth_newBlockFilter: () => [],
  eth_newPendingTransactionFilter: () => [],
  eth_uninstallFilter: async () => [await rpc(url, 'eth_newBlockFilter')],
  eth_getFilterChanges: () => [ctx.filterId],
  eth_getFilterLogs: () => [ctx.filterId],
  eth_getLogs: () => [{ fromBlock: '0x0', toBlock: 'latest' }],
  eth_bridgeState: () => [],
  eth_netHashrate: () => [],
  debug_traceTransaction: () => [ctx.txHash],
  debug_traceBlockByHash: () => [ctx.blockHash],
  debug_wireProtocolQueueSize: () => [],
  evm_increaseTime: () => ['0x10'],
  evm_mine: () => [],
  evm_reset: () => [],
  evm_revert: () => [ctx.snapshotId],
  evm_snapshot: () => [],
  evm_startMining: () => [],
  evm_stopMining: () => [],
  mnr_submitBitcoinBlock: () => ['0x00'],
  mnr_submitBitcoinBlockTransactions: () => [ctx.blockHash, '0x00', '0x00', ctx.txHash.slice(2)],
  mnr_submitBitcoinBlockPartialMerkle: () => [ctx.blockHash, '0x00', '0x00', ctx.txHash.slice(2), '0x1'],
  mnr_getWork: () => [],
  personal_dumpRawKey: () => [COW.address],
  personal_importRawKey: () => ['0x' + '33'.repeat(32), 'passphrase'],
  personal_listAccounts: () => [],
  personal_lockAccount: () => [COW1.address],
  personal_newAccountWithSeed: () => ['surface-seed'],
  personal_newAccount: () => ['passphrase'],
  personal_sendTransaction: () => [{ from: COW.address, to: COW1.address, value: '0x1' }, ''],
  personal_unlockAccount: () => [COW1.address, '', '0x3e8'],
  ext_getRawTransactionReceiptByHash: () => [ctx.txHash],
  ext_getTransactionReceiptNodesByHash: () => [ctx.blockHash, ctx.txHash],
  ext_getRawBlockHeaderByHash: () => [ctx.blockHash],
  ext_getRawBlockHeaderByNumber: () => ['0x0'],
  ext_protocolVersion: () => [],
  trace_transaction: () => [ctx.txHash],
  trace_block: () => ['latest'],
  trace_filter: () => [{ fromBlock: '0x0', toBlock: 'latest' }],
  txpool_content: () => [],
  txpool_inspect: () => [],
  txpool_status: () => [],
  sco_banAddress: () => ['10.1.2.3'],
  sco_unbanAddress: () => ['10.1.2.3'],
  sco_peerList: () => [],
  sco_bannedAddresses: () => [],
  sco_reputationSummary: () => [],
  eth_getUncleCountByBlockNumber: () => ['latest'],
  eth_getCode: () => [COW.address, 'latest'],
  eth_getBlockByNumber: () => ['latest', false],
  eth_getTransactionByBlockNumberAndIndex: () => ['latest', '0x0'],
  eth_getUncleByBlockNumberAndIndex: () => ['latest', '0x0'],
}

beforeAll(async () => {
  node = await startNode()
  url = node.url
  ctx.txHash = await rpc(url, 'eth_sendTransaction', [
    { from: COW.address, to: outsider.address, value: '0xde0b6b3a7640000' },
  ])
  ctx.blockHash = (await rpc(url, 'eth_getTransactionReceipt', [ctx.txHash])).blockHash
  ctx.filterId = await rpc(url, 'eth_newFilter', [{ fromBlock: '0x0', toBlock: 'latest' }])
})
afterAll(() => node?.close())

const ALL: Listed[] = [...SUPPORTED_IN_FULL, ...PARTIALLY_SUPPORTED]
const ORDERED: Listed[] = [...ALL.filter((m) => !LAST.includes(m)), ...LAST]

describe('the lists', () => {
  it('are consistent: no duplicates, every PENDING and LAST entry is listed, params for every method', () => {
    expect(new Set(ALL).size).toBe(ALL.length)
    for (const m of Object.keys(PENDING)) expect(ALL).toContain(m)
    for (const m of LAST) expect(ALL).toContain(m)
    expect(Object.keys(PARAMS).sort()).toEqual([...ALL].sort())
    expect(ORDERED).toHaveLength(ALL.length)
  })
})

describe('every supported method answers (not -32601); PENDING ones still answer -32601', () => {
  it.each(ORDERED.map((m) => [m, PENDING[m] ? `PENDING: ${PENDING[m]}` : 'implemented'] as const))(
    '%s (%s)',
    async (m) => {
      const { body } = await rpcRaw<any>(url, m, await PARAMS[m]())
      if (m === 'evm_snapshot' && body.result !== undefined) ctx.snapshotId = body.result
      if (PENDING[m]) {
        expect(
          body.error?.code,
          `${m} answers now (${JSON.stringify(body.result ?? body.error)}): remove it from PENDING`,
        ).toBe(-32601)
      } else {
        expect(body.error?.code, `${m}: ${JSON.stringify(body.error)}`).not.toBe(-32601)
      }
    },
  )
})
