/**
 * Reading one artifacts folder (a Hardhat `artifacts/` or a Foundry `out/`) into contract records, again and again
 * as it changes: files are parsed once per (modification time, size) and kept parsed until they change; a file that
 * fails to read or parse (a recompile half-way through writing it) is skipped and tried again on the next read.
 */
import { readdir, readFile, stat } from 'node:fs/promises'
import { basename, join, relative, resolve, sep } from 'node:path'
import { buildInfoImmutables, buildInfoKey, readArtifact, type ArtifactRecord } from './artifact-formats.js'
import { decodeArtifactHex, type ByteRange } from './bytecode-shape.js'

/** The layout a folder was found to hold: by the artifacts read (mixed when several tools wrote into it). */
export type FolderLayout = 'hardhat2' | 'hardhat3' | 'foundry' | 'mixed' | 'empty'

/** A contract record with its deployed code decoded (`code`) and the file it came from (`file`: relative to the
 * folder, `/`-separated). */
export interface FolderRecord extends ArtifactRecord {
  code: Uint8Array
  file: string
}

/** Reads an artifact document with its code decoded; throws (the file is skipped) when the code is not hex. */
function readDecoded(doc: unknown, fileName: string): (ArtifactRecord & { code: Uint8Array }) | undefined {
  const record = readArtifact(doc, fileName)
  if (!record) return undefined
  const code = decodeArtifactHex(record.deployedHex)
  if (!code) throw new Error(`deployed bytecode of ${record.name} is not hex`)
  return { ...record, code }
}

/** What a read of a folder found. */
export interface FolderContents {
  /** the folder read (absolute) */
  dir: string
  layout: FolderLayout
  /** the contracts with deployed code, sorted by file */
  records: FolderRecord[]
  /** the JSON files that could not be read or parsed this time, or whose bytecode is not hex (relative paths) */
  skipped: string[]
  /** whether the folder exists (false once it was removed, e.g. by `hardhat clean`) */
  exists: boolean
}

/** Folders never walked: Hardhat's build info is read on its own; the rest never holds artifacts. */
const SKIP_DIRS = new Set(['build-info', 'node_modules', '.git', 'cache'])

interface Cached<T> {
  mtimeMs: number
  size: number
  value: T
}

/** Whether a path is a directory (false when it does not exist). */
async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory()
  } catch {
    return false
  }
}

/**
 * The artifacts folder for a path given by the user: the path itself, or — for a project root — its `artifacts/`
 * (a Hardhat project: a hardhat.config.* file) or `out/` (a Foundry project: foundry.toml), existing or not yet.
 * @param dir the path as given (relative to the working directory)
 * @returns the absolute folder to read and watch
 * @throws Error `artifacts folder not found: <path>` when the path does not exist or is no directory
 */
export async function resolveArtifactsDir(dir: string): Promise<string> {
  const abs = resolve(dir)
  if (!(await isDirectory(abs))) {
    throw new Error(`artifacts folder not found: ${abs} (give a Hardhat artifacts/ or a Foundry out/ folder)`)
  }
  let names: string[] = []
  try {
    names = await readdir(abs)
  } catch {
    // an unreadable folder reads as empty
  }
  if (names.some((n) => /^hardhat\.config\.(js|cjs|mjs|ts|cts|mts)$/.test(n))) return join(abs, 'artifacts')
  if (names.includes('foundry.toml')) return join(abs, 'out')
  return abs
}

/** Lists the JSON files under `dir` (absolute paths, sorted), Hardhat's `*.dbg.json` and the SKIP_DIRS left out. */
async function listJsonFiles(dir: string): Promise<string[]> {
  const out: string[] = []
  const walk = async (d: string): Promise<void> => {
    let entries
    try {
      entries = await readdir(d, { withFileTypes: true })
    } catch {
      return // removed while walking
    }
    for (const e of entries) {
      const p = join(d, e.name)
      if (e.isDirectory()) {
        if (!SKIP_DIRS.has(e.name)) await walk(p)
      } else if (e.name.endsWith('.json') && !e.name.endsWith('.dbg.json')) out.push(p)
    }
  }
  await walk(dir)
  return out.sort()
}

