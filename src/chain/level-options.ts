/**
 * How `--db` opens its LevelDB directory (docs/architecture.md#storage): the options that keep the database's share
 * of the node's memory bounded however long the chain gets.
 *
 * LevelDB (through `classic-level`, under `level`) reads its table files through read-only memory maps (up to 1 000
 * per process, a limit the binding does not expose), and every open table also keeps its index and bloom-filter
 * blocks in private memory. Both last as long as the table stays in LevelDB's table cache, whose size is
 * `maxOpenFiles` − 10: with the default (1 000) nearly every table of a chain of a few hundred MB stays open, so the
 * mapped pages that reads and compactions touch (counted in the process's RSS as `RssFile`) and the index/filter
 * blocks (`RssAnon`) grow with the chain. Measured on a 216 MB database under random point reads: +213 MiB of
 * `RssFile` with the defaults.
 *
 * `maxOpenFiles` is set to LevelDB's floor (74, i.e. 64 tables; smaller values are raised to it): at most 64 tables
 * are mapped at a time, so the mapped table pages stay under 64 × the table size — reads of a table not in the
 * cache reopen it (one open, one map and its index and filter read). The tables are small, so that this bound is
 * small: `maxFileSize` 64 KiB for compacted tables (LevelDB's default: 2 MiB) and `writeBufferSize` 1 MiB for the
 * newest ones, each a flushed memtable (default 4 MiB). Measured under the 30-minute `--sustain` load with `--db`
 * (36 000 blocks, ~185 MiB database; two runs the same day): the resident pages of mapped tables 14-60 MB with the
 * defaults (RssFile 46-120 MiB), 6-21 MB with these (RssFile 46-70 MiB). The cost: ~16 files per MiB of database
 * (~3 000 at 36 000 blocks), and restarts at 100 000 blocks still answer within ~0.2 s.
 * Private memory of the database: the block cache (`cacheSize`, decompressed blocks) and two write buffers (the
 * memtable being filled and the one being flushed).
 */

/** Options passed to `new Level(dir, …)` besides the key/value encodings (classic-level's open options). */
export const LEVEL_OPEN_OPTIONS = {
  /** Open files (tables + 10 for the log, manifest, lock…): LevelDB's minimum, see the module documentation. */
  maxOpenFiles: 74,
  /** LRU cache of decompressed table blocks (bytes): the default. */
  cacheSize: 8 * 1024 * 1024,
  /** Memtable size before it is written out as a level-0 table (bytes): see the module documentation. */
  writeBufferSize: 1024 * 1024,
  /** Size at which a compaction starts a new table (bytes): see the module documentation. */
  maxFileSize: 64 * 1024,
} as const
