/**
 * EVM execution on @ethereumjs v10: applying blocks of transactions to the state, eth_call, eth_estimateGas
 * and state reads at any block's state root.
 *
 * Not safe for concurrent use: every method must run inside the chain's {@link SerialQueue}
 * (docs/architecture.md#single-writer), which is what {@link Chain} does.
 */
import { createBlock, type Block } from '@ethereumjs/block'
import type { Common, StateManagerInterface } from '@ethereumjs/common'
import { createLegacyTx, type LegacyTx } from '@ethereumjs/tx'
import { Account, Address, createAddressFromString } from '@ethereumjs/util'
import { createVM, type RunTxResult, type VM } from '@ethereumjs/vm'
import type { BlockRecord, LogRecord, ReceiptRecord } from '../types/records.js'
import { bytesEqual, padLeft, toKey } from '../util/bytes.js'
import { LRUCache } from 'lru-cache'
import { rskOpcodes } from './opcodes.js'
import { EstimateProbe, type EvmEvents } from './gas-estimation.js'
import { armDeadline, clockOf, setDeadline, startSlice } from './deadline.js'
import { CallPreconditionError, ExecutionTimeoutError, ForkRemoteError } from '../errors/domain-errors.js'
import { ExecutionHooks } from './hooks.js'
import {
  adoptVm,
  blockHashBlockchain,
  checkBlockShape,
  checkEthereumjs,
  deriveBlock,
  EthereumjsShapeError,
  installVmPatches,
  runAsSignedBy,
  runTxFromAnySender,
} from './ethereumjs/index.js'
import { UnitrieStateManager, type UnitrieStateManagerOpts } from '../state/unitrie-state-manager.js'
import type { ForkStateSource } from '../state/fork-source.js'
import type { TrieNodeStore } from '../rsk/unitrie.js'
// consensus (Remasc transaction, RSKIP144 sublists): see src/rsk/remasc.ts and ./parallel-sublists.ts
import { KeyTracker, SublistScheduler } from './parallel-sublists.js'
import {
  GENESIS_FEDERATORS,
  processMinersFees,
  REMASC_CONFIGS,
  REMASC_SENDER_KEY_BYTES,
  type ProcessingBlock,
} from '../rsk/remasc.js'
import { logsBloom, ZERO_BLOOM } from '../rsk/receipt-rlp.js'
import { applyStateOverride, type StateOverride } from './state-override.js'
import { ConsoleCapture } from './console-log.js'
import { nativePrecompiles, trackMessages } from './native/index.js'

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
  /** Gas limit; calls and estimates default to the cap, sends to 90 000 (docs/reference-rules.md#rule-send-defaults). */
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

/** Thrown by {@link Executor.applyBlock} when a transaction cannot be applied at all (invalid nonce, funds, …). */
export class TxApplyError extends Error {
  constructor(
    message: string,
    /** Index of the offending transaction in the batch. */
    readonly index: number,
  ) {
    super(message)
  }
}

/**
 * Thrown by {@link Executor.applyBlock} when a transaction's execution passed the deadline
 * (docs/reference-rules.md#rule-send-deadline): the block is not built and the state is unchanged.
 */
export class TxTimeoutError extends TxApplyError {}

/** The Remasc contract (fees of every block are credited to it; reference BlockExecutor.java). */
export const REMASC_ADDRESS = createAddressFromString('0x0000000000000000000000000000000001000008')

/** An outcome for a transaction left out of the block (no sublist had room for it). */
function skippedTx(): AppliedTx {
  return {
    receipt: { status: 0, cumulativeGasUsed: 0n, gasUsed: 0n, logs: [], logsBloom: ZERO_BLOOM },
    returnValue: new Uint8Array(0),
    fee: 0n,
    skipped: true,
  }
}

const REMASC_HEX = '0000000000000000000000000000000001000008'

