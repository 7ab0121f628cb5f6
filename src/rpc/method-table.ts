/**
 * The one method table (docs/architecture.md#one-method-table): for each method its name, aliases, module, parameter
 * decoders and handler. Dispatch, "method not found", module switches and docs/rpc-methods.md's method list all
 * come from it.
 */
import type { Connection } from '../server/types.js'
import type { Decoded, Param } from './params.js'

/** Per-call context handed to handlers. */
export interface CallContext {
  /** The client connection (WS connections carry subscriptions). */
  connection: Connection
}

/** RPC modules (namespaces) that can be switched on and off as a whole. */
export type ModuleName =
  | 'eth'
  | 'net'
  | 'web3'
  | 'evm'
  | 'personal'
  | 'debug'
  | 'trace'
  | 'txpool'
  | 'mnr'
  | 'sco'
  | 'ext'
  | 'anvil'
  | 'hardhat'
  | 'ots'
  | 'erigon'

/** What a method is, as library users and docs/rpc-methods.md's method list see it. */
export interface MethodInfo {
  readonly name: string
  /** Other names answering the same way (e.g. `hardhat_mine` for `anvil_mine`). */
  readonly aliases: readonly string[]
  /** The module (namespace) `--rpc-modules` switches it with. */
  readonly module: ModuleName
  /** Its positional parameters: name, and whether it may be omitted. */
  readonly params: readonly { readonly name: string; readonly optional: boolean }[]
  /** One-line description for docs/rpc-methods.md's method list. */
  readonly summary: string
}

/** One method of the table. */
export interface MethodSpec extends MethodInfo {
  readonly aliases: string[]
  readonly params: readonly Param<unknown>[]
  handler: (ctx: CallContext, args: unknown[]) => unknown
}

/**
 * Declares a method with typed decoded arguments.
 * @param name canonical method name
 * @param module namespace the method belongs to (for module switches)
 * @param params positional parameter decoders (optional ones last)
 * @param handler receives the call context and the decoded arguments; returns the JSON result (or a promise)
 */
export function method<const P extends readonly Param<unknown>[]>(
  name: string,
  module: ModuleName,
  summary: string,
  params: P,
  handler: (ctx: CallContext, ...args: Decoded<P>) => unknown,
  aliases: string[] = [],
): MethodSpec {
  return {
    name,
    aliases,
    module,
    params,
    summary,
    handler: (ctx, args) => handler(ctx, ...(args as Decoded<P>)),
  }
}

/**
 * Why fee-market methods are not served, and what a client should do instead: answering them (even with zeros)
 * leads ethers, viem, cast and web3.js to build EIP-1559 (type 2) transactions, which this chain rejects.
 */
export const LEGACY_ONLY =
  'this chain has no fee market (no base fee, no EIP-1559) and takes legacy (type 0) transactions only; ' +
  "send legacy transactions with gasPrice (cast/forge --legacy, web3.js defaultTransactionType: '0x0', " +
  "ethers { type: 0 }, viem { type: 'legacy' })"

/**
 * Methods that are not served, with the reason given in the -32601 message: those the spec lists as not
 * available (docs/reference-rules.md#rule-unavailable-methods), and the fee-market methods of chains with EIP-1559. A
 * Map, not a plain object: a lookup by a request's method name must never reach `Object.prototype` (`constructor`,
 * `__proto__`, `toString`…), whose values would leak into the error message.
 */
export const UNAVAILABLE_METHODS: ReadonlyMap<string, string> = new Map([
  ...['eth_getCompilers', 'eth_compileLLL', 'eth_compileSolidity', 'eth_compileSerpent'].map((m): [string, string] => [
    m,
    'the node has no compilers, for security reasons',
  ]),
  ...['db_putString', 'db_getString', 'db_putHex', 'db_getHex'].map((m): [string, string] => [
    m,
    'the db_ methods are deprecated',
  ]),
  ...[
    'shh_post',
    'shh_version',
    'shh_newIdentity',
    'shh_hasIdentity',
    'shh_newGroup',
    'shh_addToGroup',
    'shh_newFilter',
    'shh_uninstallFilter',
    'shh_getFilterChanges',
    'shh_getMessages',
  ].map((m): [string, string] => [m, 'the Whisper protocol is not supported']),
  ...['eth_feeHistory', 'eth_maxPriorityFeePerGas', 'eth_blobBaseFee'].map((m): [string, string] => [m, LEGACY_ONLY]),
])
