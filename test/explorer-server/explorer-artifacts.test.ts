/**
 * The explorer's artifacts matcher (src/explorer-server/artifacts/): real solc output (the repository's fixture
 * sources compiled as fixtures/scripts/compile.mjs does, plus a small source with immutables, a linked library,
 * identical twins, a factory, an interface and an abstract contract) laid out as Hardhat 2, Hardhat 3 and Foundry
 * folders, matched against the code a real in-process node holds after deploying it.
 */
import { mkdtempSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Interface } from 'ethers'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as fixtures from '../../fixtures/index.js'
import { ArtifactRegistry } from '../../src/explorer-server/artifacts/artifact-registry.js'
import { metadataStart } from '../../src/explorer-server/artifacts/bytecode-shape.js'
import {
  compile,
  fixtureSources,
  writeFoundry,
  writeHardhat2,
  writeHardhat3,
  type Compiled,
} from '../helpers/artifact-layouts.js'
import { COW, rpc, startNode } from '../helpers/node.js'
import { waitUntil } from '../helpers/wait.js'
import { deploy, sendTx } from '../rpc/shapes.js'
import type { Node } from '../../src/index.js'

const EXTRA = 'contracts/Extra.sol'
const extraSource = (comment: string): string => `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
// ${comment}
library MathLib { function addOne(uint256 a) external pure returns (uint256) { return a + 1; } }
contract UsesLib { function next(uint256 a) external pure returns (uint256) { return MathLib.addOne(a); } }
contract Immut {
    uint256 public immutable limit;
    address public immutable owner;
    constructor(uint256 limit_) { limit = limit_; owner = msg.sender; }
    function check(uint256 v) external view returns (bool) { return v <= limit && msg.sender != owner; }
}
contract Factory { function make(uint256 l) external returns (address) { return address(new Immut(l)); } }
contract TwinA { uint256 public n; function bump() external { n += 1; } }
contract TwinB { uint256 public n; function bump() external { n += 1; } }
interface IThing { function thing() external; }
abstract contract Base { function f() external virtual; }
`

/** each wait of the watching test: a failure names its step before the test's own 30 s timeout */
const WAIT_MS = 8000

const bytes = (hex: string): Uint8Array => Uint8Array.from(Buffer.from(hex.replace(/^0x/, ''), 'hex'))
/** The contracts with deployed code: the 9 of the fixtures, 6 of Extra.sol (IThing and Base have none). */
const CONTRACTS = 15

let root: string
let node: Node
let fixtureBuild: Compiled
let extra: Compiled
/** Extra.sol with another comment (another ipfs hash), and with `bytecodeHash: 'none'` (a shorter metadata tail) */
let extraComment: Compiled
let extraNoHash: Compiled
/** the code on the node of each deployed contract, by the name it should match */
const onChain = new Map<string, Uint8Array>()
/** Immut deployed from the other-metadata compiles */
let immutOtherHash: Uint8Array
let immutNoHash: Uint8Array
let twinBNoHash: Uint8Array
let factoryOtherHash: Uint8Array
const layouts: Record<string, string> = {}

const code = async (address: string): Promise<Uint8Array> =>
  bytes(await rpc<string>(node.url, 'eth_getCode', [address]))