/** Options for {@link Executor.create}. */
export interface ExecutorOptions {
  common: Common
  /** Genesis allocation: 20-byte hex address (0x…) → balance in wei. */
  alloc: Record<string, bigint>
  /** Network (30-33): which precompile accounts the genesis state holds (reference GenesisLoaderImpl). */
  network: 30 | 31 | 32 | 33
  /** BLOCKHASH source. */
  blockHash: BlockHashLookup
  /** Canonical block `n` for the Remasc contract (hash, coinbase, paidFees of block N − maturity). */
  processingBlock?: (number: bigint) => Promise<ProcessingBlock | undefined>
  /** Node store of the state (the chain's database when persistent, src/chain/storage.ts). */
  store?: TrieNodeStore
  /** Canonical block `n` for the native contracts (BlockHeader reads recent headers; src/execution/native/). */
  canonicalBlock?: (number: bigint) => Promise<BlockRecord | undefined>
  /**
   * Fork mode (docs/architecture.md#forking): the state starts as the empty local trie over this remote state,
   * and `alloc` sets those accounts' balances over the remote ones (no genesis precompile accounts).
   */
  fork?: ForkStateSource
}

/** A fork's state manager: the remote state with `alloc`'s balances set over it (the remote nonce and code stay). */
async function forkedState(alloc: Record<string, bigint>, opts: UnitrieStateManagerOpts): Promise<UnitrieStateManager> {
  const sm = new UnitrieStateManager(opts)
  const entries = Object.entries(alloc)
  // fetched together: one round trip to the remote instead of one per account
  await Promise.all(entries.map(([a]) => sm.getAccount(createAddressFromString(a))))
  for (const [a, balance] of entries) await sm.modifyAccountFields(createAddressFromString(a), { balance })
  await sm.getStateRoot()
  return sm
}

/** Spare VMs kept for executions away from the live state (see Executor.vmAt): `pending` and one older block. */
const SPARE_VMS = 2

/** Contracts whose callers go to the sequential sublist (RskSystemProperties.concurrentContractsDisallowed): Remasc, Bridge. */
const SEQUENTIAL_ONLY_CONTRACTS = new Set([
  '0000000000000000000000000000000001000008',
  '0000000000000000000000000000000001000006',
])

/**
 * Owns the VM and the state manager.
 */
export class Executor {
  private minimumGasPrice = 0n
  /** State managers positioned at recent historical roots (tools read the same old block repeatedly). */
  private readonly historical = new LRUCache<string, UnitrieStateManager>({ max: 8 })
  /** The COINBASE of the block being executed (the EVM's own block coinbase is the Remasc contract). */
  private coinbase: Uint8Array = new Uint8Array(20)
  /** Set when the running transaction calls the Remasc or Bridge contract. */
  private calledSequentialOnly = false
  private network: 30 | 31 | 32 | 33 = 33
  private processingBlock: (number: bigint) => Promise<ProcessingBlock | undefined> = () => Promise.resolve(undefined)
  private keyTracker: KeyTracker | undefined
  /** Whether Solidity console.log calls are decoded (the CLI's --no-console-log turns it off). */
  consoleLog = true
  /** console.log lines of the execution under way. */
  readonly console = new ConsoleCapture(() => this.consoleLog)
  /** Number of the block the current run executes in (set with its context; read by the native contracts). */
  private executionNumber = 0n
  /** Whether the current run is eth_call/eth_estimateGas (native methods may be restricted to local calls). */
  private localCall = false

  private constructor(
    readonly common: Common,
    readonly vm: VM,
    readonly stateManager: UnitrieStateManager,
    /** The root of the committed state the live state manager is at. */
    private root: Uint8Array,
    /** The observers of this node's frame opcodes (estimates, call-tree tracers; ./hooks.ts). */
    readonly hooks: ExecutionHooks,
    /** The one real @ethereumjs block context blocks are derived from (see contextBlock). */
    private readonly baseContext: Block,
  ) {}

