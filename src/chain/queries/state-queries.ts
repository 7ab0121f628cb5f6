/**
 * Reads of the chain's state: eth_call and eth_estimateGas with their memo and overrides, account, code and
 * storage reads, and the (context, state root) a block's reads run at, with the `--state-history` "state not
 * found" check. Every method runs inside the chain's queue (src/chain/chain.ts calls them from there); nothing
 * here changes the chain.
 */
import type { Unitrie } from '../../unitrie/unitrie.js'
import { LRUCache } from 'lru-cache'
import { type BlockContext, type CallRequest, type CallResult, type Executor } from '../../execution/executor.js'
import { overrideContext, overrideKey, type CallOverrides } from '../../execution/state-override.js'
import { bytesEqual, toKey } from '../../util/bytes.js'
import { Doorkeeper } from '../../util/doorkeeper.js'
import { StateNotFoundError } from '../../errors/domain-errors.js'
import { executionError } from './revert.js'
import type { BlockRecord } from '../../types/records.js'

/**
 * The `console` event: lines a transaction (mined), an eth_call or an eth_estimateGas printed with Solidity's
 * console.log (src/execution/console-log.ts). `hash` (32 bytes) for transactions.
 */
export interface ConsoleLogEvent {
  source: 'transaction' | 'call' | 'estimateGas'
  hash?: Uint8Array
  lines: string[]
}

/** What {@link StateQueries} reads from the chain. */
export interface StateQueriesOptions {
  executor: Executor
  /** The canonical head. */
  head: () => BlockRecord
  /** The `pending` block (built inside the queue). */
  pendingBlock: () => Promise<BlockRecord>
  /** Context of the next block (the `pending` context). */
  nextContext: () => BlockContext
  /** Receives console.log output of calls and estimates. */
  onConsole: (event: ConsoleLogEvent) => void
  /** eth_call gas cap (reference rpc.callGasCap). */
  callGasCap: bigint
  /** eth_estimateGas cap (reference rpc.gasEstimationCap). */
  gasEstimationCap: bigint
  /** Deadline of one eth_call / eth_estimateGas in ms; 0 = none. */
  executionTimeoutMs: number
  /**
   * Fork mode: the fork block and the local root of its state (its header carries the remote's root, which the
   * local trie does not hold; docs/architecture.md#forking).
   */
  fork?: { block: BlockRecord; root: Uint8Array }
}

/** Context of an existing block (calls "at" a past block run in that block's context). */
export function contextOf(block: BlockRecord): BlockContext {
  const h = block.header
  return {
    number: h.number,
    timestamp: h.timestamp,
    coinbase: h.coinbase,
    gasLimit: h.gasLimit,
    difficulty: h.difficulty,
    minimumGasPrice: h.minimumGasPrice,
  }
}

/**
 * The memo key part of a request: every request field that can change an execution's result. The caller puts
 * {@link StateQueries}' short id of the (block, state root, block context) first, which covers the rest (the
 * block's hash covers the ancestors BLOCKHASH can read).
 */
function requestKey(req: CallRequest): string {
  const hex = (b: Uint8Array | undefined) => (b === undefined ? '' : toKey(b))
  return (
    hex(req.from) +
    '|' +
    hex(req.to) +
    '|' +
    (req.gas ?? '') +
    '|' +
    (req.gasPrice ?? '') +
    '|' +
    (req.value ?? '') +
    '|' +
    hex(req.data)
  )
}

/** The full text of what a memo key's id stands for: block hash, state root and every block context field. */
function contextText(blockKey: string, root: Uint8Array, ctx: BlockContext): string {
  return [
    blockKey,
    toKey(root),
    ctx.number,
    ctx.timestamp,
    toKey(ctx.coinbase),
    ctx.gasLimit,
    ctx.difficulty,
    ctx.minimumGasPrice,
  ].join('|')
}

/** Whether two block contexts are field for field equal. */
function sameContext(a: BlockContext, b: BlockContext): boolean {
  return (
    a.number === b.number &&
    a.timestamp === b.timestamp &&
    a.gasLimit === b.gasLimit &&
    a.difficulty === b.difficulty &&
    a.minimumGasPrice === b.minimumGasPrice &&
    (a.coinbase === b.coinbase || bytesEqual(a.coinbase, b.coinbase))
  )
}

