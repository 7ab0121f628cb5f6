/**
 * The fork layer of the method table (docs/architecture.md#forking): in a fork, blocks, transactions, receipts,
 * logs and raw headers at or below the fork block are the remote's, answered from its history (cached; JSON in
 * the remote's own shape), and state reads at a block below the fork block are asked of the remote at that
 * number. The fork block's own state, and everything after it, is the local chain's. Only installed in a fork:
 * the handlers of a chain that is not forked are not wrapped.
 */
import type { ForkHistory } from '../../fork/fork-history.js'
import type { ForkPoint } from '../../fork/fork-point.js'
import type { RemoteJson, RemoteNode } from '../../fork/remote-node.js'
import type { CallRequest } from '../../execution/executor.js'
import { quantity, toHex } from '../../util/bytes.js'
import { RawJson } from '../format.js'
import type { CallContext, MethodSpec } from '../method-table.js'
import type { BlockRef, FilterObject } from '../params.js'
import type { Services } from '../services.js'
import { invalidParams } from '../rpc-error.js'
import { method } from '../method-table.js'
import { P } from '../params.js'

/** What the fork layer reads: the fork block, the remote's history and the remote itself. */
export interface ForkServices {
  /** The remote's URL (changed by anvil_setRpcUrl). */
  url: string
  point: ForkPoint
  history: ForkHistory
  remote: RemoteNode
}

type Handler = (ctx: CallContext, args: unknown[]) => unknown

/** The call object as the remote reads it (hex fields). */
function callJson(r: CallRequest): Record<string, string> {
  const o: Record<string, string> = {}
  if (r.from) o.from = toHex(r.from)
  if (r.to) o.to = toHex(r.to)
  if (r.gas !== undefined) o.gas = quantity(r.gas)
  if (r.gasPrice !== undefined) o.gasPrice = quantity(r.gasPrice)
  if (r.value !== undefined) o.value = quantity(r.value)
  if (r.data) o.data = toHex(r.data)
  return o
}

function numberOf(o: RemoteJson | null, field: string): bigint | undefined {
  const v = o?.[field]
  return typeof v === 'string' && /^0x[0-9a-fA-F]+$/.test(v) ? BigInt(v) : undefined
}

/**
 * Wraps the handlers of `methods` (in place) that read history or state at a block, for a fork.
 * @param s the services (the local chain)
 * @param f the fork's remote history and fork block
 */