  /**
   * Builds the VM and the genesis state.
   * @returns the executor, whose {@link stateRoot} is the genesis state root
   */
  static async create(opts: ExecutorOptions): Promise<Executor> {
    const { common } = opts
    // fail loudly, before anything runs, when @ethereumjs lacks what the node relies on (./ethereumjs/)
    checkEthereumjs(common)
    // The reference's state layout: genesis accounts plus the precompile accounts and storage markers
    const stateManager = opts.fork
      ? await forkedState(opts.alloc, { common, store: opts.store, fork: opts.fork })
      : UnitrieStateManager.fromGenesis(opts.alloc, opts.network, { common, store: opts.store })
    let executor: Executor | undefined
    const hooks = new ExecutionHooks()
    const vm = await createVM({
      common,
      stateManager,
      blockchain: blockHashBlockchain(opts.blockHash),
      evmOpts: {
        customOpcodes: rskOpcodes(
          () => executor?.minimumGasPrice ?? 0n,
          () => executor?.coinbase ?? new Uint8Array(20),
          hooks,
        ),
        // the native contracts (BlockHeader, Environment, …; reference PrecompiledContracts.java)
        customPrecompiles: nativePrecompiles(
          {
            executionBlockNumber: () => executor?.executionNumber ?? 0n,
            canonicalBlock: async (n) => opts.canonicalBlock?.(n),
            isLocalCall: () => executor?.localCall ?? false,
          },
          common,
        ) as never,
      },
    })
    trackMessages(vm.evm)
    // the reference's account rules, the faster opcode loop and the EVM's clock (./ethereumjs/index.ts)
    await installVmPatches(vm, clockOf(vm.evm))
    // One real @ethereumjs block; each block context is a thin object over it (see contextBlock). Fees go to
    // the Remasc contract (reference BlockExecutor); COINBASE is answered from the context's coinbase.
    const baseContext = createBlock(
      { header: { coinbase: REMASC_ADDRESS } },
      { common, skipConsensusFormatValidation: true, freeze: false },
    )
    checkBlockShape(baseContext)
    const root = await stateManager.getStateRoot()
    executor = new Executor(common, vm, stateManager, root, hooks, baseContext)
    executor.network = opts.network
    if (opts.processingBlock) executor.processingBlock = opts.processingBlock
    const ex = executor
    ex.console.install(vm.evm.events as never)
    vm.evm.events?.on('beforeMessage', (m: { to?: Address; codeAddress?: Address }) => {
      // (Message.codeAddress throws for creations, which have no `to`)
      const a = m.to === undefined ? undefined : m.codeAddress
      if (a !== undefined && SEQUENTIAL_ONLY_CONTRACTS.has(Buffer.from(a.bytes).toString('hex')))
        ex.calledSequentialOnly = true
    })
    return executor
  }

  /** Root of the latest committed state. */
  get stateRoot(): Uint8Array {
    return this.root
  }

  /** A header-only @ethereumjs block for the EVM's block context. */
  private contextBlock(ctx: BlockContext): Block {
    this.minimumGasPrice = ctx.minimumGasPrice
    this.coinbase = ctx.coinbase
    this.executionNumber = ctx.number
    // Calls and estimates at the same block reuse one context block (building it costs more than a simple call).
    const key = `${ctx.number}:${ctx.timestamp}:${ctx.gasLimit}:${ctx.difficulty}`
    if (this.lastContext?.key === key) return this.lastContext.block
    // Each context is a thin object over one real @ethereumjs block with its own number, timestamp, gas limit
    // and difficulty (createBlock costs ~2% of an automined transfer: Common copy, header validation).
    const block = deriveBlock(this.baseContext, ctx)
    this.lastContext = { key, block }
    return block
  }

  private lastContext: { key: string; block: Block } | undefined

