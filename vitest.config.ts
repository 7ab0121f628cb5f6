import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // test/clients holds the client tools' own package (and its node_modules)
    exclude: ['**/node_modules/**', 'test/clients/**'],
    globalSetup: ['test/helpers/install-clients.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
})
