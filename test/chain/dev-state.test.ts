/**
 * The chain's dev-state and snapshot-registry parts on their own (src/chain/dev/dev-state.ts, src/chain/dev/snapshots.ts):
 * the next block's context from the clock, the evm_increaseTime offset and the one-shot overrides; the reference
 * miner's gas-limit and minimumGasPrice steps (docs/reference-rules.md); snapshot ids. The same rules are also
 * exercised through the RPC in test/rpc/dev-*.test.ts; these pin the parts' own contracts.
 */
import { describe, expect, it } from 'vitest'
import { DevState } from '../../src/chain/dev/dev-state.js'
import { InvalidArgumentError } from '../../src/errors/domain-errors.js'
import { toRpcError } from '../../src/rpc/error-mapping.js'
import { SnapshotRegistry, type ChainSnapshot } from '../../src/chain/dev/snapshots.js'

type Header = Parameters<DevState['nextContext']>[0]

const COINBASE = new Uint8Array(20).fill(0xcb)

/** A parent header: only number, timestamp, gasLimit and minimumGasPrice matter to the next context. */
function parent(fields: { number?: bigint; timestamp: bigint; gasLimit?: bigint; minimumGasPrice?: bigint }): Header {
  const z = new Uint8Array(32)
  return {
    parentHash: z,
    unclesHash: z,
    coinbase: new Uint8Array(20),
    stateRoot: z,
    transactionsRoot: z,
    receiptsRoot: z,
    logsBloom: new Uint8Array(256),
    difficulty: 1n,
    number: fields.number ?? 5n,
    gasLimit: fields.gasLimit ?? 6_800_000n,
    gasUsed: 0n,
    timestamp: fields.timestamp,
    extraData: new Uint8Array(0),
    paidFees: 0n,
    minimumGasPrice: fields.minimumGasPrice ?? 60_000_000n,
    uncleCount: 0,
    bitcoinMergedMiningHeader: new Uint8Array(0),
    bitcoinMergedMiningMerkleProof: new Uint8Array(0),
    bitcoinMergedMiningCoinbaseTransaction: new Uint8Array(0),
  }
}

/** A DevState whose clock reads `seconds` (settable). */
function devState(seconds: { now: number }, targets: { gasLimit?: bigint; minGasPrice?: bigint } = {}) {
  return new DevState({
    clock: () => seconds.now * 1000,
    coinbase: COINBASE,
    targetGasLimit: targets.gasLimit ?? 6_800_000n,
    minGasPrice: targets.minGasPrice ?? 60_000_000n,
  })
}

