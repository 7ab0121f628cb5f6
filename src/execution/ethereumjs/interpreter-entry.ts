/**
 * The node's own `EVM.runInterpreter` (the step of every message that runs bytecode), for the node's adopted EVMs:
 * the stock steps — read the contract's account, build the message environment and an interpreter, run it, shape
 * the result — minus two costs of every message that an eth_call of a view function paid in full
 * (docs/architecture.md#performance-rules):
 * - the memory: @ethereumjs allocates an 8 KB zero-filled `ArrayBuffer` per message (~1 µs: allocation, zero-fill,
 *   its tracking by the garbage collector), where a view function uses a few hundred bytes. Here a message's
 *   memory starts as a {@link FIRST_MEMORY_BYTES}-byte piece of a 64 KB slab (~40 ns; {@link ContainerSlab}) and
 *   doubles when a write or read goes past it. What a program reads and writes, MSIZE and the memory gas are
 *   unchanged: memory size and cost are `runState.memoryWordCount`, never the container's length, and bytes never
 *   written read as zero in both;
 * - the result's `runState` — the run state, the result and the environment merged into one ~40-field object
 *   (~1.5 µs and ~3 KB per message, measured) that only `runCode`'s callers read — is built when first read
 *   ({@link MessageResult}).
 *
 * Reach (docs/architecture.md#dependency-patches): @ethereumjs exports neither its Interpreter nor its Memory and
 * Stack, and builds all three per message inside `runInterpreter` (an EVM method called through the object), so
 * the entry builds the interpreter itself from their prototypes — taken from a real interpreter — with the
 * fields their constructors set. Relies on: the Interpreter constructor's own fields, in order, and the run
 * state's; Memory's single `_store` field, its `read`/`write` calling `extend` before touching `_store`; Stack's
 * constructor without arguments; the EVM members named in {@link EvmLike}; the stock `runInterpreter`'s steps
 * (mirrored below). Checked by {@link captureEntryParts} (an interpreter built here against a real one) when the
 * first node starts. The entry is an own property of each adopted EVM: any other EVM keeps the stock method, and
 * an adopted one calls it whenever a case the entry does not build arises (no block or transaction context on
 * the EVM, no `to` or caller, the profiler, a proof-of-authority Common).
 */
import { EVMError } from '@ethereumjs/evm'
import { Account } from '@ethereumjs/util'
import { failOnProblems, missingMethods } from './shape-error.js'

/** Bytes of an interpreter's memory container when it starts (the stock container is 8 192). */
export const FIRST_MEMORY_BYTES = 512

/** Containers up to this size are cut from a slab; larger ones are allocated alone. */
const SLAB_PIECE_MAX = 4096

/** Bytes of one slab. */
const SLAB_BYTES = 65536

/**
 * Zero-filled memory containers cut from 64 KB slabs, each piece handed out once (never reused: a view of a
 * container — the calldata of an inner call is one — stays what it was). An `ArrayBuffer` of its own costs a
 * message ~0.3-1.1 µs (allocation, zero-fill, its tracking by the garbage collector); a view of a slab ~40 ns.
 * One per EVM; a slab is freed when no container cut from it is reachable.
 */
class ContainerSlab {
  private slab = new ArrayBuffer(SLAB_BYTES)
  private used = 0

  /** A zero-filled container of `bytes` bytes. */
  take(bytes: number): Uint8Array {
    if (bytes > SLAB_PIECE_MAX) return new Uint8Array(bytes)
    if (this.used + bytes > SLAB_BYTES) {
      this.slab = new ArrayBuffer(SLAB_BYTES)
      this.used = 0
    }
    const piece = new Uint8Array(this.slab, this.used, bytes)
    this.used += bytes
    return piece
  }
}

/** The memory containers of one EVM's messages, and the memory prototype whose `extend` grows them. */
interface MemoryKind {
  slab: ContainerSlab
  proto: object
}

/**
 * The prototype of the entry's memories: @ethereumjs's Memory with an `extend` that grows the container to at
 * least twice its size (stock: to the next multiple of 8 KB), from the EVM's slab. `read` and `write` call
 * `extend` first (checked by {@link captureEntryParts}), so the container always covers what they touch, and
 * bytes never written read as zero, as in the stock memory.
 */
