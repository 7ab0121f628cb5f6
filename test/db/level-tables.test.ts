/**
 * `--db` opens LevelDB with small tables (src/db/level-options.ts, docs/architecture.md#storage): LevelDB maps
 * every table it reads, so the table size times the 64-table cache bounds the mapped memory. A chain of a few MB
 * must leave its database in level-0 tables of about the 1 MiB write buffer — with LevelDB's default buffer (4 MiB)
 * the same data sits in one table of a few MB — and a compaction must write tables of about `maxFileSize` (1 MiB,
 * LevelDB's floor; the default is 2 MiB).
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { Level } from 'level'
import { LEVEL_OPEN_OPTIONS } from '../../src/db/level-options.js'
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

  it('are compacted into tables of about maxFileSize (1 MiB)', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'node-cli-compact-'))
    dirs.push(dir)
    const db = new Level<Uint8Array, Uint8Array>(dir, {
      keyEncoding: 'view',
      valueEncoding: 'view',
      ...LEVEL_OPEN_OPTIONS,
    })
    await db.open()
    try {
      // ~8 MB that does not compress (snappy) under random keys, as trie nodes are keyed by hash: the flushed
      // tables overlap, so the compaction merges them instead of moving them down a level as they are
      for (let b = 0; b < 2000; b++) await db.batch([{ type: 'put', key: randomBytes(32), value: randomBytes(4000) }])
      // `level` is classic-level on Node; its type leaves compactRange out (browsers have none)
      const classic = db as unknown as { compactRange(start: Uint8Array, end: Uint8Array): Promise<void> }
      await classic.compactRange(new Uint8Array(32), new Uint8Array(32).fill(255))
    } finally {
      await db.close()
    }
    const tables = readdirSync(dir)
      .filter((f) => f.endsWith('.ldb'))
      .map((f) => statSync(path.join(dir, f)).size)
    expect(tables.reduce((a, b) => a + b, 0)).toBeGreaterThan(7_000_000)
    // split by size, each a little over maxFileSize at most (a table ends after the record that crosses it)
    expect(tables.length).toBeGreaterThanOrEqual(6)
    expect(Math.max(...tables)).toBeLessThanOrEqual(LEVEL_OPEN_OPTIONS.maxFileSize * 1.1)
  })
})
