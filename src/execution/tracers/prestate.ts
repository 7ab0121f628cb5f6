/**
 * geth's `prestateTracer` (not in the reference): the accounts an execution touched as they were before it —
 * {address: {balance, nonce, code, storage}} with only the storage slots it read or wrote. With `diffMode`,
 * {pre, post}: the touched accounts that changed, before and after (post lists only the changed fields).
 *
 * Values are read at first touch: the sender and recipient when the tracer is made (before the transaction
 * pays for gas), the others at their first message, storage slots at their first SLOAD/SSTORE. The state
 * manager's reads complete synchronously, so the values are those at that moment even though they are
 * awaited later.
 */
import type { InterpreterStep, Message } from '@ethereumjs/evm'
import { Address } from '@ethereumjs/util'
import type { UnitrieStateManager } from '../../state/unitrie-state-manager.js'
import type { ExecutionTracer, TraceEvents } from './types.js'

interface AccountState {
  balance: bigint
  nonce: bigint
  code: Uint8Array
  storage: Map<string, Uint8Array>
}

interface Pending {
  account: Promise<{ balance: bigint; nonce: bigint; code: Uint8Array }>
  storage: Map<string, Promise<Uint8Array>>
}

const hex = (b: Uint8Array): string => '0x' + Buffer.from(b).toString('hex')
const word = (v: bigint): string => v.toString(16).padStart(64, '0')

/** See the module doc. */
export class PrestateCollector implements ExecutionTracer {
  private readonly pre = new Map<string, Pending>()
  private post: Map<string, AccountState> | undefined

  constructor(
    private readonly sm: UnitrieStateManager,
    tx: { from: Uint8Array; to?: Uint8Array },
    private readonly diffMode: boolean,
  ) {
    this.touch(tx.from)
    if (tx.to !== undefined) this.touch(tx.to)
  }

  private read(address: string): Promise<{ balance: bigint; nonce: bigint; code: Uint8Array }> {
    const a = new Address(Buffer.from(address, 'hex'))
    return Promise.all([this.sm.getAccount(a), this.sm.getCode(a)]).then(([acct, code]) => ({
      balance: acct?.balance ?? 0n,
      nonce: acct?.nonce ?? 0n,
      code,
    }))
  }

  private touch(address: Uint8Array): Pending {
    const key = Buffer.from(address).toString('hex')
    let p = this.pre.get(key)
    if (p === undefined) this.pre.set(key, (p = { account: this.read(key), storage: new Map() }))
    return p
  }

  private readonly onBefore = (m: Message): void => {
    this.touch(m.caller.bytes)
    if (m.to !== undefined) this.touch(m.to.bytes)
  }

  private readonly onStep = (s: InterpreterStep): void => {
    const op = s.opcode.code
    if (op === 0x54 || op === 0x55) {
      const p = this.touch(s.address.bytes)
      const slot = word(s.stack[s.stack.length - 1]!)
      if (!p.storage.has(slot)) p.storage.set(slot, this.sm.getStorage(s.address, Buffer.from(slot, 'hex')))
    } else if (op === 0xff || op === 0x31 || op === 0x3b || op === 0x3c || op === 0x3f) {
      // SELFDESTRUCT beneficiary, BALANCE, EXTCODESIZE/COPY/HASH
      const w = word(s.stack[s.stack.length - 1]!)
      this.touch(Buffer.from(w.slice(24), 'hex'))
    }
  }

  attach(events: TraceEvents): void {
    events.on('beforeMessage', this.onBefore)
    events.on('step', this.onStep)
  }

  detach(events: TraceEvents): void {
    events.off('beforeMessage', this.onBefore)
    events.off('step', this.onStep)
    if (this.diffMode) {
      // the state right after the execution, read now (before the next transaction runs)
      this.post = new Map()
      for (const [key, p] of this.pre) {
        const a = new Address(Buffer.from(key, 'hex'))
        const storage = new Map<string, Uint8Array>()
        const post: AccountState = { balance: 0n, nonce: 0n, code: new Uint8Array(0), storage }
        this.post.set(key, post)
        void this.read(key).then((v) => Object.assign(post, v))
        for (const slot of p.storage.keys())
          void this.sm.getStorage(a, Buffer.from(slot, 'hex')).then((v) => storage.set(slot, v))
      }
    }
  }

  /** The JSON result (see the module doc). */
  async result(): Promise<unknown> {
    const pre = new Map<string, AccountState>()
    for (const [key, p] of this.pre) {
      const acct = await p.account
      const storage = new Map<string, Uint8Array>()
      for (const [slot, v] of p.storage) storage.set(slot, await v)
      pre.set(key, { ...acct, storage })
    }
    const json = (s: AccountState, only?: AccountState): Record<string, unknown> => {
      const o: Record<string, unknown> = {}
      if (only === undefined || only.balance !== s.balance) o.balance = '0x' + s.balance.toString(16)
      if ((only === undefined && s.nonce > 0n) || (only !== undefined && only.nonce !== s.nonce))
        o.nonce = Number(s.nonce)
      if ((only === undefined && s.code.length > 0) || (only !== undefined && hex(only.code) !== hex(s.code)))
        o.code = hex(s.code)
      const st: Record<string, string> = {}
      for (const [slot, v] of s.storage) {
        const value = '0x' + Buffer.from(v).toString('hex').padStart(64, '0')
        if (only === undefined || hex(only.storage.get(slot) ?? new Uint8Array(0)) !== hex(v)) {
          if (only === undefined && this.diffMode && v.length === 0) continue
          st['0x' + slot] = value
        }
      }
      if (Object.keys(st).length > 0) o.storage = st
      return o
    }
    if (!this.diffMode || this.post === undefined) {
      const out: Record<string, unknown> = {}
      for (const [key, s] of pre) out['0x' + key] = json(s)
      return out
    }
    const outPre: Record<string, unknown> = {}
    const outPost: Record<string, unknown> = {}
    for (const [key, before] of pre) {
      const after = this.post.get(key)!
      const changed = json(after, before)
      if (Object.keys(changed).length === 0) continue
      outPre['0x' + key] = json(before)
      outPost['0x' + key] = changed
    }
    return { pre: outPre, post: outPost }
  }
}