function memoryKind(stockProto: object): MemoryKind {
  const slab = new ContainerSlab()
  const proto = Object.create(stockProto) as { extend(offset: number, size: number): void }
  proto.extend = function (this: { _store: Uint8Array }, offset: number, size: number): void {
    if (size === 0) return
    const end = offset + size
    const needed = end % 32 === 0 ? end : end + 32 - (end % 32)
    const store = this._store
    if (needed <= store.length) return
    const next = slab.take(Math.max(needed, store.length * 2))
    next.set(store)
    this._store = next
  }
  return { slab, proto }
}

/** The message fields `runInterpreter` reads (a copy of the Message with its `codeAddress` and gas limit). */
interface MessageLike {
  to?: unknown
  caller?: unknown
  data?: Uint8Array
  value?: bigint
  code?: unknown
  isStatic?: boolean
  isCreate?: boolean
  depth?: number
  codeAddress?: unknown
  gasRefund?: bigint
  chargeCodeAccesses?: boolean
  blobVersionedHashes?: unknown[]
  accessWitness?: { commit(): void }
  createdAddresses?: Set<string>
  selfdestruct?: Map<string, unknown>
  gasLimit: bigint
}

/** The EVM members the entry reads. */
interface EvmLike {
  stateManager: { getAccount(address: unknown): Promise<Account | undefined> }
  blockchain: unknown
  journal: unknown
  performanceLogger: unknown
  common: object
  _optsCached: { profiler?: { enabled?: boolean } }
  _tx?: { gasPrice: bigint; origin?: unknown }
  _block?: unknown
}

/** The interpreter fields the entry reads after the run. */
interface BuiltInterpreter {
  _env: object
  _result: {
    logs: unknown[]
    returnValue?: Uint8Array
    selfdestruct: Map<string, unknown>
    createdAddresses?: Set<string>
  }
  run(
    code: unknown,
    opts?: object,
  ): Promise<{
    runState: { gasLeft: bigint; gasRefund: bigint; stateGasSpilled: bigint }
    exceptionError?: EVMError
  }>
}

/** The stock `runInterpreter`. */
export type RunInterpreter = (
  this: object,
  message: MessageLike,
  opts?: { initialLogs?: unknown[]; pc?: number },
) => Promise<unknown>

/** The (unexported) classes an interpreter is built from, taken from a real one by {@link captureEntryParts}. */
export interface EntryParts {
  interpreter: object
  memory: object
  Stack: new () => object
}

/**
 * A message's result as the stock `runInterpreter` shapes it, but with `runState` — the run state, the result and
 * the message environment merged into one ~40-field object (~1.5 µs per message, measured) that only `runCode`'s
 * callers read — built when first read (the run has ended by then: nothing writes those three objects any
 * more). A getter of the class, so it is not an own field: `Object.keys` and spreads of a result leave it out
 * (nothing in @ethereumjs or the node copies a result and reads `runState` from the copy).
 */
class MessageResult {
  #parts: [object, object, object] | undefined
  #runState: object | undefined

  constructor(runState: object, result: object, env: object) {
    this.#parts = [runState, result, env]
  }

  /** The run state merged with the result and the environment (stock: `Object.assign({}, runState, result, env)`). */
  get runState(): object {
    if (this.#parts !== undefined) {
      this.#runState = Object.assign({}, ...this.#parts)
      this.#parts = undefined
    }
    return this.#runState!
  }

  set runState(value: object) {
    this.#parts = undefined
    this.#runState = value
  }
}

/** Commons known not to be proof-of-authority (the stock constructor throws for one without a signer). */
const notPoa = new WeakSet<object>()

/**
 * The interpreter `runInterpreter` builds for `env`, with a small memory container (see the module
 * documentation). Same fields, in the same order, as the stock constructor sets.
 */