  /**
   * Applies transactions in order on top of the latest state and commits (one block's worth).
   * Transaction fees go to the Remasc contract, not the coinbase (reference BlockExecutor.java).
   * @param ctx the block context
   * @param txs transactions with their senders; each must be valid against the state (nonce, funds)
   * @param opts.commit false to preview (the `pending` block): the state is left unchanged, the returned root
   *   stays readable through {@link stateAt}
   * @param opts.timeoutMs deadline of each transaction's execution in ms (0 or absent = none; ./deadline.ts)
   * @throws TxApplyError when a transaction cannot be applied; TxTimeoutError (a TxApplyError) when one ran past
   *   `timeoutMs` (docs/reference-rules.md#rule-send-deadline); the state is then unchanged
   */
  async applyBlock(
    ctx: BlockContext,
    txs: PendingExecution[],
    opts: { commit?: boolean; timeoutMs?: number } = {},
  ): Promise<AppliedBlock> {
    startSlice(this.vm.evm) // a block's executions yield the thread only when they run longer than a slice (./deadline.ts)
    const commit = opts.commit ?? true
    const timeoutMs = opts.timeoutMs ?? 0
    const sm = this.stateManager
    const evm = this.vm.evm
    // an execution stopped at its deadline leaves the EVM's nested checkpoints open: unwind to here
    const depth = sm.checkpointDepth
    const block = this.contextBlock(ctx)
    this.localCall = false
    const applied: AppliedTx[] = []
    let gasUsed = 0n
    let paidFees = 0n
    // consensus: RSKIP144 sublists (placement needs the state keys each transaction touched when there are
    // several transactions; a lone one only needs its gas and the contracts it called)
    const scheduler = new SublistScheduler(ctx.gasLimit, this.network === 33 ? 6_800_000n : 10_000_000n)
    const tracker = txs.length > 1 ? (this.keyTracker ??= new KeyTracker(sm, REMASC_HEX)) : undefined
    const none = new Set<string>()
    await sm.checkpoint()
    try {
      tracker?.install()
      for (let i = 0; i < txs.length; i++) {
        const { tx, from } = txs[i]!
        // TransactionExecutor.gasIsValid while mining: gas limit + sequential gas used ≤ max(sublist limits)
        if (tx.gasLimit + scheduler.sequentialGasUsed > scheduler.maxSublistGas) {
          applied.push(skippedTx())
          continue
        }
        // a transaction may only be left out when the sequential sublist is full: undo it then
        const mayLeaveOut = !scheduler.sequentialHasRoom(tx.gasLimit)
        if (mayLeaveOut) await sm.checkpoint()
        tracker?.reset()
        this.calledSequentialOnly = false
        let result: RunTxResult
        this.console.take()
        if (timeoutMs > 0) armDeadline(evm, timeoutMs)
        try {
          // no EIP-3607 on this chain: impersonated contracts may send
          result = await runTxFromAnySender(this.vm, sm, new Address(from), {
            tx,
            block,
            blockGasUsed: gasUsed,
            skipHardForkValidation: true,
            skipBlockGasLimitValidation: true,
          })
        } catch (err) {
          // the whole block is undone below (the EVM's open checkpoints included)
          if (err instanceof ExecutionTimeoutError) throw new TxTimeoutError(err.message, i)
          if (mayLeaveOut) await sm.revert()
          // a fork's remote failed: not the transaction's fault (docs/architecture.md#forking)
          if (err instanceof ForkRemoteError) throw err
          if (err instanceof EthereumjsShapeError) throw err // not the transaction's fault: never drop it for this
          throw new TxApplyError(cleanVmMessage(err), i)
        }
        const sublistGas = scheduler.add(
          i,
          from,
          tx.gasLimit,
          result.totalGasSpent,
          tracker?.reads ?? none,
          tracker?.writes ?? none,
          this.calledSequentialOnly ||
            (tx.to !== undefined && SEQUENTIAL_ONLY_CONTRACTS.has(Buffer.from(tx.to.bytes).toString('hex'))),
        )
        if (sublistGas === undefined) {
          if (!mayLeaveOut) throw new Error('sublist placement failed with room in the sequential sublist')
          await sm.revert()
          applied.push(skippedTx())
          continue
        }
        if (mayLeaveOut) await sm.commit()
        gasUsed += result.totalGasSpent
        const fee = result.totalGasSpent * tx.gasPrice
        paidFees += fee
        const failed = result.execResult.exceptionError !== undefined
        const logs: LogRecord[] = (result.execResult.logs ?? []).map(([address, topics, data]) => ({
          address,
          topics,
          data,
          logIndex: 0,
        }))
        applied.push({
          receipt: {
            status: failed ? 0 : 1,
            cumulativeGasUsed: sublistGas,
            gasUsed: result.totalGasSpent,
            logs,
            // (blooms are read-only: a transaction without logs shares the empty one)
            logsBloom: logs.length === 0 ? ZERO_BLOOM : result.bloom.bitvector,
            contractAddress: failed ? undefined : result.createdAddress?.bytes,
          },
          returnValue: result.execResult.returnValue,
          error: result.execResult.exceptionError?.error,
          fee,
          consoleLogs: this.console.take(),
        })
      }
      tracker?.uninstall()
      const remasc = await this.executeRemasc(ctx, scheduler.addRemasc(txs.length))
      const order = scheduler.order().filter((i) => i < txs.length)
      // log indexes count across the block in block order (BlockExecutor.updateReceipts), Remasc last
      let logIndex = 0
      for (const i of order) for (const l of applied[i]!.receipt.logs) l.logIndex = logIndex++
      for (const l of remasc.receipt.logs) l.logIndex = logIndex++
      const out = { gasUsed, paidFees, txs: applied, order, edges: scheduler.edges(), remasc }
      if (!commit) {
        // A preview (the `pending` block): register the root of the uncommitted view so it stays readable
        // through stateAt (reads, calls and estimates at `pending`), then undo the level.
        const previewRoot = sm.registerCurrentView()
        await sm.revert()
        sm.clearCaches()
        return { stateRoot: previewRoot, ...out }
      }
      await sm.commit()
      this.root = await sm.getStateRoot()
      return { stateRoot: this.root, ...out }
    } catch (err) {
      tracker?.uninstall()
      evm.journal.cleanJournal()
      await unwindTo(this.vm, depth)
      sm.clearCaches()
      throw err
    } finally {
      if (timeoutMs > 0) armDeadline(evm, 0)
    }
  }

