/**
 * Block application (docs/architecture.md#request-flow, "Execute"): running a block's transactions on the live
 * state in order, placing them in RSKIP144 sublists, and the Remasc transaction at the end of the block.
 * Used by the executor (./executor.ts), inside the chain's queue (docs/architecture.md#single-writer).
 */
import { Account, Address } from '@ethereumjs/util'
import type { RunTxResult, VM } from '@ethereumjs/vm'
import type { LogRecord } from '../types/records.js'
import { ExecutionTimeoutError, ForkRemoteError } from '../errors/domain-errors.js'
import { EthereumjsShapeError, forgetDataGas, runTxFromAnySender } from './ethereumjs/index.js'
import type { UnitrieStateManager } from '../state/unitrie-state-manager.js'
import { armDeadline } from './deadline.js'
// consensus (Remasc transaction, RSKIP144 sublists): see src/rsk/remasc.ts and ./parallel-sublists.ts
import { KeyTracker, SublistScheduler } from './parallel-sublists.js'
import {
  GENESIS_FEDERATORS,
  processMinersFees,
  REMASC_CONFIGS,
  REMASC_SENDER_JSON,
  REMASC_SENDER_KEY_BYTES,
  remascRulesAt,
  type ProcessingBlock,
} from '../rsk/remasc.js'
import { logsBloom, ZERO_BLOOM } from '../rsk/receipt-rlp.js'
import { bytesEqual, fromHex } from '../util/bytes.js'
import { BRIDGE_ADDRESS } from './native/bridge-storage.js'
import { remascFederators } from './native/federation-storage.js'
import type { ConsoleCapture } from './console-log.js'
import type { ExecutionHooks } from './hooks.js'
import { TouchedAddressCollector } from './touched-addresses.js'
import type { TraceEvents } from './tracers/types.js'
import type { AppliedBlock, AppliedTx, BlockContext, PendingExecution } from './execution-types.js'
import { cleanVmMessage, TxApplyError, TxTimeoutError } from './tx-errors.js'
import type { ExecutionRules } from './rule-gates.js'
import { REMASC_ADDRESS, REMASC_HEX, SEQUENTIAL_ONLY_CONTRACTS, unwindTo, type RunContext } from './run-context.js'

const BRIDGE_BYTES = fromHex(BRIDGE_ADDRESS.slice(2))

/** An outcome for a transaction left out of the block (no sublist had room for it). */
function skippedTx(): AppliedTx {
  return {
    receipt: { status: 0, cumulativeGasUsed: 0n, gasUsed: 0n, logs: [], logsBloom: ZERO_BLOOM },
    returnValue: new Uint8Array(0),
    fee: 0n,
    skipped: true,
  }
}

/** Applies blocks of transactions to one executor's live state (see {@link BlockApplier.apply}). */
export class BlockApplier {
  private keyTracker: KeyTracker | undefined
  /** The touched addresses of mined transactions (./touched-addresses.ts), collecting while a block commits. */
  private readonly addresses = new TouchedAddressCollector()

  constructor(
    /** The executor's live VM. */
    private readonly vm: VM,
    /** Its state manager (the live state). */
    private readonly stateManager: UnitrieStateManager,
    /** The executor's run context (COINBASE, BASEFEE, context block). */
    private readonly run: RunContext,
    /** The executor's console.log capture. */
    private readonly console: ConsoleCapture,
    /** The observers of the executor's frame opcodes (the SELFDESTRUCT hook of the touched addresses). */
    private readonly hooks: ExecutionHooks,
    /** Network (30-33): sublist gas limits, Remasc configuration and federators. */
    private readonly network: 30 | 31 | 32 | 33,
    /** Canonical block `n` for the Remasc contract (hash, coinbase, paidFees of block N − maturity). */
    private readonly processingBlock: (number: bigint) => Promise<ProcessingBlock | undefined>,
    /** The rules by block when they are not node-cli's own (./rule-gates.ts): RSKIP144 sublists, Remasc's rules. */
    private readonly rules?: ExecutionRules,
  ) {
    this.addresses.listen(vm.evm.events as unknown as TraceEvents)
  }

