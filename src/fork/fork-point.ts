/**
 * Choosing a fork's block: a number (negative = that many blocks below the remote's head; default: the head
 * minus {@link DEFAULT_FORK_CONFIRMATIONS}), resolved to the remote's chain id and block hash, which name the
 * fork's cache (docs/architecture.md#forking).
 *
 * Fork points are remembered in `<cache dir>/remotes.json` under a fingerprint of the remote's URL (its SHA-256,
 * never the URL itself, whose path may hold an API key), so that a run at an explicit, already seen block number
 * starts without asking the remote anything.
 */
import { createHash } from 'node:crypto'
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { InvalidArgumentError } from '../errors/domain-errors.js'
import { fromHex, toHex } from '../util/bytes.js'
import { RemoteDataError } from './remote-errors.js'
import type { RemoteNode } from './remote-node.js'

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
  return createHash('sha256').update(url).digest('hex').slice(0, 32)
}

async function readIndex(dir: string): Promise<IndexFile> {
  try {
    const parsed = JSON.parse(await readFile(join(dir, INDEX_FILE), 'utf8')) as unknown
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as IndexFile) : {}
  } catch {
    return {}
  }
}

/** Adds a fork point to the index (written to a temporary file, then renamed over the old one). Best effort. */
async function remember(dir: string, url: string, point: ForkPoint): Promise<void> {
  try {
    await mkdir(dir, { recursive: true })
    const index = await readIndex(dir)
    const fp = remoteFingerprint(url)
    const entry =
      index[fp]?.chainId === point.chainId.toString() ? index[fp] : { chainId: point.chainId.toString(), blocks: {} }
    entry.blocks[point.number.toString()] = toHex(point.hash)
    index[fp] = entry
    const tmp = join(dir, `${INDEX_FILE}.${process.pid}.tmp`)
    await writeFile(tmp, JSON.stringify(index, null, 1))
    await rename(tmp, join(dir, INDEX_FILE))
  } catch {
    // an unwritable cache directory only costs the next run a request
  }
}

/**
 * The fork point for `opts`: from the index when the block number is explicit and was seen before at this URL,
 * else from the remote (chain id, head when needed, the block's hash), then remembered.
 * @throws InvalidArgumentError (-32602) when the block number is beyond the remote's head or before block 0
 * @throws ForkRemoteError (-32000) when the remote cannot answer or has no such block
 */
export async function resolveForkPoint(remote: RemoteNode, opts: ForkPointOptions): Promise<ForkPoint> {
  if (opts.blockNumber !== undefined && opts.blockNumber >= 0n && opts.cacheDir !== undefined) {
    const entry = (await readIndex(opts.cacheDir))[remoteFingerprint(opts.url)]
    const hash = entry?.blocks[opts.blockNumber.toString()]
    if (entry !== undefined && hash !== undefined && /^0x[0-9a-f]{64}$/.test(hash)) {
      return { chainId: BigInt(entry.chainId), number: opts.blockNumber, hash: fromHex(hash) }
    }
  }
  const [chainId, head] = await Promise.all([remote.chainId(), remote.blockNumber()])
  const wanted = opts.blockNumber
  const confirmations = opts.confirmations ?? DEFAULT_FORK_CONFIRMATIONS
  // the default never goes below block 0 (a young chain); an explicit number that does is refused
  const number =
    wanted === undefined ? (head > confirmations ? head - confirmations : 0n) : wanted < 0n ? head + wanted : wanted
  if (number < 0n)
    throw new InvalidArgumentError(`fork block ${number} is before block 0 (the remote's head is ${head})`)
  if (number > head) throw new InvalidArgumentError(`fork block ${number} is beyond the remote's head ${head}`)
  const block = await remote.blockByNumber(number, false)
  const hash =
    typeof block?.hash === 'string' && /^0x[0-9a-fA-F]{64}$/.test(block.hash) ? fromHex(block.hash) : undefined
  if (hash === undefined) throw new RemoteDataError(`fork remote has no block ${number} (its head is ${head})`)
  const point: ForkPoint = { chainId, number, hash }
  if (opts.cacheDir !== undefined) await remember(opts.cacheDir, opts.url, point)
  return point
}
