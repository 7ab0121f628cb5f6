/**
 * The chain's domain records: blocks, transactions, receipts and logs as the node stores them.
 * Bytes are Uint8Array, numbers bigint (wei, gas, seconds); formatting to JSON lives in src/rpc/format.ts.
 */
import type { LegacyTx } from '@ethereumjs/tx'

/** One log as emitted by a transaction (reference LogInfo). */
export interface LogRecord {
  /** 20-byte emitting contract. */
  address: Uint8Array
  /** 0-4 topics, 32 bytes each. */
  topics: Uint8Array[]
  /** Non-indexed data. */
  data: Uint8Array
  /** Position of the log within its block (counted across the block, reference LogFilterElement). */
  logIndex: number
}

/** A receipt (reference TransactionReceipt, JSON per TransactionReceiptDTO). */
export interface ReceiptRecord {
  /** 1 success, 0 failure (revert, out of gas, …). */
  status: 0 | 1
  /** Gas used by the block up to and including this transaction. */
  cumulativeGasUsed: bigint
  /** Gas used by this transaction alone (after refunds). */
  gasUsed: bigint
  /** Logs of this transaction (empty on failure). */
  logs: LogRecord[]
  /** 256-byte bloom of this transaction's logs. */
  logsBloom: Uint8Array
  /** Created contract (20 bytes) for a successful creation, else undefined. */
  contractAddress?: Uint8Array
  /**
   * Set when the receipt was dropped by `--transaction-block-keeper` (the block is older than it keeps): the
   * fields above are then empty, and the transaction is no longer found by hash.
   */
  pruned?: true
}

/** What a log query needs of a transaction: its hash and index, and its receipt's logs and bloom. */
export interface LogTx {
  /** 32-byte transaction hash. */
  readonly hash: Uint8Array
  /** Position in the block. */
  index: number
  receipt: { logs: LogRecord[]; logsBloom: Uint8Array }
}

/**
 * What a log query needs of a block: its hash and number and its transactions' logs. A {@link BlockRecord}
 * is one; so is the lighter view log queries decode from a block's encodings (src/blocks/block-codec.ts).
 */
export interface LogBlock {
  hash: Uint8Array
  header: { number: bigint; logsBloom: Uint8Array }
  transactions: readonly LogTx[]
}

/** A transaction included in a block. */
export interface TxRecord {
  /** The signed legacy transaction (frozen). For impersonated sends, a fake-signature tx (see accounts). */
  tx: LegacyTx
  /** 32-byte transaction hash. */
  hash: Uint8Array
  /** 20-byte sender. */
  from: Uint8Array
  /** Position in the block. */
  index: number
  /** The transaction's receipt. */
  receipt: ReceiptRecord
}

/**
 * Header fields of a block as the reference node's BlockHeader holds them (J/org/ethereum/core/BlockHeader.java).
 * Numbers are bigint; byte fields are Uint8Array.
 */
export interface HeaderFields {
  parentHash: Uint8Array
  unclesHash: Uint8Array
  coinbase: Uint8Array
  stateRoot: Uint8Array
  transactionsRoot: Uint8Array
  receiptsRoot: Uint8Array
  logsBloom: Uint8Array
  difficulty: bigint
  number: bigint
  gasLimit: bigint
  gasUsed: bigint
  /** Seconds since the epoch. */
  timestamp: bigint
  extraData: Uint8Array
  /** Σ gasUsed·gasPrice of the block's transactions, in wei. */
  paidFees: bigint
  /** Minimum gas price (wei) a transaction needs to be included. */
  minimumGasPrice: bigint
  uncleCount: number
  /** Merged-mining fields; empty = absent (the genesis has 0x00 in each, from its file). */
  bitcoinMergedMiningHeader: Uint8Array
  bitcoinMergedMiningMerkleProof: Uint8Array
  bitcoinMergedMiningCoinbaseTransaction: Uint8Array
  /** RSKIP144 tx execution sublist edges (cumulative end indexes of the parallel sublists); absent = []. */
  edges?: number[]
  /** Genesis only: difficulty bytes exactly as the genesis file has them (hashed raw by the reference). */
  rawDifficulty?: Uint8Array
  /** Genesis only: gasLimit bytes as the reference stores them (leading zeros stripped). */
  rawGasLimit?: Uint8Array
  /**
   * The header's format when it is not node-cli's own (absent: block 0 is a version-0 genesis header, later
   * blocks version 2 with ummRoot and edges, hashed the RSKIP92 way): set on a fork's blocks, from the forked
   * network's rules at their number (docs/reference-rules.md#rule-network-activations). `umm`: an ummRoot field;
   * `version`: 0, 1 or 2 (RSKIP351, RSKIP535); `edges`: an edges field (RSKIP144); `rskip92`: the RSKIP92 hash form.
   */
  format?: HeaderFormat
}

/** Which optional fields a header carries and how it is hashed (see {@link HeaderFields.format}). */
export interface HeaderFormat {
  umm: boolean
  version: 0 | 1 | 2
  edges: boolean
  rskip92: boolean
}

/** An assembled block with everything the RPC needs to answer about it. */
export interface BlockRecord {
  header: HeaderFields
  /** 32-byte block hash. */
  hash: Uint8Array
  /** Lowercase hex of `hash` without 0x (map key). */
  hashKey: string
  /** hashForMergedMining (32 bytes). */
  hashForMergedMining: Uint8Array
  /** Length in bytes of the block's RLP. */
  size: number
  /** Total difficulty of the chain up to and including this block. */
  totalDifficulty: bigint
  /** Difficulty of the block plus its uncles' (reference meaning). */
  cumulativeDifficulty: bigint
  /** Transactions in block order. */
  transactions: TxRecord[]
  /** Uncle blocks referenced by this block (a local single-miner chain produces none; kept for the RPC shape). */
  uncles: BlockRecord[]
}
