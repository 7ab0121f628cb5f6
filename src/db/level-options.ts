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
 * cache reopen it (one open, one map and its index and filter read). The tables are at LevelDB's floor too:
 * `maxFileSize` 1 MiB for compacted tables (default 2 MiB; the bundled LevelDB 1.20 raises anything smaller to
 * 1 MiB when it opens the database, `SanitizeOptions` in db/db_impl.cc) and `writeBufferSize` 1 MiB for the newest
 * ones, each a flushed memtable (default 4 MiB). So the mapped pages are bounded by 64 MiB, reached only as reads
 * and compactions touch the open tables: under the 30-minute `--sustain --db` load the resident pages of mapped
 * tables stay at 6-21 MB where LevelDB's defaults reach 14-60 MB (docs/measurements/2026-11-leveldb-mapped-pages.md).
 * The cost: about one file per MiB of database; restarts at 100 000 blocks still answer within ~0.2 s.
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
  /** Size at which a compaction starts a new table (bytes): LevelDB's floor, see the module documentation. */
  maxFileSize: 1024 * 1024,
} as const
