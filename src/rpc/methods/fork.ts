/**
 * The fork layer of the method table (docs/architecture.md#forking): in a fork, blocks, transactions, receipts,
 * logs and raw headers at or below the fork block are the remote's, answered from its history (cached; JSON in
 * the remote's own shape), and state reads at a block below the fork block are asked of the remote at that
 * number. The fork block's own state, and everything after it, is the local chain's. Only installed in a fork:
 * the handlers of a chain that is not forked are not wrapped.
 */
import { randomBytes } from 'node:crypto'
import type { RemoteJson } from '../../fork/remote-node.js'
import type { CallRequest } from '../../execution/executor.js'
import { quantity, toHex } from '../../util/bytes.js'
import { RawJson } from '../format.js'
import type { CallContext, MethodSpec } from '../method-table.js'
import type { BlockRef, FilterObject } from '../params.js'
import type { ForkServices, Services } from '../services.js'
import { invalidParams } from '../rpc-error.js'
import { method } from '../method-table.js'
import { P } from '../params.js'

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
  // the fork of the moment (anvil_reset may switch it, or end it: then the handlers answer as without a fork)
  const cur = (): ForkServices => s.fork ?? f
  const forkN = (): bigint => cur().point.number
  const byName = new Map(methods.map((m) => [m.name, m]))
  const wrap = (name: string, make: (orig: Handler) => Handler) => {
    const m = byName.get(name)
    if (m === undefined) return
    const orig = m.handler
    const forked = make(orig)
    m.handler = (c, args) => (s.fork === undefined ? orig(c, args) : forked(c, args))
  }

  /** The number of the block `ref` names when it is the remote's (at or below the fork block), else undefined. */
  const remoteNumber = async (ref: BlockRef): Promise<bigint | undefined> => {
    switch (ref.kind) {
      case 'tag':
        if (ref.tag === 'earliest') return 0n
        if (ref.tag === 'latest')
          return chain.reads.head.header.number <= forkN() ? chain.reads.head.header.number : undefined
        return undefined
      case 'number':
        return ref.number <= forkN() ? ref.number : undefined
      case 'hash': {
        const local = await chain.reads.blockByHash(ref.hash)
        if (local !== undefined && local.header.number > forkN()) return undefined
        return numberOf(await cur().history.blockByHash(ref.hash, false), 'number')
      }
    }
  }
  /** The remote's block `ref` names (with full transactions), or null; undefined when `ref` is local. */
  const remoteBlock = async (ref: BlockRef): Promise<RemoteJson | null | undefined> => {
    const n = await remoteNumber(ref)
    return n === undefined ? undefined : cur().history.blockByNumber(n, true)
  }
  const remoteBlockByHash = async (hash: Uint8Array): Promise<RemoteJson | null | undefined> => {
    const local = await chain.reads.blockByHash(hash)
    if (local !== undefined && local.header.number > forkN()) return undefined
    return cur().history.blockByHash(hash, true)
  }
  const txsOf = (b: RemoteJson): unknown[] => (Array.isArray(b.transactions) ? b.transactions : [])

  // ---- blocks and transactions ----
  wrap('eth_getBlockByNumber', (orig) => async (c, args) => {
    const n = await remoteNumber(args[0] as BlockRef)
    return n === undefined ? orig(c, args) : cur().history.blockByNumber(n, args[1] as boolean)
  })
  wrap('eth_getBlockByHash', (orig) => async (c, args) => {
    const hash = args[0] as Uint8Array
    const local = await chain.reads.blockByHash(hash)
    if (local !== undefined && local.header.number > forkN()) return orig(c, args)
    return cur().history.blockByHash(hash, args[1] as boolean)
  })
  for (const name of ['eth_getTransactionByHash', 'eth_getTransactionReceipt'] as const) {
    wrap(name, (orig) => async (c, args) => {
      const local = await orig(c, args)
      if (local !== null) return local
      const hash = args[0] as Uint8Array
      return name === 'eth_getTransactionByHash'
        ? cur().history.transactionByHash(hash)
        : cur().history.transactionReceipt(hash)
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
    const raw = await cur().history.rawHeaderByNumber(n)
    return raw === null ? null : toHex(raw)
  })
  wrap('ext_getRawBlockHeaderByHash', (orig) => async (c, args) => {
    const b = await remoteBlockByHash(args[0] as Uint8Array)
    if (b === undefined) return orig(c, args)
    const n = numberOf(b, 'number')
    const raw = n === undefined ? null : await cur().history.rawHeaderByNumber(n)
    return raw === null ? null : toHex(raw)
  })

  // ---- logs: the remote's up to the fork block, then the local chain's ----
  wrap('eth_getLogs', (orig) => async (c, args) => {
    const filter = args[0] as FilterObject
    const address = filter.addresses.length === 0 ? undefined : filter.addresses.map(toHex)
    const topics = filter.topics.map((t) => (t === null ? null : t.map(toHex)))
    if (filter.blockHash !== undefined) {
      const local = await chain.reads.blockByHash(filter.blockHash)
      if (local !== undefined && local.header.number > forkN()) return orig(c, args)
      return cur().history.logs({ blockHash: filter.blockHash, address, topics })
    }
    const head = chain.reads.head.header.number
    const bound = async (ref: BlockRef | undefined): Promise<bigint> => {
      if (ref === undefined || (ref.kind === 'tag' && ref.tag !== 'earliest')) return head
      if (ref.kind === 'tag') return 0n
      if (ref.kind === 'number') return ref.number
      const local = await chain.reads.blockByHash(ref.hash)
      return local?.header.number ?? numberOf(await cur().history.blockByHash(ref.hash, false), 'number') ?? head
    }
    const from = await bound(filter.fromBlock)
    const to = await bound(filter.toBlock)
    if (from > forkN()) return orig(c, args)
    const remote =
      from <= to
        ? await cur().history.logs({ fromBlock: from, toBlock: to < forkN() ? to : forkN(), address, topics })
        : []
    if (to <= forkN()) return remote
    const local = await orig(c, [{ ...filter, fromBlock: { kind: 'number', number: forkN() + 1n } }])
    const localLogs = local instanceof RawJson ? (JSON.parse(local.json) as unknown[]) : (local as unknown[])
    return [...remote, ...localLogs]
  })

  // ---- anvil_reset / hardhat_reset: to another fork (remote and/or block), back to the fork block, or no fork ----
  let lastUrl = f.url
  const reset = byName.get('anvil_reset')
  if (reset !== undefined && s.switchFork !== undefined) {
    const orig = reset.handler
    const switchFork = s.switchFork
    reset.handler = async (c, args) => {
      const target = forkTarget(args[0], s.fork?.url ?? lastUrl)
      if (target === undefined) {
        // no `forking`: a plain local chain, as Anvil and Hardhat do
        await switchFork(undefined)
        s.instanceId = '0x' + randomBytes(32).toString('hex')
        return null
      }
      const now = s.fork
      if (
        now !== undefined &&
        target.url === now.url &&
        (target.blockNumber ?? now.point.number) === now.point.number
      ) {
        return orig(c, [])
      }
      // (a new URL without a block number forks at its default block; the same URL keeps the fork block)
      const blockNumber =
        target.blockNumber ?? (now !== undefined && target.url === now.url ? now.point.number : undefined)
      await switchFork({ url: target.url, blockNumber })
      lastUrl = target.url
      s.instanceId = '0x' + randomBytes(32).toString('hex') // a new instance, as every reset
      return null
    }
  }

  // ---- state below the fork block: asked of the remote at that number ----
  /** The number of a block below the fork block that `ref` names, else undefined (the local chain answers). */
  const belowFork = async (ref: BlockRef): Promise<bigint | undefined> => {
    const n = await remoteNumber(ref)
    return n !== undefined && n < forkN() ? n : undefined
  }
  const stateRead = (name: string, refIndex: number, remote: (args: unknown[], n: bigint) => Promise<unknown>) =>
    wrap(name, (orig) => async (c, args) => {
      const ref = args[refIndex] as BlockRef | undefined
      const n = ref === undefined ? undefined : await belowFork(ref)
      return n === undefined ? orig(c, args) : remote(args, n)
    })
  stateRead('eth_getBalance', 1, async (a, n) => quantity(await cur().remote.balance(a[0] as Uint8Array, n)))
  stateRead('eth_getTransactionCount', 1, async (a, n) => quantity(await cur().remote.nonce(a[0] as Uint8Array, n)))
  stateRead('eth_getCode', 1, async (a, n) => toHex(await cur().remote.code(a[0] as Uint8Array, n)))
  stateRead('eth_getStorageAt', 2, async (a, n) =>
    toHex(await cur().remote.storageAt(a[0] as Uint8Array, a[1] as Uint8Array, n)),
  )
  stateRead('eth_call', 1, (a, n) => cur().remote.client.call('eth_call', [callJson(a[0] as CallRequest), quantity(n)]))
  stateRead('eth_estimateGas', 1, (a, n) =>
    cur().remote.client.call('eth_estimateGas', [callJson(a[0] as CallRequest), quantity(n)]),
  )
}

