// @ts-check
// The packages the bundles leave out (scripts/bundle.mjs, and the unpatched library the tests build in
// test/helpers/unpatched-library.ts): one list for all of them.

/**
 * Packages left out of both bundles (CLI and library) and loaded from node_modules at run time: native addons,
 * packages that locate files next to themselves, and the lazily loaded ones. None of them is patched.
 * @type {string[]}
 */
export const EXTERNAL = [
  // the two uWebSockets.js distributions (src/server/index.ts loadUws): bin/node-cli.js requires their binaries
  'uWebSockets.js',
  'uws-pack',
  'keccak',
  'secp256k1',
  // level and classic-level are bundled (its binding finds the binary from the package's directory:
  // patches/classic-level+3.0.0+001+binding-from-package-dir.patch); memory-level is for tests and tools
  'memory-level',
  // Loaded lazily (dynamic import) by the accounts code, only for personal_*/signing methods or --mnemonic:
  // kept out of the bundle so start-up does not parse them.
  '@ethereumjs/wallet',
  '@scure/bip39',
  '@scure/bip32',
  'ethers',
]
