/**
 * The artifacts matcher (interface 4 of the explorer): names deployed contracts from the user's compiled artifacts
 * (`--artifacts <dir>`, Hardhat `artifacts/` or Foundry `out/`), offline, and reads the folders again when they
 * change. It takes bytes only (no chain import), so any layer may hold it.
 */
import { ArtifactFolder, resolveArtifactsDir, type FolderContents, type FolderLayout } from './artifact-folder.js'
import { BytecodeIndex, type IndexedArtifact } from './bytecode-index.js'
import { artifactShape } from './bytecode-shape.js'
import type { ContractArtifact } from './contract-artifact.js'
import { watchFolder, type FolderWatch } from './folder-watcher.js'

export type { ContractArtifact } from './contract-artifact.js'

/** What one folder held at its last read. */
export interface ArtifactFolderSummary {
  /** the folder read (absolute; a project root given resolves to its artifacts/ or out/) */
  dir: string
  layout: FolderLayout
  /** how many contracts with deployed code it holds */
  contracts: number
  /** JSON files skipped at the last read (unreadable, malformed, or bytecode that is not hex), relative paths */
  skipped: readonly string[]
  /** false while the folder does not exist (not compiled yet, or cleaned) */
  exists: boolean
}

/** Options of ArtifactRegistry.open. */
export interface ArtifactRegistryOptions {
  /** read a folder again when it changes (default false) */
  watch?: boolean
  /** quiet time after a change before the folder is read again, in ms (default 200) */
  debounceMs?: number
  /** called after each read again (see reloadCount), with every folder's summary */
  onReload?: (folders: readonly ArtifactFolderSummary[]) => void
}

/** The order of records within a folder: by source, then name, then file (stable across reads and machines). */
function compareRecords(
  a: { source?: string; name: string; file: string },
  b: { source?: string; name: string; file: string },
): number {
  const as = a.source ?? '\uffff'
  const bs = b.source ?? '\uffff'
  if (as !== bs) return as < bs ? -1 : 1
  if (a.name !== b.name) return a.name < b.name ? -1 : 1
  return a.file < b.file ? -1 : a.file > b.file ? 1 : 0
}

/**
 * Compiled contracts from artifacts folders, indexed by their deployed code.
 *
 * Matching rules (bytecode-shape.ts, bytecode-index.ts): the Solidity metadata tail (CBOR, length in the last 2 bytes)
 * is left out on both sides when it parses as one; the artifact's immutables, library link references, a library's
 * own address and the metadata hashes of embedded creation code are not compared; every other byte must be equal
 * and the lengths without the tail too. When several artifacts match (identical contracts, or the same contract in
 * two folders), the choice is deterministic: first the one whose metadata tail is byte-for-byte the code's (two
 * identical contracts with different names or files differ there), then the one with the fewest masked bytes, then
 * the one from the earliest folder in `dirs`, then by source unit, contract name and file path (ascending).
 */
export class ArtifactRegistry {
  private index = new BytecodeIndex([])
  private readonly contents: FolderContents[]
  private readonly watches: FolderWatch[] = []
  private reloads = 0

  private constructor(
    private readonly folders: readonly ArtifactFolder[],
    contents: FolderContents[],
  ) {
    this.contents = contents
    this.rebuild()
  }

  /**
   * Reads the artifacts folders and indexes their contracts.
   * @param dirs the folders, in order of preference (a Hardhat `artifacts/`, a Foundry `out/`, or a project root with
   *   a hardhat.config.* or foundry.toml, read as its artifacts/ or out/, which may not exist yet); none gives an empty
   *   registry
   * @param opts `watch`: read a folder again after it changes (debounced, `debounceMs`, default 200 ms)
   * @returns the registry (close() it when done if it watches)
   * @throws Error `artifacts folder not found: <path> …` when a given path does not exist or is no directory (the CLI
   *   shows it at start)
   */
  static async open(dirs: readonly string[], opts: ArtifactRegistryOptions = {}): Promise<ArtifactRegistry> {
    const resolved: string[] = []
    for (const d of dirs) resolved.push(await resolveArtifactsDir(d))
    const folders = [...new Set(resolved)].map((d) => new ArtifactFolder(d))
    const contents = await Promise.all(folders.map((f) => f.read()))
    const registry = new ArtifactRegistry(folders, contents)
    if (opts.watch) registry.startWatching(opts)
    return registry
  }

  private startWatching(opts: ArtifactRegistryOptions): void {
    this.folders.forEach((folder, i) => {
      const reload = async (): Promise<void> => {
        this.contents[i] = await folder.read()
        if (this.watches.length === 0) return // closed meanwhile
        this.rebuild()
        this.reloads++
        opts.onReload?.(this.folderSummaries())
      }
      this.watches.push(watchFolder(folder.dir, reload, { debounceMs: opts.debounceMs }))
    })
  }

  private rebuild(): void {
    const indexed: IndexedArtifact[] = []
    for (const c of this.contents) {
      for (const r of [...c.records].sort(compareRecords)) {
        if (r.code.length === 0) continue
        const artifact: ContractArtifact = Object.freeze({
          name: r.name,
          ...(r.source !== undefined ? { source: r.source } : {}),
          abi: r.abi,
        })
        indexed.push({ artifact, shape: artifactShape(r.code, [...r.links, ...(r.immutables ?? [])]) })
      }
    }
    this.index = new BytecodeIndex(indexed)
  }

  /**
   * Names deployed code.
   * @param runtimeCode the code at an address (eth_getCode result as bytes)
   * @returns the matching contract (see the class rules), or undefined when none matches or the code is empty
   */
  match(runtimeCode: Uint8Array): ContractArtifact | undefined {
    return this.index.match(runtimeCode)
  }

  /** How many contracts with deployed code the registry holds now. */
  get size(): number {
    return this.index.size
  }

  /**
   * How many times the registry read a folder again since open(): 0 without `watch`; with it, once shortly after
   * open() (the watch starting) and then after each burst of changes.
   */
  get reloadCount(): number {
    return this.reloads
  }

  /** What each folder held at its last read, in the order given to open(). */
  folderSummaries(): ArtifactFolderSummary[] {
    return this.contents.map((c) => ({
      dir: c.dir,
      layout: c.layout,
      contracts: c.records.length,
      skipped: c.skipped,
      exists: c.exists,
    }))
  }

  /** Stops watching (no read after it returns); match() keeps answering from the last read. Idempotent. */
  close(): void {
    for (const w of this.watches.splice(0)) w.close()
  }
}
