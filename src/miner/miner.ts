/**
 * Mining modes (docs/reference-rules.md#rule-evm-mining): instant (automine: one block per transaction, synchronous),
 * interval (a block every N ms from the pool, empty blocks too, like the reference's miner every
 * `delayBetweenBlocks`), manual (neither: transactions wait until evm_mine). Switched at run time by
 * evm_setAutomine, evm_setIntervalMining, evm_startMining / evm_stopMining.
 */
import type { Chain } from '../chain/chain.js'
import { realTimers, type Timers } from '../util/timers.js'

/** Options for {@link Miner}. */
export interface MinerOptions {
  /** Mine each transaction as it arrives. */
  automine: boolean
  /** Milliseconds between interval blocks; 0 = no interval mining. */
  intervalMs: number
  timers?: Timers
  /** Called when an interval block fails to mine (logged by the CLI). */
  onError?: (err: unknown) => void
}

/**
 * The mining mode of a running node, as a library user controls it (`node.miner`): the same switches as
 * evm_setAutomine, evm_setIntervalMining, evm_startMining and evm_stopMining (docs/reference-rules.md#rule-evm-mining).
 */
export interface MiningControls {
  /** Whether blocks are being produced (eth_mining): running, and automine or interval on. */
  isMining(): boolean
  /** Whether automine is on (hardhat_getAutomine). */
  readonly automine: boolean
  /** Milliseconds between interval blocks (0 when off). */
  readonly interval: number
  /** The mode as the CLI banner and anvil_nodeInfo describe it. */
  describe(): 'instant' | 'interval' | 'manual' | 'instant+interval'
  /** Mines one block per transaction as it arrives (on), or leaves transactions in the pool (off). */
  setAutomine(on: boolean): void
  /** @param ms milliseconds between blocks, empty ones too; 0 disables interval mining */
  setIntervalMining(ms: number): void
  /** Resumes the configured mode after {@link stop}. */
  start(): void
  /** No blocks are produced until {@link start}; transactions wait in the pool. */
  stop(): void
}

/**
 * Owns the mining mode and the interval timer.
 */
export class Miner implements MiningControls {
  private automineFlag: boolean
  private intervalMs: number
  private running = true
  private handle: unknown
  private readonly timers: Timers

  constructor(
    private readonly chain: Chain,
    private readonly opts: MinerOptions,
  ) {
    this.automineFlag = opts.automine
    this.intervalMs = opts.intervalMs
    this.timers = opts.timers ?? realTimers
    this.apply()
  }

  /** Whether blocks are being produced (eth_mining): running, and automine or interval on. */
  isMining(): boolean {
    return this.running && (this.automineFlag || this.intervalMs > 0)
  }

  /** Whether automine is on (hardhat_getAutomine). */
  get automine(): boolean {
    return this.automineFlag
  }

  /** The interval in ms (0 when off). */
  get interval(): number {
    return this.intervalMs
  }

  /** The mode as the CLI banner and anvil_nodeInfo describe it. */
  describe(): 'instant' | 'interval' | 'manual' | 'instant+interval' {
    if (this.automineFlag && this.intervalMs > 0) return 'instant+interval'
    if (this.automineFlag) return 'instant'
    return this.intervalMs > 0 ? 'interval' : 'manual'
  }

  /** evm_setAutomine. */
  setAutomine(on: boolean): void {
    this.automineFlag = on
    this.apply()
  }

  /**
   * evm_setIntervalMining.
   * @param ms milliseconds between blocks; 0 disables interval mining
   */
  setIntervalMining(ms: number): void {
    this.intervalMs = ms
    this.apply()
  }

  /** evm_startMining: resumes the configured mode. */
  start(): void {
    this.running = true
    this.apply()
  }

  /** evm_stopMining: no blocks are produced until start; transactions wait in the pool. */
  stop(): void {
    this.running = false
    this.apply()
  }

  /** Stops the timer for good (node shutdown). */
  close(): void {
    this.running = false
    this.apply()
  }

  private apply(): void {
    this.chain.setAutomine(this.running && this.automineFlag)
    if (this.handle !== undefined) {
      this.timers.clearInterval(this.handle)
      this.handle = undefined
    }
    if (this.running && this.intervalMs > 0) {
      this.handle = this.timers.setInterval(() => {
        this.chain.mineBlock().catch((err) => this.opts.onError?.(err))
      }, this.intervalMs)
    }
  }
}
