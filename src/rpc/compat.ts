/**
 * Compatibility profiles (`--compat hardhat|anvil`, `createNode({ compat })`): the few places where a popular
 * tool assumes something the reference node does not do. Without a profile the node behaves as the reference;
 * with one, exactly the differences listed in {@link CompatProfile} apply, all decided here.
 *
 * What a profile changes (and nothing else):
 * - `web3_clientVersion` starts with `HardhatNetwork/…` or `anvil/…` (hardhat-network-helpers only accept those);
 *   the Hardhat profile presents itself as current Hardhat's (3.x) node where Hardhat 3 and 2 differ;
 * - `hardhat_metadata` is answered (Hardhat profile only) and the genesis and target block gas limit is Hardhat 3's
 *   60 000 000 unless `--gas-limit` says otherwise: Hardhat 2's hardhat-ethers, once `hardhat_metadata` answers,
 *   sends every transaction with 2^24 gas, which only fits this chain's parallel sublists from a ~40.4 M block
 *   limit on (docs/compat-profiles.md#hardhat-metadata-and-the-gas-limit);
 * - the Remasc transaction is left out of block transaction lists (chai matchers' `changeEtherBalance` need one
 *   transaction per block); it is still executed, still in the transactions/receipts roots, and its receipt and
 *   transaction are still found by hash;
 * - VM reverts are answered in the shape that tool's clients decode (Hardhat 3: code 3 "VM Exception while
 *   processing transaction: reverted with reason string '…'", data the revert bytes; Anvil: code 3
 *   "execution reverted: …", data the revert bytes) instead of the reference's -32015;
 * - `eth_sendTransaction` without `gas` sends with the estimate instead of the reference's 90 000;
 * - `evm_setIntervalMining` takes that tool's unit (Hardhat milliseconds, Anvil seconds);
 * - transactions stay in the pool until they are mined or dropped by a method, instead of leaving it after the
 *   reference's 10 blocks or 650 s (docs/reference-rules.md#rule-pool-outdated; a tool's test may send a
 *   transaction after a nonce gap and fill the gap much later);
 * - JSON-RPC errors answer HTTP 200 (both tools' habit; Hardhat 3's HTTP provider throws "Response status code 400"
 *   on any non-2xx answer without reading its body) instead of the reference's 400 for -32700/-32600/-32602
 *   (docs/reference-rules.md#rule-error-http-status);
 * - `debug_trace*` without a `tracer` answer geth's struct logs (`structLogger`), as both tools do, instead of the
 *   reference's `rskTracer` shape (src/node.ts passes it to the debug methods);
 * - eth_getLogs and log filters answer any block range, as both tools do, instead of refusing more than the
 *   reference's 5000 blocks (-32012);
 * - `callTracer` frames have geth's shape (full `output` data, type `CREATE2`, a creation's address as `to`) instead
 *   of the reference's (minimal-quantity `output`, CREATE2 typed CREATE; src/rpc/call-trace-format.ts).
 */
import { RpcError } from './rpc-error.js'
import { decodeRevertReason } from '../chain/queries/revert.js'
import type { VmExecutionError } from '../errors/domain-errors.js'
import type { BlockRecord, TxRecord } from '../types/records.js'
import { REMASC_ADDRESS } from '../rsk/remasc.js'
import { bytesEqual } from '../util/bytes.js'
import { MAX_BLOCKS_TO_QUERY } from '../events/log-query.js'

/** The profile names `--compat` takes. */
export const COMPAT_NAMES = ['hardhat', 'anvil'] as const
/** A profile name, or 'reference' for none. */
export type CompatName = (typeof COMPAT_NAMES)[number] | 'reference'

/** Versions of the tools the profiles present themselves as (the versions the client tests run). */
const HARDHAT_VERSION = '3.18.0'
const ANVIL_VERSION = '1.7.1'

