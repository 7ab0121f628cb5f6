/**
 * Reading a state file (format: ./format.ts) — node-cli's own or Anvil's, plain or gzipped — in one streaming
 * pass: each account is turned into Unitrie entries and put into the trie being built as it arrives, so memory
 * holds the resulting state (which the node keeps anyway) and the blocks, never the file's text. Nothing is
 * applied to a chain here: the caller adopts the result only when the whole file was read and checked.
 */
import { open } from 'node:fs/promises'
import { Readable } from 'node:stream'
import { createGunzip } from 'node:zlib'
import { wasmKeccakReady } from '../crypto/keccak.js'
import { Unitrie } from '../unitrie/unitrie.js'
import { EntryBatch } from '../unitrie/entry-batch.js'
import { unitrieFromBatch } from '../unitrie/unitrie-bulk.js'
import { accountKey, EMPTY_ACCOUNT_STATE } from '../rsk/trie-keys.js'
import { fromHex } from '../util/bytes.js'
import { throttleProgress, type ProgressListener } from '../util/progress.js'
import { AccountEntryWriter, bigintField, shown } from './account-entries.js'
import { STATE_FILE_VERSION, StateFileError, type NodeCliMeta } from './format.js'
import { pickValues, type JsonKind, type JsonPath } from './json-walk.js'
import { checkShape, NODE_CLI_SCALARS } from './shape.js'

/** What a state file held. */
export interface LoadedState {
  /** The Unitrie entries of every account, cell and raw entry of the file, in file order (later ones win), packed. */
  entries: EntryBatch
  /**
   * Addresses that have byte cells (`storageBytes`) but no account in the file: they need an account entry
   * (an empty one) unless the state the file goes into has one.
   */
  accountsNeeded: Uint8Array[]
  /** The `node_cli` member (undefined for an Anvil file). */
  meta?: NodeCliMeta
  /** `[blockRlp, derived, addresses?]` of blocks 1 … head (node-cli files; empty otherwise). */
  blocks: [Uint8Array, Uint8Array, Uint8Array?][]
  /** Accounts read. */
  accounts: number
  /** Storage cells read (words and byte cells). */
  cells: number
  /** Anvil's `best_block_number`, when present. */
  bestBlockNumber?: bigint
}

const HEX = /^0x[0-9a-fA-F]*$/
const HASH = /^0x[0-9a-fA-F]{64}$/

/** Which values of the document are read (everything else streams by unassembled). */
function wanted(path: JsonPath): boolean {
  const [top, second] = path
  if (path.length === 1) return top === 'best_block_number'
  if (top === 'accounts') return path.length === 2
  if (top !== 'node_cli') return false
  if (path.length === 2) return NODE_CLI_SCALARS.has(second as string)
  return path.length === 3 && (second === 'storageBytes' || second === 'rawEntries' || second === 'blocks')
}

/** The document's bytes, gunzipped when they start with the gzip magic. */
function decompressed(source: Readable, firstBytes: Uint8Array): Readable {
  return firstBytes[0] === 0x1f && firstBytes[1] === 0x8b ? source.pipe(createGunzip()) : source
}

/** A state file opened for {@link loadState}: its document and how far through the file the reading is. */
export interface OpenedStateFile {
  /** The document's bytes (gunzipped when the file is gzipped). */
  input: Readable
  /** The file's size in bytes (compressed, for a gzipped file); undefined when it is not a regular file. */
  size?: number
  /** Bytes of the file read so far (compressed, for a gzipped file). */
  position(): number
}

/**
 * Opens a state file for {@link loadState}.
 * @throws (rejects) StateFileError when it cannot be read
 */
