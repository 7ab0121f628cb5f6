/**
 * The synchronous opcode loop (src/execution/ethereumjs/interpreter-loop.ts) against @ethereumjs's stock loop: the same
 * programs run once through each (a `step` listener makes the patched `run` hand over to the stock one) must
 * give the same gas, return data, error, program counter and memory/stack effects.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Executor } from '../../src/execution/executor.js'
import { emptyExecutor } from './empty-executor.js'
import { Token } from '../../fixtures/index.js'

let executor: Executor

beforeAll(async () => {
  executor = await emptyExecutor()
})
afterAll(() => undefined)

const hex = (s: string): Uint8Array => Uint8Array.from(Buffer.from(s.replace(/\s+/g, ''), 'hex'))

/** Programs covering the loop's paths: sync/dynamic/async opcodes, jumps before/after the analysis, halts. */
const PROGRAMS: Record<string, string> = {
  'arithmetic and RETURN': '60 02 60 03 01 60 05 02 5f 52 60 20 5f f3',
  'loop with JUMPI (analysis at the first jump)': '60 0a 5b 80 15 60 0f 57 60 01 90 03 60 02 56 5b 5f 52 60 20 5f f3',
  'STOP ends without an error': '60 01 00 60 02',
  'invalid opcode': '60 01 fe',
  'undefined opcode': '60 01 0c',
  'JUMP to a non-JUMPDEST': '60 03 56 00',
  'out of gas in a loop': '5b 5f 56',
  'REVERT with data': '60 2a 5f 52 60 20 5f fd',
  'stack underflow': '01',
  'SLOAD/SSTORE (async and dynamic gas)': '60 07 60 01 55 60 01 54 5f 52 60 20 5f f3',
  'KECCAK256 and memory growth': '60 20 61 01 00 20 5f 52 60 20 5f f3',
  'CHAINID, SELFBALANCE, BASEFEE (custom opcodes)': '46 47 48 01 01 5f 52 60 20 5f f3',
  'runs off the end of the code': '60 01 60 02',
  'PUSH running past the end': '61 01',
  'Token runtime without calldata (reverts)': Token.deployedBytecode?.slice(2) ?? '',
}

type RunResult = Awaited<ReturnType<Executor['vm']['evm']['runCode']>>

async function run(code: Uint8Array, stock: boolean, gasLimit = 200_000n): Promise<RunResult> {
  const evm = executor.vm.evm
  const listener = () => {}
  if (stock) evm.events!.on('step', listener)
  try {
    await executor.vm.stateManager.checkpoint()
    const r = await evm.runCode({ code, gasLimit })
    await executor.vm.stateManager.revert()
    return r
  } finally {
    if (stock) evm.events!.off('step', listener)
  }
}

const summary = (r: RunResult) => ({
  gas: r.executionGasUsed,
  gasLeft: r.runState?.gasLeft,
  pc: r.runState?.programCounter,
  error: r.exceptionError?.error,
  ret: Buffer.from(r.returnValue).toString('hex'),
  stack: r.runState?.stack.getStack().map(String),
  memoryWords: r.runState?.memoryWordCount,
})

describe('interpreter loop', () => {
  for (const [name, code] of Object.entries(PROGRAMS)) {
    it(`${name}: same outcome as the stock loop`, async () => {
      if (code === '') return
      const bytes = hex(code)
      const fast = summary(await run(bytes, false))
      const stock = summary(await run(bytes, true))
      expect(fast).toEqual(stock)
      if (/RETURN|STOP|custom|memory|SSTORE|JUMPI/.test(name)) expect(fast.error).toBeUndefined()
    })
  }

  it('the patched loop is the one in use (no step listener: no async frame per opcode)', async () => {
    // a 2 000-iteration loop: the stock loop allocates two promises per opcode, the patched one none for these
    const loop = hex('61 07 d0 5b 80 15 60 10 57 60 01 90 03 60 03 56 5b 00')
    const fast = await run(loop, false, 1_000_000n)
    const stock = await run(loop, true, 1_000_000n)
    expect(summary(fast)).toEqual(summary(stock))
    expect(fast.exceptionError).toBeUndefined()
    const proto = Object.getPrototypeOf((fast.runState as unknown as { interpreter: object }).interpreter) as {
      run: { toString(): string }
    }
    expect(proto.run.toString()).toContain('stockRunStep')
  })
})
