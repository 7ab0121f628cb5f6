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