  /**
   * The Remasc transaction at the end of a block (reference RemascTransaction executed by
   * TransactionExecutor): the special sender's nonce goes up by one, then Remasc.processMinersFees runs.
   * Inside applyBlock's checkpoint. @param cumulativeGas the sequential sublist's gas (its receipt's)
   */
  private async executeRemasc(ctx: BlockContext, cumulativeGas: bigint): Promise<AppliedTx> {
    const sm = this.stateManager
    const sender = REMASC_SENDER_KEY_BYTES as unknown as Address
    const acct = (await sm.getAccount(sender)) ?? new Account()
    await sm.putAccount(sender, new Account(acct.nonce + 1n, acct.balance))
    const remasc = REMASC_ADDRESS
    const logs = await processMinersFees(
      {
        getStorageBytes: (key) => sm.getStorageBytes(remasc, key),
        putStorageBytes: (key, value) => sm.putStorageBytes(remasc, key, value),
        addBalance: async (address, delta) => {
          const a = new Address(address)
          const cur = await sm.getAccount(a)
          if (cur === undefined || delta !== 0n)
            await sm.putAccount(a, new Account(cur?.nonce ?? 0n, (cur?.balance ?? 0n) + delta))
        },
      },
      {
        blockNumber: ctx.number,
        minimumGasPrice: ctx.minimumGasPrice,
        config: REMASC_CONFIGS[this.network],
        federators: GENESIS_FEDERATORS[this.network],
        processing: this.processingBlock,
      },
    )
    return {
      receipt: {
        status: 1,
        cumulativeGasUsed: cumulativeGas,
        gasUsed: 0n,
        logs: logs.map((l) => ({ ...l, logIndex: 0 })),
        logsBloom: this.remascBloom(logs),
      },
      returnValue: new Uint8Array(0),
      fee: 0n,
    }
  }

  /** Blooms of Remasc payment logs by payees (the bloom covers addresses and topics only, which repeat). */
  private readonly remascBlooms = new Map<string, Uint8Array>()
  private remascBloom(logs: Parameters<typeof logsBloom>[0]): Uint8Array {
    const key = logs.map((l) => Buffer.from(l.topics[1]!).toString('hex')).join()
    let bloom = this.remascBlooms.get(key)
    if (bloom === undefined) {
      bloom = logs.length === 0 ? ZERO_BLOOM : logsBloom(logs)
      if (this.remascBlooms.size > 64) this.remascBlooms.clear()
      this.remascBlooms.set(key, bloom)
    }
    // shared: receipt blooms are read-only
    return bloom
  }

  /**
   * Applies an out-of-transaction state change to the live state and commits it.
   * @param change receives the live state manager inside a checkpoint
   * @returns the new state root
   */
  async modify(change: (sm: UnitrieStateManager) => Promise<void>): Promise<Uint8Array> {
    const sm = this.stateManager
    await sm.checkpoint()
    try {
      await change(sm)
      await sm.commit()
    } catch (err) {
      await sm.revert()
      sm.clearCaches()
      throw err
    }
    this.root = await sm.getStateRoot()
    return this.root
  }

  /**
   * Makes `root` the live state again (after a snapshot revert or reset). Clears caches.
   * @param root a state root produced earlier by this executor
   */
  async resetTo(root: Uint8Array): Promise<void> {
    await this.stateManager.setStateRoot(root)
    this.stateManager.clearCaches()
    this.root = root
  }

  /**
   * A state manager positioned at `root` for reads; the live one when `root` is the latest.
   * Historical managers are cached per root (a few), since tools read the same old block repeatedly.
   */
  async stateAt(root: Uint8Array): Promise<UnitrieStateManager> {
    if (bytesEqual(root, this.root)) return this.stateManager
    const key = toKey(root)
    let sm = this.historical.get(key)
    if (sm === undefined) {
      // a root no longer in memory may still be in the chain's database (--db)
      if (this.stateManager.db.lookup(root) === undefined) await this.stateManager.db.load(root)
      sm = this.stateManager.shallowCopy()
      await sm.setStateRoot(root)
      this.historical.set(key, sm)
    }
    return sm
  }