const creation = (c: Compiled, name: string): string => `0x${c.output.contracts[EXTRA][name].evm.bytecode.object}`
const word = (n: number): string => n.toString(16).padStart(64, '0')

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'explorer-artifacts-'))
  fixtureBuild = compile(fixtureSources())
  extra = compile({ [EXTRA]: extraSource('v1') })
  extraComment = compile({ [EXTRA]: extraSource('v2: another comment, another metadata hash') })
  extraNoHash = compile({ [EXTRA]: extraSource('v1') }, { metadata: { bytecodeHash: 'none' } })
  for (const [kind, write] of [
    ['hardhat2', writeHardhat2],
    ['hardhat3', writeHardhat3],
    ['foundry', writeFoundry],
  ] as const) {
    const dir = join(root, kind)
    write(dir, fixtureBuild, 'fixtures-build')
    write(dir, extra, 'extra-build')
    layouts[kind] = dir
  }

  node = await startNode()
  const url = node.url
  const probe = await deploy(url, fixtures.Probe.bytecode)
  onChain.set('Probe', await code(probe.address))
  const probeAbi = new Interface(fixtures.Probe.abi)
  const made = await sendTx(url, {
    from: COW.address,
    to: probe.address,
    data: probeAbi.encodeFunctionData('deploy', [7n]),
    gas: '0x500000',
  })
  const child = probeAbi.parseLog(made.logs[made.logs.length - 1])?.args.child as string
  onChain.set('ProbeChild', await code(child))
  onChain.set('OtsTarget', await code((await deploy(url, fixtures.OtsTarget.bytecode)).address))

  const lib = await deploy(url, creation(extra, 'MathLib'))
  onChain.set('MathLib', await code(lib.address))
  const linked = creation(extra, 'UsesLib').replace(/__\$[0-9a-f]{34}\$__/g, lib.address.slice(2).toLowerCase())
  onChain.set('UsesLib', await code((await deploy(url, linked)).address))
  onChain.set('Immut', await code((await deploy(url, creation(extra, 'Immut') + word(99))).address))
  const factory = await deploy(url, creation(extra, 'Factory'))
  onChain.set('Factory', await code(factory.address))
  const makeAbi = new Interface(['function make(uint256) returns (address)'])
  const data = makeAbi.encodeFunctionData('make', [5n])
  const madeAddress = makeAbi.decodeFunctionResult(
    'make',
    await rpc<string>(url, 'eth_call', [{ to: factory.address, data }, 'latest']),
  )[0] as string
  await sendTx(url, { from: COW.address, to: factory.address, data, gas: '0x500000' })
  onChain.set('Immut (made by Factory)', await code(madeAddress))
  onChain.set('TwinA', await code((await deploy(url, creation(extra, 'TwinA'))).address))
  onChain.set('TwinB', await code((await deploy(url, creation(extra, 'TwinB'))).address))
  immutOtherHash = await code((await deploy(url, creation(extraComment, 'Immut') + word(1))).address)
  immutNoHash = await code((await deploy(url, creation(extraNoHash, 'Immut') + word(2))).address)
  twinBNoHash = await code((await deploy(url, creation(extraNoHash, 'TwinB'))).address)
  factoryOtherHash = await code((await deploy(url, creation(extraComment, 'Factory'))).address)
}, 180_000)

afterAll(async () => {
  await node?.close()
  if (root) rmSync(root, { recursive: true, force: true })
})

describe('compiled output (sanity of the inputs)', () => {
  it('the test compile reproduces the fixtures, ProbeChild and Immut carry immutables, UsesLib a link', () => {
    for (const c of Object.values(fixtures)) {
      const source = Object.keys(fixtureBuild.output.contracts).find(
        (s) => fixtureBuild.output.contracts[s][c.contractName],
      )
      expect(`0x${fixtureBuild.output.contracts[source!][c.contractName].evm.deployedBytecode.object}`).toBe(
        c.deployedBytecode,
      )
    }
    expect(
      Object.keys(
        fixtureBuild.output.contracts['Probe.sol'].ProbeChild.evm.deployedBytecode.immutableReferences as object,
      ),
    ).toHaveLength(2)
    expect(
      Object.keys(extra.output.contracts[EXTRA].Immut.evm.deployedBytecode.immutableReferences as object),
    ).toHaveLength(2)
    expect(extra.output.contracts[EXTRA].UsesLib.evm.deployedBytecode.object).toContain('__$')
    // the other compiles differ from the first only in the metadata tail
    const a = bytes(extra.output.contracts[EXTRA].Immut.evm.deployedBytecode.object)
    const b = bytes(extraNoHash.output.contracts[EXTRA].Immut.evm.deployedBytecode.object)
    expect(b.length).toBeLessThan(a.length)
    expect(Buffer.from(a.subarray(0, metadataStart(a))).equals(Buffer.from(b.subarray(0, metadataStart(b))))).toBe(true)
  })
})

