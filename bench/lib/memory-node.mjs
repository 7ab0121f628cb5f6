// The node of the memory row: node-cli in this process through the library API (createNode from dist/index.js,
// 127.0.0.1, a free port), so that the bench can force a full GC and read the V8 heap — the CLI exposes neither.
// Run as `node --expose-gc bench/lib/memory-node.mjs` with an IPC channel (lib/memory.mjs spawns it). Messages:
//   → { url }                                    once the node serves
//   { measure: blocks } → { memory: process.memoryUsage(), resident } after two full GCs (bytes; resident: with
//                         MEMORY_SMAPS=1, the resident memory by kind of mapping, else undefined); with the environment's
//                         MEMORY_HEAP_SNAPSHOT=<dir>, also a V8 heap snapshot <dir>/memory-<blocks>.heapsnapshot
//                         (written after the figures are taken: it takes seconds and memory of its own)
//   'close'   → closes the node and exits 0
// With the environment's MEMORY_DB=<dir>, the node keeps its chain in <dir> (the CLI's --db) instead of in memory.
// lib/memory.mjs adds the V8 option bounding the old generation's growth that the CLI's launcher adds
// (bin/start-settings.js: --heap-growing-percent=50, or NODE_CLI_HEAP_GROWING_PERCENT), so RSS behaves as the CLI's.
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { writeHeapSnapshot } from 'node:v8'
import { root } from './paths.mjs'
import { residentByKind } from './proc.mjs'

if (typeof globalThis.gc !== 'function' || typeof process.send !== 'function') {
  console.error('memory-node.mjs: run with node --expose-gc and an IPC channel (bench/lib/memory.mjs does)')
  process.exit(2)
}
const { createNode } = await import(pathToFileURL(join(root, 'dist', 'index.js')).href)
const node = await createNode({ host: '127.0.0.1', port: 0, db: process.env.MEMORY_DB || undefined })
process.on('message', (m) => {
  const measure = /** @type {{ measure?: number } | null} */ (m)?.measure
  if (measure !== undefined) {
    globalThis.gc()
    globalThis.gc()
    const memory = process.memoryUsage()
    const resident = process.env.MEMORY_SMAPS ? residentByKind('self') : undefined
    const dir = process.env.MEMORY_HEAP_SNAPSHOT
    if (dir) writeHeapSnapshot(join(dir, `memory-${measure}.heapsnapshot`))
    process.send({ memory, resident })
  } else if (m === 'close') {
    node.close().then(
      () => process.exit(0),
      () => process.exit(1),
    )
  }
})
process.send({ url: node.url })