  /** Balance (wei), nonce and code of an account at `root`; zeros/empty for a missing account. */
  async getAccount(
    address: Uint8Array,
    root: Uint8Array,
  ): Promise<{ balance: bigint; nonce: bigint; exists: boolean }> {
    const sm = await this.stateAt(root)
    const acct = await sm.getAccount(new Address(address))
    return { balance: acct?.balance ?? 0n, nonce: acct?.nonce ?? 0n, exists: acct !== undefined }
  }

  /** Contract code at `root` (empty for an EOA or a missing account). */
  async getCode(address: Uint8Array, root: Uint8Array): Promise<Uint8Array> {
    const sm = await this.stateAt(root)
    return sm.getCode(new Address(address))
  }

  /** Storage word (32 bytes, zero-padded) at `slot` (32 bytes) of `address` at `root`. */
  async getStorage(address: Uint8Array, slot: Uint8Array, root: Uint8Array): Promise<Uint8Array> {
    const sm = await this.stateAt(root)
    const addr = new Address(address)
    if ((await sm.getAccount(addr)) === undefined) return new Uint8Array(32)
    return padLeft(await sm.getStorage(addr, slot), 32)
  }

  /**
   * Runs a message call without committing anything (eth_call). The caller's nonce is untouched.
   * @param req call fields; `gas` defaults to `gasCap`
   * @param ctx block context (the block the call runs "in")
   * @param root state to run against
   * @param gasCap maximum gas (reference rpc.callGasCap = 10 000 000)
   * @param timeoutMs deadline of the execution in ms (0 = none; see ./deadline.ts)
   * @param overrides account overrides applied for this call only (./state-override.ts)
   * @throws CallPreconditionError when the sender cannot pay `value`; ExecutionTimeoutError (-32011) past the
   *   deadline, with every change undone
   */
  async call(
    req: CallRequest,
    ctx: BlockContext,
    root: Uint8Array,
    gasCap: bigint,
    timeoutMs = 0,
    overrides?: StateOverride,
  ): Promise<CallResult> {
    const gasLimit = req.gas !== undefined && req.gas < gasCap ? req.gas : gasCap
    if (req.to === undefined) return this.simulate(req, ctx, root, gasLimit, timeoutMs, overrides)
    return this.message(req, ctx, root, gasLimit, timeoutMs, overrides)
  }

  /**
   * The VM for `root`, for a caller that runs its own traced execution (src/execution/tracers): inside the chain's queue.
   */
  async vmFor(root: Uint8Array): Promise<VM> {
    return this.vmAt(root)
  }

  /** The @ethereumjs context block for `ctx` (also sets the COINBASE/BASEFEE the custom opcodes answer). */
  blockFor(ctx: BlockContext): Block {
    return this.contextBlock(ctx)
  }

  /**
   * eth_call of an existing address as a bare message (evm.runCall): the same execution as {@link simulate}
   * minus the transaction bookkeeping (receipt, bloom, sender account updates) an eth_call does not report.
   * Intrinsic gas is charged up front so the gas available to the code is the same. Reverts all changes.
   * `gasUsed` is before refunds (an eth_call does not report them).
   * @throws CallPreconditionError when the sender cannot pay `value`
   */
  private async message(
    req: CallRequest,
    ctx: BlockContext,
    root: Uint8Array,
    gasLimit: bigint,
    timeoutMs: number,
    overrides?: StateOverride,
  ): Promise<CallResult> {
    const vm = await this.vmAt(root)
    const sm = vm.stateManager
    const block = this.contextBlock(ctx)
    this.localCall = true
    const caller = new Address(req.from ?? new Uint8Array(20))
    const data = req.data ?? new Uint8Array(0)
    let intrinsic = this.common.param('txGas')
    const zero = this.common.param('txDataZeroGas')
    const nonZero = this.common.param('txDataNonZeroGas')
    for (let i = 0; i < data.length; i++) intrinsic += data[i] === 0 ? zero : nonZero
    if (intrinsic > gasLimit) return { returnValue: new Uint8Array(0), gasUsed: gasLimit, error: 'out of gas' }
    const value = req.value ?? 0n
    const depth = (sm as UnitrieStateManager).checkpointDepth
    await sm.checkpoint()
    setDeadline(vm.evm, timeoutMs)
    try {
      if (overrides !== undefined && overrides.length > 0)
        await applyStateOverride(sm as UnitrieStateManager, overrides)
      await requireValueCovered(sm, caller, value)
      this.console.take()
      const r = await vm.evm.runCall({
        caller,
        origin: caller,
        to: new Address(req.to!),
        data,
        value,
        gasLimit: gasLimit - intrinsic,
        gasPrice: req.gasPrice ?? 0n,
        block,
        skipBalance: true,
      })
      const e = r.execResult
      const gasUsed = intrinsic + e.executionGasUsed
      return {
        returnValue: e.returnValue,
        gasUsed,
        gasBeforeRefunds: gasUsed,
        error: e.exceptionError?.error,
        consoleLogs: this.console.take(),
      }
    } finally {
      setDeadline(vm.evm, 0)
      // runTx ends with this; a bare runCall does not, and the journal would keep every call's diff
      await vm.evm.journal.cleanup()
      await unwindTo(vm, depth)
    }
  }

