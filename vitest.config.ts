import { availableParallelism } from 'node:os'
import { defineConfig } from 'vitest/config'

/**
 * The test files that run the client tools of test/clients (Hardhat, web3.js, cast, Node 22 and 24 binaries, a
 * Hardhat 3 project) besides test/e2e/**: only the `e2e` project's run installs them (test/helpers/install-clients.ts,
 * a project-level globalSetup runs only when that project has files queued), so a unit file alone starts at once.
 */
const CLIENT_TESTS = [
  'test/cli.test.ts',
  'test/cli-start-settings.test.ts',
  'test/readme-snippets.test.ts',
  'test/state-file/anvil-interop.test.ts',
]

/** Never test files: dependencies, and the client tools' own packages (test/clients/…/node_modules). */
const NOT_TESTS = ['**/node_modules/**', 'test/clients/**']

export default defineConfig({
  test: {
    // options both projects inherit (`extends: true`)
    pool: 'forks',
    // at least 2 files at once: vitest's default (cores - 1) runs one at a time on 2 cores, where most files spend
    // much of their time waiting on sockets, child processes and timers (measured on 2 cores: 26 files 268 s → 194 s)
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 30_000,
    hookTimeout: 30_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: [...NOT_TESTS, 'test/e2e/**', ...CLIENT_TESTS],
          // files share a worker's module cache instead of each importing the sources again (measured on 2 cores:
          // 33 unit files 191 s → 128 s); they keep no state between files (no vi.mock, no globals)
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts', ...CLIENT_TESTS],
          exclude: NOT_TESTS,
          globalSetup: ['test/helpers/install-clients.ts'],
        },
      },
    ],
  },
})
