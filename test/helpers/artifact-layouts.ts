/**
 * Test helper: compiles Solidity with the bundled `solc` npm package (standard JSON) and writes the output in the
 * folder shapes the explorer's artifacts matcher reads — Hardhat 2 (`artifacts/` + `.dbg.json` + one build info
 * with input and output), Hardhat 3 (`hh3-artifact-1` with `immutableReferences`, build info split into `<id>.json`
 * and `<id>.output.json`, source names prefixed `project/`) and Foundry (`out/<File>.sol/<Name>.json`).
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { basename, dirname, join } from 'node:path'

const require = createRequire(import.meta.url)
const solc = require('solc') as { compile(input: string): string; version(): string }

/** A solc standard-JSON input. */
export interface SolcInput {
  language: 'Solidity'
  sources: Record<string, { content: string }>
  settings: Record<string, unknown>
}

/** The part of a solc standard-JSON output the layouts use. */
export interface SolcOutput {
  contracts: Record<string, Record<string, SolcContract>>
  errors?: { severity: string; formattedMessage?: string; message: string }[]
}

/** One contract of a solc standard-JSON output (the fields the layouts use). */
export interface SolcContract {
  abi: unknown[]
  metadata: string
  evm: {
    bytecode: { object: string; linkReferences: unknown }
    deployedBytecode: { object: string; linkReferences: unknown; immutableReferences: unknown }
  }
}

/** A compile: the input given to solc and its output. */
export interface Compiled {
  input: SolcInput
  output: SolcOutput
}

/** The fixtures' compiler settings (fixtures/scripts/compile.mjs): optimizer on, 200 runs, cancun. */
const FIXTURE_SETTINGS = { optimizer: { enabled: true, runs: 200 }, evmVersion: 'cancun' }

/**
 * Compiles sources with the fixtures' settings, selecting what artifacts hold (ABI, both bytecodes with their link
 * and immutable references, metadata).
 * @param sources source unit name → Solidity text
 * @param settings extra solc settings merged over the fixtures' (e.g. `{ metadata: { bytecodeHash: 'none' } }`)
 * @throws Error with solc's messages when it reports an error
 */
export function compile(sources: Record<string, string>, settings: Record<string, unknown> = {}): Compiled {
  const input: SolcInput = {
    language: 'Solidity',
    sources: Object.fromEntries(Object.entries(sources).map(([k, v]) => [k, { content: v }])),
    settings: {
      ...FIXTURE_SETTINGS,
      ...settings,
      outputSelection: {
        '*': {
          '*': [
            'abi',
            'metadata',
            'evm.bytecode.object',
            'evm.bytecode.linkReferences',
            'evm.deployedBytecode.object',
            'evm.deployedBytecode.linkReferences',
            'evm.deployedBytecode.immutableReferences',
          ],
        },
      },
    },
  }
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as SolcOutput
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error')
  if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage ?? e.message).join('\n'))
  return { input, output }
}

/** The repository's fixture sources (fixtures/contracts/*.sol) under their bare file names, as compile.mjs names them. */
export function fixtureSources(): Record<string, string> {
  const dir = new URL('../../fixtures/contracts/', import.meta.url)
  const out: Record<string, string> = {}
  for (const f of readdirSync(dir)
    .filter((n) => n.endsWith('.sol'))
    .sort()) {
    out[f] = readFileSync(new URL(f, dir), 'utf8')
  }
  return out
}

function writeJson(path: string, value: unknown): void {
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(path, JSON.stringify(value, null, 2))
}

function each(output: SolcOutput, fn: (source: string, name: string, c: SolcContract) => void): void {
  for (const source of Object.keys(output.contracts).sort()) {
    for (const name of Object.keys(output.contracts[source]).sort()) fn(source, name, output.contracts[source][name])
  }
}

const hex = (object: string): string => (object === '' ? '0x' : `0x${object}`)

