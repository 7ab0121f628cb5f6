/**
 * Reading one artifact JSON document of the layouts the matcher knows (shapes checked on Hardhat 2.x, Hardhat 3.x
 * and Foundry output):
 * - Hardhat 2 `artifacts/<source>/<Name>.json`: `_format` "hh-sol-artifact-1", `contractName`, `sourceName`, `abi`,
 *   `deployedBytecode` (0x hex), `deployedLinkReferences`; immutables only in the build info
 *   (`artifacts/build-info/<id>.json`: `output.contracts[source][name].evm.deployedBytecode.immutableReferences`);
 * - Hardhat 3 `artifacts/<source>/<Name>.json`: `_format` "hh3-artifact-1", the same fields plus
 *   `immutableReferences`; the build info is split into `<id>.json` (input) and `<id>.output.json` (output);
 * - Foundry `out/<File>.sol/<Name>.json` (or `<Name>.<solc version>.json`): `abi`, `deployedBytecode.object`,
 *   `deployedBytecode.linkReferences`, `deployedBytecode.immutableReferences`, `metadata` (object or JSON text) with
 *   `settings.compilationTarget` `{ "<source>": "<Name>" }`.
 * Pure functions over parsed JSON: no file system.
 */
import { createHash } from 'node:crypto'
import type { ByteRange } from './bytecode-shape.js'

/** Which tool wrote an artifact. */
export type ArtifactFormat = 'hardhat2' | 'hardhat3' | 'foundry'

/**
 * One contract with deployed code, read from an artifact file.
 * - `deployedHex`: the deployed bytecode as the file holds it (0x optional, link placeholders possible);
 * - `links`: the deployed link references (library addresses) as byte ranges;
 * - `immutables`: the immutable references as byte ranges; undefined when the file does not hold them (Hardhat 2:
 *   look them up in the build info with buildInfoKey).
 */
export interface ArtifactRecord {
  format: ArtifactFormat
  name: string
  source?: string
  abi: readonly unknown[]
  deployedHex: string
  links: ByteRange[]
  immutables?: ByteRange[]
}

type Json = Record<string, unknown>

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

function isRange(v: unknown): v is ByteRange {
  return isObject(v) && typeof v.start === 'number' && typeof v.length === 'number'
}

/**
 * The byte ranges of solc link references `{ "<file>": { "<Library>": [{ start, length }] } }`; odd entries skipped.
 */
export function linkReferenceRanges(refs: unknown): ByteRange[] {
  const out: ByteRange[] = []
  if (!isObject(refs)) return out
  for (const libs of Object.values(refs)) {
    if (!isObject(libs)) continue
    for (const list of Object.values(libs)) if (Array.isArray(list)) out.push(...list.filter(isRange))
  }
  return out
}

/** The byte ranges of solc immutable references `{ "<AST id>": [{ start, length }] }`; odd entries skipped. */
export function immutableReferenceRanges(refs: unknown): ByteRange[] {
  const out: ByteRange[] = []
  if (!isObject(refs)) return out
  for (const list of Object.values(refs)) if (Array.isArray(list)) out.push(...list.filter(isRange))
  return out
}

/** Whether deployed bytecode text is empty (interfaces, abstract contracts): "", "0x". */
function isEmptyCode(hex: string): boolean {
  return hex === '' || hex === '0x' || hex === '0X'
}

/** The contract name and source of a Foundry artifact: its `metadata.settings.compilationTarget` (one entry). */
function foundryTarget(doc: Json): { name?: string; source?: string } {
  let metadata: unknown = doc.metadata
  if (typeof metadata === 'string') {
    try {
      metadata = JSON.parse(metadata)
    } catch {
      metadata = undefined
    }
  }
  const settings = isObject(metadata) ? metadata.settings : undefined
  const target = isObject(settings) ? settings.compilationTarget : undefined
  if (isObject(target)) {
    const entries = Object.entries(target)
    if (entries.length === 1 && typeof entries[0][1] === 'string') return { name: entries[0][1], source: entries[0][0] }
  }
  const ast = doc.ast
  return { source: isObject(ast) && typeof ast.absolutePath === 'string' ? ast.absolutePath : undefined }
}

/**
 * Reads an artifact document.
 * @param doc the parsed JSON of a file
 * @param fileName the file's base name (`Counter.json`, `Counter.0.8.19.json`): Foundry's contract name when its
 *   metadata does not tell it
 * @returns the contract, or undefined when the document is no artifact of a known shape, has no ABI array, or has
 *   empty deployed code (interfaces, abstract contracts)
 */
export function readArtifact(doc: unknown, fileName: string): ArtifactRecord | undefined {
  if (!isObject(doc) || !Array.isArray(doc.abi)) return undefined
  const abi = doc.abi as readonly unknown[]
  if (typeof doc.deployedBytecode === 'string' && typeof doc.contractName === 'string') {
    if (isEmptyCode(doc.deployedBytecode)) return undefined
    const hh3 = typeof doc._format === 'string' && doc._format.startsWith('hh3')
    return {
      format: hh3 ? 'hardhat3' : 'hardhat2',
      name: doc.contractName,
      source: typeof doc.sourceName === 'string' ? doc.sourceName : undefined,
      abi,
      deployedHex: doc.deployedBytecode,
      links: linkReferenceRanges(doc.deployedLinkReferences),
      immutables: isObject(doc.immutableReferences) ? immutableReferenceRanges(doc.immutableReferences) : undefined,
    }
  }
  const deployed = doc.deployedBytecode
  if (isObject(deployed) && typeof deployed.object === 'string') {
    if (isEmptyCode(deployed.object)) return undefined
    const target = foundryTarget(doc)
    return {
      format: 'foundry',
      name: target.name ?? fileName.split('.')[0],
      source: target.source,
      abi,
      deployedHex: deployed.object,
      links: linkReferenceRanges(deployed.linkReferences),
      immutables: isObject(deployed.immutableReferences)
        ? immutableReferenceRanges(deployed.immutableReferences)
        : undefined,
    }
  }
  return undefined
}

/**
 * The key under which a build info holds a contract's immutables: its name and a hash of its deployed bytecode text
 * (lower case, without 0x), so a stale build info never lends its ranges to a newer artifact.
 */
export function buildInfoKey(name: string, deployedHex: string): string {
  const text = (deployedHex.startsWith('0x') ? deployedHex.slice(2) : deployedHex).toLowerCase()
  return `${name}\0${createHash('sha1').update(text).digest('base64')}`
}

/**
 * The immutables of every contract in a build info with solc output (Hardhat 2 `<id>.json`, Hardhat 3
 * `<id>.output.json`, Foundry `build-info/<id>.json`): `output.contracts[source][name].evm.deployedBytecode`.
 * @returns buildInfoKey → ranges (empty when the document has no solc output)
 */
export function buildInfoImmutables(doc: unknown): Map<string, ByteRange[]> {
  const out = new Map<string, ByteRange[]>()
  const output = isObject(doc) ? doc.output : undefined
  const contracts = isObject(output) ? output.contracts : undefined
  if (!isObject(contracts)) return out
  for (const byName of Object.values(contracts)) {
    if (!isObject(byName)) continue
    for (const [name, c] of Object.entries(byName)) {
      const evm = isObject(c) ? c.evm : undefined
      const deployed = isObject(evm) ? evm.deployedBytecode : undefined
      if (!isObject(deployed) || typeof deployed.object !== 'string' || isEmptyCode(deployed.object)) continue
      out.set(buildInfoKey(name, deployed.object), immutableReferenceRanges(deployed.immutableReferences))
    }
  }
  return out
}