export async function openStateFile(file: string): Promise<OpenedStateFile> {
  let handle
  try {
    handle = await open(file, 'r')
  } catch (err) {
    throw new StateFileError(
      `cannot read the state file ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    )
  }
  const head = Buffer.alloc(2)
  await handle.read(head, 0, 2, 0)
  const stat = await handle.stat()
  const stream = handle.createReadStream({ start: 0 })
  return {
    input: decompressed(stream, head),
    size: stat.isFile() ? stat.size : undefined,
    position: () => stream.bytesRead,
  }
}

/** Where {@link loadState} reports its progress. */
export interface LoadProgress {
  /** Receives `reading` reports (throttled): bytes of the file read of its size, accounts and cells so far. */
  listener: ProgressListener
  /** The input's size in bytes, when known ({@link OpenedStateFile.size}). */
  size?: number
  /** Bytes of the input read so far ({@link OpenedStateFile.position}). */
  position?: () => number
}

/** Values read between two progress reports of {@link loadState} (each costs a clock read when reported). */
const VALUES_PER_REPORT = 64

/** A state given as bytes (anvil_loadState's argument: JSON text, or gzipped JSON). */
export function stateBytes(data: Uint8Array): Readable {
  return decompressed(Readable.from([Buffer.from(data)]), data)
}

/**
 * Reads a state file into Unitrie entries (see {@link intoState} to apply them).
 * @param input the document (see {@link openStateFile}, {@link stateBytes})
 * @param label how errors name the input, e.g. "state file ./state.json"
 * @param progress where to report how far the reading is (every {@link VALUES_PER_REPORT} values read, throttled)
 * @throws (rejects) StateFileError naming the problem: malformed or truncated JSON, a member of the wrong kind
 *   (`"accounts": 5`, a `node_cli` that is an array…: ./shape.ts), a bad account field, a bad `node_cli` number or
 *   hash, an unsupported format version
 */
export async function loadState(input: Readable, label: string, progress?: LoadProgress): Promise<LoadedState> {
  // every cell costs two Keccak hashes (its key, then the trie nodes): the faster implementation first
  await wasmKeccakReady()
  const entries = new EntryBatch()
  const writer = new AccountEntryWriter(entries, label)
  const listed = new Set<string>()
  const withCells = new Map<string, Uint8Array>()
  const meta: Partial<NodeCliMeta> = {}
  const blocks: [Uint8Array, Uint8Array, Uint8Array?][] = []
  let accounts = 0
  let cells = 0
  let bestBlockNumber: bigint | undefined
  let sawAccounts = false
  let values = 0
  const listener = progress && throttleProgress(progress.listener)
  const report = (): void =>
    listener!({
      phase: 'reading',
      done: progress!.position?.(),
      total: progress!.size,
      unit: 'bytes',
      counts: { accounts, cells },
    })
  const pick = (path: JsonPath, kind: JsonKind): boolean => {
    if (path.length === 1 && path[0] === 'accounts') sawAccounts = true
    checkShape(path, kind, label)
    return wanted(path)
  }
  try {
    for await (const { path, value } of pickValues(input, pick)) {
      if (listener !== undefined && ++values % VALUES_PER_REPORT === 0) report()
      const [top, second] = path
      if (top === 'accounts') {
        cells += writer.addAccount(String(second), value)
        listed.add(writer.addressKey())
        accounts++
      } else if (top === 'best_block_number') {
        bestBlockNumber = bigintField(value, `${label}: best_block_number`)
      } else if (second === 'storageBytes') {
        cells += writer.addByteCells(String(path[2]), value)
        withCells.set(writer.addressKey(), fromHex(writer.addressKey()))
      } else if (second === 'rawEntries') {
        const pair = value as unknown[]
        if (!Array.isArray(pair) || pair.length !== 2)
          throw new StateFileError(`${label}: rawEntries[${path[2]}] is not a [key, value] pair`)
        entries.add(
          hexField(pair[0], `${label}: rawEntries[${path[2]}]`),
          hexField(pair[1], `${label}: rawEntries[${path[2]}]`),
        )
      } else if (second === 'blocks') {
        const item = value as unknown[]
        const at = `${label}: node_cli.blocks[${path[2]}]`
        if (!Array.isArray(item) || item.length < 2 || item.length > 3)
          throw new StateFileError(`${at} is not a [block, extra] pair or a [block, extra, addresses] triple`)
        const record = item.length === 3 ? hexField(item[2], at) : undefined
        blocks.push(
          record === undefined
            ? [hexField(item[0], at), hexField(item[1], at)]
            : [hexField(item[0], at), hexField(item[1], at), record],
        )
      } else if (top === 'node_cli') {
        ;(meta as Record<string, unknown>)[second as string] = value
      }
    }
  } catch (err) {
    if (err instanceof StateFileError) throw err
    throw new StateFileError(`${label} is not a valid state file: ${(err as Error).message}`)
  }
  if (!sawAccounts) throw new StateFileError(`${label} is not a state file: it has no "accounts"`)
  const accountsNeeded = [...withCells].filter(([key]) => !listed.has(key)).map(([, address]) => address)
  if (meta.version === undefined) return { entries, accountsNeeded, blocks, accounts, cells, bestBlockNumber }
  const version = smallInteger(meta.version, `${label}: node_cli.version`)
  if (version !== STATE_FILE_VERSION) {
    throw new StateFileError(
      `${label} is in node-cli state format ${meta.version}; this version reads format ${STATE_FILE_VERSION}` +
        (version > STATE_FILE_VERSION ? ' (written by a newer node-cli)' : ''),
    )
  }
  for (const f of NODE_CLI_SCALARS)
    if (meta[f as keyof NodeCliMeta] === undefined) throw new StateFileError(`${label}: node_cli.${f} is missing`)
  for (const f of ['genesisHash', 'stateRoot'] as const)
    if (!HASH.test(meta[f]!))
      throw new StateFileError(`${label}: node_cli.${f}: expected a 32-byte 0x-hex hash, got ${shown(meta[f])}`)
  for (const f of ['head', 'minimumGasPrice'] as const) bigintField(meta[f], `${label}: node_cli.${f}`)
  return {
    entries,
    accountsNeeded,
    meta: {
      ...(meta as NodeCliMeta),
      version,
      network: smallInteger(meta.network, `${label}: node_cli.network`),
      chainId: smallInteger(meta.chainId, `${label}: node_cli.chainId`),
    },
    blocks,
    accounts,
    cells,
    bestBlockNumber,
  }
}

/**
 * A `node_cli` number (a JSON number, kept as text, or a decimal or 0x-hex string) as a safe integer.
 * @throws StateFileError "<what>: expected a non-negative integer, got …"
 */
function smallInteger(v: unknown, what: string): number {
  const n = bigintField(v, what)
  if (n > BigInt(Number.MAX_SAFE_INTEGER)) throw new StateFileError(`${what}: ${n} is too large`)
  return Number(n)
}

function hexField(v: unknown, what: string): Uint8Array {
  if (typeof v !== 'string' || !HEX.test(v) || v.length % 2 !== 0)
    throw new StateFileError(`${what}: expected 0x-hex bytes, got ${shown(v)}`)
  return fromHex(v)
}

/**
 * Applies loaded entries to a state: an account of the file replaces that account's nonce, balance and code and
 * sets the cells given (other cells stay); an account that only has byte cells in the file gets an empty account
 * entry unless `base` has one.
 * @param base the state to apply to: the empty trie to rebuild a node-cli file's state exactly, or the live state
 * @param rebuild build the result in one pass over base's and the file's entries (a small base, e.g. at
 *   start-up; base's entries are added to `loaded.entries`, so a loaded state is applied once) instead of putting
 *   the file's entries into base one by one (a large live state, few entries)
 * @param onProgress receives the rebuild's steps (src/unitrie/unitrie-bulk.ts: sorting, then building the trie)
 */
export function intoState(
  loaded: LoadedState,
  base: Unitrie,
  rebuild: boolean,
  onProgress?: ProgressListener,
): Unitrie {
  const missing = loaded.accountsNeeded
    .filter((a) => !base.has(accountKey(a)))
    .map((a): [Uint8Array, Uint8Array] => [accountKey(a), EMPTY_ACCOUNT_STATE])
  if (rebuild) {
    // base's entries and the missing accounts rank below the file's (as if put first); the batch keeps them
    const batch = loaded.entries
    for (const [k, v] of base.entries()) batch.add(k, v, 0)
    for (const [k, v] of missing) batch.add(k, v, 0)
    return unitrieFromBatch(batch, onProgress)
  }
  let state = base
  for (const [k, v] of missing) state = state.put(k, v)
  for (const [k, v] of loaded.entries.entries()) state = state.put(k, v)
  return state
}
