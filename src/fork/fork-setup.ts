/**
 * Opening a fork (docs/architecture.md#forking): the remote client, the fork block, the cache, the remote state
 * and history, and the {@link ChainFork} the chain starts from. The node (src/node.ts) calls {@link openFork}
 * before it creates the chain and {@link OpenFork.close} after the chain is closed.
 */
import type { ChainFork } from '../chain/chain-options.js'
import { headerFields } from '../blocks/stored-block.js'
import { InvalidArgumentError } from '../errors/domain-errors.js'
import { activationsFor, type ActivationOverrides, type Activations } from '../rsk/activations.js'
import { headerHash as rskHeaderHash, type RskHeader } from '../rsk/header.js'
import { decodeHeader } from '../rsk/header-decode.js'
import { hashForMergedMining } from '../rsk/merged-mining/merged-mining-hash.js'
import type { BlockRecord, HeaderFields } from '../types/records.js'
import { fromHex, toKey } from '../util/bytes.js'
import type { ProgressListener } from '../util/progress.js'
import { defaultForkCacheDir, ForkCache } from './fork-cache.js'
import { ForkHistory } from './fork-history.js'
import { findForkPoint, type ForkPoint } from './fork-point.js'
import { ForkedStateSource } from './forked-state-source.js'
import { RemoteClient } from './remote-client.js'
import type { RemoteJson } from './remote-node.js'
import { RemoteNode } from './remote-node.js'
import { remascProcessedBlock, remascReads } from './remasc-reads.js'

/** How to fork (`--fork-*` options; `createNode({ fork })`). Times in milliseconds. */
export interface ForkOptions {
  /** JSON-RPC URL of the remote (the reference node or a hosted service of it). */
  url: string
  /** Fork block number; negative counts back from the remote's head; default: the head minus 5. */
  blockNumber?: bigint | number
  /** Extra HTTP headers sent to the remote (an API key header). */
  headers?: Readonly<Record<string, string>>
  /** Retries of a failed request (default 5). */
  retries?: number
  /** Time allowed for one request to the remote (default 30 000). */
  timeoutMs?: number
  /** Calls per second to the remote (default: no cap). */
  requestsPerSecond?: number
  /**
   * Root of the disk cache (default {@link defaultForkCacheDir}: `~/.cache/node-cli/fork`); `false` keeps what
   * was fetched in memory only.
   */
  cache?: string | false
  /**
   * Activation heights to use instead of the remote network's recorded ones: network upgrade (`'lovell700'`) or
   * consensus rule (`'rskip144'`) → block number, -1 = never, as the reference's configuration overrides them
   * (docs/reference-rules.md#rule-network-activations). For trying an upgrade before the network activates it.
   */
  activations?: ActivationOverrides
}

/** Networks a fork runs with: their activation heights are known (src/rsk/activations.ts). */
export type ForkNetwork = 30 | 31 | 33

/** An opened fork. */
export interface OpenFork {
  /** The remote's chain id, which is also the fork's chain id and network. */
  network: ForkNetwork
  /** The network's consensus rules by block (with {@link ForkOptions.activations} applied). */
  rules: Activations
  point: ForkPoint
  chain: ChainFork
  client: RemoteClient
  remote: RemoteNode
  /** The cache, whose disk database may still be opening (`cache.ready`: the node awaits it before it serves). */
  cache: ForkCache
  source: ForkedStateSource
  history: ForkHistory
  /** Closes the client and writes what the cache has pending. */
  close(): Promise<void>
}

/**
 * Connects to the remote, resolves the fork block, starts opening its cache (`cache.ready`) and reads the fork block's
 * header.
 * @param onProgress receives the steps as they start (no measure: each is a request or two to the remote):
 *   `asking the remote for its chain id and head` (answered at once when the cache's index knows the fork block),
 *   then `reading fork block #<n>`
 * @throws InvalidArgumentError (-32602) for a bad URL or block number, or a remote of a chain id other than 30,
 *   31 or 33 (docs/architecture.md#forking: only their consensus rules are known)
 * @throws ForkRemoteError (-32000) when the remote cannot answer or serves what the fork needs badly
 */
