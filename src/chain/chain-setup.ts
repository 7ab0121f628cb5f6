/**
 * Assembling a chain (src/chain/chain.ts, {@link Chain.create}): the executor with the chain's block lookups
 * (below a fork block they read the remote's blocks), the parts the chain sequences, and the start — the genesis
 * or fork block, or the `--db` chain continued (src/chain/chain-restore.ts) — with the state history kept.
 */
import { Executor, type BlockContext, type ExecutionRules } from '../execution/executor.js'
import { CONSENSUS_RULES } from '../rsk/activations.js'
import type { BlockRecord } from '../types/records.js'
import { BlockBuilder, type BlockTx, type OnExecuted } from './mining/block-builder.js'
import { LevelBlockBackend } from '../db/level-block-backend.js'
import { MemoryBlockBackend } from '../blocks/memory-block-backend.js'
import { BlockStore } from '../blocks/block-store.js'
import { DEFAULT_STATE_HISTORY, type ChainOptions } from './chain-options.js'
import { restoreChain } from './chain-restore.js'
import { DevState } from './dev/dev-state.js'
import { LiveState } from './live-state.js'
import { AddressHistory } from './address-history.js'
import { LogIndex } from '../blocks/log-index.js'
import { StateQueries } from './queries/state-queries.js'
import { TxSubmission, type MinedBlock } from './mining/tx-submission.js'
import { REFERENCE_OUTDATED_RULE } from '../txpool/pool.js'
import type { SerialQueue } from '../util/serial-queue.js'

/**
 * Creates the chain's executor over `opts.alloc` (or the `--db` trie store, or the fork's remote state).
 * @param blocks the chain's block store once it exists (the executor's BLOCKHASH and Remasc lookups read it)
 * @throws Error when a fork is given with a database (a fork keeps no `--db`)
 */
export async function createChainExecutor(opts: ChainOptions, blocks: () => BlockStore | undefined): Promise<Executor> {
  const fork = opts.fork
  if (fork && opts.storage) throw new Error('a fork keeps no database (--db)')
  // below a fork block, BLOCKHASH and the Remasc contract read the remote's blocks
  const base = fork?.block.header.number ?? 0n
  return Executor.create({
    common: opts.common,
    alloc: opts.alloc,
    network: opts.network,
    blockHash: async (n) => (n < base ? fork!.hashOf(n) : blocks()?.hashOf(n)),
    processingBlock: async (n) => {
      if (n < base) return fork!.processingBlock(n)
      const b = await blocks()?.byNumber(n)
      return b && { hash: b.hash, coinbase: b.header.coinbase, paidFees: b.header.paidFees }
    },
    canonicalBlock: async (n) => (n < base ? fork!.remoteBlock(n) : blocks()?.byNumber(n)),
    store: opts.storage?.trieStore,
    fork: fork?.source,
    rules: fork && forkExecutionRules(fork.rules, base),
  })
}

/**
 * A fork's rules for the executor: those not active at `first` (the fork block, which calls at it run with) are
 * checked per block (docs/reference-rules.md#rule-network-activations).
 */
function forkExecutionRules(rules: NonNullable<ChainOptions['fork']>['rules'], first: bigint): ExecutionRules {
  return {
    isActive: (rule, block) => rules.isActive(rule, block),
    gated: new Set(CONSENSUS_RULES.filter((r) => !rules.isActive(r, first))),
  }
}

/** What the parts call back into the chain for (its queue, events, head and block mining). */
export interface ChainHost {
  queue: SerialQueue
  emit(event: string, ...args: unknown[]): void
  head(): BlockRecord
  nextContext(): BlockContext
  /** The pending block, inside the queue. */
  computePending(): Promise<BlockRecord>
  /** Mines one block of `txs` (builds, writes, appends); inside the queue. */
  mineWith(ctx: BlockContext, txs: BlockTx[], onExecuted?: OnExecuted): Promise<MinedBlock>
}

/** The parts a chain sequences (each described in src/chain/chain.ts), and its execution caps. */
export interface ChainParts {
  blocks: BlockStore
  /** Which transactions touched, sent or created what (Otterscan's address pages; ./address-history.ts). */
  history: AddressHistory
  /** Which blocks hold logs of which contracts and events (sparse log queries; src/blocks/log-index.ts). */
  logs: LogIndex
  dev: DevState
  builder: BlockBuilder
  submission: TxSubmission
  live: LiveState
  queries: StateQueries
  /** Fork mode: the local root of the fork block's state (what a reset goes back to). */
  forkRoot: Uint8Array | undefined
  /** eth_call gas cap (gas); default 10 000 000. */
  callGasCap: bigint
  /** eth_estimateGas cap (gas); default 6 800 000. */
  gasEstimationCap: bigint
  /** Execution deadline, milliseconds; default 5 000 (see ChainOptions.executionTimeoutMs). */
  executionTimeoutMs: number
}

