/**
 * Nodes and temporary `--db` directories of one test file: {@link dbNodes} registers an `afterAll` that closes the
 * nodes still open and removes the directories.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll } from 'vitest'
import type { NodeConfig } from '../../src/config.js'
import type { Node } from '../../src/index.js'
import { startNode } from './node.js'

/** A deterministic clock (every block is its parent + 1 s), so two nodes fed the same requests build the same blocks. */
export const FIXED_CLOCK = (): number => 1_700_000_000_000

/** What {@link dbNodes} gives a test file. */
export interface DbNodes {
  /** A new empty directory under the system's temporary directory (removed after the file). */
  tempDir(): string
  /** Starts a node with `defaults` then `config` (closed after the file unless {@link close}d before). */
  open(config: NodeConfig): Promise<Node>
  /** Closes a node opened by {@link open} (e.g. to restart on the same directory). */
  close(node: Node): Promise<void>
}

/**
 * The nodes and directories of one test file.
 * @param prefix the directories' name prefix (e.g. `node-cli-db-`)
 * @param defaults options every {@link DbNodes.open} starts from (e.g. `{ clock: FIXED_CLOCK }`)
 */
export function dbNodes(prefix: string, defaults: NodeConfig = {}): DbNodes {
  const dirs: string[] = []
  const nodes: Node[] = []
  afterAll(async () => {
    for (const n of nodes.splice(0)) await n.close()
    for (const d of dirs) rmSync(d, { recursive: true, force: true })
  })
  return {
    tempDir() {
      const d = mkdtempSync(path.join(os.tmpdir(), prefix))
      dirs.push(d)
      return d
    },
    async open(config) {
      const node = await startNode({ ...defaults, ...config })
      nodes.push(node)
      return node
    },
    async close(node) {
      await node.close()
      nodes.splice(nodes.indexOf(node), 1)
    },
  }
}
