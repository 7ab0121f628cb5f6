/**
 * Building and assembling blocks: executes a block's transactions on the executor, orders them with the Remasc
 * transaction (src/chain/mining/consensus.ts), computes the header's roots and bloom, merge-mines a mined block and
 * assembles it into a {@link BlockRecord}; also the genesis block, the `pending` preview with its cache, and the
 * roots blocks ran on (for the tracers). It never appends: the chain (src/chain/chain.ts) writes the block to
 * the database and appends it. Every method runs inside the chain's queue.
 */
import type { Common } from '@ethereumjs/common'
import type { LegacyTx } from '@ethereumjs/tx'
import { LRUCache } from 'lru-cache'
import {
  TxApplyError,
  TxTimeoutError,
  type AppliedBlock,
  type AppliedTx,
  type BlockContext,
  type Executor,
} from '../../execution/executor.js'
import { orBlooms } from '../../rsk/receipt-rlp.js'
import type { PoolTx } from '../../txpool/pool.js'
import { bigIntToBytes, bytesEqual, ZERO_HASH } from '../../util/bytes.js'
import type { BlockStore } from '../../blocks/block-store.js'
// consensus: Remasc transaction, RSKIP144 block order, merged mining (src/chain/mining/consensus.ts)
import { blockTransactions, mergeMine, type MergedMiningSource } from './consensus.js'
import { ForkDetectionWindow } from './fork-detection-window.js'
import { ExecutionTimeoutError, TxRejectedError } from '../../errors/domain-errors.js'
import {
  EMPTY_TRIE_ROOT,
  EMPTY_UNCLES_HASH,
  receiptsTrieRoot,
  assembleHeader,
  transactionsTrieRoot,
} from '../../rsk/block-encoding.js'
import type { ConsoleLogEvent } from '../queries/state-queries.js'
import { blockRecord } from '../../blocks/block-codec.js'
import type { IndexedTx } from '../../blocks/address-index.js'
import type { BlockRecord, HeaderFields, HeaderFormat, TxRecord } from '../../types/records.js'

/**
 * A transaction of a block being built could not be applied (a pool rejection; `index` into the block's list).
 * The block was not built and the state is unchanged.
 */
export class PoolApplyError extends TxRejectedError {
  constructor(
    message: string,
    readonly index: number,
  ) {
    super(message)
  }
}

/**
 * The execution of a transaction of a block being built ran past the deadline (-32011 "Execution has got timeout
 * out.", docs/reference-rules.md#rule-send-deadline; `index` into the block's list). The block was not built and
 * the state is unchanged.
 */
export class PoolTimeoutError extends ExecutionTimeoutError {
  constructor(readonly index: number) {
    super()
  }
}

/** Why a transaction is left out of a block being built (and dropped from the pool). */
export type LeftOutError = PoolApplyError | PoolTimeoutError

/** Whether `err` is a {@link LeftOutError}. */
export function isLeftOut(err: unknown): err is LeftOutError {
  return err instanceof PoolApplyError || err instanceof PoolTimeoutError
}

/** A transaction to put in a block, with its sender (20 bytes). */
export interface BlockTx {
  tx: LegacyTx
  from: Uint8Array
}

/** A block built by {@link BlockBuilder.build}. */
export interface BuiltBlock {
  block: BlockRecord
  /** The outcomes in the order the transactions were given. */
  applied: AppliedTx[]
  /**
   * For a mined (committed) block: what the address index files for each of its transactions, in block order
   * (Remasc last; src/blocks/address-index.ts); undefined for a preview.
   */
  addresses: IndexedTx[] | undefined
}

/** The addresses each transaction of a committed block touched, in block order, as the address index takes them. */
function indexedTxs(applied: AppliedBlock): IndexedTx[] {
  const inBlock = [...applied.order.map((i) => applied.txs[i]!), applied.remasc]
  return inBlock.map((t) => {
    const a = t.addresses!
    return { from: a.touched[0]!, touched: a.touched, created: a.created }
  })
}

/** Called once a block's transactions have executed, before it is assembled (see Chain.submit). */
export type OnExecuted = (applied: AppliedBlock) => Promise<void>

/** Genesis header fields (from the network preset). */
export interface GenesisFields {
  timestamp: bigint
  extraData: Uint8Array
  gasLimit: bigint
  difficulty: bigint
  coinbase: Uint8Array
  minimumGasPrice: bigint
  /** Difficulty bytes as the genesis file has them. */
  difficultyBytes: Uint8Array
  /** The merged-mining fields of the genesis file (0x00 in every reference genesis). */
  bitcoinMergedMining: Uint8Array
}