function buildInterpreter(
  memoryOf: MemoryKind,
  evm: EvmLike,
  parts: EntryParts,
  env: { gasRefund?: bigint; initialLogs?: unknown[] },
  gasLeft: bigint,
) {
  const memory = Object.create(memoryOf.proto) as { _store: Uint8Array }
  memory._store = memoryOf.slab.take(FIRST_MEMORY_BYTES)
  const i = Object.create(parts.interpreter) as Record<string, unknown>
  i.opDebuggers = {}
  i._evm = evm
  i._stateManager = evm.stateManager
  i.common = evm.common
  i._runState = {
    programCounter: 0,
    opCode: 0xfe,
    memory,
    memoryWordCount: 0n,
    highestMemCost: 0n,
    stack: new parts.Stack(),
    code: new Uint8Array(0),
    validJumps: new Uint8Array(0),
    cachedPushes: {},
    stateManager: evm.stateManager,
    blockchain: evm.blockchain,
    env,
    shouldDoJumpAnalysis: true,
    interpreter: i,
    gasRefund: env.gasRefund,
    gasLeft,
    stateGasSpilled: 0n,
    returnBytes: new Uint8Array(0),
  }
  i.journal = evm.journal
  i._env = env
  i._result = { logs: env.initialLogs ? [...env.initialLogs] : [], returnValue: undefined, selfdestruct: new Map() }
  i.profilerOpts = evm._optsCached.profiler
  i.performanceLogger = evm.performanceLogger
  return i as unknown as BuiltInterpreter
}

/**
 * The node's `runInterpreter` (see the module documentation).
 * @param stock the stock method (for the cases the entry does not build)
 * @param parts what {@link captureEntryParts} took from a real interpreter
 */
export function nodeRunInterpreter(stock: RunInterpreter, parts: EntryParts): RunInterpreter {
  const memoryOf = memoryKind(parts.memory)
  return async function (this: object, message: MessageLike, opts: { initialLogs?: unknown[]; pc?: number } = {}) {
    const evm = this as EvmLike
    const tx = evm._tx
    if (
      evm._block === undefined ||
      tx === undefined ||
      message.to === undefined ||
      message.caller === undefined ||
      evm._optsCached.profiler?.enabled === true ||
      !notPoa.has(evm.common)
    ) {
      return stock.call(this, message, opts)
    }
    const contract = (await evm.stateManager.getAccount(message.to)) ?? new Account()
    const env = {
      address: message.to,
      caller: message.caller,
      callData: message.data ?? Uint8Array.of(0),
      callValue: message.value ?? 0n,
      code: message.code,
      isStatic: message.isStatic ?? false,
      isCreate: message.isCreate ?? false,
      depth: message.depth ?? 0,
      gasPrice: tx.gasPrice,
      origin: tx.origin ?? message.caller,
      block: evm._block,
      contract,
      codeAddress: message.codeAddress,
      gasRefund: message.gasRefund,
      chargeCodeAccesses: message.chargeCodeAccesses,
      blobVersionedHashes: message.blobVersionedHashes ?? [],
      accessWitness: message.accessWitness,
      createdAddresses: message.createdAddresses,
      initialLogs: opts.initialLogs,
    }
    const interpreter = buildInterpreter(memoryOf, evm, parts, env, message.gasLimit)
    if (message.selfdestruct) interpreter._result.selfdestruct = message.selfdestruct
    if (message.createdAddresses) interpreter._result.createdAddresses = message.createdAddresses
    const res = await interpreter.run(message.code, opts)
    let result: object = interpreter._result
    let gasUsed = message.gasLimit - res.runState.gasLeft
    const err = res.exceptionError
    if (err) {
      if (err.error !== EVMError.errorMessages.REVERT && err.error !== EVMError.errorMessages.INVALID_EOF_FORMAT) {
        gasUsed = message.gasLimit
      }
      result = Object.assign({}, result, { logs: [], selfdestruct: new Map(), createdAddresses: new Set() })
    }
    message.accessWitness?.commit()
    return Object.assign(new MessageResult(res.runState, result, interpreter._env), result, {
      exceptionError: err,
      gas: res.runState.gasLeft,
      executionGasUsed: gasUsed,
      gasRefund: res.runState.gasRefund,
      stateGasSpilled: res.runState.stateGasSpilled,
      returnValue: (result as { returnValue?: Uint8Array }).returnValue ?? new Uint8Array(0),
    })
  }
}

/** The own fields of `o` in order, each with its kind (`typeof`, `null`, or a class name). */
function shapeOf(o: unknown): string[] {
  if (typeof o !== 'object' || o === null) return []
  return Object.keys(o).map((k) => {
    const v = (o as Record<string, unknown>)[k]
    const kind = v === null ? 'null' : typeof v === 'object' ? (v.constructor?.name ?? 'object') : typeof v
    return `${k}:${kind}`
  })
}

