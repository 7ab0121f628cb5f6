#!/usr/bin/env node
// Runs the bundled CLI (one file: fast start-up); falls back to the unbundled build if the bundle is absent.
import { existsSync } from 'node:fs'

const bundle = new URL('../dist/node-cli.mjs', import.meta.url)
const { main } = await import(existsSync(bundle) ? bundle.href : '../dist/cli/main.js')
main(process.argv).catch((err) => {
  console.error(err instanceof Error ? err.message : err)
  process.exit(1)
})
