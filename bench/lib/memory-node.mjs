// The node of the memory row: node-cli in this process through the library API (createNode from dist/index.js,
// 127.0.0.1, a free port), so that the bench can force a full GC and read the V8 heap — the CLI exposes neither.
// Run as `node --expose-gc bench/lib/memory-node.mjs` with an IPC channel (lib/memory.mjs spawns it). Messages:
//   → { url }                                    once the node serves
//   'measure' → { memory: process.memoryUsage() } after two full GCs (bytes)
//   'close'   → closes the node and exits 0
// As the CLI does after start-up, V8's old-generation growth is capped at --heap-growing-percent=100, so RSS
// behaves as the CLI's.
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { setFlagsFromString } from 'node:v8'
import { root } from './paths.mjs'

if (typeof globalThis.gc !== 'function' || typeof process.send !== 'function') {
  console.error('memory-node.mjs: run with node --expose-gc and an IPC channel (bench/lib/memory.mjs does)')
  process.exit(2)
}
const { createNode } = await import(pathToFileURL(join(root, 'dist', 'index.js')).href)
const node = await createNode({ host: '127.0.0.1', port: 0 })
setFlagsFromString('--heap-growing-percent=100')
process.on('message', (m) => {
  if (m === 'measure') {
    globalThis.gc()
    globalThis.gc()
    process.send({ memory: process.memoryUsage() })
  } else if (m === 'close') {
    node.close().then(
      () => process.exit(0),
      () => process.exit(1),
    )
  }
})
process.send({ url: node.url })