/**
 * The start-up guard of the entry, and what it builds from: takes the prototypes from `real` (an interpreter the
 * stock `runInterpreter` built and ran) and checks that an interpreter built by the entry for the same
 * environment has the same fields, in the same order and of the same kinds, in itself and in its run state, and
 * that the small memory reads and writes as the stock one.
 * @param real an interpreter built by the stock `runInterpreter` of `evm` (before the entry is installed)
 * @param evm the EVM that built it
 * @throws EthereumjsShapeError listing every mismatch
 */
export function captureEntryParts(real: object, evm: object): EntryParts {
  const r = real as Record<string, unknown>
  const rs = r._runState as Record<string, unknown> | undefined
  const memory = rs?.memory as Record<string, unknown> | undefined
  const stack = rs?.stack as { constructor?: unknown } | undefined
  const problems: string[] = []
  if (typeof evm !== 'object' || (evm as { stateManager?: unknown }).stateManager === undefined)
    problems.push('evm.stateManager is missing')
  problems.push(...missingMethods('Interpreter', real, ['run']))
  problems.push(...missingMethods('Memory', memory, ['extend', 'read', 'write']))
  if (!(memory?._store instanceof Uint8Array) || Object.keys(memory).join() !== '_store')
    problems.push('Memory has other fields than _store: Uint8Array')
  if (typeof stack?.constructor !== 'function') problems.push('runState.stack has no constructor')
  const e = evm as Record<string, unknown>
  if (typeof e._optsCached !== 'object' || e._optsCached === null) problems.push('evm._optsCached is missing')
  if (typeof (e.common as { consensusType?: unknown })?.consensusType !== 'function')
    problems.push('evm.common.consensusType is not a function')
  failOnProblems('interpreter entry', problems)
  const parts: EntryParts = {
    interpreter: Object.getPrototypeOf(real) as object,
    memory: Object.getPrototypeOf(memory) as object,
    Stack: stack!.constructor as new () => object,
  }
  const env = r._env as { gasRefund?: bigint; initialLogs?: unknown[] }
  const built = buildInterpreter(
    memoryKind(parts.memory),
    evm as EvmLike,
    parts,
    env,
    (rs!.gasLeft as bigint) ?? 0n,
  ) as unknown as Record<string, unknown>
  const expect = (what: string, a: string[], b: string[]) => {
    if (a.join() !== b.join()) problems.push(`${what} fields are [${a.join(', ')}], the entry builds [${b.join(', ')}]`)
  }
  // the real interpreter has run: compare names and kinds of what a fresh one holds (a run changes no field's kind)
  expect('Interpreter', shapeOf(real), shapeOf(built))
  expect('Interpreter run state', shapeOf(rs), shapeOf(built._runState))
  expect('Stack', shapeOf(stack), shapeOf((built._runState as { stack: object }).stack))
  // the small container reads and writes as the stock one: a write past it grows it, a read past it is zeros
  type MemoryLike = { write(o: number, s: number, v: Uint8Array): void; read(o: number, s: number): Uint8Array }
  const m = (built._runState as { memory: MemoryLike }).memory
  m.write(FIRST_MEMORY_BYTES + 8, 2, Uint8Array.of(7, 9))
  const back = m.read(FIRST_MEMORY_BYTES + 7, 4)
  if (back.join() !== '0,7,9,0' || m.read(5 * 8192, 1)[0] !== 0)
    problems.push('Memory.write/read do not extend the container')
  failOnProblems('interpreter entry', problems)
  return parts
}

/**
 * Installs the entry on an adopted EVM (an own property: every other EVM keeps the stock method). Idempotent.
 * @param parts from {@link captureEntryParts}
 */
export function installEntry(evm: object, parts: EntryParts): void {
  const e = evm as { runInterpreter: RunInterpreter; common: { consensusType(): string } }
  if (Object.prototype.hasOwnProperty.call(e, 'runInterpreter')) return
  if (e.common.consensusType() !== 'poa') notPoa.add(e.common)
  e.runInterpreter = nodeRunInterpreter(e.runInterpreter, parts)
}
