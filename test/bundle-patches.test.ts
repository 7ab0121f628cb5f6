/**
 * The bundle's dependency patches (docs/architecture.md#bundle-patches) leave execution as it was: the CLI, which
 * runs the patched bundle, and the library (`createNode`, the unpatched dependencies) run the same transactions
 * and calls and must agree on every return value, receipt and struct-log step (stack, memory, storage). The
 * ERC-20 runs write words of 1 to 32 significant bytes to memory and storage, so the padding of
 * `setLengthLeft` (MSTORE, storage keys and values) is exercised at every length.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Interface } from 'ethers'
import { Token } from '../fixtures/index.js'
import type { Node } from '../src/index.js'
import { killStartedClis, runCli } from './helpers/cli.js'
import { COW, rpc, startNode } from './helpers/node.js'

const token = new Interface(Token.abi)
let cliUrl: string
let lib: Node

beforeAll(async () => {
  cliUrl = (await runCli(['--port', '0']).waitFor(/http:\/\/127\.0\.0\.1:\d+/))[0]
  lib = await startNode()
})

afterAll(async () => {
  killStartedClis()
  await lib?.close()
})

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
  it('the patched bundle (CLI) executes exactly as the unpatched dependencies (library)', async () => {
    const [fromCli, fromLib] = await Promise.all([exercise(cliUrl), exercise(lib.url)])
    expect(fromCli).toHaveLength(AMOUNTS.length * 3)
    // the traces are not empty and hold padded memory words (MSTORE of short values)
    const steps = fromLib[2] as unknown[][]
    expect(steps.some((s) => s[0] === 'MSTORE')).toBe(true)
    expect(fromCli).toEqual(fromLib)
  })
})