/** Runs `fn` over `items` with at most `limit` at once. */
async function eachLimited<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0
  const worker = async (): Promise<void> => {
    while (next < items.length) await fn(items[next++])
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker))
}

/**
 * Reads one artifacts folder, keeping what it parsed for the next read.
 */
export class ArtifactFolder {
  private readonly artifactCache = new Map<string, Cached<(ArtifactRecord & { code: Uint8Array }) | undefined>>()
  private readonly buildInfoCache = new Map<string, Cached<Map<string, ByteRange[]>>>()

  /** @param dir the absolute folder (resolveArtifactsDir) */
  constructor(readonly dir: string) {}

  /**
   * Parses a file through a cache keyed by its modification time and size.
   * @returns the cached or new value, or undefined when the file cannot be read or parsed now (not cached)
   */
  private async parse<T>(
    cache: Map<string, Cached<T>>,
    path: string,
    read: (doc: unknown) => T,
  ): Promise<{ value: T } | undefined> {
    try {
      const st = await stat(path)
      const hit = cache.get(path)
      if (hit && hit.mtimeMs === st.mtimeMs && hit.size === st.size) return { value: hit.value }
      const value = read(JSON.parse(await readFile(path, 'utf8')))
      cache.set(path, { mtimeMs: st.mtimeMs, size: st.size, value })
      return { value }
    } catch {
      cache.delete(path)
      return undefined
    }
  }

  /**
   * Reads the folder as it is now.
   * @returns the records found (empty when the folder does not exist), the files skipped and the layout
   */
  async read(): Promise<FolderContents> {
    const exists = await isDirectory(this.dir)
    const files = exists ? await listJsonFiles(this.dir) : []
    const found = new Map<string, FolderRecord>()
    const skipped: string[] = []
    await eachLimited(files, 16, async (path) => {
      const rel = relative(this.dir, path).split(sep).join('/')
      const parsed = await this.parse(this.artifactCache, path, (doc) => readDecoded(doc, basename(path)))
      if (!parsed) skipped.push(rel)
      else if (parsed.value) found.set(path, { ...parsed.value, file: rel })
    })
    const seen = new Set(files)
    for (const p of this.artifactCache.keys()) if (!seen.has(p)) this.artifactCache.delete(p)
    const records = files.flatMap((p) => found.get(p) ?? [])
    if (records.some((r) => r.immutables === undefined)) await this.addBuildInfoImmutables(records, skipped)
    const formats = new Set(records.map((r) => r.format))
    const layout: FolderLayout =
      formats.size === 0 ? 'empty' : formats.size > 1 ? 'mixed' : (formats.values().next().value as FolderLayout)
    return { dir: this.dir, layout, records, skipped: skipped.sort(), exists }
  }

  /**
   * Fills in the immutables of records whose file lacks them (Hardhat 2) from `build-info/`: Hardhat 3's
   * `<id>.output.json`, else `<id>.json` (Hardhat 2, Foundry). A record found in no build info keeps no immutables
   * (its code then matches only when it has none).
   */
  private async addBuildInfoImmutables(records: FolderRecord[], skipped: string[]): Promise<void> {
    const infoDir = join(this.dir, 'build-info')
    let names: string[] = []
    try {
      names = (await readdir(infoDir)).filter((n) => n.endsWith('.json')).sort()
    } catch {
      // no build info: nothing to add
    }
    const nameSet = new Set(names)
    const wanted = names.filter((n) => n.endsWith('.output.json') || !nameSet.has(n.replace(/\.json$/, '.output.json')))
    const byKey = new Map<string, ByteRange[]>()
    for (const n of wanted) {
      const path = join(infoDir, n)
      const parsed = await this.parse(this.buildInfoCache, path, buildInfoImmutables)
      if (!parsed) skipped.push(`build-info/${n}`)
      else for (const [k, v] of parsed.value) byKey.set(k, v)
    }
    const seen = new Set(wanted.map((n) => join(infoDir, n)))
    for (const p of this.buildInfoCache.keys()) if (!seen.has(p)) this.buildInfoCache.delete(p)
    for (const r of records)
      if (r.immutables === undefined) r.immutables = byKey.get(buildInfoKey(r.name, r.deployedHex))
  }
}