/**
 * The fork an anvil_reset / hardhat_reset argument asks for: undefined without `forking` (no fork), else the URL
 * (`jsonRpcUrl`, default `url`) and block number (`blockNumber`: a number, decimal or 0x string; null or absent:
 * none given).
 * @throws RpcError -32602 for a malformed `forking` object
 */
export function forkTarget(opts: unknown, url: string): { url: string; blockNumber?: bigint } | undefined {
  if (opts === undefined || opts === null) return undefined
  if (typeof opts !== 'object' || Array.isArray(opts)) throw invalidParams('reset options must be an object')
  const forking = (opts as { forking?: unknown }).forking
  if (forking === undefined || forking === null) return undefined
  if (typeof forking !== 'object' || Array.isArray(forking)) throw invalidParams('forking must be an object')
  const { jsonRpcUrl, blockNumber } = forking as { jsonRpcUrl?: unknown; blockNumber?: unknown }
  if (jsonRpcUrl != null && typeof jsonRpcUrl !== 'string') throw invalidParams('forking.jsonRpcUrl must be a string')
  let n: bigint | undefined
  if (typeof blockNumber === 'number' && Number.isSafeInteger(blockNumber)) n = BigInt(blockNumber)
  else if (typeof blockNumber === 'string' && /^(-?\d+|0x[0-9a-fA-F]+)$/.test(blockNumber)) n = BigInt(blockNumber)
  else if (blockNumber != null && !(typeof blockNumber === 'number' && Number.isNaN(blockNumber))) {
    throw invalidParams('forking.blockNumber must be an integer')
  }
  return { url: jsonRpcUrl ?? url, blockNumber: n }
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
