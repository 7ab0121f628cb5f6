// The benchmark's own dependencies (bench/package.json pins the peers and the load client): installed into
// bench/node_modules, not the project's, the first time or when a pin changed.
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { die } from './options.mjs'
import { benchDir, root } from './paths.mjs'

/** The pinned packages missing from bench/node_modules or installed at another version: [name, version][]. */
function staleBenchDeps() {
  const pins = JSON.parse(readFileSync(join(benchDir, 'package.json'), 'utf8')).dependencies
  return Object.entries(pins).filter(([name, version]) => {
    try {
      return (
        JSON.parse(readFileSync(join(benchDir, 'node_modules', ...name.split('/'), 'package.json'), 'utf8')).version !==
        version
      )
    } catch {
      return true
    }
  })
}

/** Installs the pinned bench dependencies when any is missing or stale (`npm ci --prefix bench`); exits 2 on failure. */
export function ensureBenchDeps() {
  const stale = staleBenchDeps()
  if (stale.length === 0) return
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'
  const run = (args) => spawnSync(npm, args, { stdio: 'inherit', cwd: root, timeout: 15 * 60_000 }).status === 0
  console.log(
    `bench: installing the benchmark's own dependencies (${stale.map(([n, v]) => `${n}@${v}`).join(', ')}): npm ci --prefix bench`,
  )
  if (!run(['ci', '--prefix', benchDir, '--no-audit', '--no-fund'])) {
    // npm ci refuses a lock file that lacks an optional dependency the registry does not serve
    // (e.g. a mirror with only this platform's @foundry-rs/anvil-* binary). Same pins, lock file untouched:
    console.log(
      'bench: npm ci failed; retrying with npm install --no-save --prefix bench (same pinned versions, package-lock.json not rewritten)',
    )
    if (!run(['install', '--no-save', '--prefix', benchDir, '--no-audit', '--no-fund']))
      die('installing bench dependencies failed')
  }
  const still = staleBenchDeps()
  if (still.length)
    die(`bench dependencies still missing or at other versions after install: ${still.map(([n]) => n).join(', ')}`)
}