  /**
   * Simulates the call as a transaction (intrinsic gas, refunds) with the given gas limit, reverting all changes.
   */
  private async simulate(
    req: CallRequest,
    ctx: BlockContext,
    root: Uint8Array,
    gasLimit: bigint,
    timeoutMs: number,
    overrides?: StateOverride,
  ): Promise<CallResult> {
    const vm = await this.vmAt(root)
    const sm = vm.stateManager
    const block = this.contextBlock(ctx)
    this.localCall = true
    const from = new Address(req.from ?? new Uint8Array(20))
    if (overrides !== undefined && overrides.length > 0) {
      await sm.checkpoint()
      try {
        await applyStateOverride(sm as UnitrieStateManager, overrides)
        return await this.simulate(req, ctx, root, gasLimit, timeoutMs)
      } finally {
        await sm.revert()
      }
    }
    const tx = createLegacyTx(
      {
        nonce: (await sm.getAccount(from))?.nonce ?? 0n,
        gasPrice: req.gasPrice ?? 0n,
        gasLimit,
        to: req.to,
        value: req.value ?? 0n,
        data: req.data ?? new Uint8Array(0),
      },
      { common: this.common, freeze: false },
    )
    runAsSignedBy(tx, from)
    const intrinsic = tx.getIntrinsicGas()
    if (intrinsic > gasLimit) {
      return { returnValue: new Uint8Array(0), gasUsed: gasLimit, error: 'out of gas' }
    }
    await requireValueCovered(sm, from, tx.value)
    const usm = sm as UnitrieStateManager
    const depth = usm.checkpointDepth
    await sm.checkpoint()
    setDeadline(vm.evm, timeoutMs)
    this.console.take()
    try {
      // no EIP-3607 on this chain: calls and estimates `from` a contract work
      const result = await runTxFromAnySender(vm, usm, from, {
        tx,
        block,
        skipNonce: true,
        skipBalance: true,
        skipHardForkValidation: true,
        skipBlockGasLimitValidation: true,
      })
      return {
        returnValue: result.execResult.returnValue,
        gasUsed: result.totalGasSpent,
        gasBeforeRefunds: intrinsic + result.execResult.executionGasUsed,
        error: result.execResult.exceptionError?.error,
        createdAddress: result.createdAddress?.bytes,
        consoleLogs: this.console.take(),
      }
    } catch (err) {
      if (err instanceof ExecutionTimeoutError || err instanceof EthereumjsShapeError) throw err
      const msg = cleanVmMessage(err)
      if (/enough funds|insufficient/i.test(msg)) throw new CallPreconditionError('insufficient funds for transfer')
      throw new CallPreconditionError(msg)
    } finally {
      setDeadline(vm.evm, 0)
      vm.evm.journal.cleanJournal()
      await unwindTo(vm, depth)
    }
  }

  /**
   * Spare VMs for executions at roots other than the live one (calls and estimates at `pending`, the default
   * block of eth_estimateGas, or at old blocks), least recently used first. A spare is re-pointed to the root
   * it is needed at instead of a VM being copied per root: `pending` changes with every block, and a VM copy per
   * block (EVM, opcode tables, Common) kept for a few blocks was both slow and the main source of old-generation
   * garbage under a mixed load (V8 kept ~3.5× the live heap as fragmented old space; docs/architecture.md#performance-rules).
   */
  private readonly spareVms: { vm: VM; root: Uint8Array }[] = []

