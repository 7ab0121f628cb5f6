/**
 * The options of Chain.create (src/chain/chain.ts): genesis, network, mining targets, execution caps, state
 * history and storage.
 */
import type { Common } from '@ethereumjs/common'
import type { Activations } from '../rsk/activations.js'
import type { ProcessingBlock } from '../rsk/remasc.js'
import type { ForkStateSource } from '../state/fork-source.js'
import type { OutdatedRule } from '../txpool/pool.js'
import type { BlockRecord } from '../types/records.js'
import type { ProgressListener } from '../util/progress.js'
import type { GenesisFields } from './mining/block-builder.js'
import type { ChainStorage } from '../db/chain-storage.js'

/**
 * What a chain forked from a live node needs (docs/architecture.md#forking): the fork block, which the chain
 * starts at instead of a genesis, the remote state under the local one, and the remote's blocks below it for
 * BLOCKHASH and the Remasc contract. Implemented over src/fork/ by the node (src/node-fork.ts).
 */
export interface ChainFork {
  /**
   * The fork block as a record: the remote's header (its hash is the remote's), no transactions (the RPC reads
   * them from the remote). The first block of the chain; local blocks continue at its number + 1.
   */
  block: BlockRecord
  /** The remote state at the fork block (the state manager reads every key no local write holds from it). */
  source: ForkStateSource & {
    /** Fetches these accounts together before a transaction runs (one round trip instead of one per account). */
    prefetch(accounts: readonly Uint8Array[]): Promise<void>
  }
  /** Hash of remote block `n` below the fork block (BLOCKHASH), or undefined. */
  hashOf(n: bigint): Promise<Uint8Array | undefined>
  /** Remote block `n` below the fork block as the Remasc contract reads it, or undefined. */
  processingBlock(n: bigint): Promise<ProcessingBlock | undefined>
  /**
   * Remote block `n` below the fork block as the BlockHeader native contract reads it (its header, hash and
   * difficulties; no transactions or uncles), or undefined.
   */
  remoteBlock(n: bigint): Promise<BlockRecord | undefined>
  /**
   * The remote network's consensus rules by block (docs/reference-rules.md#rule-network-activations): local blocks
   * are executed and their headers built with them.
   */
  rules: Activations
}

/** Options for Chain.create (src/chain/chain.ts). */
export interface ChainOptions {
  common: Common
  /** Genesis header fields (from the network preset). */
  genesis: GenesisFields
  /** Network number (30-33): selects the genesis precompile rules of the state. */
  network: 30 | 31 | 32 | 33
  /** Genesis allocation: 0x-address → wei. */
  alloc: Record<string, bigint>
  /** Coinbase of mined blocks (20 bytes). */
  coinbase: Uint8Array
  /** Gas limit the miner steps toward by parent/1024 per block (reference GasLimitCalculator). */
  targetGasLimit: bigint
  /** extraData of mined blocks. */
  extraData: Uint8Array
  /** Target minimumGasPrice (wei; reference miner.minGasPrice), approached within ±1% of the parent per block. */
  minGasPrice: bigint
  /** Wall clock in milliseconds (injectable for tests). Default Date.now. */
  clock?: () => number
  /**
   * How long a transaction may wait in the pool before it is dropped (docs/reference-rules.md#rule-pool-outdated);
   * default the reference's 10 blocks or 650 s; false: for ever (the tool profiles, src/rpc/compat.ts).
   */
  poolOutdated?: OutdatedRule | false
  /** eth_call gas cap (reference rpc.callGasCap). */
  callGasCap?: bigint
  /** eth_estimateGas cap (reference rpc.gasEstimationCap). */
  gasEstimationCap?: bigint
  /**
   * Deadline of one eth_call / eth_estimateGas / trace, and of each transaction's execution in a block being
   * built, in ms (reference rpc.timeout = 5000; docs/reference-rules.md#rule-send-deadline); 0 = none.
   * Default 5000.
   */
  executionTimeoutMs?: number
  /**
   * States of this many most recent blocks stay readable for historical reads (eth_getBalance at an old
   * block, eth_call at an old block); older ones are forgotten so memory stays flat, like Anvil's in-memory
   * state history. Genesis and snapshot states are always kept. Default 500; 0 = keep all.
   */
  stateHistory?: number
  /**
   * Anvil's `--prune-history [N]`: states of only the N most recent blocks stay readable, also with `--db`
   * (older ones are not read back from the database; they answer "State not found", -32600). Overrides
   * {@link stateHistory}. Undefined: off.
   */
  pruneHistory?: number
  /**
   * Anvil's `--transaction-block-keeper N`: receipts of only the N most recent blocks are kept; older blocks
   * keep their header and transactions, but their transactions are no longer found by hash (null) and their
   * logs no longer listed. Undefined: keep all.
   */
  transactionBlockKeeper?: number
  /**
   * Where blocks, receipts, the head and the states are stored (src/db/chain-storage.ts; `--db`). A database
   * that already holds a chain is continued: its blocks are reloaded and mining goes on from its head.
   * Without it the chain lives in memory only.
   */
  storage?: ChainStorage
  /**
   * Fork mode: the chain continues a live node's chain from its fork block, over its state
   * (docs/architecture.md#forking). `genesis` and `alloc`'s precompile rules are then unused: `alloc` only
   * funds accounts in place over the remote state. Not combined with `storage`.
   */
  fork?: ChainFork
  /**
   * Receives the progress of long start-up work on {@link storage} (src/chain/chain-restore.ts): `upgrading the
   * storage format` (blocks indexed of the stored head, throttled). Not called otherwise.
   */
  onProgress?: ProgressListener
}

/** Default number of recent block states kept readable (see {@link ChainOptions.stateHistory}). */
export const DEFAULT_STATE_HISTORY = 500
