/**
 * The dev-chain controls of the next block: the clock and its evm_increaseTime offset, the one-shot next-block
 * overrides (evm_setNextBlockTimestamp, evm_setBlockGasLimit, hardhat_setMinGasPrice), the coinbase
 * (anvil_setCoinbase), and the reference miner's gas-limit and minimum-gas-price steps toward their targets.
 * From these it computes the context of the next block. No queue and no events: the chain
 * (src/chain/chain.ts) calls it and clears the one-shot controls when it appends a block.
 */
import type { BlockContext } from '../../execution/executor.js'
import { InvalidArgumentError } from '../../errors/domain-errors.js'
import type { HeaderFields } from '../../types/records.js'

/** The clock controls a snapshot records and a revert restores (evm_snapshot / evm_revert). */
export interface ClockControls {
  /** Seconds added to the wall clock. */
  timeOffset: bigint
  /** Exact timestamp (seconds) of the next block, if set. */
  nextTimestamp: bigint | undefined
}

/** Starting values of {@link DevState}. */
export interface DevStateOptions {
  /** Wall clock in milliseconds. */
  clock: () => number
  /** Coinbase (20 bytes) of mined blocks. */
  coinbase: Uint8Array
  /** Gas limit the miner steps toward by parent/1024 per block (reference GasLimitCalculator). */
  targetGasLimit: bigint
  /** Target minimumGasPrice (wei; reference miner.minGasPrice), approached within ±1% of the parent per block. */
  minGasPrice: bigint
}

/** The clock, the next-block overrides and the mining targets of a dev chain. */
export class DevState {
  private readonly clock: () => number
  private coinbase: Uint8Array
  private targetGasLimit: bigint
  private minGasPrice: bigint
  /** Seconds added to the wall clock (evm_increaseTime); cleared once a block is built. */
  private offset = 0n
  /** Exact timestamp (seconds) of the next block (evm_setNextBlockTimestamp); cleared when a block is mined. */
  private nextTimestamp: bigint | undefined
  /** One-shot overrides for the next block (hardhat_setMinGasPrice, evm_setBlockGasLimit). */
  private nextMinGasPriceOverride: bigint | undefined
  private nextGasLimitOverride: bigint | undefined

  constructor(opts: DevStateOptions) {
    this.clock = opts.clock
    this.coinbase = opts.coinbase
    this.targetGasLimit = opts.targetGasLimit
    this.minGasPrice = opts.minGasPrice
  }

  /** Seconds added to the wall clock for the next block (evm_increaseTime), 0 when none. */
  get timeOffset(): bigint {
    return this.offset
  }

  /** Current time for the next block, in seconds (wall clock + evm_increaseTime offset). */
  now(): bigint {
    return BigInt(Math.floor(this.clock() / 1000)) + this.offset
  }

  /**
   * Context of the block to mine on `parent`: timestamp from the clock (after the parent's; at least the parent's
   * plus the evm_increaseTime offset, as the reference regtest MinerClock), or the evm_setNextBlockTimestamp
   * value; gas limit and minimumGasPrice stepped toward their targets, or the one-shot overrides; difficulty 1.
   */
  nextContext(parent: HeaderFields): BlockContext {
    const now = this.now()
    let timestamp = now > parent.timestamp ? now : parent.timestamp + 1n
    // evm_increaseTime moves the next block at least that far past its parent (reference regtest MinerClock:
    // parent + adjustment), also when the head is ahead of the wall clock (after an interval anvil_mine or
    // evm_setNextBlockTimestamp)
    if (this.offset > 0n && timestamp < parent.timestamp + this.offset) timestamp = parent.timestamp + this.offset
    if (this.nextTimestamp !== undefined) timestamp = this.nextTimestamp
    return {
      number: parent.number + 1n,
      timestamp,
      coinbase: this.coinbase,
      gasLimit: this.nextGasLimitOverride ?? this.nextGasLimit(parent.gasLimit),
      difficulty: 1n,
      minimumGasPrice: this.nextMinGasPriceOverride ?? this.nextMinimumGasPrice(parent.minimumGasPrice),
    }
  }

  /**
   * Adds seconds to the clock offset of the next block (evm_increaseTime; reference MinerClock): a value
   * ≤ 0 changes nothing.
   * @returns the accumulated offset, seconds
   */
  increaseTime(seconds: bigint): bigint {
    if (seconds > 0n) this.offset += seconds
    return this.offset
  }

  /**
   * Fixes the next block's timestamp (evm_setNextBlockTimestamp).
   * @param timestamp seconds; must be greater than `parentTimestamp`
   * @throws InvalidArgumentError when not after the parent's timestamp
   */
  setNextBlockTimestamp(timestamp: bigint, parentTimestamp: bigint): void {
    if (timestamp <= parentTimestamp) {
      throw new InvalidArgumentError(
        `Timestamp ${timestamp} is lower than or equal to previous block's timestamp ${parentTimestamp}`,
      )
    }
    this.nextTimestamp = timestamp
  }

  /** The coinbase (20 bytes) of blocks mined from now on (anvil_setCoinbase). */
  setCoinbase(address: Uint8Array): void {
    this.coinbase = address
  }

  /**
   * Sets the target minimumGasPrice (wei) and uses it for the next block directly, without the ±1% band
   * (hardhat_setMinGasPrice; later blocks follow the reference band around it).
   */
  setMinGasPrice(wei: bigint): void {
    this.minGasPrice = wei
    this.nextMinGasPriceOverride = wei
  }

  /** Sets the block gas limit of the next block and the target after it (evm_setBlockGasLimit). */
  setBlockGasLimit(gas: bigint): void {
    this.targetGasLimit = gas
    this.nextGasLimitOverride = gas
  }

  /**
   * Clears the one-shot controls: the offset, the next timestamp and the next-block overrides (once a block is
   * appended — reference MinerServerImpl.buildBlockToMine clears the offset — and on a reset); the targets stay.
   */
  clearNextBlockControls(): void {
    this.offset = 0n
    this.nextTimestamp = undefined
    this.nextMinGasPriceOverride = undefined
    this.nextGasLimitOverride = undefined
  }

  /** The clock controls, for a snapshot. */
  clockControls(): ClockControls {
    return { timeOffset: this.offset, nextTimestamp: this.nextTimestamp }
  }

  /** Restores the clock controls of a snapshot (the gas overrides stay as they are, as before). */
  restoreClock(c: ClockControls): void {
    this.offset = c.timeOffset
    this.nextTimestamp = c.nextTimestamp
  }

  /** Steps toward the target by at most parent/1024 (reference GasLimitCalculator with forcegaslimit). */
  private nextGasLimit(parent: bigint): bigint {
    const target = this.targetGasLimit
    const step = parent / 1024n
    if (parent > target) return parent - step > target ? parent - step : target
    if (parent < target) return parent + step < target ? parent + step : target
    return parent
  }

  /** The target minGasPrice clamped to parent ±1% (min 1 wei step) (reference MinimumGasPriceCalculator, RSKIP09). */
  private nextMinimumGasPrice(parent: bigint): bigint {
    const target = this.minGasPrice
    let delta = parent / 100n
    if (delta < 1n) delta = 1n
    if (target > parent + delta) return parent + delta
    if (target < parent - delta) return parent - delta
    return target
  }
}
