/**
 * The reference node's native-contract calling convention, as one @ethereumjs precompile function per contract
 * (rskj J/co/rsk/pcc/NativeContract.java, NativeMethod.java; J/org/ethereum/vm/program/Program.java
 * `callToPrecompiledAddress` and `executePrecompiledAndHandleError` (RSKIP197); J/org/ethereum/core/
 * TransactionExecutor.java `call` for a transaction sent straight to the contract):
 * - call data of 1-3 bytes, an unknown selector, a method whose activation rule is off at the executing block, or
 *   arguments that do not decode: no method;
 *   its gas is 0 and the execution fails;
 * - empty call data runs the contract's default method, if it has one;
 * - gas = the method's price (by default 2 per byte of call data); more than the call was given → out of gas,
 *   all the call's gas consumed;
 * - a method that fails (bad argument, not allowed for this caller…) fails the call: the caller's CALL pushes 0,
 *   the state changes are undone, and only the method's price is charged (RSKIP197, active from block 0 on
 *   regtest). A transaction sent to the contract ends with status 0 and intrinsic gas + the price used;
 *   eth_call returns "0x" (not a revert: the reference reports no revert either).
 * - a method whose result is null/empty Optional returns no data; otherwise the ABI encoding of the outputs.
 */
import { EVMError, type ExecResult, type PrecompileInput } from '@ethereumjs/evm'
import { evmFailure } from '../ethereumjs/index.js'
import type { BlockRecord } from '../../types/records.js'
import { AbiDecodeError, ArgReader, selector } from './abi.js'
import { currentMessage, msgType, type MsgType } from './message-tracker.js'

/** What the native contracts may ask of the node (implemented by the executor). */
export interface NativeHost {
  /** The network the chain runs (its Bridge constants: src/execution/native/bridge-constants.ts). */
  readonly network: 30 | 31 | 32 | 33
  /** Number of the block the code runs in (the block being mined, or the block a call runs "at"). */
  executionBlockNumber(): bigint
  /** Canonical block `number`, or undefined when there is none. */
  canonicalBlock(number: bigint): Promise<BlockRecord | undefined>
  /** Whether the run is a local call (eth_call, eth_estimateGas), not a transaction in a block. */
  isLocalCall(): boolean
  /**
   * Whether consensus rule `rule` (`'rskip134'`…) is active at the block the code runs in: always on node-cli's own
   * chain, by height on a fork (docs/reference-rules.md#rule-network-activations).
   */
  isRuleActive(rule: string): boolean
}

/** One call of a native method, as the method sees it. */
export interface NativeCall<A> {
  /** The decoded arguments. */
  args: A
  /** The whole call data (selector included). */
  data: Uint8Array
  /** The call's message depth in @ethereumjs terms (0 = the transaction's own call). */
  depth: number
  /** 20-byte address of the caller (msg.sender of the native contract). */
  caller: Uint8Array
  /** How the caller reached the contract. */
  msgType: MsgType
  /** Wei sent with the call. */
  value: bigint
  host: NativeHost
  input: PrecompileInput
}

/**
 * A method of a native contract.
 * @typeParam A decoded arguments
 */
export interface NativeMethod<A = unknown> {
  /** Solidity signature, e.g. `getCoinbaseAddress(int256)`: its selector routes the call. */
  signature: string
  /** Decodes the arguments. @throws AbiDecodeError (or any error) when they do not decode: "no method". */
  decode?(args: ArgReader): A
  /** Gas price of the call (default: 2 per byte of call data, NativeMethod.getGas). */
  gas?(args: A, data: Uint8Array, host: NativeHost): bigint
  /** Runs the method: the ABI-encoded result, or undefined for no return data. @throws NativeContractError */
  execute(call: NativeCall<A>): Uint8Array | undefined | Promise<Uint8Array | undefined>
  /** Only eth_call/eth_estimateGas may run it (NativeMethod.onlyAllowsLocalCalls); a function: by the block's rules. */
  localCallsOnly?: boolean | ((host: NativeHost) => boolean)
  /** The consensus rule that enables the method: while it is off at the executing block, the method does not exist. */
  activation?: string
  /** Message types it accepts (Bridge, RSKIP417); default: any. */
  callTypes?: readonly MsgType[]
}

