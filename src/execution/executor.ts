/**
 * EVM execution on @ethereumjs v10: the executor owns the VM and the state manager and answers state reads at any
 * block's state root. It builds the VM and the genesis (or forked) state, and hands block application
 * (./block-application.ts) and calls and estimates (./calls.ts) their shared run context (./run-context.ts).
 * The shapes it takes and answers are in ./execution-types.ts, its errors in ./tx-errors.ts (both re-exported).
 *
 * Not safe for concurrent use: every method must run inside the chain's {@link SerialQueue}
 * (docs/architecture.md#single-writer), which is what {@link Chain} does.
 */
import { createBlock, type Block } from '@ethereumjs/block'
import type { Common } from '@ethereumjs/common'
import { Address, createAddressFromString } from '@ethereumjs/util'
import { createVM, type VM } from '@ethereumjs/vm'
import type { BlockRecord } from '../types/records.js'
import { bytesEqual, padLeft, toKey } from '../util/bytes.js'
import { StorageCellTooLongError } from '../errors/domain-errors.js'
import { LRUCache } from 'lru-cache'
import { rskOpcodes } from './opcodes.js'
import { clockOf } from './deadline.js'
import { ExecutionHooks } from './hooks.js'
import {
  blockHashBlockchain,
  checkBlockShape,
  checkEthereumjs,
  gasRuleSwitch,
  installVmPatches,
  restoreGasRules,
} from './ethereumjs/index.js'
import { UnitrieStateManager, type UnitrieStateManagerOpts } from '../state/unitrie-state-manager.js'
import type { ForkStateSource } from '../state/fork-source.js'
import type { TrieNodeStore } from '../unitrie/unitrie.js'
import type { ProcessingBlock } from '../rsk/remasc.js'
import type { StateOverride } from './state-override.js'
import { ConsoleCapture } from './console-log.js'
import { nativePrecompiles, trackMessages } from './native/index.js'
import { gateOpcodes, gatePrecompiles, type ExecutionRules } from './rule-gates.js'
import type {
  AppliedBlock,
  BlockContext,
  BlockHashLookup,
  CallRequest,
  CallResult,
  PendingExecution,
} from './execution-types.js'
import { BlockApplier } from './block-application.js'
import { CallRunner } from './calls.js'
import { REMASC_ADDRESS, RunContext, SEQUENTIAL_ONLY_CONTRACTS } from './run-context.js'

export type {
  AppliedBlock,
  AppliedTx,
  BlockContext,
  BlockHashLookup,
  CallRequest,
  CallResult,
  PendingExecution,
} from './execution-types.js'
export { cleanVmMessage, TxApplyError, TxTimeoutError } from './tx-errors.js'
export { REMASC_ADDRESS } from './run-context.js'
export type { CreatedContract, TxAddresses } from './touched-addresses.js'
export type { ExecutionRules } from './rule-gates.js'

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
  /** Node store of the state (the chain's database when persistent, src/db/chain-storage.ts). */
  store?: TrieNodeStore
  /** Canonical block `n` for the native contracts (BlockHeader reads recent headers; src/execution/native/). */
  canonicalBlock?: (number: bigint) => Promise<BlockRecord | undefined>
  /**
   * Fork mode (docs/architecture.md#forking): the state starts as the empty local trie over this remote state,
   * and `alloc` sets those accounts' balances over the remote ones (no genesis precompile accounts).
   */
  fork?: ForkStateSource
  /**
   * The consensus rules by block when they are not node-cli's own (a fork of network 30 or 31,
   * docs/reference-rules.md#rule-network-activations): gated opcodes and precompiles, RSKIP144 sublists.
   */
  rules?: ExecutionRules
}

/**
 * A fork's state manager: the remote state with `alloc`'s balances set over it (the remote nonce and code stay),
 * and the promise of those balances being set: the accounts are fetched from the remote meanwhile, and the caller
 * builds the VM before it waits (the state root is read after `ready`). `ready` never goes unhandled.
 */
function forkedState(
  alloc: Record<string, bigint>,
  opts: UnitrieStateManagerOpts,
): { sm: UnitrieStateManager; ready: Promise<void> } {
  const sm = new UnitrieStateManager(opts)
  const entries = Object.entries(alloc)
  const ready = (async () => {
    // fetched together: one round trip to the remote instead of one per account
    await Promise.all(entries.map(([a]) => sm.getAccount(createAddressFromString(a))))
    for (const [a, balance] of entries) await sm.modifyAccountFields(createAddressFromString(a), { balance })
  })()
  ready.catch(() => undefined)
  return { sm, ready }
}