/** What {@link BlockBuilder} needs from the chain. */
export interface BlockBuilderOptions {
  executor: Executor
  blocks: BlockStore
  common: Common
  /** extraData of built blocks. */
  extraData: Uint8Array
  /** Whether blocks go to a database (then the assembled encoding is kept for the storage to write as it is). */
  persistent: boolean
  /** Receives console.log output of mined transactions. */
  onConsole: (event: ConsoleLogEvent) => void
  /**
   * Deadline of each transaction's execution in a built block, in ms (0 = none; the chain's --rpc-timeout,
   * docs/reference-rules.md#rule-send-deadline).
   */
  executionTimeoutMs: number
  /**
   * A fork's header format by block number (the remote network's rules,
   * docs/reference-rules.md#rule-network-activations); absent: node-cli's own (src/rsk/block-encoding.ts
   * `toRskHeader`).
   */
  headerFormat?: (number: bigint) => HeaderFormat
}

/** Builds and assembles blocks on the head of the block store. */
export class BlockBuilder {
  /** Roots blocks ran on where they differ from the parent's (state changed in place in between; in memory only). */
  private readonly preStateRoots = new LRUCache<string, Uint8Array>({ max: 4096 })
  private pendingCache: { key: string; block: BlockRecord } | undefined
  /** This chain's RSKIP110 fork detection window (./fork-detection-window.ts): mined blocks and mining work read it. */
  readonly forkDetection = new ForkDetectionWindow()

  constructor(private readonly o: BlockBuilderOptions) {}

  /** The genesis block of `g` on the executor's current (genesis) state. */
  genesis(g: GenesisFields): BlockRecord {
    const header: HeaderFields = {
      parentHash: ZERO_HASH,
      unclesHash: EMPTY_UNCLES_HASH,
      coinbase: g.coinbase,
      stateRoot: this.o.executor.stateRoot,
      transactionsRoot: EMPTY_TRIE_ROOT,
      receiptsRoot: EMPTY_TRIE_ROOT,
      logsBloom: new Uint8Array(256),
      difficulty: g.difficulty,
      number: 0n,
      gasLimit: g.gasLimit,
      gasUsed: 0n,
      timestamp: g.timestamp,
      extraData: g.extraData,
      paidFees: 0n,
      minimumGasPrice: g.minimumGasPrice,
      uncleCount: 0,
      bitcoinMergedMiningHeader: g.bitcoinMergedMining,
      bitcoinMergedMiningMerkleProof: g.bitcoinMergedMining,
      bitcoinMergedMiningCoinbaseTransaction: g.bitcoinMergedMining,
      rawDifficulty: g.difficultyBytes,
      rawGasLimit: bigIntToBytes(g.gasLimit),
    }
    return this.assemble(header, [], g.difficulty)
  }

  /**
   * Executes `txs` in the context on the head and assembles the block; `commit` false previews it (the `pending`
   * block, a merged miner's work) and leaves the live state as it was.
   * @param mm merged-mining fields source of a mined block (default: the regtest miner)
   * @param onExecuted awaited between the execution and the assembly
   * @throws PoolApplyError when a transaction cannot be applied; PoolTimeoutError when its execution passed the
   *   deadline (docs/reference-rules.md#rule-send-deadline); nothing is built and the state is unchanged
   */
  async build(
    ctx: BlockContext,
    txs: BlockTx[],
    commit: boolean,
    mm?: MergedMiningSource,
    onExecuted?: OnExecuted,
  ): Promise<BuiltBlock> {
    const { executor, blocks, common } = this.o
    let applied
    const preRoot = executor.stateRoot
    try {
      applied = await executor.applyBlock(ctx, txs, { commit, timeoutMs: this.o.executionTimeoutMs })
    } catch (err) {
      if (err instanceof TxTimeoutError) throw new PoolTimeoutError(err.index)
      if (err instanceof TxApplyError) throw new PoolApplyError(normalizeApplyError(err.message), err.index)
      throw err
    }
    if (onExecuted) await onExecuted(applied)
    // consensus: block order (RSKIP144 sublists) with the Remasc transaction last
    const records: TxRecord[] = blockTransactions(ctx.number, txs, applied, common)
    const bloom = orBlooms(records.map((r) => r.receipt.logsBloom))
    const parent = blocks.head
    const header: HeaderFields = {
      parentHash: parent.hash,
      unclesHash: EMPTY_UNCLES_HASH,
      coinbase: ctx.coinbase,
      stateRoot: applied.stateRoot,
      transactionsRoot: transactionsTrieRoot(records.map((r) => r.tx.serialize())),
      receiptsRoot: receiptsTrieRoot(records.map((r) => r.receipt)),
      logsBloom: bloom,
      difficulty: ctx.difficulty,
      number: ctx.number,
      gasLimit: ctx.gasLimit,
      gasUsed: applied.gasUsed,
      timestamp: ctx.timestamp,
      extraData: this.o.extraData,
      paidFees: applied.paidFees,
      minimumGasPrice: ctx.minimumGasPrice,
      uncleCount: 0,
      bitcoinMergedMiningHeader: new Uint8Array(0),
      bitcoinMergedMiningMerkleProof: new Uint8Array(0),
      bitcoinMergedMiningCoinbaseTransaction: new Uint8Array(0),
      edges: applied.edges,
    }
    if (this.o.headerFormat !== undefined) header.format = this.o.headerFormat(ctx.number)
    // consensus: a mined block is merge-mined (the pending preview has no merged-mining fields)
    const hfmm = commit ? await mergeMine(header, this.forkDetection, (n) => blocks.byNumber(n), mm) : undefined
    const block = this.assemble(header, records, parent.totalDifficulty + ctx.difficulty, hfmm)
    // the tracers replay a block on the state it ran on: its parent's, unless changed in place in between
    if (commit && !bytesEqual(preRoot, parent.header.stateRoot)) this.preStateRoots.set(block.hashKey, preRoot)
    if (commit) {
      for (let i = 0; i < txs.length; i++) {
        const lines = applied.txs[i]!.consoleLogs
        if (lines !== undefined) this.o.onConsole({ source: 'transaction', hash: txs[i]!.tx.hash(), lines })
      }
    }
    return { block, applied: applied.txs, addresses: commit ? indexedTxs(applied) : undefined }
  }

