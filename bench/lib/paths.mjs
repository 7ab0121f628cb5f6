// Where the benchmark lives and how it loads packages: bench/ (its own pinned dependencies in
// bench/node_modules) and the project root (ethers, solc and node-cli's dist/).
import { createRequire } from 'node:module'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The bench/ directory. */
export const benchDir = resolve(dirname(fileURLToPath(import.meta.url)), '..')
/** The project root (bin/node-cli.js, dist/, fixtures/). */
export const root = resolve(benchDir, '..')
/** require() from bench/: the peers and autocannon (bench/package.json). */
export const benchRequire = createRequire(join(benchDir, 'package.json'))
/** require() from the project root: ethers v6 and solc (the project's devDependencies, not duplicated in bench/). */
export const rootRequire = createRequire(join(root, 'package.json'))
