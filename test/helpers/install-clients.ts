/**
 * vitest global setup: installs the client tools the end-to-end tests drive (test/clients: a Hardhat 2 project's
 * dependencies, web3.js, cast) with `npm ci` when they are missing or their lock file changed since the last
 * install. They live in their own package so that the project's own `npm ci` stays small; `npm test` on a fresh
 * clone installs them here once (~30 s).
 */
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

/** The client tools' package directory. */
export const CLIENTS_DIR = join(import.meta.dirname, '..', 'clients')

/** Runs `npm ci` in test/clients unless its node_modules matches its package-lock.json. */
export default function setup(): void {
  const lock = readFileSync(join(CLIENTS_DIR, 'package-lock.json'), 'utf8')
  const marker = join(CLIENTS_DIR, 'node_modules', '.installed-lock')
  if (existsSync(marker) && readFileSync(marker, 'utf8') === lock) return
  process.stderr.write('test/clients: installing the client tools (npm ci)…\n')
  execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: CLIENTS_DIR, stdio: 'inherit' })
  writeFileSync(marker, lock)
}
