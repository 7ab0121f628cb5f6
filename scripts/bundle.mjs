// Bundles the CLI into one ESM file (dist/node-cli.mjs): loading one file instead of the few hundred
// modules of @ethereumjs cuts the CLI's start-up import time from ~215 ms to ~80 ms (measured; issue 6).
// Native addons and packages that locate files next to themselves stay external.
import { build } from 'esbuild'

await build({
  entryPoints: ['dist/cli/main.js'],
  outfile: 'dist/node-cli.mjs',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  legalComments: 'none',
  logLevel: 'warning',
  external: [
    'uWebSockets.js', 'keccak', 'secp256k1', 'classic-level', 'level', 'memory-level',
    // Loaded lazily (dynamic import) by the accounts code, only for personal_*/signing methods or --mnemonic:
    // kept out of the bundle so start-up does not parse them.
    '@ethereumjs/wallet', '@scure/bip39', '@scure/bip32', 'ethers',
  ],
  // CommonJS dependencies inside an ESM bundle need a `require`.
  banner: { js: "import { createRequire as __nodeCliRequire } from 'node:module'; const require = __nodeCliRequire(import.meta.url);" },
})
