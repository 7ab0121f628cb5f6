/**
 * Dev-chain controls: evm_* (reference semantics, rskj EvmModuleImpl / SnapshotManager / MinerClock),
 * the anvil_ / hardhat_ methods test tools call (one handler, both prefixes where peers have both), the
 * ganache-style evm_setAccount* names viem's test client uses in ganache mode, and eth_sendUnsignedTransaction.
 */
import { randomBytes } from 'node:crypto'
import { Account, Address } from '@ethereumjs/util'
import { ErrorCode, invalidParams, RpcError } from '../rpc-error.js'
import { bigIntToBytes, quantity, toHex } from '../../util/bytes.js'
import { method, type MethodSpec } from '../method-table.js'
import { decodeQuantity, optional, P, param } from '../params.js'
import type { Services } from '../services.js'
import {
  BALANCE_LIMIT,
  NONCE_LIMIT,
  requireBelow,
  requireBlockGasLimit,
  requireMineCount,
  requireTimestamp,
} from '../bounds.js'
import { loopYielder } from '../../execution/deadline.js'
import { sendFrom } from './eth.js'

/** A number of seconds as the reference's evm_increaseTime takes it: decimal or 0x-hex string, or a JSON number. */
const seconds = (name: string) =>
  param(name, (v) => {
    if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v)
    if (typeof v === 'string' && /^-?\d+$/.test(v)) return BigInt(v)
    if (typeof v === 'string' && /^0x[0-9a-fA-F]+$/.test(v)) return BigInt(v)
    throw invalidParams(`invalid number of seconds ${JSON.stringify(v)}`)
  })