/** The behaviour a profile selects. */
export interface CompatProfile {
  /** 'reference' (no profile), 'hardhat' or 'anvil'. */
  readonly name: CompatName
  /**
   * web3_clientVersion for this profile.
   * @param base the node's own version text, e.g. `node-cli/v0.1.0/linux-x64/Node20`
   */
  clientVersion(base: string): string
  /** Whether block transaction lists leave out the Remasc transaction. */
  readonly hideRemascTransaction: boolean
  /**
   * Whether `hardhat_metadata` is answered (else -32601 with the reason: answering it makes Hardhat 2's
   * hardhat-ethers send every transaction with 2^24 gas, above the reference's block gas limit).
   */
  readonly answersHardhatMetadata: boolean
  /**
   * The genesis and target block gas limit when `--gas-limit` / `createNode({ gasLimit })` is not given, in gas;
   * undefined: the network's own (docs/compat-profiles.md#hardhat-metadata-and-the-gas-limit).
   */
  readonly blockGasLimit?: bigint
  /** Whether eth_sendTransaction without `gas` uses the estimate (else the reference's 90 000). */
  readonly estimateOmittedGas: boolean
  /** Whether pool transactions are kept for ever (else dropped after the reference's 10 blocks or 650 s). */
  readonly keepsOutdatedTransactions: boolean
  /**
   * Whether every JSON-RPC answer, errors included, is sent with HTTP status 200 (the tools' habit), instead of the
   * reference's 400 for -32700/-32600/-32602 (docs/reference-rules.md#rule-error-http-status).
   */
  readonly errorsAnswerHttp200: boolean
  /**
   * Most blocks one eth_getLogs / filter query may span: the reference's 5000 (-32012 beyond), or null for no limit
   * (Anvil and Hardhat answer any range; a dapp or indexer asking `fromBlock: 0` expects an answer).
   */
  readonly logBlockLimit: bigint | null
  /** Milliseconds per unit of evm_setIntervalMining's argument (1: ms, Hardhat and reference; 1000: s, Anvil). */
  readonly intervalMiningUnitMs: number
  /**
   * Whether `callTracer` answers geth's frame shape (the return data as full DATA, left out when empty; CREATE2
   * frames typed CREATE2; a creation's address as `to`, its runtime code as `output`), as Hardhat's and Anvil's
   * tools read it, instead of the reference's (src/rpc/call-trace-format.ts).
   */
  readonly gethCallTracer: boolean
  /**
   * This profile's answer to a failed execution (src/rpc/error-mapping.ts asks it first).
   * @param err the failed execution a method raised
   * @returns the tool's revert shape for a revert; undefined for the reference's -32015 (no profile, or a
   *   failure other than a revert)
   */
  revertError(err: VmExecutionError): RpcError | undefined
}

/** The Panic(uint256) selector. */
const PANIC_SELECTOR = '4e487b71'
/** geth's and Anvil's code for a reverted execution. */
const EXECUTION_REVERTED = 3

/** Solidity panic codes and what Hardhat says of them (its stack-traces/panic-errors). */
const PANIC_REASONS: Record<number, string> = {
  0x01: 'Assertion error',
  0x11: 'Arithmetic operation overflowed outside of an unchecked block',
  0x12: 'Division or modulo division by zero',
  0x21: 'Tried to convert a value into an enum, but the value was too big or negative',
  0x22: 'Incorrectly encoded storage byte array',
  0x31: '.pop() was called on an empty array',
  0x32: 'Array accessed at an out-of-bounds or negative index',
  0x41: 'Too much memory was allocated, or an array was created that is too large',
  0x51: 'Called a zero-initialized variable of internal function type',
}

/** The panic code of `Panic(uint256)` revert data, or undefined. */
function panicCode(data: Uint8Array): number | undefined {
  if (data.length !== 36 || Buffer.from(data.subarray(0, 4)).toString('hex') !== PANIC_SELECTOR) return undefined
  const code = BigInt('0x' + Buffer.from(data.subarray(4)).toString('hex'))
  return code > 0xffn ? 0xff : Number(code)
}

/** Hardhat's wording of a revert (its solidity-errors.js / panic-errors.js). */
function hardhatRevertMessage(data: Uint8Array): string {
  const reason = decodeRevertReason(data)
  if (reason !== undefined) return `VM Exception while processing transaction: reverted with reason string '${reason}'`
  const panic = panicCode(data)
  if (panic !== undefined) {
    const why = PANIC_REASONS[panic]
    const hex = '0x' + panic.toString(16)
    const detail = why ? `reverted with panic code ${hex} (${why})` : `reverted with unknown panic code ${hex}`
    return `VM Exception while processing transaction: ${detail}`
  }
  if (data.length > 0) {
    const returned = Buffer.from(data).toString('hex')
    return (
      'VM Exception while processing transaction: ' +
      `reverted with an unrecognized custom error (return data: 0x${returned})`
    )
  }
  return 'Transaction reverted without a reason string'
}

