/**
 * The remote's history up to the fork block — blocks, transactions, receipts, logs, raw headers — as a fork
 * serves it (docs/architecture.md#forking): answered by the remote once, then from the fork cache. What the
 * remote mined after the fork block does not exist for the fork: such answers become null (or are clamped, for
 * log ranges), and are cached as such. JSON shapes are the remote's own (the reference's,
 * docs/reference-rules.md#rule-block-json).
 */
import { headerRulesFor } from '../rsk/activations.js'
import { headerHash, type RskHeader } from '../rsk/header.js'
import { decodeHeader, type HeaderDecodeRules } from '../rsk/header-decode.js'
import { bytesEqual, fromHex, quantity, toHex } from '../util/bytes.js'
import type { ForkCache } from './fork-cache.js'
import type { ForkPoint } from './fork-point.js'
import { RemoteDataError } from './remote-errors.js'
import type { RemoteJson, RemoteNode } from './remote-node.js'

/** A log query within the fork's history: numbered range (clamped to the fork block) or one block hash. */
export interface ForkLogQuery {
  fromBlock?: bigint
  toBlock?: bigint
  blockHash?: Uint8Array
  address?: string | string[]
  topics?: Array<string | string[] | null>
}

/** The number in a remote JSON object's field (`blockNumber`, `number`), or undefined. */
function numberField(o: RemoteJson | null, field: string): bigint | undefined {
  const v = o?.[field]
  return typeof v === 'string' && /^0x[0-9a-fA-F]+$/.test(v) ? BigInt(v) : undefined
}

/**
 * Blocks {@link ForkHistory.blockReadingAhead} fetches in one batch: runs of this many consecutive numbers, aligned
 * to its multiples.
 */
export const READ_AHEAD_BLOCKS = 16n

/** History of the remote up to the fork block, cached. */
export class ForkHistory {
  /**
   * @param remote typed calls to the remote
   * @param cache the fork's cache
   * @param point the fork block (its number bounds the history; its hash checks the header)
   */
  constructor(
    readonly remote: RemoteNode,
    readonly cache: ForkCache,
    readonly point: ForkPoint,
  ) {}

  /** Block `n` (≤ the fork block, else null) with full transactions or hashes. */
  blockByNumber(n: bigint, fullTransactions: boolean): Promise<RemoteJson | null> {
    if (n < 0n || n > this.point.number) return Promise.resolve(null)
    return this.cached('eth_getBlockByNumber', [quantity(n), fullTransactions], () =>
      this.remote.blockByNumber(n, fullTransactions),
    )
  }

  /**
   * Block `n` with transaction hashes, as {@link blockByNumber}, for a reader that goes on to n + 1, n + 2, …: the
   * fork's first local blocks each process the remote block at their number minus the Remasc maturity
   * (src/rsk/remasc.ts), one round trip per mined block otherwise. When `n` is not cached, the numbers after it in
   * its aligned run of {@link READ_AHEAD_BLOCKS} (up to the fork block) that are not cached either are asked in the
   * same turn, so they share its batch request; their failures are ignored (a later read asks again).
   */
  async blockReadingAhead(n: bigint): Promise<RemoteJson | null> {
    if (n < 0n || n > this.point.number) return null
    const method = 'eth_getBlockByNumber'
    const hit = await this.cache.loadHistory(method, [quantity(n), false])
    if (hit !== undefined) return hit.json as RemoteJson | null
    const end = (n / READ_AHEAD_BLOCKS + 1n) * READ_AHEAD_BLOCKS - 1n
    const rest: bigint[] = []
    for (let m = n + 1n; m <= end && m <= this.point.number; m++) rest.push(m)
    const cached = await Promise.all(rest.map((m) => this.cache.loadHistory(method, [quantity(m), false])))
    const fetch = (m: bigint): Promise<RemoteJson | null> =>
      this.remote.blockByNumber(m, false).then((v) => {
        this.cache.putHistory(method, [quantity(m), false], v)
        return v
      })
    const block = fetch(n)
    for (let i = 0; i < rest.length; i++) if (cached[i] === undefined) void fetch(rest[i]!).catch(() => undefined)
    return block
  }

  /** The block of hash `hash` if the remote has it at or below the fork block, else null. */
  blockByHash(hash: Uint8Array, fullTransactions: boolean): Promise<RemoteJson | null> {
    return this.cached('eth_getBlockByHash', [toHex(hash), fullTransactions], async () =>
      this.upToFork(await this.remote.blockByHash(hash, fullTransactions), 'number'),
    )
  }

