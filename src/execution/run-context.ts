/**
 * The per-run context every execution of one executor shares (./executor.ts): the block context the custom
 * opcodes and native contracts answer from (COINBASE, BASEFEE, the block number, local call or not), the
 * @ethereumjs context block, and the small helpers block application and calls both use.
 *
 * Not safe for concurrent use: like the executor, it is only used inside the chain's queue
 * (docs/architecture.md#single-writer).
 */
import type { Block } from '@ethereumjs/block'
import type { StateManagerInterface } from '@ethereumjs/common'
import { createAddressFromString, type Address } from '@ethereumjs/util'
import type { VM } from '@ethereumjs/vm'
import { CallPreconditionError } from '../errors/domain-errors.js'
import type { UnitrieStateManager } from '../state/unitrie-state-manager.js'
import { deriveBlock } from './ethereumjs/index.js'
import type { BlockContext } from './execution-types.js'

/** The Remasc contract (fees of every block are credited to it; reference BlockExecutor.java). */
export const REMASC_ADDRESS = createAddressFromString('0x0000000000000000000000000000000001000008')

/** The Remasc contract's address as lowercase hex without 0x (the key trackers' form). */
export const REMASC_HEX = '0000000000000000000000000000000001000008'

/**
 * Contracts whose callers go to the sequential sublist (RskSystemProperties.concurrentContractsDisallowed): Remasc,
 * Bridge.
 */
export const SEQUENTIAL_ONLY_CONTRACTS = new Set([
  '0000000000000000000000000000000001000008',
  '0000000000000000000000000000000001000006',
])

/**
 * What the execution under way runs in: read by the custom opcodes (COINBASE, BASEFEE) and the native
 * contracts (block number, local call), set by {@link contextBlock} and the runs.
 */
export class RunContext {
  /** Wei; what BASEFEE pushes for the block being executed. */
  minimumGasPrice = 0n
  /** The COINBASE of the block being executed (the EVM's own block coinbase is the Remasc contract). */
  coinbase: Uint8Array = new Uint8Array(20)
  /** Set when the running transaction calls the Remasc or Bridge contract. */
  calledSequentialOnly = false
  /** Number of the block the current run executes in (set with its context; read by the native contracts). */
  executionNumber = 0n
  /** Whether the current run is eth_call/eth_estimateGas (native methods may be restricted to local calls). */
  localCall = false
  /**
   * A fork's gas rules switch (./ethereumjs/gas-rule-params.ts): sets RSKIP400/RSKIP438 pricing for the block
   * about to run (docs/reference-rules.md#rule-gas-activations); absent when no gas rule is gated (always, without
   * a fork).
   */
  gasRulesAt: ((block: bigint) => void) | undefined = undefined
  /** The one real @ethereumjs block context blocks are derived from (see contextBlock); set once at creation. */
  baseContext!: Block

  private lastContext:
    { number: bigint; timestamp: bigint; gasLimit: bigint; difficulty: bigint; block: Block } | undefined

  /** A header-only @ethereumjs block for the EVM's block context. */
  contextBlock(ctx: BlockContext): Block {
    this.minimumGasPrice = ctx.minimumGasPrice
    this.coinbase = ctx.coinbase
    this.executionNumber = ctx.number
    this.gasRulesAt?.(ctx.number)
    // Calls and estimates at the same block reuse one context block (building it costs more than a simple call;
    // compared field by field: a key string built per call was ~0.5 µs of a ~70 µs eth_call, measured).
    const last = this.lastContext
    if (
      last !== undefined &&
      last.number === ctx.number &&
      last.timestamp === ctx.timestamp &&
      last.gasLimit === ctx.gasLimit &&
      last.difficulty === ctx.difficulty
    ) {
      return last.block
    }
    // Each context is a thin object over one real @ethereumjs block with its own number, timestamp, gas limit
    // and difficulty (createBlock costs ~2% of an automined transfer: Common copy, header validation).
    const block = deriveBlock(this.baseContext, ctx)
    this.lastContext = {
      number: ctx.number,
      timestamp: ctx.timestamp,
      gasLimit: ctx.gasLimit,
      difficulty: ctx.difficulty,
      block,
    }
    return block
  }
}

/**
 * Reverts the state manager to checkpoint depth `depth` (one revert per level): after a completed run that is one
 * level; after an execution stopped midway (a deadline), the EVM's own nested checkpoints were never closed.
 * Transient storage (EIP-1153) is emptied, as at the end of any top-level message.
 */
export async function unwindTo(vm: VM, depth: number): Promise<void> {
  const sm = vm.stateManager as UnitrieStateManager
  while (sm.checkpointDepth > depth) await sm.revert()
  ;(vm.evm as { transientStorage?: { clear(): void } }).transientStorage?.clear()
}

/**
 * Calls and estimates run as local calls without charging gas up front (the reference's TransactionExecutor
 * skips its balance check for them), so only the transferred value must be covered by the sender.
 * @throws CallPreconditionError "insufficient funds for transfer"
 */
export async function requireValueCovered(sm: StateManagerInterface, from: Address, value: bigint): Promise<void> {
  if (value > 0n && ((await sm.getAccount(from))?.balance ?? 0n) < value) {
    throw new CallPreconditionError('insufficient funds for transfer')
  }
}