export function installForkLayer(methods: MethodSpec[], s: Services, f: ForkServices): void {
  const { chain } = s
  const forkN = f.point.number
  const byName = new Map(methods.map((m) => [m.name, m]))
  const wrap = (name: string, make: (orig: Handler) => Handler) => {
    const m = byName.get(name)
    if (m !== undefined) m.handler = make(m.handler)
  }

  /** The number of the block `ref` names when it is the remote's (at or below the fork block), else undefined. */
  const remoteNumber = async (ref: BlockRef): Promise<bigint | undefined> => {
    switch (ref.kind) {
      case 'tag':
        if (ref.tag === 'earliest') return 0n
        if (ref.tag === 'latest') return chain.head.header.number <= forkN ? chain.head.header.number : undefined
        return undefined
      case 'number':
        return ref.number <= forkN ? ref.number : undefined
      case 'hash': {
        const local = await chain.blockByHash(ref.hash)
        if (local !== undefined && local.header.number > forkN) return undefined
        return numberOf(await f.history.blockByHash(ref.hash, false), 'number')
      }
    }
  }
  /** The remote's block `ref` names (with full transactions), or null; undefined when `ref` is local. */
  const remoteBlock = async (ref: BlockRef): Promise<RemoteJson | null | undefined> => {
    const n = await remoteNumber(ref)
    return n === undefined ? undefined : f.history.blockByNumber(n, true)
  }
  const remoteBlockByHash = async (hash: Uint8Array): Promise<RemoteJson | null | undefined> => {
    const local = await chain.blockByHash(hash)
    if (local !== undefined && local.header.number > forkN) return undefined
    return f.history.blockByHash(hash, true)
  }
  const txsOf = (b: RemoteJson): unknown[] => (Array.isArray(b.transactions) ? b.transactions : [])

  // ---- blocks and transactions ----
  wrap('eth_getBlockByNumber', (orig) => async (c, args) => {
    const n = await remoteNumber(args[0] as BlockRef)
    return n === undefined ? orig(c, args) : f.history.blockByNumber(n, args[1] as boolean)
  })
  wrap('eth_getBlockByHash', (orig) => async (c, args) => {
    const hash = args[0] as Uint8Array
    const local = await chain.blockByHash(hash)
    if (local !== undefined && local.header.number > forkN) return orig(c, args)
    return f.history.blockByHash(hash, args[1] as boolean)
  })
  for (const name of ['eth_getTransactionByHash', 'eth_getTransactionReceipt'] as const) {
    wrap(name, (orig) => async (c, args) => {
      const local = await orig(c, args)
      if (local !== null) return local
      const hash = args[0] as Uint8Array
      return name === 'eth_getTransactionByHash'
        ? f.history.transactionByHash(hash)
        : f.history.transactionReceipt(hash)
    })
  }
  wrap('eth_getBlockTransactionCountByNumber', (orig) => async (c, args) => {
    const b = await remoteBlock(args[0] as BlockRef)
    return b === undefined ? orig(c, args) : b === null ? null : quantity(txsOf(b).length)
  })
  wrap('eth_getBlockTransactionCountByHash', (orig) => async (c, args) => {
    const b = await remoteBlockByHash(args[0] as Uint8Array)
    return b === undefined ? orig(c, args) : b === null ? null : quantity(txsOf(b).length)
  })
  wrap('eth_getTransactionByBlockNumberAndIndex', (orig) => async (c, args) => {
    const b = await remoteBlock(args[0] as BlockRef)
    if (b === undefined) return orig(c, args)
    return (b && txsOf(b)[Number(args[1] as bigint)]) ?? null
  })
  wrap('eth_getTransactionByBlockHashAndIndex', (orig) => async (c, args) => {
    const b = await remoteBlockByHash(args[0] as Uint8Array)
    if (b === undefined) return orig(c, args)
    return (b && txsOf(b)[Number(args[1] as bigint)]) ?? null
  })
  wrap('ext_getRawBlockHeaderByNumber', (orig) => async (c, args) => {
    const n = await remoteNumber(args[0] as BlockRef)
    if (n === undefined) return orig(c, args)
    const raw = await f.history.rawHeaderByNumber(n)
    return raw === null ? null : toHex(raw)
  })
  wrap('ext_getRawBlockHeaderByHash', (orig) => async (c, args) => {
    const b = await remoteBlockByHash(args[0] as Uint8Array)
    if (b === undefined) return orig(c, args)
    const n = numberOf(b, 'number')
    const raw = n === undefined ? null : await f.history.rawHeaderByNumber(n)
    return raw === null ? null : toHex(raw)
  })

  // ---- logs: the remote's up to the fork block, then the local chain's ----
  wrap('eth_getLogs', (orig) => async (c, args) => {
    const filter = args[0] as FilterObject
    const address = filter.addresses.length === 0 ? undefined : filter.addresses.map(toHex)
    const topics = filter.topics.map((t) => (t === null ? null : t.map(toHex)))
    if (filter.blockHash !== undefined) {
      const local = await chain.blockByHash(filter.blockHash)
      if (local !== undefined && local.header.number > forkN) return orig(c, args)
      return f.history.logs({ blockHash: filter.blockHash, address, topics })
    }
    const head = chain.head.header.number
    const bound = async (ref: BlockRef | undefined): Promise<bigint> => {
      if (ref === undefined || (ref.kind === 'tag' && ref.tag !== 'earliest')) return head
      if (ref.kind === 'tag') return 0n
      if (ref.kind === 'number') return ref.number
      const local = await chain.blockByHash(ref.hash)
      return local?.header.number ?? numberOf(await f.history.blockByHash(ref.hash, false), 'number') ?? head
    }
    const from = await bound(filter.fromBlock)
    const to = await bound(filter.toBlock)
    if (from > forkN) return orig(c, args)
    const remote =
      from <= to ? await f.history.logs({ fromBlock: from, toBlock: to < forkN ? to : forkN, address, topics }) : []
    if (to <= forkN) return remote
    const local = await orig(c, [{ ...filter, fromBlock: { kind: 'number', number: forkN + 1n } }])
    const localLogs = local instanceof RawJson ? (JSON.parse(local.json) as unknown[]) : (local as unknown[])
    return [...remote, ...localLogs]
  })

  // ---- anvil_reset / hardhat_reset: back to the fork block; another fork needs a restart ----
  wrap('anvil_reset', (orig) => async (c, args) => {
    const forking = (args[0] as { forking?: { jsonRpcUrl?: unknown; blockNumber?: unknown } } | undefined)?.forking
    const url = forking?.jsonRpcUrl
    const n = forking?.blockNumber
    const sameUrl = url == null || url === f.url
    const sameBlock =
      n == null || ((typeof n === 'number' || typeof n === 'string' || typeof n === 'bigint') && BigInt(n) === forkN)
    if (!sameUrl || !sameBlock) {
      throw invalidParams(
        `forking another remote or block at run time is not supported: restart with --fork-url and --fork-block-number (this fork is at block ${forkN})`,
      )
    }
    return orig(c, [])
  })

  // ---- state below the fork block: asked of the remote at that number ----
  /** The number of a block below the fork block that `ref` names, else undefined (the local chain answers). */
  const belowFork = async (ref: BlockRef): Promise<bigint | undefined> => {
    const n = await remoteNumber(ref)
    return n !== undefined && n < forkN ? n : undefined
  }
  const stateRead = (name: string, refIndex: number, remote: (args: unknown[], n: bigint) => Promise<unknown>) =>
    wrap(name, (orig) => async (c, args) => {
      const ref = args[refIndex] as BlockRef | undefined
      const n = ref === undefined ? undefined : await belowFork(ref)
      return n === undefined ? orig(c, args) : remote(args, n)
    })
  stateRead('eth_getBalance', 1, async (a, n) => quantity(await f.remote.balance(a[0] as Uint8Array, n)))
  stateRead('eth_getTransactionCount', 1, async (a, n) => quantity(await f.remote.nonce(a[0] as Uint8Array, n)))
  stateRead('eth_getCode', 1, async (a, n) => toHex(await f.remote.code(a[0] as Uint8Array, n)))
  stateRead('eth_getStorageAt', 2, async (a, n) =>
    toHex(await f.remote.storageAt(a[0] as Uint8Array, a[1] as Uint8Array, n)),
  )
  stateRead('eth_call', 1, (a, n) => f.remote.client.call('eth_call', [callJson(a[0] as CallRequest), quantity(n)]))
  stateRead('eth_estimateGas', 1, (a, n) =>
    f.remote.client.call('eth_estimateGas', [callJson(a[0] as CallRequest), quantity(n)]),
  )
}

/**
 * anvil_setRpcUrl: later requests of a fork go to `url` (another endpoint of the same remote chain; what was
 * fetched stays cached). Not forking: -32602.
 */
export function forkMethods(s: Services): MethodSpec[] {
  return [
    method('anvil_setRpcUrl', 'anvil', "sets the fork remote's URL", [P.string('url')], (_c, url) => {
      const f = s.fork
      if (f === undefined) throw invalidParams('not forking: start with --fork-url')
      try {
        f.remote.client.retarget(url)
      } catch (err) {
        throw invalidParams((err as Error).message)
      }
      f.url = url
      return null
    }),
  ]
}
