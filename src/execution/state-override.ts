/**
 * State and block overrides of eth_call, eth_estimateGas and debug_traceCall (spec §2 "State override entry",
 * §4 "State override rules"; geth's `OverrideAccount` / `BlockOverrides`). The reference accepts the state
 * override map from release 7.2.0 behind `rpc.allowCallStateOverride`, which is off by default; this dev chain
 * always accepts it (docs/tracing.md, "State and block overrides").
 *
 * Decoding of the JSON parameters: src/rpc/override-params.ts. Overrides are applied inside the checkpoint the call
 * runs in, so reverting that checkpoint restores the state: the chain state is untouched after the call.
 */
import { Account, Address } from '@ethereumjs/util'
import type { UnitrieStateManager } from '../state/unitrie-state-manager.js'
import { toKey } from '../util/bytes.js'
import type { BlockContext } from './execution-types.js'

/** One account's overrides. Storage slots and values are 32 bytes. */
export interface AccountOverride {
  address: Uint8Array
  /** Wei. */
  balance?: bigint
  nonce?: bigint
  /** Runtime code; empty removes the code. */
  code?: Uint8Array
  /** Replaces the whole storage with these cells. */
  state?: [slot: Uint8Array, value: Uint8Array][]
  /** Overrides these cells, keeping the others. */
  stateDiff?: [slot: Uint8Array, value: Uint8Array][]
}

/** A decoded state override map (empty = no override). */
export type StateOverride = AccountOverride[]

/** geth's block overrides, applied to the block context of the call. */
export interface BlockOverride {
  number?: bigint
  /** Seconds. */
  time?: bigint
  gasLimit?: bigint
  coinbase?: Uint8Array
  difficulty?: bigint
  /** Wei; BASEFEE answers the minimum gas price on this chain, so this sets it. */
  baseFee?: bigint
}

/** The overrides of one call (eth_call's 3rd and 4th parameters). */
export interface CallOverrides {
  state?: StateOverride
  block?: BlockOverride
}

/** The block context with `o`'s fields replacing its own. */
export function overrideContext(ctx: BlockContext, o: BlockOverride | undefined): BlockContext {
  if (o === undefined) return ctx
  return {
    number: o.number ?? ctx.number,
    timestamp: o.time ?? ctx.timestamp,
    coinbase: o.coinbase ?? ctx.coinbase,
    gasLimit: o.gasLimit ?? ctx.gasLimit,
    difficulty: o.difficulty ?? ctx.difficulty,
    minimumGasPrice: o.baseFee ?? ctx.minimumGasPrice,
  }
}

/**
 * Writes the overrides into `sm`. Call inside a checkpoint that is reverted afterwards: every write is journaled.
 * `state` wipes the account's storage first (the storage marker stays, so the account is a contract with only
 * the given cells); zero values delete cells.
 */
export async function applyStateOverride(sm: UnitrieStateManager, overrides: StateOverride): Promise<void> {
  for (const o of overrides) {
    const a = new Address(o.address)
    if (o.balance !== undefined || o.nonce !== undefined) {
      const cur = await sm.getAccount(a)
      await sm.putAccount(a, new Account(o.nonce ?? cur?.nonce ?? 0n, o.balance ?? cur?.balance ?? 0n))
    }
    if (o.code !== undefined) await sm.putCode(a, o.code)
    if (o.state !== undefined) {
      await sm.clearStorage(a)
      for (const [slot, v] of o.state) await sm.putStorage(a, slot, v)
    }
    if (o.stateDiff !== undefined) for (const [slot, v] of o.stateDiff) await sm.putStorage(a, slot, v)
  }
}

/** A memo key part for the overrides ('' when none): equal overrides give equal keys. */
export function overrideKey(s: StateOverride | undefined, b: BlockOverride | undefined): string {
  if ((s === undefined || s.length === 0) && b === undefined) return ''
  const hex = (x: Uint8Array | undefined): string => (x === undefined ? '' : toKey(x))
  const cells = (c: [Uint8Array, Uint8Array][] | undefined): string =>
    c === undefined ? '-' : c.map(([k, v]) => toKey(k) + '=' + toKey(v)).join(',')
  const accounts = (s ?? []).map((o) =>
    [hex(o.address), o.balance ?? '', o.nonce ?? '', hex(o.code), cells(o.state), cells(o.stateDiff)].join('/'),
  )
  const block =
    b === undefined ? '' : [b.number, b.time, b.gasLimit, hex(b.coinbase), b.difficulty, b.baseFee].join('/')
  return '|o' + accounts.join(';') + '|b' + block
}