/**
 * Owns the VM and the state manager.
 */
export class Executor {
  /** State managers positioned at recent historical roots (tools read the same old block repeatedly). */
  private readonly historical = new LRUCache<string, UnitrieStateManager>({ max: 8 })
  /** Whether Solidity console.log calls are decoded (the CLI's --no-console-log turns it off). */
  consoleLog = true
  /** console.log lines of the execution under way. */
  readonly console = new ConsoleCapture(() => this.consoleLog)
  private readonly blocks: BlockApplier
  private readonly calls: CallRunner

  private constructor(
    readonly common: Common,
    readonly vm: VM,
    readonly stateManager: UnitrieStateManager,
    /** The root of the committed state the live state manager is at. */
    private root: Uint8Array,
    /** The observers of this node's frame opcodes (estimates, call-tree tracers; ./hooks.ts). */
    readonly hooks: ExecutionHooks,
    /** What the execution under way runs in (COINBASE, BASEFEE, context block; ./run-context.ts). */
    private readonly run: RunContext,
    network: 30 | 31 | 32 | 33,
    processingBlock: (number: bigint) => Promise<ProcessingBlock | undefined>,
    private readonly rules: ExecutionRules | undefined,
  ) {
    this.blocks = new BlockApplier(vm, stateManager, run, this.console, hooks, network, processingBlock, rules)
    this.calls = new CallRunner(common, vm, run, this.console, hooks, () => this.root)
  }

  /**
   * Builds the VM and the genesis state.
   * @returns the executor, whose {@link stateRoot} is the genesis state root
   */
  static async create(opts: ExecutorOptions): Promise<Executor> {
    const { common } = opts
    // fail loudly, before anything runs, when @ethereumjs lacks what the node relies on (./ethereumjs/)
    checkEthereumjs(common)
    // The reference's state layout: genesis accounts plus the precompile accounts and storage markers
    const forked = opts.fork && forkedState(opts.alloc, { common, store: opts.store, fork: opts.fork })
    const stateManager =
      forked?.sm ?? UnitrieStateManager.fromGenesis(opts.alloc, opts.network, { common, store: opts.store })
    const run = new RunContext()
    const hooks = new ExecutionHooks()
    const rules = opts.rules
    const gated = rules?.gated ?? new Set<string>()
    const active = (rule: string): boolean => rules!.isActive(rule, run.executionNumber)
    if (rules !== undefined && (gated.has('rskip400') || gated.has('rskip438'))) {
      // the older calldata / init code gas below their heights (docs/reference-rules.md#rule-gas-activations)
      const setGasRules = gasRuleSwitch(common)
      run.gasRulesAt = (n) =>
        setGasRules({ rskip400: rules.isActive('rskip400', n), rskip438: rules.isActive('rskip438', n) })
      // until the first execution: the rules of the fork block (transactions decoded before it see them)
      setGasRules({ rskip400: !gated.has('rskip400'), rskip438: !gated.has('rskip438') })
    } else restoreGasRules(common) // the same Common may have run an older fork before a reset
    const vm = await createVM({
      common,
      stateManager,
      blockchain: blockHashBlockchain(opts.blockHash),
      evmOpts: {
        customOpcodes: gateOpcodes(
          rskOpcodes(
            () => run.minimumGasPrice,
            () => run.coinbase,
            hooks,
          ),
          common,
          gated,
          active,
        ),
        // the native contracts (BlockHeader, Environment, …; reference PrecompiledContracts.java)
        customPrecompiles: gatePrecompiles(
          nativePrecompiles(
            {
              network: opts.network,
              executionBlockNumber: () => run.executionNumber,
              canonicalBlock: async (n) => opts.canonicalBlock?.(n),
              isLocalCall: () => run.localCall,
              // a fork's Bridge and BlockHeader methods by height (docs/reference-rules.md#rule-bridge-activations)
              isRuleActive: (rule) => rules === undefined || rules.isActive(rule, run.executionNumber),
            },
            common,
          ),
          gated,
          active,
        ) as never,
      },
    })
    trackMessages(vm.evm)
    // the reference's account rules, the faster opcode loop and the EVM's clock (./ethereumjs/index.ts)
    await installVmPatches(vm, clockOf(vm.evm))
    // One real @ethereumjs block; each block context is a thin object over it (see RunContext.contextBlock). Fees
    // go to the Remasc contract (reference BlockExecutor); COINBASE is answered from the context's coinbase.
    const baseContext: Block = createBlock(
      { header: { coinbase: REMASC_ADDRESS } },
      { common, skipConsensusFormatValidation: true, freeze: false },
    )
    checkBlockShape(baseContext)
    run.baseContext = baseContext
    await forked?.ready
    const root = await stateManager.getStateRoot()
    const executor = new Executor(
      common,
      vm,
      stateManager,
      root,
      hooks,
      run,
      opts.network,
      opts.processingBlock ?? (() => Promise.resolve(undefined)),
      rules,
    )
    executor.console.install(vm.evm.events as never)
    vm.evm.events?.on('beforeMessage', (m: { to?: Address; codeAddress?: Address }) => {
      // (Message.codeAddress throws for creations, which have no `to`)
      const a = m.to === undefined ? undefined : m.codeAddress
      if (a !== undefined && SEQUENTIAL_ONLY_CONTRACTS.has(Buffer.from(a.bytes).toString('hex')))
        run.calledSequentialOnly = true
    })
    return executor
  }

