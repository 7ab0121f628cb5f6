/**
 * The node's `runInterpreter` (src/execution/ethereumjs/interpreter-entry.ts): programs that use memory — inside
 * the first container, past it, past a slab piece, reads past anything written, copies, returns — give the same
 * gas, return data, error, memory size and stack on the node's EVM as on a plain @ethereumjs EVM with the same
 * Common (stock `runInterpreter`, stock 8 KB memory, stock loop); the entry is an own property of the node's EVMs
 * only; its guard fails loudly on an interpreter of another shape; a result's `runState` is what the stock one
 * merges.
 */
import { createEVM, type EVM, type ExecResult } from '@ethereumjs/evm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createChainCommon } from '../../src/execution/common.js'
import type { Executor } from '../../src/execution/executor.js'
import { emptyExecutor } from './empty-executor.js'
import { EthereumjsShapeError } from '../../src/execution/ethereumjs/index.js'
import { captureEntryParts, FIRST_MEMORY_BYTES } from '../../src/execution/ethereumjs/interpreter-entry.js'

const hex = (s: string): Uint8Array => Uint8Array.from(Buffer.from(s.replace(/\s+/g, ''), 'hex'))

/** PUSH2 of a number (big-endian). */
const push2 = (n: number): string => '61' + n.toString(16).padStart(4, '0')

const first = FIRST_MEMORY_BYTES
/** Programs by what they do to memory (offsets around the first container, a slab piece, 8 KB). */
const PROGRAMS: Record<string, string> = {
  'one word at 0, returned': '60 2a 5f 52 60 20 5f f3',
  'a word straddling the first container': `60 07 ${push2(first - 16)} 52 60 40 ${push2(first - 32)} f3`,
  'MSTORE8 just past the first container, MSIZE': `60 ff ${push2(first)} 53 59 5f 52 60 20 5f f3`,
  'a read far past anything written (MLOAD at 20 000)': `${push2(20_000)} 51 59 01 5f 52 60 20 5f f3`,
  'KECCAK256 over 5 000 zero bytes': `${push2(5000)} 5f 20 5f 52 60 20 5f f3`,
  'CALLDATACOPY and CODECOPY past a slab piece': `60 40 5f ${push2(4090)} 37 60 20 5f ${push2(9000)} 39 59 5f 52 60 20 5f f3`,
  'MCOPY across the first container': `60 09 5f 52 60 20 5f ${push2(first + 100)} 5e ${push2(first + 100)} 51 5f 52 60 20 5f f3`,
  'RETURN of 10 000 bytes': `60 01 ${push2(9990)} 52 ${push2(10_000)} 5f f3`,
  'REVERT with data past the first container': `60 2a ${push2(first + 64)} 52 60 20 ${push2(first + 64)} fd`,
  'memory growth, then out of gas': `5b 59 60 20 01 51 50 60 00 56`,
}

let executor: Executor
let plain: EVM

beforeAll(async () => {
  executor = await emptyExecutor()
  plain = await createEVM({ common: createChainCommon(33) })
})
afterAll(() => undefined)

async function run(evm: EVM, code: Uint8Array): Promise<ExecResult> {
  await evm.stateManager.checkpoint()
  try {
    return await evm.runCode({ code, gasLimit: 300_000n, data: hex('11'.repeat(100)) })
  } finally {
    await evm.stateManager.revert()
  }
}

const summary = (r: ExecResult) => ({
  gas: r.executionGasUsed,
  error: r.exceptionError?.error,
  ret: Buffer.from(r.returnValue).toString('hex'),
  stack: r.runState?.stack.getStack().map(String),
  memoryWords: r.runState?.memoryWordCount,
  pc: r.runState?.programCounter,
})

describe('the node runInterpreter', () => {
  for (const [name, code] of Object.entries(PROGRAMS)) {
    it(`${name}: same outcome as a plain EVM`, async () => {
      const bytes = hex(code)
      const node = summary(await run(executor.vm.evm as EVM, bytes))
      expect(node).toEqual(summary(await run(plain, bytes)))
      if (!/REVERT|out of gas/.test(name)) expect(node.error).toBeUndefined()
    })
  }

  it('is an own property of the node EVM only, and runs with a small memory container', async () => {
    expect(Object.prototype.hasOwnProperty.call(executor.vm.evm, 'runInterpreter')).toBe(true)
    expect(Object.prototype.hasOwnProperty.call(plain, 'runInterpreter')).toBe(false)
    const r = await run(executor.vm.evm as EVM, hex('60 2a 5f 52 60 20 5f f3'))
    const memory = (r.runState as unknown as { memory: { _store: Uint8Array } }).memory
    expect(memory._store.length).toBe(first)
    const stock = await run(plain, hex('60 2a 5f 52 60 20 5f f3'))
    expect((stock.runState as unknown as { memory: { _store: Uint8Array } }).memory._store.length).toBe(8192)
  })

  it("a result's runState holds the run state, the result and the environment, as the stock one", async () => {
    const code = hex('60 2a 5f 52 60 20 5f f3')
    const keys = (r: ExecResult) => Object.keys(r.runState!).sort()
    const node = await run(executor.vm.evm as EVM, code)
    const stock = await run(plain, code)
    expect(keys(node)).toEqual(keys(stock))
    expect(node.runState!.gasLeft).toBe(stock.runState!.gasLeft)
    const rs = node.runState as unknown as { returnValue: Uint8Array; interpreter: unknown; code: Uint8Array }
    expect(Buffer.from(rs.returnValue).toString('hex')).toBe(Buffer.from(node.returnValue).toString('hex'))
    expect(rs.code).toEqual(code)
    expect(node.runState).toBe(node.runState) // built once
  })

  it('its guard refuses an interpreter of another shape', async () => {
    const r = await run(plain, hex('00'))
    const real = (r.runState as unknown as { interpreter: Record<string, unknown> }).interpreter
    expect(() => captureEntryParts(real, plain)).not.toThrow()
    const renamed = Object.assign(Object.create(Object.getPrototypeOf(real) as object) as object, real, {
      extraField: 1,
    })
    expect(() => captureEntryParts(renamed, plain)).toThrow(EthereumjsShapeError)
    const rs = real._runState as Record<string, unknown>
    const noStore = { ...real, _runState: { ...rs, memory: { other: new Uint8Array(8) } } }
    Object.setPrototypeOf(noStore, Object.getPrototypeOf(real) as object)
    expect(() => captureEntryParts(noStore, plain)).toThrow(EthereumjsShapeError)
  })
})