/** Distinct (block, root, context) ids remembered before the table starts over (see StateQueries.contextId). */
const CONTEXT_IDS = 256

/** Calls, estimates and state reads at a block or at `pending`. All methods: inside the chain's queue. */
export class StateQueries {
  /**
   * Results of eth_call and eth_estimateGas by (state root, block context, request): both are pure functions
   * of those, so an identical request against unchanged state (a UI or test polling `balanceOf`) is answered
   * without running the EVM again. Bounded; entries of old roots simply age out. A result enters it on its
   * request's second arrival ({@link memoize}).
   */
  private readonly executionMemo = new LRUCache<string, object>({ max: 2048 })
  /**
   * The memo's admission filter: requests that never repeat (a new address or amount each time, a new state
   * root each block) do not enter the memo, so its entries are not garbage the old generation has to collect
   * (docs/architecture.md#performance-rules). 8 192 keys remembered (32 KB).
   */
  private readonly memoDoorkeeper = new Doorkeeper(8192)

  constructor(private readonly o: StateQueriesOptions) {}

  /**
   * eth_call against a block's state.
   * @throws VmExecutionError on revert; CallPreconditionError when the sender cannot pay the value;
   *   ExecutionTimeoutError past the execution timeout (nothing is cached or kept); StateNotFoundError beyond
   *   the kept states (docs/architecture.md#errors)
   */
  async call(req: CallRequest, block: BlockRecord | 'pending', over: CallOverrides): Promise<CallResult> {
    const { ctx: base, root } = await this.stateFor(block)
    const ctx = overrideContext(base, over.block)
    const key = 'c' + this.contextId(block, root, ctx) + requestKey(req) + overrideKey(over.state, over.block)
    const cached = this.executionMemo.get(key) as CallResult | undefined
    if (cached !== undefined) {
      if (cached.consoleLogs !== undefined) this.o.onConsole({ source: 'call', lines: cached.consoleLogs })
      return cached
    }
    const { callGasCap, executionTimeoutMs } = this.o
    const result = await this.o.executor.call(req, ctx, root, callGasCap, executionTimeoutMs, over.state)
    this.memoize(key, result)
    if (result.consoleLogs !== undefined) this.o.onConsole({ source: 'call', lines: result.consoleLogs })
    return result
  }

  /**
   * eth_estimateGas: the lowest gas limit with which the call succeeds, capped by the estimation cap.
   * @throws VmExecutionError when it fails even at the cap; CallPreconditionError "insufficient funds for
   *   transfer"; StateNotFoundError beyond the kept states
   */
  async estimateGas(req: CallRequest, block: BlockRecord | 'pending', over: CallOverrides): Promise<bigint> {
    const { ctx: base, root } = await this.stateFor(block)
    const ctx = overrideContext(base, over.block)
    const key = 'e' + this.contextId(block, root, ctx) + requestKey(req) + overrideKey(over.state, over.block)
    let outcome = this.executionMemo.get(key) as Awaited<ReturnType<Executor['estimateGas']>> | undefined
    if (outcome === undefined) {
      const { gasEstimationCap, executionTimeoutMs } = this.o
      outcome = await this.o.executor.estimateGas(req, ctx, root, gasEstimationCap, executionTimeoutMs, over.state)
      this.memoize(key, outcome)
    }
    const lines = 'failure' in outcome ? outcome.failure.consoleLogs : outcome.consoleLogs
    if (lines !== undefined) this.o.onConsole({ source: 'estimateGas', lines })
    if ('failure' in outcome) throw executionError(outcome.failure.error!, outcome.failure.returnValue)
    return outcome.gas
  }

  /** Account fields at a block. @throws StateNotFoundError beyond the kept states */
  async account(address: Uint8Array, block: BlockRecord | 'pending') {
    return this.o.executor.getAccount(address, (await this.stateFor(block)).root)
  }

  /** Code at a block. @throws StateNotFoundError beyond the kept states */
  async code(address: Uint8Array, block: BlockRecord | 'pending') {
    return this.o.executor.getCode(address, (await this.stateFor(block)).root)
  }

  /** Storage word (32-byte slot) at a block. @throws StateNotFoundError beyond the kept states */
  async storage(address: Uint8Array, slot: Uint8Array, block: BlockRecord | 'pending') {
    return this.o.executor.getStorage(address, slot, (await this.stateFor(block)).root)
  }