/** A snapshot id: "0x1" (reference) or a JSON number. */
const snapshotId = () =>
  param('snapshotId', (v) => {
    try {
      const n = decodeQuantity(v, 0)
      if (n > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error()
      return Number(n)
    } catch {
      throw invalidParams(`invalid snapshot id ${typeof v === 'string' ? v : JSON.stringify(v)}`)
    }
  })

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

/**
 * Why hardhat_metadata is refused. hardhat-ethers (signers.js) takes any answer to it, on a network named
 * `localhost` without a `gas` setting, as "this is a Hardhat node" and then sends every transaction with a fixed
 * gas limit of min(2^24, the project's Hardhat block gas limit) instead of estimating — above this chain's block
 * gas limit (6.8 M), so every transaction would be rejected. Refusing it keeps hardhat-ethers estimating.
 */
const HARDHAT_METADATA_REFUSAL =
  'the method hardhat_metadata is not available: answering it makes hardhat-ethers send every transaction with ' +
  "16777216 gas, above this chain's block gas limit; anvil_metadata answers the same fields"

/** The dev-chain methods. */
export function devMethods(s: Services): MethodSpec[] {
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
      requireTimestamp(chain.now() + interval * (count - 1n), 1, 'interval * (blocks - 1) past the next timestamp')
    }
    const yieldPoint = loopYielder()
    for (let i = 0n; i < count; i++) {
      if (i > 0n) await yieldPoint()
      if (i === 0n && timestamp !== undefined) chain.setNextBlockTimestamp(timestamp)
      else if (i > 0n && interval !== undefined && interval > 0n)
        chain.setNextBlockTimestamp(chain.head.header.timestamp + interval)
      await chain.mineBlock()
    }
  }

  /** Back to genesis; a new instanceId, as hardhat_reset documents (hardhat_metadata). */
  const reset = async () => {
    await chain.reset()
    s.instanceId = '0x' + randomBytes(32).toString('hex')
  }

  const setAccount = (address: Uint8Array, f: (a: Account) => void) =>
    chain.modifyState(async (sm) => {
      const addr = new Address(address)
      const acct = (await sm.getAccount(addr)) ?? new Account()
      f(acct)
      await sm.putAccount(addr, acct)
    })
  const setBalance = async (address: Uint8Array, wei: bigint) => {
    requireBelow(wei, BALANCE_LIMIT, 1, 'balance', '2^256')
    await setAccount(address, (a) => (a.balance = wei))
    return true
  }
  const setNonce = async (address: Uint8Array, nonce: bigint) => {
    requireBelow(nonce, NONCE_LIMIT, 1, 'nonce', '2^64 - 1 (EIP-2681)')
    await setAccount(address, (a) => (a.nonce = nonce))
    return true
  }
  const setCode = async (address: Uint8Array, code: Uint8Array) => {
    await chain.modifyState(async (sm) => {
      const addr = new Address(address)
      if ((await sm.getAccount(addr)) === undefined) await sm.putAccount(addr, new Account())
      await sm.putCode(addr, code)
    })
    return true
  }
  const setStorage = async (address: Uint8Array, slot: Uint8Array, value: Uint8Array) => {
    if (value.length > 32) throw invalidParams('invalid argument 2: storage value longer than 32 bytes')
    await chain.modifyState(async (sm) => {
      const addr = new Address(address)
      if ((await sm.getAccount(addr)) === undefined) await sm.putAccount(addr, new Account())
      let v = value
      while (v.length > 0 && v[0] === 0) v = v.subarray(1)
      await sm.putStorage(addr, slot, v)
    })
    return true
  }
  const storageValue = () =>
    param('value', (v, i) => {
      const q = decodeQuantity(v, i)
      if (q >= 1n << 256n) throw invalidParams(`invalid argument ${i}: storage value larger than 32 bytes`)
      return bigIntToBytes(q)
    })
  const metadata = () => ({
    clientVersion: s.clientVersion,
    chainId: Number(chain.chainId),
    instanceId: s.instanceId,
    latestBlockNumber: Number(chain.head.header.number),
    latestBlockHash: toHex(chain.head.hash),
    snapshots: {},
    compat: s.compat.name,
  })
  /** Sets interval mining from an argument in `unitMs` milliseconds (0 = off). */
  const setIntervalMining = (interval: bigint, unitMs: number) => {
    miner.setIntervalMining(Number(interval) * unitMs)
    return null
  }

  return [
    // ---- evm_ (reference) ----
    method('evm_snapshot', 'evm', 'records the chain; returns an id "0x1", "0x2", …', [], async () =>
      quantity(await chain.snapshot()),
    ),
    method(
      'evm_revert',
      'evm',
      'restores a snapshot (the id stays usable); false when unknown',
      [snapshotId()],
      (_c, id) => chain.revertTo(id),
    ),
    method('evm_reset', 'evm', 'back to genesis', [], async () => {
      await reset()
      return null
    }),
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
    method(
      'evm_increaseTime',
      'evm',
      "adds seconds to the next block's clock; returns the accumulated offset",
      [seconds('seconds')],
      (_c, n) => {
        if (n > 0n) requireTimestamp(chain.now() + n, 0, 'seconds (added to the clock)')
        return quantity(chain.increaseTime(n))
      },
    ),
    method(
      'evm_setNextBlockTimestamp',
      'evm',
      "fixes the next block's timestamp",
      [P.quantity('timestamp')],
      (_c, t) => {
        chain.setNextBlockTimestamp(requireTimestamp(t, 0, 'timestamp'))
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
    // ganache names (viem testClient mode 'ganache')
    method('evm_setAccountBalance', 'evm', 'sets a balance (wei)', [P.address(), P.quantity('balance')], (_c, a, wei) =>
      setBalance(a, wei),
    ),
    method('evm_setAccountNonce', 'evm', 'sets a nonce', [P.address(), P.quantity('nonce')], (_c, a, n) =>
      setNonce(a, n),
    ),
    method('evm_setAccountCode', 'evm', 'sets code', [P.address(), P.data('code')], (_c, a, code) => setCode(a, code)),
    method(
      'evm_setAccountStorageAt',
      'evm',
      'sets a storage word',
      [P.address(), P.slot('slot'), storageValue()],
      (_c, a, k, v) => setStorage(a, k, v),
    ),

    // ---- anvil_ / hardhat_ ----
    method(
      'anvil_impersonateAccount',
      'anvil',
      'lets eth_sendTransaction send from an address without its key',
      [P.address()],
      (_c, a) => {
        s.impersonation.add(a)
        return null
      },
      ['hardhat_impersonateAccount'],
    ),
    method(
      'anvil_stopImpersonatingAccount',
      'anvil',
      'ends impersonation',
      [P.address()],
      (_c, a) => {
        s.impersonation.remove(a)
        return null
      },
      ['hardhat_stopImpersonatingAccount'],
    ),
    method('anvil_autoImpersonateAccount', 'anvil', 'impersonate every sender', [P.bool('enabled')], (_c, on) => {
      s.impersonation.auto = on
      return null
    }),
    method(
      'anvil_setBalance',
      'anvil',
      'sets a balance (wei)',
      [P.address(), P.quantity('balance')],
      (_c, a, wei) => setBalance(a, wei),
      ['hardhat_setBalance'],
    ),
    method('anvil_setCode', 'anvil', 'sets code', [P.address(), P.data('code')], (_c, a, code) => setCode(a, code), [
      'hardhat_setCode',
    ]),
    method(
      'anvil_setNonce',
      'anvil',
      'sets a nonce',
      [P.address(), P.quantity('nonce')],
      (_c, a, n) => setNonce(a, n),
      ['hardhat_setNonce'],
    ),
    method(
      'anvil_setStorageAt',
      'anvil',
      'sets a storage word',
      [P.address(), P.slot('slot'), storageValue()],
      (_c, a, k, v) => setStorage(a, k, v),
      ['hardhat_setStorageAt'],
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
    method(
      'anvil_setLoggingEnabled',
      'anvil',
      'request log on/off',
      [P.bool('enabled')],
      (_c, on) => {
        s.setLogging(on)
        return null
      },
      ['hardhat_setLoggingEnabled'],
    ),
    method('anvil_getAutomine', 'anvil', 'whether automine is on', [], () => miner.automine, ['hardhat_getAutomine']),
    method(
      'anvil_setIntervalMining',
      'anvil',
      'a block every N seconds (0 = off), as Anvil',
      [P.quantity('interval')],
      (_c, n) => setIntervalMining(n, 1000),
    ),
    method(
      'anvil_metadata',
      'anvil',
      'client version, chain id, instance id, latest block, compat profile',
      [],
      metadata,
    ),
    method('hardhat_metadata', 'hardhat', 'not served (-32601): see "Using it from Hardhat"', [], () => {
      throw new RpcError(ErrorCode.MethodNotFound, HARDHAT_METADATA_REFUSAL)
    }),
    method('anvil_nodeInfo', 'anvil', 'node configuration summary', [], () => ({
      currentBlockNumber: quantity(chain.head.header.number),
      currentBlockTimestamp: Number(chain.head.header.timestamp),
      currentBlockHash: toHex(chain.head.hash),
      hardFork: 'rsk',
      compat: s.compat.name,
      transactionOrder: 'fees',
      miningMode: miner.describe(),
      environment: {
        baseFee: '0x0',
        chainId: Number(chain.chainId),
        gasLimit: quantity(chain.nextContext().gasLimit),
        gasPrice: quantity(chain.nextContext().minimumGasPrice),
      },
      // (the origin only: a hosted service's URL may hold its API key)
      forkConfig: s.fork
        ? { forkUrl: s.fork.remote.client.origin, forkBlockNumber: Number(s.fork.point.number), forkRetryBackoff: null }
        : { forkUrl: null, forkBlockNumber: null, forkRetryBackoff: null },
    })),
    method(
      'anvil_reset',
      'anvil',
      'back to genesis; in a fork: to the fork block, another fork ({ forking: { jsonRpcUrl, blockNumber } }) or none',
      [optional(P.any('options'), undefined)],
      async (_c, opts) => {
        // viem's reset() always sends { forking: { blockNumber } } (null when not given): only a fork URL is refused
        // (a node started with a fork answers through the fork layer instead, src/rpc/methods/fork.ts)
        const forking = opts && typeof opts === 'object' ? (opts as { forking?: unknown }).forking : undefined
        if (forking && typeof forking === 'object' && (forking as { jsonRpcUrl?: unknown }).jsonRpcUrl != null) {
          throw invalidParams(
            'forking not enabled: start with --fork-url to fork (a node started without one cannot fork at run time)',
          )
        }
        await reset()
        return null
      },
      ['hardhat_reset'],
    ),
    method(
      'eth_sendUnsignedTransaction',
      'eth',
      'sends from any address without a signature',
      [P.tx()],
      async (_c, obj) => toHex(await sendFrom(s, obj, true)),
    ),
  ]
}