export async function openFork(opts: ForkOptions, onProgress?: ProgressListener): Promise<OpenFork> {
  let parsed: URL
  try {
    parsed = new URL(opts.url)
  } catch {
    throw new InvalidArgumentError(`fork URL is not a URL: ${opts.url}`)
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new InvalidArgumentError(`fork URL must be http(s): ${parsed.origin}`)
  const client = new RemoteClient({
    url: opts.url,
    headers: opts.headers,
    timeoutMs: opts.timeoutMs,
    retries: opts.retries,
    requestsPerSecond: opts.requestsPerSecond,
  })
  try {
    const remote = new RemoteNode(client)
    const cacheDir = opts.cache === false ? undefined : (opts.cache ?? defaultForkCacheDir())
    const blockNumber = opts.blockNumber === undefined ? undefined : BigInt(opts.blockNumber)
    onProgress?.({ phase: 'asking the remote for its chain id and head' })
    const found = await findForkPoint(remote, { url: opts.url, blockNumber, cacheDir })
    const { point } = found
    onProgress?.({ phase: `reading fork block #${point.number}` })
    const network = forkNetwork(point.chainId)
    let rules: Activations
    try {
      rules = activationsFor(network, opts.activations)
    } catch (err) {
      throw new InvalidArgumentError(`fork activations: ${(err as Error).message}`)
    }
    // the remote is asked what follows while the disk cache opens (a new cache's reads miss at once)
    const cache = ForkCache.opening({ dir: cacheDir, chainId: point.chainId, forkBlockHash: point.hash })
    const source = new ForkedStateSource(remote, cache, point.number)
    const history = new ForkHistory(remote, cache, point)
    // the first local block's Remasc execution reads these one by one, and the remote block it processes: asked
    // now instead, in the background (the fork block's checks and the chain's set-up do not wait for them)
    const remasc = remascReads(network)
    void source.prefetch(remasc.accounts, remasc.cells).catch(() => undefined)
    const processed = remascProcessedBlock(network, point.number + 1n)
    if (processed !== undefined) void history.blockReadingAhead(processed).catch(() => undefined)
    let block: BlockRecord
    try {
      if (found.fetched !== undefined) await history.adopt(found.fetched)
      const [header, json] = await Promise.all([
        history.forkHeader((n) => rules.headerRulesAt(n)),
        history.blockByNumber(point.number, false),
      ])
      block = forkBlockRecord(header, point, json)
    } catch (err) {
      await cache.close()
      throw err
    }
    const chain: ChainFork = {
      block,
      source,
      rules,
      hashOf: async (n) => {
        const b = await history.blockByNumber(n, false)
        return typeof b?.hash === 'string' ? fromHex(b.hash) : undefined
      },
      remoteBlock: async (n) => {
        const [raw, json] = await Promise.all([history.rawHeaderByNumber(n), history.blockByNumber(n, false)])
        if (raw === null) return undefined
        const h = decodeHeader(raw, (k) => rules.headerRulesAt(k))
        return forkBlockRecord(h, { ...point, number: n, hash: rskHeaderHash(h) }, json)
      },
      processingBlock: async (n) => {
        const b = await history.blockReadingAhead(n)
        if (b === null || typeof b.hash !== 'string' || typeof b.miner !== 'string') return undefined
        return { hash: fromHex(b.hash), coinbase: fromHex(b.miner), paidFees: quantityField(b, 'paidFees') }
      },
    }
    return {
      network,
      rules,
      point,
      chain,
      client,
      remote,
      cache,
      source,
      history,
      async close() {
        client.close()
        await cache.close()
      },
    }
  } catch (err) {
    client.close()
    throw err
  }
}

/**
 * The network a remote of chain id `chainId` runs: 30 and 31 (main and test) with their activation heights, 33
 * (regtest, and node-cli itself); any other chain id is refused.
 * @throws InvalidArgumentError (-32602)
 */
export function forkNetwork(chainId: bigint): ForkNetwork {
  if (chainId === 30n || chainId === 31n || chainId === 33n) return Number(chainId) as ForkNetwork
  throw new InvalidArgumentError(
    `cannot fork chain id ${chainId}: only networks 30 (main), 31 (test) and 33 (regtest) are supported, ` +
      'whose consensus rules are known',
  )
}

function quantityField(o: RemoteJson | null, field: string): bigint {
  const v = o?.[field]
  return typeof v === 'string' && /^0x[0-9a-fA-F]+$/.test(v) ? BigInt(v) : 0n
}

/**
 * The fork block as the chain's first record: the remote's header (checked against the fork block hash), no
 * transactions (the RPC answers them from the remote), size and total difficulty from the remote's block JSON.
 */
export function forkBlockRecord(h: RskHeader, point: ForkPoint, json: RemoteJson | null): BlockRecord {
  // as a stored header reads, except that absent edges stay absent (the remote's header is encoded as it is)
  const header: HeaderFields = {
    ...headerFields(h),
    edges: h.edges ?? undefined,
    format: {
      umm: h.ummRoot !== null,
      version: h.version,
      edges: h.edges !== null,
      rskip92: h.useRskip92Encoding ?? true,
    },
  }
  let hfmm: Uint8Array
  try {
    hfmm = hashForMergedMining(h)
  } catch {
    hfmm = new Uint8Array(32)
  }
  const difficulty = header.difficulty
  return {
    header,
    hash: point.hash,
    hashKey: toKey(point.hash),
    hashForMergedMining: hfmm,
    size: Number(quantityField(json, 'size')),
    totalDifficulty: quantityField(json, 'totalDifficulty') || difficulty,
    cumulativeDifficulty: quantityField(json, 'cumulativeDifficulty') || difficulty,
    transactions: [],
    uncles: [],
  }
}