  /** The VM to execute at `root`: the live one for the latest state, else a spare positioned at that root. */
  private async vmAt(root: Uint8Array): Promise<VM> {
    if (bytesEqual(root, this.root)) return this.vm
    const found = this.spareVms.findIndex((s) => bytesEqual(s.root, root))
    let spare: { vm: VM; root: Uint8Array }
    if (found >= 0) {
      spare = this.spareVms.splice(found, 1)[0]!
    } else if (this.spareVms.length < SPARE_VMS) {
      const vm = await this.vm.shallowCopy(false)
      adoptVm(vm, clockOf(vm.evm))
      this.console.install(vm.evm.events as never)
      trackMessages(vm.evm)
      await vm.stateManager.setStateRoot(root)
      spare = { vm, root }
    } else {
      spare = this.spareVms.shift()!
      await spare.vm.stateManager.setStateRoot(root)
      spare.root = root
    }
    this.spareVms.push(spare)
    return spare.vm
  }

  /**
   * eth_estimateGas the reference's way: one run at min(request gas, `cap`), the answer taken from its peak gas
   * consumption (see ./gas-estimation.ts for the rule and its rskj sources).
   * @param cap the estimation cap (gas; reference rpc.gasEstimationCap)
   * @returns the estimate (gas), or the failed result (the caller turns it into -32015 / -32000)
   * @throws CallPreconditionError when the sender cannot cover the value (-32000 at the RPC)
   */
  async estimateGas(
    req: CallRequest,
    ctx: BlockContext,
    root: Uint8Array,
    cap: bigint,
    timeoutMs = 0,
    overrides?: StateOverride,
  ): Promise<{ gas: bigint; consoleLogs?: string[] } | { failure: CallResult }> {
    const limit = req.gas !== undefined && req.gas < cap ? req.gas : cap
    const probe = new EstimateProbe(limit)
    // the VM simulate/message run on (vmAt answers the same VM for the same root)
    const events = (await this.vmAt(root)).evm.events as unknown as EvmEvents
    probe.attach(events, this.hooks)
    let run: CallResult
    try {
      // a call runs as a bare message (as eth_call): the estimate needs no refunds, receipt or nonce bookkeeping
      run =
        req.to === undefined
          ? await this.simulate(req, ctx, root, limit, timeoutMs, overrides)
          : await this.message(req, ctx, root, limit, timeoutMs, overrides)
    } finally {
      probe.detach(events, this.hooks)
    }
    if (run.error !== undefined) return { failure: run }
    return { gas: probe.estimate(run.gasBeforeRefunds ?? run.gasUsed, cap), consoleLogs: run.consoleLogs }
  }
}

/**
 * Reverts the state manager to checkpoint depth `depth` (one revert per level): after a completed run that is one
 * level; after an execution stopped midway (a deadline), the EVM's own nested checkpoints were never closed.
 * Transient storage (EIP-1153) is emptied, as at the end of any top-level message.
 */
async function unwindTo(vm: VM, depth: number): Promise<void> {
  const sm = vm.stateManager as UnitrieStateManager
  while (sm.checkpointDepth > depth) await sm.revert()
  ;(vm.evm as { transientStorage?: { clear(): void } }).transientStorage?.clear()
}

/**
 * Calls and estimates run as local calls without charging gas up front (the reference's TransactionExecutor
 * skips its balance check for them), so only the transferred value must be covered by the sender.
 * @throws CallPreconditionError "insufficient funds for transfer"
 */
async function requireValueCovered(sm: StateManagerInterface, from: Address, value: bigint): Promise<void> {
  if (value > 0n && ((await sm.getAccount(from))?.balance ?? 0n) < value) {
    throw new CallPreconditionError('insufficient funds for transfer')
  }
}

/** Strips @ethereumjs's debug postfix (" (tx type=0 hash=… )") and block context from an error message. */
export function cleanVmMessage(err: unknown): string {
  const msg = err instanceof Error ? err.message : String(err)
  return msg.replace(/\s*\(?-?\s*(tx type|block number|hf=|Block:).*$/s, '').trim()
}
