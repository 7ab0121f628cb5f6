/**
 * vitest global setup: installs the client tools the end-to-end tests drive (test/clients: a Hardhat 2 project's
 * dependencies, web3.js, cast) and a Node 22 binary (test/clients/node22, Linux x64 only: its own package, so its
 * `node` never shadows the one the client tools run on) with `npm ci` when they are missing or their lock file
 * changed since the last install. They live in their own packages so that the project's own `npm ci` stays small;
 * `npm test` on a fresh clone installs them once (~30 s, and the Node binary's 52 MB download).
 */
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

/** The client tools' package directory. */
export const CLIENTS_DIR = join(import.meta.dirname, '..', 'clients')

/** A Node 22 binary's package (test/clients/node22), for what the CLI does only on Node >= 22.15. */
export const NODE22_DIR = join(CLIENTS_DIR, 'node22')

/** Runs `npm ci` in `dir` unless its node_modules matches its package-lock.json. */
function install(dir: string, what: string): void {
  const lock = readFileSync(join(dir, 'package-lock.json'), 'utf8')
  const marker = join(dir, 'node_modules', '.installed-lock')
  if (existsSync(marker) && readFileSync(marker, 'utf8') === lock) return
  process.stderr.write(`${what}: installing (npm ci)…\n`)
  execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: dir, stdio: 'inherit' })
  writeFileSync(marker, lock)
}

/** Installs the client tools and the Node 22 binary (test/clients, test/clients/node22) when needed. */
export default function setup(): void {
  install(CLIENTS_DIR, 'test/clients: the client tools')
  install(NODE22_DIR, 'test/clients/node22: a Node 22 binary')
}