  /**
   * Raw bytes of a storage cell at a block (cells may exceed 32 bytes; ext_getStorageBytesAt).
   * @param key32 the storage key as a 32-byte word
   * @throws StateNotFoundError beyond the kept states
   */
  async storageBytes(address: Uint8Array, key32: Uint8Array, block: BlockRecord | 'pending'): Promise<Uint8Array> {
    return (await this.o.executor.stateAt((await this.stateFor(block)).root)).getStorageBytes(address, key32)
  }

  /**
   * The Unitrie of a block's state (eth_getProof builds its node lists from it; a Unitrie is immutable, so it
   * stays as read).
   * @throws StateNotFoundError beyond the kept states
   */
  async stateTrie(block: BlockRecord | 'pending'): Promise<Unitrie> {
    return (await this.o.executor.stateAt((await this.stateFor(block)).root)).getTrie()
  }

  /**
   * Block context and state root to run or read at: `pending` runs on the pending block's state in the next
   * block's context; the head reads the live state (which includes in-place changes such as setBalance).
   * @throws StateNotFoundError beyond the kept states (older than `--state-history`; reference stateNotFound,
   *   docs/reference-rules.md#rule-state-not-found)
   */
  async stateFor(block: BlockRecord | 'pending'): Promise<{ ctx: BlockContext; root: Uint8Array }> {
    if (block === 'pending') {
      const p = await this.o.pendingBlock()
      return { ctx: this.o.nextContext(), root: p.header.stateRoot }
    }
    // the head reads the live state, which the executor holds: no state to look up
    if (block === this.o.head()) return { ctx: contextOf(block), root: this.o.executor.stateRoot }
    const root = block === this.o.fork?.block ? this.o.fork.root : block.header.stateRoot
    // (with --db an old state not in memory any more is loaded from the database)
    const states = this.o.executor.stateManager.db
    if (states.lookup(root) === undefined && (await states.load(root)) === undefined) {
      throw new StateNotFoundError(block.hashKey)
    }
    return { ctx: contextOf(block), root }
  }

  /** Stores an execution's result under its memo key, when the doorkeeper has seen that key before. */
  private memoize(key: string, result: object): void {
    if (this.memoDoorkeeper.seen(key)) this.executionMemo.set(key, result)
  }

  /**
   * The memo keys' first part: a short id (a number and `|`) standing for the (block hash, state root, block
   * context) an execution runs at, instead of their ~250 characters of text in every key (building, hashing and
   * comparing those was 3.3 µs of a ~70 µs eth_call that misses the memo, now ~1 µs; measured). The last one
   * asked is remembered as objects (a run of calls at one head compares a reference, a root and six fields);
   * others by their full text, up to {@link CONTEXT_IDS} of them, after which the table starts over with new ids
   * (the memo's entries under the old ids are never hit again and age out of the LRU). Two ids never stand for
   * different texts, so a key never answers another execution's result. Reverts, resets and in-place state
   * changes (setBalance) give the head a new hash or a new root, hence a new id.
   */
  private contextId(block: BlockRecord | 'pending', root: Uint8Array, ctx: BlockContext): string {
    const blockKey = block === 'pending' ? this.o.head().hashKey : block.hashKey
    const last = this.lastContext
    if (
      last !== undefined &&
      last.blockKey === blockKey &&
      (last.root === root || bytesEqual(last.root, root)) &&
      sameContext(last.ctx, ctx)
    ) {
      return last.id
    }
    const text = contextText(blockKey, root, ctx)
    let id = this.contextIds.get(text)
    if (id === undefined) {
      if (this.contextIds.size >= CONTEXT_IDS) this.contextIds.clear()
      id = `${this.nextContextId++}|`
      this.contextIds.set(text, id)
    }
    // a copy: the context objects the chain hands out are its own
    this.lastContext = { blockKey, root, ctx: { ...ctx }, id }
    return id
  }

  /** The (block, root, context) of the last {@link contextId} answer. */
  private lastContext: { blockKey: string; root: Uint8Array; ctx: BlockContext; id: string } | undefined
  /** {@link contextText} → id, for {@link contextId}. */
  private readonly contextIds = new Map<string, string>()
  private nextContextId = 0
}
