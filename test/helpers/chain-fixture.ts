/**
 * A small chain with contracts, storage, logs, a multi-transaction block and an impersonated sender, and a
 * read-everything observation of it (for tests that compare answers before and after a restart, a cache
 * eviction or a revert).
 */
import { Interface } from 'ethers'
import { Probe } from '../../fixtures/index.js'
import { COW, COW1, rpc } from './node.js'
import { deploy, q, sendTx } from '../rpc/shapes.js'

export const probe = new Interface(Probe.abi)
/** No key is known for it: sent from by impersonation. */
export const STRANGER = '0x00000000000000000000000000000000000a11ce'

/** Requests that build a chain with contracts, storage, logs, a multi-transaction block and impersonation. */
export async function buildChain(url: string): Promise<{ probeAddress: string }> {
  const { address: probeAddress } = await deploy(url, Probe.bytecode) // 1
  await sendTx(url, { to: probeAddress, data: probe.encodeFunctionData('setValue', [5]) }) // 2: storage + log
  await sendTx(url, { to: probeAddress, data: probe.encodeFunctionData('emitMany', [3]) }) // 3: 3 logs
  await sendTx(url, { to: COW1.address, value: '0x1', gas: '0x5208', gasPrice: '0x2' }) // 4
  // 5: several transactions in one block (parallel sublists, logs counted across the block)
  await rpc(url, 'evm_setAutomine', [false])
  await rpc(url, 'eth_sendTransaction', [
    { from: COW.address, to: probeAddress, data: probe.encodeFunctionData('emitMany', [2]), gas: '0x2dc6c0' },
  ])
  await rpc(url, 'eth_sendTransaction', [
    {
      from: COW1.address,
      to: probeAddress,
      data: probe.encodeFunctionData('setBalance', [COW1.address, 9]),
      gas: '0x2dc6c0',
    },
  ])
  await rpc(url, 'eth_sendTransaction', [{ from: COW.address, to: COW1.address, value: '0x7', gas: '0x5208' }])
  await rpc(url, 'evm_mine')
  await rpc(url, 'evm_setAutomine', [true])
  // 6: an impersonated sender (placeholder signature)
  await rpc(url, 'anvil_setBalance', [STRANGER, q(10n ** 18n)])
  await rpc(url, 'anvil_impersonateAccount', [STRANGER])
  await sendTx(url, { from: STRANGER, to: COW1.address, value: '0x3', gas: '0x5208' })
  // 7 … 36: empty blocks (older states fall out of --state-history)
  await rpc(url, 'anvil_mine', ['0x1e'])
  // an in-place change after the last block
  await rpc(url, 'anvil_setStorageAt', [probeAddress, q(0), '0x' + '00'.repeat(31) + '2a'])
  return { probeAddress }
}

/**
 * Everything a client can read about the chain, as JSON: every block (by number, by hash, raw header), every
 * transaction (by hash, by block and index), receipt (JSON, raw, receipt-trie nodes), traces, the logs (query
 * and filter), and with `states` the account state at latest and at blocks 2 and 5.
 * @param opts.upTo last block to read (default the head); @param opts.states whether to read states (default true)
 */
export async function observe(url: string, probeAddress: string, opts: { upTo?: number; states?: boolean } = {}) {
  const head = Number(await rpc<string>(url, 'eth_blockNumber'))
  const upTo = opts.upTo ?? head
  const blocks = []
  const receipts = []
  const txs = []
  const traces = []
  for (let n = 0; n <= upTo; n++) {
    const b = await rpc<{ hash: string; transactions: { hash: string }[] }>(url, 'eth_getBlockByNumber', [q(n), true])
    blocks.push(b, await rpc(url, 'eth_getBlockByHash', [b.hash, false]))
    blocks.push(
      await rpc(url, 'ext_getRawBlockHeaderByNumber', [q(n)]),
      await rpc(url, 'ext_getRawBlockHeaderByHash', [b.hash]),
    )
    blocks.push(await rpc(url, 'eth_getBlockTransactionCountByHash', [b.hash]))
    for (const [i, t] of b.transactions.entries()) {
      receipts.push(await rpc(url, 'eth_getTransactionReceipt', [t.hash]))
      receipts.push(await rpc(url, 'ext_getRawTransactionReceiptByHash', [t.hash]))
      receipts.push(await rpc(url, 'ext_getTransactionReceiptNodesByHash', [b.hash, t.hash]))
      txs.push(await rpc(url, 'eth_getTransactionByHash', [t.hash]))
      txs.push(await rpc(url, 'eth_getTransactionByBlockHashAndIndex', [b.hash, q(i)]))
      traces.push(await rpc(url, 'trace_transaction', [t.hash]))
    }
    if (n > 0) traces.push(await rpc(url, 'debug_traceBlockByNumber', [q(n), { tracer: 'callTracer' }]))
  }
  const filter = await rpc<string>(url, 'eth_newFilter', [{ fromBlock: '0x0', toBlock: q(upTo) }])
  const filterLogs = await rpc(url, 'eth_getFilterLogs', [filter])
  await rpc(url, 'eth_uninstallFilter', [filter])
  const accounts = [COW.address, COW1.address, STRANGER, probeAddress]
  const state = async (tag: string) => ({
    balances: await Promise.all(accounts.map((a) => rpc(url, 'eth_getBalance', [a, tag]))),
    nonces: await Promise.all(accounts.map((a) => rpc(url, 'eth_getTransactionCount', [a, tag]))),
    code: await rpc(url, 'eth_getCode', [probeAddress, tag]),
    storage: await Promise.all([0, 1, 2].map((s) => rpc(url, 'eth_getStorageAt', [probeAddress, q(s), tag]))),
    value: await rpc(url, 'eth_call', [{ to: probeAddress, data: probe.encodeFunctionData('value') }, tag]),
    proof: await rpc(url, 'eth_getProof', [probeAddress, [q(0)], tag]),
  })
  const states = opts.states ?? true
  return {
    head: upTo,
    blocks,
    receipts,
    txs,
    traces,
    logs: await rpc(url, 'eth_getLogs', [{ fromBlock: '0x0', toBlock: q(upTo) }]),
    probeLogs: await rpc(url, 'eth_getLogs', [{ fromBlock: '0x0', toBlock: q(upTo), address: probeAddress }]),
    filterLogs,
    latest: states ? await state('latest') : undefined,
    // older than --state-history 3 at the head (36)
    atBlock2: states ? await state('0x2') : undefined,
    atBlock5: states ? await state('0x5') : undefined,
  }
}
