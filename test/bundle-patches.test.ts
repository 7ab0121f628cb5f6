/**
 * The dependency patches (patches/, docs/dependency-patches.md) leave execution as it was: the CLI (its bundle),
 * the library bundle (dist/index.js) and the library built on the UNPATCHED dependencies (the patches
 * reverse-applied to copies: test/helpers/unpatched-library.ts) run the same transactions and calls and must
 * agree on every return value, receipt and struct-log step (stack, memory, storage), and on precompile answers
 * (BN254, P-256, BLS12-381: the curves the patches load on first use). The ERC-20 runs write words of 1 to 32
 * significant bytes to memory and storage, so the padding of `setLengthLeft` (MSTORE, storage keys and values)
 * is exercised at every length.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Interface } from 'ethers'
import { Token } from '../fixtures/index.js'
import type { Node } from '../src/index.js'
import { killStartedClis, runCli } from './helpers/cli.js'
import { COW, rpc, rpcRaw } from './helpers/node.js'
import { buildUnpatchedLibrary, type UnpatchedLibrary } from './helpers/unpatched-library.js'

const token = new Interface(Token.abi)
let cliUrl: string
let libBundle: Node
let unpatched: UnpatchedLibrary
let lib: Node

beforeAll(async () => {
  cliUrl = (await runCli(['--port', '0']).waitFor(/http:\/\/127\.0\.0\.1:\d+/))[0]
  const bundled = (await import(new URL('../dist/index.js', import.meta.url).href)) as typeof import('../src/index.js')
  libBundle = await bundled.createNode({ port: 0 })
  unpatched = await buildUnpatchedLibrary()
  lib = await unpatched.createNode({ port: 0 })
}, 60_000)

afterAll(async () => {
  killStartedClis()
  await libBundle?.close()
  await lib?.close()
  unpatched?.dispose()
})

/** G1 generator (1, 2) of BN254, as a 64-byte precompile input word pair. */
const BN254_G1 = '0'.repeat(63) + '1' + '0'.repeat(63) + '2'

/**
 * Precompile calls whose back-ends the patches load on first use: BN254 add (0x06) and mul (0x07) of the
 * generator, an empty pairing (0x08), P-256 verify (0x100) and BLS12-381 G1 add (0x0b) of two points at infinity.
 * Where a precompile is not active on the network the call answers as a plain account; whatever each answers,
 * the three must answer the same (the response bodies without their ids).
 */
async function precompileCalls(url: string): Promise<unknown[]> {
  const calls: [string, string][] = [
    ['0x0000000000000000000000000000000000000006', '0x' + BN254_G1 + BN254_G1],
    ['0x0000000000000000000000000000000000000007', '0x' + BN254_G1 + '0'.repeat(63) + '3'],
    ['0x0000000000000000000000000000000000000008', '0x'],
    ['0x0000000000000000000000000000000000000100', '0x' + '11'.repeat(160)],
    ['0x000000000000000000000000000000000000000b', '0x' + '00'.repeat(256)],
  ]
  const out: unknown[] = []
  for (const [to, data] of calls) {
    const { body } = await rpcRaw(url, 'eth_call', [{ to, data, gas: '0x100000' }, 'latest'])
    out.push({ to, result: body.result, error: body.error })
  }
  return out
}

/** Amounts whose words have 1, 2, 9, 17, 31 and 32 significant bytes. */
const AMOUNTS = [0x7fn, 0x1234n, 1n << 70n, (1n << 135n) + 5n, (1n << 247n) - 3n, (1n << 255n) + 1n]

/**
 * Deploys Token with a supply of 2^256 − 1, sends one transfer per amount to a new holder, and collects what the
 * node answers: each receipt's status, gas and logs, balanceOf each holder by eth_call, and the struct logs of
 * every transfer (opcode, pc, gas, stack, memory and storage at each step).
 */
async function exercise(url: string): Promise<unknown[]> {
  const seen: unknown[] = []
  const supply = (1n << 256n) - 1n
  const deploy = await rpc<string>(url, 'eth_sendTransaction', [
    { from: COW.address, data: Token.bytecode + token.encodeDeploy(['T', 'T', supply]).slice(2), gas: '0x2dc6c0' },
  ])
  const address = (await rpc(url, 'eth_getTransactionReceipt', [deploy])).contractAddress as string
  for (const [i, amount] of AMOUNTS.entries()) {
    const holder = '0x' + (0xd0000000 + i).toString(16).padStart(40, '0')
    const hash = await rpc<string>(url, 'eth_sendTransaction', [
      { from: COW.address, to: address, data: token.encodeFunctionData('transfer', [holder, amount]), gas: '0x30000' },
    ])
    const r = await rpc(url, 'eth_getTransactionReceipt', [hash])
    seen.push({ status: r.status, gasUsed: r.gasUsed, logs: r.logs.map((l: any) => [l.topics, l.data]) })
    const balance = await rpc(url, 'eth_call', [
      { to: address, data: token.encodeFunctionData('balanceOf', [holder]) },
      'latest',
    ])
    seen.push(balance)
    expect(BigInt(balance)).toBe(amount)
    const trace = await rpc(url, 'debug_traceTransaction', [hash, { enableMemory: true }])
    seen.push(trace.structLogs.map((s: any) => [s.op, s.pc, s.gas, s.stack, s.memory, s.storage]))
  }
  return seen
}

describe('bundle patches', () => {
  it('the CLI bundle and the library bundle execute exactly as the unpatched dependencies', async () => {
    const [fromCli, fromBundle, fromLib] = await Promise.all([
      exercise(cliUrl),
      exercise(libBundle.url),
      exercise(lib.url),
    ])
    expect(fromCli).toHaveLength(AMOUNTS.length * 3)
    // the traces are not empty and hold padded memory words (MSTORE of short values)
    const steps = fromLib[2] as unknown[][]
    expect(steps.some((s) => s[0] === 'MSTORE')).toBe(true)
    expect(fromCli).toEqual(fromLib)
    expect(fromBundle).toEqual(fromLib)
  })

  it('the precompiles whose curves are loaded on first use answer as unpatched', async () => {
    const [fromCli, fromBundle, fromLib] = await Promise.all([
      precompileCalls(cliUrl),
      precompileCalls(libBundle.url),
      precompileCalls(lib.url),
    ])
    // the BN254 addition of the generator to itself is 2G, a non-zero point: the curve was built and used
    expect((fromLib[0] as { result?: string }).result).toMatch(/^0x[0-9a-f]{128}$/)
    expect((fromLib[0] as { result?: string }).result).not.toBe('0x' + '0'.repeat(128))
    expect(fromCli).toEqual(fromLib)
    expect(fromBundle).toEqual(fromLib)
  })
})