/** Anvil's wording of a revert (code 3, geth's "execution reverted"). */
function anvilRevertMessage(data: Uint8Array): string {
  const reason = decodeRevertReason(data)
  if (reason !== undefined) return `execution reverted: ${reason}`
  const panic = panicCode(data)
  if (panic !== undefined) return `execution reverted: panic code 0x${panic.toString(16)}`
  return 'execution reverted'
}

/**
 * A profile's revert answer in geth's shape: code 3, the tool's wording, `data` the revert bytes as DATA.
 * @param message the tool's wording of revert data (Hardhat's or Anvil's)
 * @returns a {@link CompatProfile.revertError}: the RpcError for a revert, undefined for any other failure
 */
function codeThreeRevert(message: (data: Uint8Array) => string): CompatProfile['revertError'] {
  return (err) =>
    err.evmError === 'revert'
      ? new RpcError(
          EXECUTION_REVERTED,
          message(err.returnValue),
          '0x' + Buffer.from(err.returnValue).toString('hex'),
          err,
        )
      : undefined
}

const REFERENCE: CompatProfile = {
  name: 'reference',
  clientVersion: (base) => base,
  answersHardhatMetadata: false,
  hideRemascTransaction: false,
  estimateOmittedGas: false,
  keepsOutdatedTransactions: false,
  errorsAnswerHttp200: false,
  logBlockLimit: MAX_BLOCKS_TO_QUERY,
  intervalMiningUnitMs: 1,
  gethCallTracer: false,
  revertError: () => undefined,
}

/** Hardhat 3's default block gas limit (its node's genesis gasLimit, 0x3938700), in gas. */
const HARDHAT_BLOCK_GAS_LIMIT = 60_000_000n

const HARDHAT: CompatProfile = {
  name: 'hardhat',
  clientVersion: (base) => `HardhatNetwork/${HARDHAT_VERSION}/${base}`,
  answersHardhatMetadata: true,
  blockGasLimit: HARDHAT_BLOCK_GAS_LIMIT,
  hideRemascTransaction: true,
  estimateOmittedGas: true,
  keepsOutdatedTransactions: true,
  errorsAnswerHttp200: true,
  logBlockLimit: null,
  intervalMiningUnitMs: 1,
  gethCallTracer: true,
  // Hardhat 3's node: code 3, its wording, data the revert bytes (no transaction hash, even when mined)
  revertError: codeThreeRevert(hardhatRevertMessage),
}

const ANVIL: CompatProfile = {
  name: 'anvil',
  clientVersion: (base) => `anvil/v${ANVIL_VERSION}/${base}`,
  answersHardhatMetadata: false,
  hideRemascTransaction: true,
  estimateOmittedGas: true,
  keepsOutdatedTransactions: true,
  errorsAnswerHttp200: true,
  logBlockLimit: null,
  intervalMiningUnitMs: 1000,
  gethCallTracer: true,
  revertError: codeThreeRevert(anvilRevertMessage),
}

/**
 * The profile for a `--compat` value.
 * @param name 'hardhat', 'anvil', 'reference' or undefined (the reference's behaviour)
 * @throws Error naming the accepted values for anything else
 */
export function compatProfile(name: string | undefined): CompatProfile {
  switch (name) {
    case undefined:
    case 'reference':
      return REFERENCE
    case 'hardhat':
      return HARDHAT
    case 'anvil':
      return ANVIL
    default:
      throw new Error(`unknown compatibility profile "${name}" (known: ${COMPAT_NAMES.join(', ')})`)
  }
}

/** Whether a block's transaction record is its Remasc transaction (unsigned, to 0x…01000008, listed last). */
export function isRemascTransaction(t: TxRecord): boolean {
  return t.tx.v === undefined && t.tx.to !== undefined && bytesEqual(t.tx.to.bytes, REMASC_ADDRESS)
}

/**
 * The transactions a block lists under `profile`: all of them (reference), or all but the Remasc transaction.
 * Indexes of the others are unchanged (the Remasc transaction is always last).
 */
export function listedTransactions(block: BlockRecord, profile: CompatProfile): TxRecord[] {
  if (!profile.hideRemascTransaction) return block.transactions
  const txs = block.transactions
  const last = txs[txs.length - 1]
  return last !== undefined && isRemascTransaction(last) ? txs.slice(0, -1) : txs
}