describe.each(['hardhat2', 'hardhat3', 'foundry'] as const)('%s layout', (kind) => {
  let registry: ArtifactRegistry
  beforeAll(async () => {
    registry = await ArtifactRegistry.open([layouts[kind]])
  })
  afterAll(() => registry?.close())

  it('reads every contract with deployed code (interfaces and abstract contracts skipped) and names the layout', () => {
    expect(registry.size).toBe(CONTRACTS)
    expect(registry.folderSummaries()).toEqual([
      { dir: layouts[kind], layout: kind, contracts: CONTRACTS, skipped: [], exists: true },
    ])
  })

  it('names code deployed on a node: constructor-set immutables, CREATE2 child, linked library, library, factory', () => {
    const names: Record<string, string> = {}
    for (const [expected, runtime] of onChain) names[expected] = registry.match(runtime)?.name ?? '(none)'
    expect(names).toEqual({
      Probe: 'Probe',
      ProbeChild: 'ProbeChild',
      OtsTarget: 'OtsTarget',
      MathLib: 'MathLib',
      UsesLib: 'UsesLib',
      Immut: 'Immut',
      Factory: 'Factory',
      'Immut (made by Factory)': 'Immut',
      TwinA: 'TwinA',
      TwinB: 'TwinB',
    })
  })

  it('answers the name, the source unit and the ABI', () => {
    expect(registry.match(onChain.get('Probe')!)).toEqual({
      name: 'Probe',
      source: 'Probe.sol',
      abi: fixtures.Probe.abi,
    })
    const immut = registry.match(onChain.get('Immut')!)
    expect(immut).toEqual({ name: 'Immut', source: EXTRA, abi: extra.output.contracts[EXTRA].Immut.abi })
  })

  it("matches every fixture's deployed bytecode as the fixture JSON holds it", () => {
    for (const c of Object.values(fixtures))
      expect(registry.match(bytes(c.deployedBytecode))?.name).toBe(c.contractName)
  })

  it('matches the same contract compiled with another metadata hash (or none): the tail is not compared', () => {
    expect(registry.match(immutOtherHash)?.name).toBe('Immut')
    expect(registry.match(immutNoHash)?.name).toBe('Immut')
    // a factory embeds the creation code of what it makes, with that contract's metadata hash: masked too
    expect(Buffer.from(factoryOtherHash).equals(Buffer.from(onChain.get('Factory')!))).toBe(false)
    expect(registry.match(factoryOtherHash)?.name).toBe('Factory')
    // identical twins are told apart by their metadata tail only; without it the first by source then name wins
    expect(registry.match(twinBNoHash)?.name).toBe('TwinA')
  })

  it('answers undefined for code no artifact holds, and for empty code', () => {
    const changed = Uint8Array.from(onChain.get('Probe')!)
    changed[200] ^= 0xff
    expect(registry.match(changed)).toBeUndefined()
    expect(registry.match(new Uint8Array())).toBeUndefined()
    expect(registry.match(bytes('5b600056'))).toBeUndefined()
    // the same code one byte longer (before the tail) is another contract
    const probe = onChain.get('Probe')!
    const start = metadataStart(probe)
    const longer = new Uint8Array(probe.length + 1)
    longer.set(probe.subarray(0, start))
    longer.set(probe.subarray(start), start + 1)
    expect(registry.match(longer)).toBeUndefined()
  })
})