  /**
   * Previews a block of pool transactions without committing; a transaction that cannot be applied, or whose
   * execution passed the deadline, is left out and the block built again without it.
   * @param onTimedOut receives a transaction left out for passing the deadline (the chain drops it from the pool,
   *   docs/reference-rules.md#rule-send-deadline)
   * @returns the block, the outcomes and the pool transactions it holds (in `picked` order)
   */
  async preview(
    ctx: BlockContext,
    picked: PoolTx[],
    onTimedOut?: (p: PoolTx, err: PoolTimeoutError) => void,
  ): Promise<{ block: BlockRecord; applied: AppliedTx[]; picked: PoolTx[] }> {
    for (;;) {
      try {
        const { block, applied } = await this.build(
          ctx,
          picked.map((p) => ({ tx: p.tx, from: p.from })),
          false,
        )
        return { block, applied, picked }
      } catch (err) {
        if (!isLeftOut(err)) throw err
        if (err instanceof PoolTimeoutError) onTimedOut?.(picked[err.index]!, err)
        picked = picked.filter((_, i) => i !== err.index)
      }
    }
  }

  /**
   * The `pending` block (docs/reference-rules.md#rule-pending-block), cached under `key` (the chain's
   * head, pool version and live state root): built by {@link preview} when the key changed.
   * @param pick the pool transactions for the next block, as mining would pick them
   * @param onTimedOut see {@link preview}
   */
  async pending(
    key: () => string,
    ctx: () => BlockContext,
    pick: (ctx: BlockContext) => Promise<PoolTx[]>,
    onTimedOut?: (p: PoolTx, err: PoolTimeoutError) => void,
  ): Promise<BlockRecord> {
    if (this.pendingCache?.key === key()) return this.pendingCache.block
    const c = ctx()
    const { block } = await this.preview(c, await pick(c), onTimedOut)
    // (the key after the build: dropping a timed-out transaction changed the pool)
    this.pendingCache = { key: key(), block }
    return block
  }

  /** Forgets the cached `pending` block (after a change its key does not cover: next-block overrides, state). */
  invalidatePending(): void {
    this.pendingCache = undefined
  }

  /** The state root `block`'s transactions ran on: its parent's, or the in-place-changed state they ran on. */
  async preStateRoot(block: BlockRecord): Promise<Uint8Array | undefined> {
    return (
      this.preStateRoots.get(block.hashKey) ??
      (await this.o.blocks.byNumber(block.header.number - 1n))?.header.stateRoot
    )
  }

  /**
   * The in-place-changed state `block` ran on, when it was mined here and differs from its parent's; else undefined.
   */
  changedPreStateRoot(block: BlockRecord): Uint8Array | undefined {
    return this.preStateRoots.get(block.hashKey)
  }

  /** Hashes and encodes a header with its transactions into a block record. */
  private assemble(header: HeaderFields, txs: TxRecord[], totalDifficulty: bigint, hfmm?: Uint8Array): BlockRecord {
    const { hash, rlp, hashForMergedMining } = assembleHeader(
      header,
      txs.map((t) => t.tx.serialize()),
      hfmm,
    )
    return blockRecord({ header, hash, hashForMergedMining, rlp, totalDifficulty, transactions: txs })
  }
}

/** Maps @ethereumjs runTx rejection texts to the reference pool's messages. */
function normalizeApplyError(message: string): string {
  if (/nonce/i.test(message) && /too low|higher|lower/i.test(message)) return 'transaction nonce too low'
  if (/enough funds|insufficient/i.test(message)) return 'insufficient funds'
  if (/gas limit|gasLimit/i.test(message)) return "transaction's basic cost is above the gas limit"
  return message
}
