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
 * are mapped at a time, so the mapped table pages stay under 64 × the table size (`maxFileSize`, 2 MiB, for
 * compacted tables; a flushed write buffer for the newest ones) — reads of a table not in the cache reopen it
 * (one open, one map and its index and filter read). Private memory of the database: the block cache
 * (`cacheSize`, decompressed blocks) and two write buffers (`writeBufferSize`, the memtable being filled and the
 * one being flushed).
 */

/** Options passed to `new Level(dir, …)` besides the key/value encodings (classic-level's open options). */
export const LEVEL_OPEN_OPTIONS = {
  /** Open files (tables + 10 for the log, manifest, lock…): LevelDB's minimum, see the module documentation. */
  maxOpenFiles: 74,
  /** LRU cache of decompressed table blocks (bytes): the default. */
  cacheSize: 8 * 1024 * 1024,
  /** Memtable size before it is written out as a table (bytes): the default. */
  writeBufferSize: 4 * 1024 * 1024,
} as const