/** Contract-wide rules that differ between NativeContract and the Bridge. */
export interface NativeContractOptions {
  /** Run for empty call data (none: such a call fails). */
  defaultMethod?: NativeMethod<any>
  /** Gas of a call that names no method (NativeContract: 0; Bridge: releaseBtc's cost). */
  noMethodGas?: bigint
  /**
   * Rules some checks depend on (the Bridge's, docs/reference-rules.md#rule-bridge-activations); each check is
   * always made when its rule is not given: `localCalls` (RSKIP88) enforces `localCallsOnly`, `callTypes` (RSKIP417)
   * enforces `callTypes`, `noMethodFails` (RSKIP88) makes data naming no method fail (before it: success, no data).
   */
  rules?: { localCalls?: string; callTypes?: string; noMethodFails?: string }
}

/**
 * `method`, existing only from consensus rule `rule` on (rskj BridgeMethods / NativeMethod `isEnabled`): below the
 * rule's height a call names no method (docs/reference-rules.md#rule-bridge-activations).
 */
export function since<A>(rule: string, method: NativeMethod<A>): NativeMethod<A> {
  return { ...method, activation: rule }
}

/** A failing native method (rskj NativeContractIllegalArgumentException / VMException). */
export class NativeContractError extends Error {}

/** The default gas of a native method: 2 per byte of call data (rskj NativeMethod.getGas). */
export const dataGas = (data: Uint8Array): bigint => BigInt(data.length) * 2n

const EMPTY = new Uint8Array(0)

/** Describes a failed native call for the EVM: a halt that charges `gasUsed` only. */
function failed(gasUsed: bigint, message: string): ExecResult {
  return { returnValue: EMPTY, executionGasUsed: gasUsed, exceptionError: evmFailure(message) }
}

/**
 * Builds the precompile function of a native contract.
 * @param methods the contract's methods (routed by selector)
 * @param host the node's side (block lookups, local call flag)
 * @param options default method and the gas of a call naming no method
 * @returns a function for `createEVM({ customPrecompiles })`
 */
export function nativeContract(
  methods: NativeMethod<any>[],
  host: NativeHost,
  options: NativeContractOptions = {},
): (input: PrecompileInput) => Promise<ExecResult> {
  const defaultMethod = options.defaultMethod
  const rules = options.rules ?? {}
  /** Whether the check tied to `rule` is made at the executing block. */
  const checks = (rule: string | undefined): boolean => rule === undefined || host.isRuleActive(rule)
  const bySelector = new Map<string, NativeMethod<any>>()
  for (const m of methods) bySelector.set(Buffer.from(selector(m.signature)).toString('hex'), m)
  return async (input) => {
    const data = input.data
    let method: NativeMethod<any> | undefined
    let args: unknown
    if (data.length === 0) {
      method = defaultMethod
    } else if (data.length >= 4) {
      method = bySelector.get(Buffer.from(data.subarray(0, 4)).toString('hex'))
      if (method?.activation !== undefined && !host.isRuleActive(method.activation)) method = undefined
      if (method?.decode) {
        try {
          args = method.decode(new ArgReader(data))
        } catch {
          method = undefined
        }
      }
    }
    const gas = method === undefined ? (options.noMethodGas ?? 0n) : (method.gas?.(args, data, host) ?? dataGas(data))
    if (gas > input.gasLimit) {
      return {
        returnValue: EMPTY,
        executionGasUsed: input.gasLimit,
        exceptionError: new EVMError(EVMError.errorMessages.OUT_OF_GAS),
      }
    }
    if (method === undefined) {
      if (!checks(rules.noMethodFails)) return { returnValue: EMPTY, executionGasUsed: gas }
      return failed(gas, 'native contract: invalid data given')
    }
    const localOnly = typeof method.localCallsOnly === 'function' ? method.localCallsOnly(host) : method.localCallsOnly
    if (localOnly === true && !host.isLocalCall() && checks(rules.localCalls))
      return failed(gas, 'native contract: non-local call')
    const msg = currentMessage(input._EVM)
    const type = msgType(msg)
    if (method.callTypes !== undefined && !method.callTypes.includes(type) && checks(rules.callTypes))
      return failed(gas, `native contract: call type ${type} not accepted`)
    try {
      const out = await method.execute({
        args,
        data,
        depth: msg?.depth ?? 0,
        caller: msg?.caller?.bytes ?? new Uint8Array(20),
        msgType: type,
        value: msg?.value ?? 0n,
        host,
        input,
      })
      return { returnValue: out ?? EMPTY, executionGasUsed: gas }
    } catch (err) {
      if (err instanceof NativeContractError || err instanceof AbiDecodeError)
        return failed(gas, `native contract: ${err.message}`)
      throw err
    }
  }
}
