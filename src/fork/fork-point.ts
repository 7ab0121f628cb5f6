/**
 * Choosing a fork's block: a number (negative = that many blocks below the remote's head; default: the head
 * minus {@link DEFAULT_FORK_CONFIRMATIONS}), resolved to the remote's chain id and block hash, which name the
 * fork's cache (docs/architecture.md#forking).
 *
 * Fork points are remembered in `<cache dir>/remotes.json` under a fingerprint of the remote's URL (its SHA-256,
 * never the URL itself, whose path may hold an API key), so that a run at an explicit, already seen block number
 * starts without asking the remote anything.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { sha256 } from '@noble/hashes/sha2'
import { InvalidArgumentError } from '../errors/domain-errors.js'
import { fromHex, toHex } from '../util/bytes.js'
import { RemoteDataError } from './remote-errors.js'
import type { RemoteJson, RemoteNode } from './remote-node.js'

/** Blocks below the remote's head a fork starts at when no block number is given (a reorganisation margin). */
export const DEFAULT_FORK_CONFIRMATIONS = 5n

/** Where a fork starts. */
export interface ForkPoint {
  /** The remote's chain id. */
  chainId: bigint
  /** The fork block's number and hash: local blocks continue at number + 1 with this parent hash. */
  number: bigint
  hash: Uint8Array
}

/** How to pick the fork block. */
export interface ForkPointOptions {
  /** The remote's URL (only its fingerprint is stored). */
  url: string
  /** Fork block number; negative counts back from the remote's head; undefined = head − confirmations (≥ 0). */
  blockNumber?: bigint
  /** Blocks below the head when `blockNumber` is undefined (default {@link DEFAULT_FORK_CONFIRMATIONS}). */
  confirmations?: bigint
  /** Root of the fork cache, where `remotes.json` lives; undefined = remember nothing. */
  cacheDir?: string
}

interface IndexFile {
  [fingerprint: string]: { chainId: string; blocks: Record<string, string> }
}

const INDEX_FILE = 'remotes.json'

/** The fingerprint a remote's fork points are stored under: the first 32 hex digits of SHA-256 of its URL. */
export function remoteFingerprint(url: string): string {
  // @noble/hashes: node:crypto is not loaded at a fork's start for this one digest (some 35 internal modules,
  // ~5-10 ms of start-up, measured)
  return toHex(sha256(new TextEncoder().encode(url))).slice(2, 34)
}

/**
 * The index (read synchronously, as {@link remember} writes it: a small file read at a fork's start, where a
 * thread-pool round trip per step of an asynchronous read costs more than the read itself).
 */
function readIndex(dir: string): IndexFile {
  try {
    const parsed = JSON.parse(readFileSync(join(dir, INDEX_FILE), 'utf8')) as unknown
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as IndexFile) : {}
  } catch {
    return {}
  }
}

/** Adds a fork point to the index (written to a temporary file, then renamed over the old one). Best effort. */
function remember(dir: string, url: string, point: ForkPoint): void {
  try {
    mkdirSync(dir, { recursive: true })
    const index = readIndex(dir)
    const fp = remoteFingerprint(url)
    const entry =
      index[fp]?.chainId === point.chainId.toString() ? index[fp] : { chainId: point.chainId.toString(), blocks: {} }
    entry.blocks[point.number.toString()] = toHex(point.hash)
    index[fp] = entry
    const tmp = join(dir, `${INDEX_FILE}.${process.pid}.tmp`)
    writeFileSync(tmp, JSON.stringify(index, null, 1))
    renameSync(tmp, join(dir, INDEX_FILE))
  } catch {
    // an unwritable cache directory only costs the next run a request
  }
}

/** A fork point and what finding it fetched ({@link findForkPoint}). */
export interface FoundForkPoint {
  point: ForkPoint
  /**
   * When the remote was asked (the index did not know the block): the fork block's JSON (transaction hashes) and,
   * asked in the same round trip, its raw header — undefined when the remote serves no raw-header method; the
   * promise rejects on a failure, which then costs the caller a second request, no error.
   */
  fetched?: { block: RemoteJson; rawHeader: Promise<Uint8Array | null | undefined> }
}

/**
 * The fork point for `opts`: from the index when the block number is explicit and was seen before at this URL,
 * else from the remote, then remembered. An explicit number is asked for (block and raw header) in the same batch
 * as the chain id and the head: one round trip; without one, the head comes first.
 * @throws InvalidArgumentError (-32602) when the block number is beyond the remote's head or before block 0
 * @throws ForkRemoteError (-32000) when the remote cannot answer or has no such block
 */
export async function findForkPoint(remote: RemoteNode, opts: ForkPointOptions): Promise<FoundForkPoint> {
  if (opts.blockNumber !== undefined && opts.blockNumber >= 0n && opts.cacheDir !== undefined) {
    const entry = readIndex(opts.cacheDir)[remoteFingerprint(opts.url)]
    const hash = entry?.blocks[opts.blockNumber.toString()]
    if (entry !== undefined && hash !== undefined && /^0x[0-9a-f]{64}$/.test(hash)) {
      const point = { chainId: BigInt(entry.chainId), number: opts.blockNumber, hash: fromHex(hash) }
      return { point }
    }
  }
  const wanted = opts.blockNumber
  const early = wanted !== undefined && wanted >= 0n ? askBlock(remote, wanted) : undefined
  const [chainId, head] = await Promise.all([remote.chainId(), remote.blockNumber()])
  const confirmations = opts.confirmations ?? DEFAULT_FORK_CONFIRMATIONS
  // the default never goes below block 0 (a young chain); an explicit number that does is refused
  const number =
    wanted === undefined ? (head > confirmations ? head - confirmations : 0n) : wanted < 0n ? head + wanted : wanted
  if (number < 0n)
    throw new InvalidArgumentError(`fork block ${number} is before block 0 (the remote's head is ${head})`)
  if (number > head) throw new InvalidArgumentError(`fork block ${number} is beyond the remote's head ${head}`)
  const asked = early ?? askBlock(remote, number)
  const block = await asked.block
  const hash =
    typeof block?.hash === 'string' && /^0x[0-9a-fA-F]{64}$/.test(block.hash) ? fromHex(block.hash) : undefined
  if (block === null || hash === undefined)
    throw new RemoteDataError(`fork remote has no block ${number} (its head is ${head})`)
  const point: ForkPoint = { chainId, number, hash }
  if (opts.cacheDir !== undefined) remember(opts.cacheDir, opts.url, point)
  return { point, fetched: { block, rawHeader: asked.rawHeader } }
}

/**
 * The fork point for `opts` ({@link findForkPoint} without what it fetched).
 * @throws as {@link findForkPoint}
 */
export async function resolveForkPoint(remote: RemoteNode, opts: ForkPointOptions): Promise<ForkPoint> {
  return (await findForkPoint(remote, opts)).point
}

/** Asks for block `n` and its raw header in the same turn (one batch); neither promise is left unhandled. */
function askBlock(
  remote: RemoteNode,
  n: bigint,
): { block: Promise<RemoteJson | null>; rawHeader: Promise<Uint8Array | null | undefined> } {
  const block = remote.blockByNumber(n, false)
  const rawHeader = remote.rawHeaderByNumber(n)
  block.catch(() => undefined)
  rawHeader.catch(() => undefined)
  return { block, rawHeader }
}