  /**
   * Sets a fork's calldata and init code gas (RSKIP400, RSKIP438) to those of block `n` for checks made outside an
   * execution, such as pool admission (docs/reference-rules.md#rule-gas-activations). Without a fork nothing
   * changes.
   * @param n block number (the block a submitted transaction would go in)
   * @returns whether the init code size limit (RSKIP438) applies at `n`
   */
  useGasRulesOf(n: bigint): { initCodeLimit: boolean } {
    this.run.gasRulesAt?.(n)
    return { initCodeLimit: this.rules === undefined || this.rules.isActive('rskip438', n) }
  }

  /** Root of the latest committed state. */
  get stateRoot(): Uint8Array {
    return this.root
  }

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
    const out = await this.blocks.apply(ctx, txs, opts)
    if (opts.commit ?? true) this.root = out.stateRoot
    return out
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

  /** Forgets the cached historical state managers (after the state's tries were unloaded or packed). */
  dropHistoricalStates(): void {
    this.historical.clear()
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

  /**
   * Storage word (32 bytes, zero-padded) at `slot` (32 bytes) of `address` at `root`.
   * @throws StorageCellTooLongError (-32603) for a native contract's cell longer than 32 bytes, as the reference
   *   (docs/reference-rules.md#rule-json-numbers)
   */
  async getStorage(address: Uint8Array, slot: Uint8Array, root: Uint8Array): Promise<Uint8Array> {
    const sm = await this.stateAt(root)
    const addr = new Address(address)
    if ((await sm.getAccount(addr)) === undefined) return new Uint8Array(32)
    const value = await sm.getStorage(addr, slot)
    if (value.length > 32) throw new StorageCellTooLongError()
    return padLeft(value, 32)
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
  call(
    req: CallRequest,
    ctx: BlockContext,
    root: Uint8Array,
    gasCap: bigint,
    timeoutMs = 0,
    overrides?: StateOverride,
  ): Promise<CallResult> {
    return this.calls.call(req, ctx, root, gasCap, timeoutMs, overrides)
  }

  /**
   * The VM for `root`, for a caller that runs its own traced execution (src/execution/tracers): inside the chain's
   * queue.
   */
  async vmFor(root: Uint8Array): Promise<VM> {
    return this.calls.vmAt(root)
  }

  /** The @ethereumjs context block for `ctx` (also sets the COINBASE/BASEFEE the custom opcodes answer). */
  blockFor(ctx: BlockContext): Block {
    return this.run.contextBlock(ctx)
  }

  /**
   * eth_estimateGas the reference's way: one run at min(request gas, `cap`), the answer taken from its peak gas
   * consumption (see ./gas-estimation.ts for the rule and its rskj sources).
   * @param cap the estimation cap (gas; reference rpc.gasEstimationCap)
   * @returns the estimate (gas), or the failed result (the caller turns it into -32015 / -32000)
   * @throws CallPreconditionError when the sender cannot cover the value (-32000 at the RPC)
   */
  estimateGas(
    req: CallRequest,
    ctx: BlockContext,
    root: Uint8Array,
    cap: bigint,
    timeoutMs = 0,
    overrides?: StateOverride,
  ): Promise<{ gas: bigint; consoleLogs?: string[] } | { failure: CallResult }> {
    return this.calls.estimateGas(req, ctx, root, cap, timeoutMs, overrides)
  }
}
