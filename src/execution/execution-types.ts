/**
 * The shapes the executor (./executor.ts) takes and answers: the block context transactions run in, a block's
 * and a transaction's outcome, and the request and result of eth_call / eth_estimateGas.
 */
import type { LegacyTx } from '@ethereumjs/tx'
import type { ReceiptRecord } from '../types/records.js'
import type { TxAddresses } from './touched-addresses.js'

/** The block context transactions run in (COINBASE, NUMBER, TIMESTAMP, GASLIMIT, DIFFICULTY, BASEFEE). */
export interface BlockContext {
  number: bigint
  /** Seconds. */
  timestamp: bigint
  /** 20-byte miner address. */
  coinbase: Uint8Array
  gasLimit: bigint
  difficulty: bigint
  /** Wei; what BASEFEE pushes on this chain. */
  minimumGasPrice: bigint
}

/** Answers BLOCKHASH: the hash of canonical block `number`, or undefined when unknown. */
export type BlockHashLookup = (number: bigint) => Promise<Uint8Array | undefined>

/** A transaction to apply, with its already-known sender. */
export interface PendingExecution {
  tx: LegacyTx
  from: Uint8Array
}

/** Outcome of one applied transaction. */
export interface AppliedTx {
  receipt: ReceiptRecord
  /** Return data (revert data when reverted). */
  returnValue: Uint8Array
  /** EVM error name (`revert`, `out of gas`, …) when the tx failed. */
  error?: string
  /** Fees paid (gasUsed·gasPrice, wei). */
  fee: bigint
  /** The transaction did not fit any RSKIP144 sublist and was left out of the block (state unchanged). */
  skipped?: boolean
  /** Lines the transaction printed with Solidity console.log (./console-log.ts). */
  consoleLogs?: string[]
  /**
   * The addresses it touched and the contracts it created (./touched-addresses.ts), for the address-history
   * index; set on mined (committed) blocks only, absent on previews and skipped transactions.
   */
  addresses?: TxAddresses
}

/** Result of {@link Executor.applyBlock}. */
export interface AppliedBlock {
  stateRoot: Uint8Array
  gasUsed: bigint
  /** Σ fees (wei), credited to the Remasc contract. */
  paidFees: bigint
  /** Outcomes in the order the transactions were given (receipts carry per-sublist cumulative gas). */
  txs: AppliedTx[]
  /** Block order of the included transactions: indexes into `txs` (parallel sublists first, RSKIP144). */
  order: number[]
  /** The header's tx execution sublist edges (RSKIP144). */
  edges: number[]
  /** The Remasc transaction's outcome (last in the block). */
  remasc: AppliedTx
}

/**
 * The spec's transaction object, decoded (src/rpc/params.ts): the request of eth_call and eth_estimateGas, and
 * of eth_sendTransaction / eth_signTransaction / personal_sendTransaction. Addresses are 20 bytes, amounts in
 * wei, gas in gas units.
 */
export interface CallRequest {
  from?: Uint8Array
  /** Undefined for a contract creation. */
  to?: Uint8Array
  /**
   * Gas limit; calls and estimates default to the cap, sends to 90 000 (docs/reference-rules.md#rule-send-defaults).
   */
  gas?: bigint
  gasPrice?: bigint
  value?: bigint
  data?: Uint8Array
  /** Sends only (calls and estimates run at the sender's nonce); defaults to the sender's next pending nonce. */
  nonce?: bigint
}

/** Result of a call simulation. */
export interface CallResult {
  returnValue: Uint8Array
  /** Gas used including intrinsic gas, after refunds. */
  gasUsed: bigint
  /** EVM error name when the call failed (`revert`, `out of gas`, `invalid opcode`, …). */
  error?: string
  /** Created address when `to` was absent. */
  createdAddress?: Uint8Array
  /**
   * Gas the run consumed before refunds, intrinsic gas and code deposit included (set by eth_call/estimate
   * runs that got as far as executing; absent on their early out-of-gas answers and on block execution).
   */
  gasBeforeRefunds?: bigint
  /** Lines the call printed with Solidity console.log (./console-log.ts). */
  consoleLogs?: string[]
}