  /** The transaction of hash `hash` if mined at or below the fork block, else null. */
  transactionByHash(hash: Uint8Array): Promise<RemoteJson | null> {
    return this.cached('eth_getTransactionByHash', [toHex(hash)], async () =>
      this.upToFork(await this.remote.transactionByHash(hash), 'blockNumber'),
    )
  }

  /** The receipt of transaction `hash` if mined at or below the fork block, else null. */
  transactionReceipt(hash: Uint8Array): Promise<RemoteJson | null> {
    return this.cached('eth_getTransactionReceipt', [toHex(hash)], async () =>
      this.upToFork(await this.remote.transactionReceipt(hash), 'blockNumber'),
    )
  }

  /**
   * Logs of the fork's history: a range is clamped to the fork block (empty when it starts above it); a block
   * hash above the fork block has none. The remote's log limits apply (docs/reference-rules.md#rule-limits).
   */
  async logs(q: ForkLogQuery): Promise<RemoteJson[]> {
    const rest = { address: q.address, topics: q.topics }
    if (q.blockHash !== undefined) {
      const blockHash = q.blockHash
      if ((await this.blockByHash(blockHash, false)) === null) return []
      return this.cached('eth_getLogs', [{ blockHash: toHex(blockHash), ...rest }], () =>
        this.remote.logs({ blockHash, ...rest }),
      )
    }
    const fromBlock = q.fromBlock ?? 0n
    const toBlock = q.toBlock === undefined || q.toBlock > this.point.number ? this.point.number : q.toBlock
    if (fromBlock > toBlock) return []
    const params = [{ fromBlock: quantity(fromBlock), toBlock: quantity(toBlock), ...rest }]
    return this.cached('eth_getLogs', params, () => this.remote.logs({ fromBlock, toBlock, ...rest }))
  }

  /**
   * The uncompressed header RLP of block `n` (≤ the fork block, else null; docs/reference-rules.md#rule-raw-header).
   * @throws RemoteDataError (-32000) when the remote serves no raw-header method
   */
  async rawHeaderByNumber(n: bigint): Promise<Uint8Array | null> {
    if (n < 0n || n > this.point.number) return null
    const hex = await this.cached('ext_getRawBlockHeaderByNumber', [quantity(n)], async () => {
      const raw = await this.remote.rawHeaderByNumber(n)
      if (raw === undefined)
        throw new RemoteDataError('fork remote serves no raw-header method (ext_/rsk_getRawBlockHeaderByNumber)')
      return raw === null ? null : toHex(raw)
    })
    return hex === null ? null : fromHex(hex)
  }

  /**
   * The fork block's header, decoded with the remote network's activation rules
   * (docs/reference-rules.md#rule-network-activations) and checked against the fork block hash: the parent of
   * the first local block.
   * @param rules the header rules by block (default: the remote network's recorded ones)
   * @throws RemoteDataError (-32000) when the remote has no such header or it does not hash to the fork block's hash
   */
  async forkHeader(
    rules: (number: bigint) => HeaderDecodeRules = headerRulesFor(Number(this.point.chainId)),
  ): Promise<RskHeader> {
    const raw = await this.rawHeaderByNumber(this.point.number)
    if (raw === null) throw new RemoteDataError(`fork remote has no header for block ${this.point.number}`)
    const header = decodeHeader(raw, rules)
    if (!bytesEqual(headerHash(header), this.point.hash)) {
      throw new RemoteDataError(
        `fork remote's header of block ${this.point.number} does not hash to ${toHex(this.point.hash)}`,
      )
    }
    return header
  }

  /** `o` when its number field is at or below the fork block, else null. */
  private upToFork(o: RemoteJson | null, field: string): RemoteJson | null {
    const n = numberField(o, field)
    return n !== undefined && n <= this.point.number ? o : null
  }

  /** The cached answer to (method, params), else `fetch`'s, then cached. */
  private async cached<T>(method: string, params: readonly unknown[], fetch: () => Promise<T>): Promise<T> {
    const hit = await this.cache.loadHistory(method, params)
    if (hit !== undefined) return hit.json as T
    const value = await fetch()
    this.cache.putHistory(method, params, value)
    return value
  }
}
