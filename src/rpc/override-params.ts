/**
 * Decoders of the state override map and geth's block overrides (eth_call's 3rd and 4th parameters,
 * eth_estimateGas, debug_traceCall's `stateOverrides` / `blockOverrides`); spec §2 "State override entry".
 * Every failure is -32602. What the overrides do: src/execution/state-override.ts.
 */
import { invalidParams } from './rpc-error.js'
import type { AccountOverride, BlockOverride, StateOverride } from '../execution/state-override.js'
import { decodeAddress, decodeData, decodeQuantity, decodeStorageSlot, optional, param } from './params.js'

const ACCOUNT_FIELDS = new Set(['balance', 'nonce', 'code', 'state', 'stateDiff', 'movePrecompileToAddress'])
const BLOCK_FIELDS = new Set([
  'number',
  'time',
  'gasLimit',
  'coinbase',
  'difficulty',
  'baseFee',
  'random',
  'prevRandao',
  'blobBaseFee',
  'feeRecipient',
])

function fail(index: number, message: string): never {
  throw invalidParams(`invalid argument ${index}: ${message}`)
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v)
}

/** Re-labels a nested decoder failure with the override field it came from. */
function field<T>(index: number, where: string, decode: () => T): T {
  try {
    return decode()
  } catch (err) {
    fail(index, `${where}: ${(err as Error).message.replace(/^invalid argument \d+: /, '')}`)
  }
}

function decodeCells(v: unknown, index: number, where: string): [Uint8Array, Uint8Array][] {
  if (!isObject(v)) fail(index, `${where}: expected an object of storage slot to value`)
  return Object.entries(v).map(([slot, value]) => [
    field(index, `${where} slot ${slot}`, () => decodeStorageSlot(slot, index)),
    field(index, `${where}[${slot}]`, () => decodeStorageSlot(value, index)),
  ])
}

/**
 * Decodes the state override map: address → {balance, nonce, code, state, stateDiff}.
 * @param value raw JSON (undefined/null = no override)
 * @param index parameter position, for messages
 * @throws RpcError -32602 on a malformed entry, an unknown field, both `state` and `stateDiff`, or
 *   `movePrecompileToAddress` (unsupported: spec §4 state override rule 3)
 */
export function decodeStateOverride(value: unknown, index: number): StateOverride {
  if (value === undefined || value === null) return []
  if (!isObject(value)) fail(index, 'state override must be an object of address to account override')
  const out: StateOverride = []
  for (const [addr, entry] of Object.entries(value)) {
    const address = field(index, `state override key ${addr}`, () => decodeAddress(addr, index))
    if (!isObject(entry)) fail(index, `state override of ${addr} must be an object`)
    for (const k of Object.keys(entry)) {
      if (k === 'movePrecompileToAddress') fail(index, `${addr}: movePrecompileToAddress is not supported`)
      if (!ACCOUNT_FIELDS.has(k)) fail(index, `${addr}: unknown state override field "${k}"`)
    }
    const o: AccountOverride = { address }
    const get = (k: string): unknown => (entry[k] === null ? undefined : entry[k])
    if (get('balance') !== undefined)
      o.balance = field(index, `${addr}.balance`, () => decodeQuantity(get('balance'), index))
    if (get('nonce') !== undefined) o.nonce = field(index, `${addr}.nonce`, () => decodeQuantity(get('nonce'), index))
    if (get('code') !== undefined) o.code = field(index, `${addr}.code`, () => decodeData(get('code'), index))
    if (get('state') !== undefined && get('stateDiff') !== undefined)
      fail(index, `${addr}: both state and stateDiff are set`)
    if (get('state') !== undefined) o.state = decodeCells(get('state'), index, `${addr}.state`)
    if (get('stateDiff') !== undefined) o.stateDiff = decodeCells(get('stateDiff'), index, `${addr}.stateDiff`)
    if (o.balance !== undefined && o.balance >= 1n << 256n) fail(index, `${addr}.balance: larger than 256 bits`)
    if (o.nonce !== undefined && o.nonce >= 1n << 64n) fail(index, `${addr}.nonce: larger than 64 bits`)
    out.push(o)
  }
  return out
}

/**
 * Decodes geth's block overrides {number, time, gasLimit, coinbase (or feeRecipient), difficulty, baseFee}.
 * `random`/`prevRandao`/`blobBaseFee` are accepted and ignored (no such fields on this chain).
 * @throws RpcError -32602 on a malformed value or an unknown field
 */
export function decodeBlockOverride(value: unknown, index: number): BlockOverride | undefined {
  if (value === undefined || value === null) return undefined
  if (!isObject(value)) fail(index, 'block override must be an object')
  for (const k of Object.keys(value)) if (!BLOCK_FIELDS.has(k)) fail(index, `unknown block override field "${k}"`)
  const q = (k: string): bigint | undefined =>
    value[k] === undefined || value[k] === null ? undefined : field(index, k, () => decodeQuantity(value[k], index))
  const coinbaseRaw = value.coinbase ?? value.feeRecipient
  return {
    number: q('number'),
    time: q('time'),
    gasLimit: q('gasLimit'),
    difficulty: q('difficulty'),
    baseFee: q('baseFee'),
    coinbase:
      coinbaseRaw === undefined || coinbaseRaw === null
        ? undefined
        : field(index, 'coinbase', () => decodeAddress(coinbaseRaw, index)),
  }
}

/** eth_call / eth_estimateGas parameter: the state override map (optional). */
export const stateOverrideParam = (): ReturnType<typeof optional<StateOverride, StateOverride>> =>
  optional(param('stateOverride', decodeStateOverride), [] as StateOverride)

/** eth_call parameter: geth's block overrides (optional). */
export const blockOverrideParam = (): ReturnType<typeof optional<BlockOverride | undefined, undefined>> =>
  optional(param('blockOverride', decodeBlockOverride), undefined)