/** Builds the parts of a chain over `executor` (no block yet: {@link startChain} adds the first). */
export function assembleParts(executor: Executor, opts: ChainOptions, host: ChainHost): ChainParts {
  const backend = opts.storage ? new LevelBlockBackend(opts.storage) : new MemoryBlockBackend()
  const headerRules = opts.fork && ((n: bigint) => opts.fork!.rules.headerRulesAt(n))
  const blocks = new BlockStore(opts.common, backend, opts.fork?.block.header.number ?? 0n, headerRules)
  const forkRoot = opts.fork ? executor.stateRoot : undefined
  const dev = new DevState({
    clock: opts.clock ?? Date.now,
    coinbase: opts.coinbase,
    targetGasLimit: opts.targetGasLimit,
    minGasPrice: opts.minGasPrice,
  })
  const callGasCap = opts.callGasCap ?? 10_000_000n
  const gasEstimationCap = opts.gasEstimationCap ?? 6_800_000n
  const executionTimeoutMs = opts.executionTimeoutMs ?? 5_000
  const onConsole = (event: unknown) => host.emit('console', event)
  const persistent = opts.storage !== undefined
  const builder = new BlockBuilder({
    executor,
    blocks,
    common: opts.common,
    extraData: opts.extraData,
    persistent,
    onConsole,
    executionTimeoutMs,
    headerFormat: headerRules,
  })
  const submission = new TxSubmission({
    queue: host.queue,
    executor,
    nextContext: () => host.nextContext(),
    mineWith: (ctx, txs, onExecuted) => host.mineWith(ctx, txs, onExecuted),
    persistent,
    emit: (event, ...args) => host.emit(event, ...args),
    headNumber: () => host.head().header.number,
    clock: opts.clock ?? Date.now,
    outdated: opts.poolOutdated === false ? undefined : (opts.poolOutdated ?? REFERENCE_OUTDATED_RULE),
  })
  const history = new AddressHistory(opts.storage)
  const logs = new LogIndex(Number(opts.fork?.block.header.number ?? 0n))
  const live = new LiveState(executor, { blocks, history, logs }, opts.common, opts.storage)
  const queries = new StateQueries({
    executor,
    head: () => host.head(),
    pendingBlock: () => host.computePending(),
    nextContext: () => host.nextContext(),
    onConsole,
    callGasCap,
    gasEstimationCap,
    executionTimeoutMs,
    fork: opts.fork && forkRoot && { block: opts.fork.block, root: forkRoot },
  })
  return {
    ...{ blocks, history, logs, dev, builder, submission, live, queries, forkRoot },
    ...{ callGasCap, gasEstimationCap, executionTimeoutMs },
  }
}

/**
 * Starts the chain: sets how many states are kept, then appends the genesis (or the fork block), or continues
 * the chain held by `opts.storage`.
 * @param append appends a block to the chain (emitting `block`)
 * @throws StorageMismatchError when the storage holds a chain of another genesis or chain id
 */
export async function startChain(
  opts: ChainOptions,
  executor: Executor,
  parts: Pick<ChainParts, 'blocks' | 'builder' | 'logs'>,
  append: (block: BlockRecord) => void,
): Promise<void> {
  const history = opts.pruneHistory ?? opts.stateHistory ?? DEFAULT_STATE_HISTORY
  // one committed root per block, plus a few in-place changes (pending previews are kept apart: registerPreview)
  executor.stateManager.db.maxRoots = history === 0 ? Number.POSITIVE_INFINITY : history + 16
  executor.stateManager.db.pin(executor.stateRoot)
  // --db: tries read their nodes from the database as they reach them (a restart loads no whole state; the
  // state held in memory stays bounded, src/chain/mining/block-commit.ts)
  opts.storage?.readNodesOnDemand()
  const genesis = opts.fork ? opts.fork.block : parts.builder.genesis(opts.genesis)
  // with --db: continue the stored chain (src/chain/chain-restore.ts), or start it
  const restored = opts.storage
    ? await restoreChain(opts.storage, genesis, {
        executor,
        blocks: parts.blocks,
        common: opts.common,
        network: opts.network,
      })
    : 'new'
  if (restored === 'new') append(genesis)
  // the log index covers the blocks mined from now on: a stored chain's are scanned (src/blocks/log-index.ts)
  else parts.logs.restartAt(Number(parts.blocks.head.header.number) + 1)
  // --prune-history: states past the kept ones are not read back from the database
  if (opts.pruneHistory !== undefined) executor.stateManager.db.loadRoot = undefined
}
