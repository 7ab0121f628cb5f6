/**
 * The JSON-RPC shapes the explorer reads (the fields it uses; quantities are 0x hex strings).
 */

/** A transaction object (eth_getTransactionByHash, a full block's transactions). */
export interface RpcTx {
  hash: string
  blockNumber: string | null
  blockHash: string | null
  transactionIndex: string | null
  from: string
  to: string | null
  value: string
  gas: string
  gasPrice: string
  input: string
  nonce: string
}

/** A block (eth_getBlockBy*), with full transactions or hashes; the chain's own fields included. */
export interface RpcBlock<T = RpcTx | string> {
  number: string
  hash: string
  parentHash: string
  timestamp: string
  miner: string
  gasUsed: string
  gasLimit: string
  minimumGasPrice?: string
  paidFees?: string
  size?: string
  transactions: T[]
}

/** A log of a receipt. */
export interface RpcLog {
  address: string
  topics: string[]
  data: string
  logIndex: string
}

/** A transaction receipt. */
export interface RpcReceipt {
  status: string
  gasUsed: string
  effectiveGasPrice?: string
  contractAddress: string | null
  logs: RpcLog[]
  blockNumber: string
  timestamp?: string
}

/** One frame of ots_traceTransaction. */
export interface OtsFrame {
  type: string
  depth: number
  from: string
  to: string
  value: string | null
  input: string
  output: string
}

/** A page of ots_searchTransactionsBefore / After. */
export interface OtsSearchPage {
  txs: RpcTx[]
  receipts: RpcReceipt[]
  firstPage: boolean
  lastPage: boolean
}
