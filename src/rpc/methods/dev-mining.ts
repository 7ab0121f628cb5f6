/**
 * Dev-chain mining controls: mining blocks on demand (evm_mine, anvil_mine / hardhat_mine), the mining mode
 * (evm_startMining, evm_stopMining, automine, interval mining; reference EvmModuleImpl), the next blocks' gas limit,
 * coinbase and minimum gas price, and dropping a pool transaction.
 */
import { method, type MethodSpec } from '../method-table.js'
import { decodeQuantity, optional, P, param } from '../params.js'
import type { Services } from '../services.js'
import { requireBlockGasLimit, requireMineCount, requireTimestamp } from '../bounds.js'
import { loopYielder } from '../../execution/deadline.js'

/** evm_mine's optional argument: a timestamp, or `{ timestamp?, blocks? }` (ganache form). */
const mineOptions = () =>
  param('options', (v, i): { timestamp?: bigint; blocks?: bigint } => {
    if (v === undefined || v === null) return {}
    if (typeof v === 'object' && !Array.isArray(v)) {
      const o = v as Record<string, unknown>
      return {
        timestamp: o.timestamp === undefined ? undefined : decodeQuantity(o.timestamp, i),
        blocks: o.blocks === undefined ? undefined : decodeQuantity(o.blocks, i),
      }
    }
    return { timestamp: decodeQuantity(v, i), blocks: undefined }
  })

/** The mining methods. */
export function devMiningMethods(s: Services): MethodSpec[] {
  const { chain, miner } = s

  /**
   * Mines `count` blocks, `interval` seconds apart (the first from the pool as evm_mine does). Linear in count,
   * so capped (bounds.ts MAX_MINE_BLOCKS, -32602); the thread is yielded between blocks every few ms, so other
   * requests, timers and signals are served meanwhile.
   * An interval of 0 (viem's default `0x0`) means the block clock, as no interval: timestamps must still rise.
   * @param countArg argument position of `count` (for the -32602 message)
   */
  const mineMany = async (count: bigint, interval?: bigint, timestamp?: bigint, countArg = 0) => {
    requireMineCount(count, countArg)
    if (timestamp !== undefined) requireTimestamp(timestamp, 0, 'timestamp')
    if (interval !== undefined && interval > 0n && count > 1n) {
      requireTimestamp(
        chain.reads.now() + interval * (count - 1n),
        1,
        'interval * (blocks - 1) past the next timestamp',
      )
    }
    const yieldPoint = loopYielder()
    for (let i = 0n; i < count; i++) {
      if (i > 0n) await yieldPoint()
      if (i === 0n && timestamp !== undefined) chain.setNextBlockTimestamp(timestamp)
      else if (i > 0n && interval !== undefined && interval > 0n)
        chain.setNextBlockTimestamp(chain.reads.head.header.timestamp + interval)
      await chain.mineBlock()
    }
  }

  /** Sets interval mining from an argument in `unitMs` milliseconds (0 = off). */
  const setIntervalMining = (interval: bigint, unitMs: number) => {
    miner.setIntervalMining(Number(interval) * unitMs)
    return null
  }

  return [
    method(
      'evm_mine',
      'evm',
      'mines a block from the pool (optionally at a timestamp)',
      [optional(mineOptions(), {} as { timestamp?: bigint; blocks?: bigint })],
      async (_c, o) => {
        await mineMany(o.blocks ?? 1n, undefined, o.timestamp)
        return null
      },
    ),
    method('evm_startMining', 'evm', 'resumes mining', [], () => {
      miner.start()
      return null
    }),
    method('evm_stopMining', 'evm', 'pauses mining; transactions wait in the pool', [], () => {
      miner.stop()
      return null
    }),
    method('evm_setAutomine', 'evm', 'instant mining on/off', [P.bool('enabled')], (_c, on) => {
      miner.setAutomine(on)
      return null
    }),
    method(
      'evm_setIntervalMining',
      'evm',
      'a block every N ms (0 = off); seconds under --compat anvil',
      [P.quantity('interval')],
      (_c, n) => setIntervalMining(n, s.compat.intervalMiningUnitMs),
    ),
    method(
      'evm_setBlockGasLimit',
      'evm',
      'gas limit of the next blocks',
      [P.quantity('gasLimit')],
      (_c, gas) => {
        chain.setBlockGasLimit(requireBlockGasLimit(gas))
        return true
      },
      ['anvil_setBlockGasLimit', 'hardhat_setBlockGasLimit'],
    ),
    method(
      'anvil_mine',
      'anvil',
      'mines N blocks, `interval` seconds apart',
      [optional(P.quantity('blocks'), 1n), optional(P.quantity('interval'), undefined)],
      async (_c, blocks, interval) => {
        await mineMany(blocks, interval)
        return null
      },
      ['hardhat_mine'],
    ),
    method(
      'anvil_setCoinbase',
      'anvil',
      'coinbase of the next blocks',
      [P.address()],
      (_c, a) => {
        chain.setCoinbase(a)
        return null
      },
      ['hardhat_setCoinbase'],
    ),
    method(
      'anvil_setMinGasPrice',
      'anvil',
      'minimumGasPrice of the next block (wei)',
      [P.quantity('minGasPrice')],
      (_c, wei) => {
        chain.setMinGasPrice(wei)
        return null
      },
      ['hardhat_setMinGasPrice'],
    ),
    method(
      'anvil_dropTransaction',
      'anvil',
      'removes a pool transaction',
      [P.hash('transactionHash')],
      (_c, h) => chain.dropTransaction(h),
      ['hardhat_dropTransaction'],
    ),
    method('anvil_getAutomine', 'anvil', 'whether automine is on', [], () => miner.automine, ['hardhat_getAutomine']),
    method(
      'anvil_setIntervalMining',
      'anvil',
      'a block every N seconds (0 = off), as Anvil',
      [P.quantity('interval')],
      (_c, n) => setIntervalMining(n, 1000),
    ),
  ]
}