describe('folders', () => {
  it('a missing folder is a clear error at open', async () => {
    await expect(ArtifactRegistry.open([join(root, 'nope')])).rejects.toThrow(/artifacts folder not found: .*nope/)
  })

  it('a malformed or half-written JSON file is skipped, the rest is read', async () => {
    const dir = writeFoundry(join(root, 'malformed'), extra)
    writeFileSync(join(dir, 'Extra.sol', 'Broken.json'), '{"abi": [')
    writeFileSync(
      join(dir, 'Extra.sol', 'NotHex.json'),
      JSON.stringify({ abi: [], deployedBytecode: { object: '0xzz' } }),
    )
    writeFileSync(join(dir, 'Extra.sol', 'Other.json'), JSON.stringify({ hello: 'world' }))
    const registry = await ArtifactRegistry.open([dir])
    expect(registry.size).toBe(6)
    expect(registry.folderSummaries()[0].skipped).toEqual(['Extra.sol/Broken.json', 'Extra.sol/NotHex.json'])
    expect(registry.match(onChain.get('Immut')!)?.name).toBe('Immut')
  })

  it('a project root reads as its artifacts/ (Hardhat) or out/ (Foundry)', async () => {
    const hh = join(root, 'hh-project')
    writeHardhat3(join(hh, 'artifacts'), extra)
    writeFileSync(join(hh, 'hardhat.config.ts'), 'export default {}\n')
    const forge = join(root, 'forge-project')
    writeFoundry(join(forge, 'out'), extra)
    writeFileSync(join(forge, 'foundry.toml'), '[profile.default]\n')
    const registry = await ArtifactRegistry.open([hh, forge])
    expect(registry.folderSummaries().map((s) => [s.dir, s.layout])).toEqual([
      [join(hh, 'artifacts'), 'hardhat3'],
      [join(forge, 'out'), 'foundry'],
    ])
    expect(registry.match(onChain.get('UsesLib')!)?.name).toBe('UsesLib')
  })

  it('the same code in two folders: the earlier folder given wins', async () => {
    const a = writeFoundry(join(root, 'first'), extra)
    const b = join(root, 'second')
    writeFoundry(b, extra)
    const copy = JSON.parse(readFileSync(join(b, 'Extra.sol', 'Immut.json'), 'utf8'))
    copy.metadata.settings.compilationTarget = { [EXTRA]: 'ImmutCopy' }
    writeFileSync(join(b, 'Extra.sol', 'Immut.json'), JSON.stringify(copy))
    const ab = await ArtifactRegistry.open([a, b])
    const ba = await ArtifactRegistry.open([b, a])
    expect(ab.match(onChain.get('Immut')!)?.name).toBe('Immut')
    expect(ba.match(onChain.get('Immut')!)?.name).toBe('ImmutCopy')
  })

  it('watching: a new artifact, a half-written one, a removed one and a removed then rebuilt folder are re-read', async () => {
    const dir = join(root, 'watched')
    writeFoundry(dir, fixtureBuild)
    const registry = await ArtifactRegistry.open([dir], { watch: true, debounceMs: 50 })
    try {
      const immut = onChain.get('Immut')!
      expect(registry.match(immut)).toBeUndefined()
      expect(registry.match(onChain.get('Probe')!)?.name).toBe('Probe')
      const full = JSON.stringify({
        abi: extra.output.contracts[EXTRA].Immut.abi,
        deployedBytecode: {
          object: `0x${extra.output.contracts[EXTRA].Immut.evm.deployedBytecode.object}`,
          immutableReferences: extra.output.contracts[EXTRA].Immut.evm.deployedBytecode.immutableReferences,
          linkReferences: {},
        },
        metadata: JSON.parse(extra.output.contracts[EXTRA].Immut.metadata),
      })
      // half-written: skipped, then picked up once complete
      mkdirSync(join(dir, 'Extra.sol'))
      writeFileSync(join(dir, 'Extra.sol', 'Immut.json'), full.slice(0, 100))
      await waitUntil(
        () => registry.folderSummaries()[0].skipped.includes('Extra.sol/Immut.json'),
        'the half file',
        WAIT_MS,
      )
      expect(registry.match(immut)).toBeUndefined()
      writeFileSync(join(dir, 'Extra.sol', 'Immut.json'), full)
      await waitUntil(() => registry.match(immut)?.name === 'Immut', 'the new artifact', WAIT_MS)
      expect(registry.size).toBe(10)
      rmSync(join(dir, 'Extra.sol'), { recursive: true })
      await waitUntil(() => registry.match(immut) === undefined, 'the removal', WAIT_MS)
      // `forge clean` then a build: the folder goes away and comes back
      rmSync(dir, { recursive: true })
      await waitUntil(() => registry.size === 0 && !registry.folderSummaries()[0].exists, 'the folder removal', WAIT_MS)
      const staging = writeFoundry(join(root, 'staging'), extra)
      renameSync(staging, dir)
      await waitUntil(() => registry.match(immut)?.name === 'Immut', 'the rebuilt folder', WAIT_MS)
      expect(registry.folderSummaries()[0]).toMatchObject({ layout: 'foundry', contracts: 6, exists: true })
      // removed and made again at once (`forge build --force`): the new folder is watched, not the gone one
      rmSync(dir, { recursive: true })
      writeFoundry(dir, extra)
      await waitUntil(() => registry.folderSummaries()[0].contracts === 6, 'the remade folder read', WAIT_MS)
      const otsTarget = onChain.get('OtsTarget')!
      expect(registry.match(otsTarget)).toBeUndefined()
      await new Promise((r) => setTimeout(r, 300)) // past the read of the remade folder
      writeFoundry(join(root, 'staging2'), fixtureBuild)
      renameSync(join(root, 'staging2', 'OtsProbe.sol'), join(dir, 'OtsProbe.sol'))
      await waitUntil(
        () => registry.match(otsTarget)?.name === 'OtsTarget',
        'a file added to the remade folder',
        WAIT_MS,
      )
    } finally {
      registry.close()
    }
    // closed: changes are not read any more
    const reloads = registry.reloadCount
    rmSync(dir, { recursive: true })
    await new Promise((r) => setTimeout(r, 300))
    expect(registry.reloadCount).toBe(reloads)
    expect(registry.match(onChain.get('Immut')!)?.name).toBe('Immut')
  })
})

describe('metadata tail (bytecode-shape.ts metadataStart)', () => {
  it('strips a plausible CBOR tail only', () => {
    const probe = onChain.get('Probe')!
    // solc's default tail: a2 64 "ipfs" … 64 "solc" … 00 33 (51 bytes of CBOR + 2 of length)
    expect(metadataStart(probe)).toBe(probe.length - 53)
    expect(metadataStart(bytes('5b600056'))).toBe(4)
    expect(metadataStart(bytes('6001600055'))).toBe(5)
    // a length pointing at something that is no CBOR map with a text key
    expect(metadataStart(bytes('600160005560010003'))).toBe(9)
    expect(metadataStart(bytes('a1600000'))).toBe(4) // too short a length
    expect(metadataStart(bytes('00a1646e616d650006'))).toBe(1) // a1 64 "name" 00 …: plausible
  })
})
