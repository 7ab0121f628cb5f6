/**
 * Range checks of the dev-chain setters: a value the chain cannot hold is refused up front
 * with -32602 naming the argument, instead of being stored and breaking later sends or blocks with undocumented
 * errors. Used by ./methods/dev-*.ts.
 */
import { invalidParams } from './rpc-error.js'

/** Largest account balance + 1: a balance is a 256-bit word (BALANCE, the state's account RLP). */
export const BALANCE_LIMIT = 1n << 256n

/**
 * Largest settable account nonce + 1: 2^64 − 1 (EIP-2681). A transaction nonce must be below 2^64 − 1, so an
 * account at 2^64 − 1 could never send again; anything above does not fit the 64-bit nonce at all.
 */
export const NONCE_LIMIT = (1n << 64n) - 1n

/** Timestamps (seconds) must stay below 2^64: the header field and the TIMESTAMP opcode are 64-bit. */
export const TIMESTAMP_LIMIT = 1n << 64n

/** Smallest block gas limit: one plain transfer (21 000 gas) must fit in a block. */
export const MIN_BLOCK_GAS_LIMIT = 21_000n

/**
 * Largest block gas limit: 2^63 − 1, a Java `long` (rskj's gas accounting, e.g. GasCost and the transaction
 * executor, runs in longs).
 */
export const MAX_BLOCK_GAS_LIMIT = (1n << 63n) - 1n

/**
 * Most blocks one anvil_mine / hardhat_mine / evm_mine call mines. Mining is linear (~0.35 ms and ~10 KB of
 * memory per empty block, measured: 10 000 blocks in 3.7 s, +113 MB RSS; 50 000 in 17 s, +488 MB), so a larger
 * count would hold memory the node never gives back; call again to mine more.
 */
export const MAX_MINE_BLOCKS = 10_000n

/**
 * @param value the decoded argument
 * @param limit exclusive upper bound
 * @param index argument position (0-based) for the message
 * @param name argument name for the message
 * @param limitText how the bound reads in the message, e.g. `2^256`
 * @returns value
 * @throws RpcError -32602 `invalid argument <index>: <name> must be below <limitText>`
 */
export function requireBelow(value: bigint, limit: bigint, index: number, name: string, limitText: string): bigint {
  if (value >= limit) throw invalidParams(`invalid argument ${index}: ${name} must be below ${limitText}, got ${value}`)
  return value
}

/**
 * Block gas limit bounds (evm_setBlockGasLimit and aliases).
 * @throws RpcError -32602 naming argument 0 outside [{@link MIN_BLOCK_GAS_LIMIT}, {@link MAX_BLOCK_GAS_LIMIT}]
 */
export function requireBlockGasLimit(gas: bigint): bigint {
  if (gas < MIN_BLOCK_GAS_LIMIT || gas > MAX_BLOCK_GAS_LIMIT) {
    throw invalidParams(`invalid argument 0: gasLimit must be from ${MIN_BLOCK_GAS_LIMIT} to 2^63 - 1, got ${gas}`)
  }
  return gas
}

/**
 * The block count of a mine call.
 * @param index argument position for the message
 * @throws RpcError -32602 above {@link MAX_MINE_BLOCKS}
 */
export function requireMineCount(count: bigint, index: number): bigint {
  if (count > MAX_MINE_BLOCKS) {
    throw invalidParams(
      `invalid argument ${index}: blocks must be at most ${MAX_MINE_BLOCKS} per call, got ${count}; ` +
        'call again to mine more',
    )
  }
  return count
}

/**
 * A timestamp (seconds) that must stay below 2^64.
 * @param index argument position; @param name argument name (both for the message)
 * @throws RpcError -32602 at or above 2^64
 */
export function requireTimestamp(timestamp: bigint, index: number, name: string): bigint {
  return requireBelow(timestamp, TIMESTAMP_LIMIT, index, name, '2^64')
}
