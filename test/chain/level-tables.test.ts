/**
 * `--db` opens LevelDB with small tables (src/chain/level-options.ts, docs/architecture.md#storage): LevelDB maps
 * every table it reads, so the table size times the 64-table cache bounds the mapped memory. A chain of a few MB
 * must leave its database in level-0 tables of about the 1 MiB write buffer — with LevelDB's default buffer (4 MiB)
 * the same data sits in one table of a few MB. (The compacted tables' size, `maxFileSize`, shows in the bench's
 * `--sustain` mapped-table figures: compactions start later than a test can wait.)
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { LEVEL_OPEN_OPTIONS } from '../../src/chain/level-options.js'
import { rpc, startNode } from '../helpers/node.js'

const dirs: string[] = []
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

describe('--db LevelDB tables', () => {
  it('are flushed at the 1 MiB write buffer', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'node-cli-tables-'))
    dirs.push(dir)
    const node = await startNode({ db: dir })
    try {
      // 3 000 empty blocks: ~2.8 MB of headers, indexes and state roots
      for (let i = 0; i < 3; i++) await rpc(node.url, 'anvil_mine', ['0x3e8'])
    } finally {
      await node.close()
    }
    const tables = readdirSync(path.join(dir, 'chain'))
      .filter((f) => f.endsWith('.ldb'))
      .map((f) => statSync(path.join(dir, 'chain', f)).size)
    expect(tables.reduce((a, b) => a + b, 0)).toBeGreaterThan(2 * 1024 * 1024)
    expect(tables.length).toBeGreaterThanOrEqual(3)
    // a flushed memtable is a little larger than the buffer (measured: ~1.03 MiB)
    expect(Math.max(...tables)).toBeLessThanOrEqual(LEVEL_OPEN_OPTIONS.writeBufferSize * 1.25)
  })
})