/** The fields Hardhat 2 and 3 artifacts share for contract `name` of `source`. */
function hardhatArtifact(format: string, source: string, name: string, c: SolcContract): Record<string, unknown> {
  return {
    _format: format,
    contractName: name,
    sourceName: source,
    abi: c.abi,
    bytecode: hex(c.evm.bytecode.object),
    deployedBytecode: hex(c.evm.deployedBytecode.object),
    linkReferences: c.evm.bytecode.linkReferences,
    deployedLinkReferences: c.evm.deployedBytecode.linkReferences,
  }
}

/**
 * Writes a Hardhat 2 `artifacts/` folder: `<source>/<Name>.json` (`hh-sol-artifact-1`, no immutables),
 * `<source>/<Name>.dbg.json`, `build-info/<buildId>.json` (`hh-sol-build-info-1`, input and output).
 * @returns the artifacts folder
 */
export function writeHardhat2(
  dir: string,
  { input, output }: Compiled,
  buildId = 'b1d0000000000000000000000000000a',
): string {
  each(output, (source, name, c) => {
    writeJson(join(dir, source, `${name}.json`), hardhatArtifact('hh-sol-artifact-1', source, name, c))
    const up = source.split('/').map(() => '..')
    writeJson(join(dir, source, `${name}.dbg.json`), {
      _format: 'hh-sol-dbg-1',
      buildInfo: [...up, 'build-info', `${buildId}.json`].join('/'),
    })
  })
  writeJson(join(dir, 'build-info', `${buildId}.json`), {
    id: buildId,
    _format: 'hh-sol-build-info-1',
    solcVersion: solc.version().replace(/\+.*/, ''),
    solcLongVersion: solc.version(),
    input,
    output,
  })
  return dir
}

/**
 * Writes a Hardhat 3 `artifacts/` folder: `<source>/<Name>.json` (`hh3-artifact-1` with `immutableReferences`),
 * `build-info/<buildId>.json` (input) and `build-info/<buildId>.output.json` (output keyed by `project/<source>`).
 * @returns the artifacts folder
 */
export function writeHardhat3(dir: string, { input, output }: Compiled, buildId = 'solc-0_8_30-0123abcd'): string {
  const projectOutput: SolcOutput = { contracts: {} }
  each(output, (source, name, c) => {
    writeJson(join(dir, source, `${name}.json`), {
      ...hardhatArtifact('hh3-artifact-1', source, name, c),
      immutableReferences: c.evm.deployedBytecode.immutableReferences,
      inputSourceName: `project/${source}`,
      buildInfoId: buildId,
    })
    ;(projectOutput.contracts[`project/${source}`] ??= {})[name] = c
  })
  writeJson(join(dir, 'build-info', `${buildId}.json`), { _format: 'hh3-sol-build-info-1', id: buildId, input })
  writeJson(join(dir, 'build-info', `${buildId}.output.json`), {
    _format: 'hh3-sol-build-info-output-1',
    id: buildId,
    output: projectOutput,
  })
  return dir
}

/**
 * Writes a Foundry `out/` folder: `<File>.sol/<Name>.json` with `abi`, `bytecode`, `deployedBytecode` (object,
 * linkReferences, immutableReferences), `metadata` (parsed; `settings.compilationTarget` names the contract).
 * @returns the out folder
 */
export function writeFoundry(dir: string, { output }: Compiled): string {
  each(output, (source, name, c) => {
    writeJson(join(dir, basename(source), `${name}.json`), {
      abi: c.abi,
      bytecode: { object: hex(c.evm.bytecode.object), linkReferences: c.evm.bytecode.linkReferences },
      deployedBytecode: {
        object: hex(c.evm.deployedBytecode.object),
        linkReferences: c.evm.deployedBytecode.linkReferences,
        immutableReferences: c.evm.deployedBytecode.immutableReferences,
      },
      metadata: JSON.parse(c.metadata),
      id: 0,
    })
  })
  return dir
}
