/**
 * eth_call and eth_estimateGas: runs that commit nothing, at the live state or at any block's root, on the live
 * VM or on a spare positioned at that root. Used by the executor (./executor.ts), inside the chain's queue
 * (docs/architecture.md#single-writer).
 */
import type { Common } from '@ethereumjs/common'
import { createLegacyTx } from '@ethereumjs/tx'
import { Address } from '@ethereumjs/util'
import type { VM } from '@ethereumjs/vm'
import { bytesEqual } from '../util/bytes.js'
import { CallPreconditionError, ExecutionTimeoutError } from '../errors/domain-errors.js'
import { adoptVm, EthereumjsShapeError, runAsSignedBy, runTxFromAnySender } from './ethereumjs/index.js'
import type { UnitrieStateManager } from '../state/unitrie-state-manager.js'
import { clockOf, setDeadline } from './deadline.js'
import { EstimateProbe, type EvmEvents } from './gas-estimation.js'
import type { ExecutionHooks } from './hooks.js'
import type { ConsoleCapture } from './console-log.js'
import { trackMessages } from './native/index.js'
import { applyStateOverride, type StateOverride } from './state-override.js'
import type { BlockContext, CallRequest, CallResult } from './execution-types.js'
import { cleanVmMessage } from './tx-errors.js'
import { requireValueCovered, unwindTo, type RunContext } from './run-context.js'

/** Spare VMs kept for executions away from the live state (see CallRunner.vmAt): `pending` and one older block. */
const SPARE_VMS = 2

/** Runs one executor's calls and estimates (see {@link CallRunner.call}, {@link CallRunner.estimateGas}). */
export class CallRunner {
  constructor(
    private readonly common: Common,
    /** The executor's live VM (spares are copies of it). */
    private readonly vm: VM,
    /** The executor's run context (COINBASE, BASEFEE, context block, local call). */
    private readonly run: RunContext,
    /** The executor's console.log capture. */
    private readonly console: ConsoleCapture,
    /** The observers of the executor's frame opcodes (./hooks.ts). */
    private readonly hooks: ExecutionHooks,
    /** The root of the committed state the live VM is at. */
    private readonly liveRoot: () => Uint8Array,
  ) {}

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
    const block = this.run.contextBlock(ctx)
    this.run.localCall = true
    const caller = new Address(req.from ?? new Uint8Array(20))
    const data = req.data ?? new Uint8Array(0)
    // zero bytes counted as a number: a bigint addition per calldata byte allocated a bigint each
    let zeros = 0
    for (let i = 0; i < data.length; i++) if (data[i] === 0) zeros++
    const intrinsic =
      this.common.param('txGas') +
      BigInt(zeros) * this.common.param('txDataZeroGas') +
      BigInt(data.length - zeros) * this.common.param('txDataNonZeroGas')
    if (intrinsic > gasLimit) return { returnValue: new Uint8Array(0), gasUsed: gasLimit, error: 'out of gas' }
    const value = req.value ?? 0n
    const depth = (sm as UnitrieStateManager).checkpointDepth
    await sm.checkpoint()
    setDeadline(vm.evm, timeoutMs)
    try {
      if (overrides !== undefined && overrides.length > 0)
        await applyStateOverride(sm as UnitrieStateManager, overrides)
      if (value > 0n) await requireValueCovered(sm, caller, value)
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
      // runTx ends with journal.cleanup(); a bare runCall does not, and the journal would keep every call's diff.
      // What cleanup() does beyond this (EIP-161's removal of touched empty accounts, behind a hardfork lookup
      // that cost ~3 µs of a ~70 µs call, measured) the node's account rules turn off (./ethereumjs/account-rules.ts)
      clearJournal(vm)
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
    const block = this.run.contextBlock(ctx)
    this.run.localCall = true
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
   * garbage under a mixed load (V8 kept ~3.5× the live heap as fragmented old space;
   * docs/architecture.md#performance-rules).
   */
  private readonly spareVms: { vm: VM; root: Uint8Array }[] = []

  /** The VM to execute at `root`: the live one for the latest state, else a spare positioned at that root. */
  async vmAt(root: Uint8Array): Promise<VM> {
    if (bytesEqual(root, this.liveRoot())) return this.vm
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
 * Empties the EVM's journal after a bare message as `journal.cleanup()` would with EIP-161 off: the journal's
 * maps (touched addresses included) start over, and access-list and preimage reporting, when on, stop. Does
 * not touch the state (the caller reverts that).
 */
function clearJournal(vm: VM): void {
  const j = vm.evm.journal
  j.cleanJournal()
  if (j.accessList !== undefined) delete j.accessList
  if (j.preimages !== undefined) delete j.preimages
}
