// node-cli's CLI from tsc's output (dist/cli/main.js, one file per module) instead of the bundle bin/node-cli.js
// runs: bench/breakdown.mjs profiles this, so that every profile frame names its own module (dist/x/y.js =
// src/x/y.ts). Arguments as bin/node-cli.js takes them.
import { main } from '../../dist/cli/main.js'

main(process.argv).catch((err) => {
  console.error(err instanceof Error ? err.message : err)
  process.exit(1)
})