describe('DevState: the next block context', () => {
  it('takes the wall clock, after the parent; number + 1, difficulty 1, the coinbase', () => {
    const clock = { now: 1_000 }
    const dev = devState(clock)
    const ctx = dev.nextContext(parent({ number: 5n, timestamp: 900n }))
    expect(ctx).toMatchObject({ number: 6n, timestamp: 1_000n, difficulty: 1n })
    expect(ctx.coinbase).toEqual(COINBASE)
    // a parent ahead of the clock: parent + 1
    expect(dev.nextContext(parent({ timestamp: 2_000n })).timestamp).toBe(2_001n)
  })

  it('evm_increaseTime adds to the clock and puts the block at least that far past its parent; ≤ 0: nothing', () => {
    const dev = devState({ now: 1_000 })
    expect(dev.increaseTime(0n)).toBe(0n)
    expect(dev.increaseTime(-5n)).toBe(0n)
    expect(dev.increaseTime(60n)).toBe(60n)
    expect(dev.increaseTime(40n)).toBe(100n)
    expect(dev.timeOffset).toBe(100n)
    expect(dev.now()).toBe(1_100n)
    expect(dev.nextContext(parent({ timestamp: 900n })).timestamp).toBe(1_100n)
    // head ahead of the clock: parent + offset
    expect(dev.nextContext(parent({ timestamp: 5_000n })).timestamp).toBe(5_100n)
  })

  it('evm_setNextBlockTimestamp fixes the timestamp; not after the parent is -32602 and changes nothing', () => {
    const dev = devState({ now: 1_000 })
    let err: unknown
    try {
      dev.setNextBlockTimestamp(900n, 900n)
    } catch (e) {
      err = e
    }
    // a domain error, answered -32602 at the RPC boundary
    expect(err).toBeInstanceOf(InvalidArgumentError)
    expect(toRpcError(err)).toMatchObject({ code: -32602 })
    expect((err as Error).message).toBe("Timestamp 900 is lower than or equal to previous block's timestamp 900")
    expect(dev.nextContext(parent({ timestamp: 900n })).timestamp).toBe(1_000n)
    dev.setNextBlockTimestamp(1_234n, 900n)
    expect(dev.nextContext(parent({ timestamp: 900n })).timestamp).toBe(1_234n)
  })

  it('steps the gas limit toward the target by parent/1024, and the minimumGasPrice by ±1% (at least 1 wei)', () => {
    const dev = devState({ now: 1_000 }, { gasLimit: 8_000_000n, minGasPrice: 0n })
    const ctx = dev.nextContext(parent({ timestamp: 1n, gasLimit: 6_800_000n, minimumGasPrice: 50n }))
    expect(ctx.gasLimit).toBe(6_800_000n + 6_800_000n / 1024n)
    expect(ctx.minimumGasPrice).toBe(49n)
    // at the target: stays
    expect(dev.nextContext(parent({ timestamp: 1n, gasLimit: 8_000_000n, minimumGasPrice: 0n }))).toMatchObject({
      gasLimit: 8_000_000n,
      minimumGasPrice: 0n,
    })
  })

  it('the one-shot overrides apply to one block; the targets stay', () => {
    const dev = devState({ now: 1_000 })
    dev.setBlockGasLimit(9_000_000n)
    dev.setMinGasPrice(1n)
    dev.increaseTime(10n)
    dev.setNextBlockTimestamp(5_000n, 900n)
    const p = parent({ timestamp: 900n, gasLimit: 6_800_000n, minimumGasPrice: 60_000_000n })
    expect(dev.nextContext(p)).toMatchObject({ gasLimit: 9_000_000n, minimumGasPrice: 1n, timestamp: 5_000n })
    dev.clearNextBlockControls()
    expect(dev.timeOffset).toBe(0n)
    // back to stepping, now toward the new targets
    expect(dev.nextContext(p)).toMatchObject({
      gasLimit: 6_800_000n + 6_800_000n / 1024n,
      minimumGasPrice: 60_000_000n - 600_000n,
      timestamp: 1_000n,
    })
  })

  it('anvil_setCoinbase changes the coinbase of the next blocks', () => {
    const dev = devState({ now: 1_000 })
    const other = new Uint8Array(20).fill(7)
    dev.setCoinbase(other)
    expect(dev.nextContext(parent({ timestamp: 1n })).coinbase).toEqual(other)
  })

  it('a snapshot restores the clock controls', () => {
    const dev = devState({ now: 1_000 })
    dev.increaseTime(30n)
    dev.setNextBlockTimestamp(4_000n, 1n)
    const saved = dev.clockControls()
    expect(saved).toEqual({ timeOffset: 30n, nextTimestamp: 4_000n })
    dev.clearNextBlockControls()
    expect(dev.clockControls()).toEqual({ timeOffset: 0n, nextTimestamp: undefined })
    dev.restoreClock(saved)
    expect(dev.clockControls()).toEqual(saved)
  })
})

describe('SnapshotRegistry', () => {
  const snap = (n: bigint): ChainSnapshot => ({
    blockNumber: n,
    stateRoot: new Uint8Array(32).fill(Number(n)),
    pool: [],
    timeOffset: 0n,
    nextTimestamp: undefined,
  })

  it('numbers snapshots 1, 2, …; an unknown id is undefined', () => {
    const r = new SnapshotRegistry()
    expect(r.take(snap(1n))).toBe(1)
    expect(r.take(snap(2n))).toBe(2)
    expect(r.get(2)?.blockNumber).toBe(2n)
    expect(r.get(3)).toBeUndefined()
    expect(r.get(0)).toBeUndefined()
  })

  it('keepUpTo forgets the later snapshots and reuses the next id; clear starts again at 1', () => {
    const r = new SnapshotRegistry()
    r.take(snap(1n))
    r.take(snap(2n))
    r.take(snap(3n))
    expect(r.keepUpTo(1).map((s) => s.blockNumber)).toEqual([2n, 3n])
    expect(r.get(1)?.blockNumber).toBe(1n)
    expect(r.get(2)).toBeUndefined()
    expect(r.take(snap(4n))).toBe(2)
    expect(r.clear().map((s) => s.blockNumber)).toEqual([1n, 4n])
    expect(r.get(1)).toBeUndefined()
    expect(r.take(snap(5n))).toBe(1)
  })
})