  /**
   * Applies transactions in order on top of the latest state and commits (one block's worth).
   * Transaction fees go to the Remasc contract, not the coinbase (reference BlockExecutor.java).
   * @param ctx the block context
   * @param txs transactions with their senders; each must be valid against the state (nonce, funds)
   * @param opts.commit false to preview (the `pending` block): the state is left unchanged, the returned root
   *   stays readable through Executor.stateAt
   * @param opts.timeoutMs deadline of each transaction's execution in ms (0 or absent = none; ./deadline.ts)
   * @returns the block's outcome; when committing (mining), each included transaction's and the Remasc
   *   transaction's outcome carries the addresses it touched (AppliedTx.addresses), previews carry none
   * @throws TxApplyError when a transaction cannot be applied; TxTimeoutError (a TxApplyError) when one ran past
   *   `timeoutMs` (docs/reference-rules.md#rule-send-deadline); the state is then unchanged
   */
  async apply(
    ctx: BlockContext,
    txs: PendingExecution[],
    opts: { commit?: boolean; timeoutMs?: number } = {},
  ): Promise<AppliedBlock> {
    const commit = opts.commit ?? true
    const timeoutMs = opts.timeoutMs ?? 0
    const sm = this.stateManager
    const evm = this.vm.evm
    // an execution stopped at its deadline leaves the EVM's nested checkpoints open: unwind to here
    const depth = sm.checkpointDepth
    const block = this.run.contextBlock(ctx)
    this.run.localCall = false
    const applied: AppliedTx[] = []
    let gasUsed = 0n
    let paidFees = 0n
    // consensus: RSKIP144 sublists (placement needs the state keys each transaction touched when there are
    // several transactions; a lone one only needs its gas and the contracts it called)
    // (before RSKIP144 every transaction is sequential: the sequential sublist gets the whole block gas limit)
    const parallel = this.rules === undefined || this.rules.isActive('rskip144', ctx.number)
    const minSequential = !parallel ? ctx.gasLimit : this.network === 33 ? 6_800_000n : 10_000_000n
    const scheduler = new SublistScheduler(ctx.gasLimit, minSequential)
    const tracker = txs.length > 1 ? (this.keyTracker ??= new KeyTracker(sm, REMASC_HEX)) : undefined
    const none = new Set<string>()
    // the touched addresses, for the address-history index: mined blocks only (not previews, calls or traces)
    const collector = commit ? this.addresses : undefined
    await sm.checkpoint()
    try {
      tracker?.install()
      collector?.start(this.hooks)
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
        this.run.calledSequentialOnly = false
        let result: RunTxResult
        this.console.take()
        if (timeoutMs > 0) armDeadline(evm, timeoutMs)
        // a fork's calldata price may differ from the one the pool cached on the transaction
        if (this.run.gasRulesAt !== undefined) forgetDataGas(tx)
        collector?.begin(from, tx.to?.bytes)
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
          this.run.calledSequentialOnly ||
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
          addresses: collector?.take(),
        })
      }
      tracker?.uninstall()
      collector?.stop(this.hooks)
      const remasc = await this.executeRemasc(ctx, scheduler.addRemasc(txs.length), commit)
      const order = scheduler.order(txs.length)
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
      return { stateRoot: await sm.getStateRoot(), ...out }
    } catch (err) {
      tracker?.uninstall()
      collector?.stop(this.hooks)
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
   * @param collect whether to list the touched addresses: the sender as the JSON shows it (zero address), the
   *   Remasc contract, then the accounts its payments credit (the miners', federators' and burn accounts)
   */
  private async executeRemasc(ctx: BlockContext, cumulativeGas: bigint, collect: boolean): Promise<AppliedTx> {
    const sm = this.stateManager
    const sender = REMASC_SENDER_KEY_BYTES as unknown as Address
    const acct = (await sm.getAccount(sender)) ?? new Account()
    await sm.putAccount(sender, new Account(acct.nonce + 1n, acct.balance))
    const remasc = REMASC_ADDRESS
    const collector = collect ? this.addresses : undefined
    collector?.begin(REMASC_SENDER_JSON, remasc.bytes)
    const logs = await processMinersFees(
      {
        getStorageBytes: (key) => sm.getStorageBytes(remasc, key),
        putStorageBytes: (key, value) => sm.putStorageBytes(remasc, key, value),
        addBalance: async (address, delta) => {
          collector?.add(address)
          const a = new Address(address)
          const cur = await sm.getAccount(a)
          if (cur === undefined || delta !== 0n)
            await sm.putAccount(a, new Account(cur?.nonce ?? 0n, (cur?.balance ?? 0n) + delta))
        },
        // on a fork (this.rules set), the federators' remote accounts are read together, not one by one
        preparePayees:
          this.rules &&
          (async (addresses) => {
            await Promise.all(addresses.map((a) => sm.getAccount(new Address(a as Uint8Array))))
          }),
      },
      {
        blockNumber: ctx.number,
        minimumGasPrice: ctx.minimumGasPrice,
        config: REMASC_CONFIGS[this.network],
        // the active federation in the Bridge's storage at this block (an elected one on a fork of a live network)
        federators: () =>
          remascFederators(
            (key) => sm.getStorageBytes(BRIDGE_BYTES, key),
            {
              network: this.network,
              blockNumber: ctx.number,
              isActive: (rule) => this.rules === undefined || this.rules.isActive(rule, ctx.number),
            },
            GENESIS_FEDERATORS[this.network],
          ),
        processing: this.processingBlock,
        // a fork's Remasc rules at this block (docs/reference-rules.md#rule-remasc-activations); else the newest
        rules: this.rules && remascRulesAt((rule) => this.rules!.isActive(rule, ctx.number)),
      },
    )
    return {
      receipt: {
        status: 1,
        cumulativeGasUsed: cumulativeGas,
        gasUsed: 0n,
        // (the payment logs come with their logIndex field: no copy of each, a spread cost ~8 µs per block)
        logs,
        logsBloom: this.remascBloom(logs),
      },
      returnValue: new Uint8Array(0),
      fee: 0n,
      addresses: collector?.take(),
    }
  }

  /**
   * Blooms of Remasc payment logs by their payee topics, the 8 last used, most recent last. A bloom covers the logs'
   * addresses and topics only (always the Remasc address, MINING_FEE_TOPIC and the payee topic), and processMinersFees
   * gives the same payee the same topic array from block to block (src/rsk/remasc.ts `payeeTopic`), so the payees are
   * compared by identity first (then by bytes).
   */
  private readonly remascBlooms: Array<{ payees: Uint8Array[]; bloom: Uint8Array }> = []
  private remascBloom(logs: Parameters<typeof logsBloom>[0]): Uint8Array {
    if (logs.length === 0) return ZERO_BLOOM
    const cache = this.remascBlooms
    search: for (let i = cache.length - 1; i >= 0; i--) {
      const e = cache[i]!
      if (e.payees.length !== logs.length) continue
      for (let k = 0; k < logs.length; k++) {
        const topic = logs[k]!.topics[1]!
        if (e.payees[k] !== topic && !bytesEqual(e.payees[k]!, topic)) continue search
      }
      return e.bloom
    }
    const bloom = logsBloom(logs)
    if (cache.length === 8) cache.shift()
    cache.push({ payees: logs.map((l) => l.topics[1]!), bloom })
    // shared: receipt blooms are read-only
    return bloom
  }
}
