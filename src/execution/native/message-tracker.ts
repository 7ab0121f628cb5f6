/**
 * The message a precompile runs for. @ethereumjs hands a precompile only its data and gas (PrecompileInput),
 * while native contracts need the call depth (Environment.getCallStackDepth) and the caller (Bridge
 * authorisation). The EVM emits `beforeMessage` for each message right before running it, so for a precompile
 * the last message emitted by its EVM is its own (no other message starts in between).
 */
import type { EVMInterface } from '@ethereumjs/evm'

/** The fields of an @ethereumjs Message the native contracts read. */
export interface TrackedMessage {
  depth: number
  caller?: { bytes: Uint8Array }
  value?: bigint
  /** STATICCALL (or any call inside a static context, in @ethereumjs terms). */
  isStatic?: boolean
  /** DELEGATECALL. */
  delegatecall?: boolean
  /** The account whose context runs (differs from the code address for CALLCODE). */
  to?: { bytes: Uint8Array }
  /** The address whose code runs (@ethereumjs Message.codeAddress, a getter that throws when `to` is unset). */
  readonly codeAddress?: { bytes: Uint8Array }
}

/** The reference's message types (rskj MsgType): how the calling code reached the contract. */
export type MsgType = 'CALL' | 'STATICCALL' | 'DELEGATECALL' | 'CALLCODE'

/** The message type of a tracked message (a transaction or eth_call counts as CALL). */
export function msgType(m: TrackedMessage | undefined): MsgType {
  if (m === undefined) return 'CALL'
  if (m.delegatecall === true) return 'DELEGATECALL'
  if (m.to !== undefined && m.codeAddress !== undefined && Buffer.compare(m.codeAddress.bytes, m.to.bytes) !== 0)
    return 'CALLCODE'
  if (m.isStatic === true) return 'STATICCALL'
  return 'CALL'
}

interface Emitter {
  on(event: 'beforeMessage', listener: (m: TrackedMessage) => void): void
}

const last = new WeakMap<object, TrackedMessage>()
const tracked = new WeakSet<object>()

/**
 * Starts recording the messages of `evm` (idempotent; call it again on each copied VM's EVM, since
 * `vm.shallowCopy()` builds a new EVM without the listeners).
 */
export function trackMessages(evm: EVMInterface): void {
  if (tracked.has(evm)) return
  tracked.add(evm)
  const events = (evm as unknown as { events?: Emitter }).events
  events?.on('beforeMessage', (m) => last.set(evm, m))
}

/** The message `evm` is running now (for a precompile: its own), or undefined when not tracked. */
export function currentMessage(evm: EVMInterface): TrackedMessage | undefined {
  return last.get(evm)
}
