/**
 * The fence around @ethereumjs internals (src/execution/ethereumjs/, docs/architecture.md#dependency-patches):
 * - the versions the reaches were checked against are the installed ones (an upgrade fails here first);
 * - each reach still does what it relies on, against the stock @ethereumjs behaviour it replaces or mirrors;
 * - each guard fails loudly on a changed shape;
 * - the patches stay on the node's own objects: a plain @ethereumjs EVM in the same process as a node runs
 *   exactly as before the node started, and two nodes' executions do not see each other's observers.
 */
import { readFileSync } from 'node:fs'
import { createBlock } from '@ethereumjs/block'
import { createEVM, type EVM, type ExecResult } from '@ethereumjs/evm'
import { createLegacyTx, LegacyTx } from '@ethereumjs/tx'
import { Account, createAddressFromString } from '@ethereumjs/util'
import { runTx } from '@ethereumjs/vm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { keccak256 } from '../../src/crypto/keccak.js'
import { createChainCommon } from '../../src/execution/common.js'
import { Executor } from '../../src/execution/executor.js'
import {
  applyReferenceStateRules,
  checkBlockShape,
  deriveBlock,
  EthereumjsShapeError,
  freezeParams,
  halt,
  isAdopted,
  memoryGas,
  pinKnownParts,
  runTxFromAnySender,
  VERIFIED_ETHEREUMJS_VERSION,
  type EvmRunState,
} from '../../src/execution/ethereumjs/index.js'
import { checkInterpreterShape } from '../../src/execution/ethereumjs/interpreter.js'
import { checkJournalShape } from '../../src/execution/ethereumjs/account-rules.js'
import { checkTransactionShape } from '../../src/execution/ethereumjs/transactions.js'
import type { Node } from '../../src/index.js'
import { internals, rpc, startNode } from '../helpers/node.js'

const hex = (s: string): Uint8Array => Uint8Array.from(Buffer.from(s.replace(/\s+/g, ''), 'hex'))

/** Programs for the plain EVM: static opcodes, a loop with JUMPI (jump analysis), memory growth, a revert. */
const PROGRAMS = [
  '60 01 60 02 01 5f 52 60 20 5f f3',
  '60 0a 5b 80 15 60 0f 57 60 01 90 03 60 02 56 5b 5f 52 60 20 5f f3',
  '60 20 61 01 00 20 5f 52 60 20 5f f3',
  '60 2a 5f 52 60 20 5f fd',
  '5b 5f 56',
]

/** What a run shows of itself, plus how often the interpreter's runStep was entered. */
type Outcome = { gas: bigint; error?: string; ret: string; pc?: number; stack?: string[]; steps: number }

interface InterpreterProto {
  runStep: (...args: unknown[]) => Promise<void>
}

/** The Interpreter prototype, reached the way the fence reaches it (a run's runState.interpreter). */
async function interpreterProto(evm: EVM): Promise<InterpreterProto> {
  const r = await evm.runCode({ code: Uint8Array.of(0x00), gasLimit: 100n })
  return Object.getPrototypeOf((r.runState as unknown as { interpreter: object }).interpreter) as InterpreterProto
}

/** Runs `code` on `evm`, counting entries into the prototype's runStep (the stock loop calls it per opcode). */
async function runCounting(evm: EVM, code: Uint8Array): Promise<Outcome> {
  const proto = await interpreterProto(evm)
  const stock = proto.runStep
  let steps = 0
  proto.runStep = function (this: unknown, ...args: unknown[]) {
    steps++
    return stock.apply(this, args)
  }
  try {
    const r: ExecResult = await evm.runCode({ code, gasLimit: 100_000n })
    return {
      gas: r.executionGasUsed,
      error: r.exceptionError?.error,
      ret: Buffer.from(r.returnValue).toString('hex'),
      pc: r.runState?.programCounter,
      stack: r.runState?.stack.getStack().map(String),
      steps,
    }
  } finally {
    proto.runStep = stock
  }
}

let node: Node
let plain: EVM
/** The node's chain (its executor holds the VM). */
const chain = () => internals(node).chain
/** The node's live EVM (the VM types it as the EVMInterface; it is an EVM). */
const nodeEvm = (): EVM => chain().executor.vm.evm as EVM
/** The plain EVM's outcomes before any node existed in this process. */
const before: Outcome[] = []

beforeAll(async () => {
  plain = await createEVM()
  for (const p of PROGRAMS) before.push(await runCounting(plain, hex(p)))
  node = await startNode()
})
afterAll(async () => {
  await node?.close()
})

describe('@ethereumjs versions', () => {
  it('every pinned @ethereumjs package is the version the reaches were checked against', () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { dependencies: Record<string, string> }
    const names = Object.keys(pkg.dependencies).filter(
      (n) => n.startsWith('@ethereumjs/') && n !== '@ethereumjs/wallet',
    )
    expect(names.length).toBeGreaterThanOrEqual(9)
    for (const name of names) {
      expect(pkg.dependencies[name], name).toBe(VERIFIED_ETHEREUMJS_VERSION)
      const installed = JSON.parse(readFileSync(`node_modules/${name}/package.json`, 'utf8')) as { version: string }
      expect(installed.version, name).toBe(VERIFIED_ETHEREUMJS_VERSION)
    }
  })
})

describe('patches stay on the node', () => {
  it('a plain EVM in the same process as a node runs exactly as before the node started (stock loop)', async () => {
    for (let i = 0; i < PROGRAMS.length; i++) {
      const after = await runCounting(plain, hex(PROGRAMS[i]!))
      expect(after, PROGRAMS[i]).toEqual(before[i])
      expect(after.steps).toBeGreaterThan(0)
    }
    expect(isAdopted(plain)).toBe(false)
    expect(isAdopted(chain().executor.vm.evm)).toBe(true)
  })

  it("the node's EVM runs the fast loop: static opcodes never enter runStep", async () => {
    const fast = await runCounting(nodeEvm(), hex(PROGRAMS[0]!))
    expect(fast.steps).toBe(0)
    expect(fast.ret).toBe('03'.padStart(64, '0'))
  })

  it('the jump-analysis memo is per node EVM: a plain EVM analyses the code at every run', async () => {
    const code = hex(PROGRAMS[1]!)
    const jumps = async (evm: EVM) => (await evm.runCode({ code, gasLimit: 100_000n })).runState!.validJumps
    expect(await jumps(plain)).not.toBe(await jumps(plain))
    expect(await jumps(nodeEvm())).toBe(await jumps(nodeEvm()))
  })

  it("the journal patch is on the node VM's own journal only", () => {
    expect(Object.hasOwn(chain().executor.vm.evm.journal, 'cleanup')).toBe(true)
    expect(Object.hasOwn(plain.journal, 'cleanup')).toBe(false)
  })

  it("a plain EVM still clears touched empty accounts (EIP-161); the node's journal keeps them", async () => {
    const a = createAddressFromString('0x00000000000000000000000000000000000000aa')
    for (const [evm, kept] of [
      [plain, false],
      [chain().executor.vm.evm, true],
    ] as const) {
      const sm = evm.stateManager
      await sm.checkpoint()
      try {
        await evm.journal.putAccount(a, new Account())
        await evm.journal.cleanup()
        expect((await sm.getAccount(a)) !== undefined, kept ? 'node' : 'plain').toBe(kept)
      } finally {
        await sm.revert()
      }
    }
  })

  it("two executors' frame opcodes report to their own observers only", async () => {
    const other = await Executor.create({
      common: createChainCommon(31),
      alloc: {},
      network: 31,
      blockHash: async () => undefined,
    })
    const seen = { mine: 0, other: 0 }
    const observer = (key: 'mine' | 'other') => ({ onChildReservation: () => void seen[key]++ })
    const ours = chain().executor
    ours.hooks.estimate = observer('mine')
    other.hooks.estimate = observer('other')
    try {
      // CALL(gas, 0x01, 0, 0, 0, 0, 0): a frame opcode with an estimate observer attached
      const call = hex('5f 5f 5f 5f 5f 60 01 5a f1 00')
      await other.vm.evm.runCode({ code: call, gasLimit: 100_000n })
      expect(seen).toEqual({ mine: 0, other: 1 })
      await ours.vm.evm.runCode({ code: call, gasLimit: 100_000n })
      expect(seen).toEqual({ mine: 1, other: 1 })
    } finally {
      ours.hooks.estimate = undefined
      other.hooks.estimate = undefined
    }
  })
})

describe('what each reach relies on', () => {
  it('memoryGas charges what the stock MSTORE charges for memory growth (subMemUsage)', async () => {
    const common = plain.common
    const rs = { memoryWordCount: 0n, highestMemCost: 0n } as EvmRunState
    // MSTORE(0, 1) then MSTORE(0x1000, 1): 4 pushes, 2 MSTOREs, two expansions
    const r = await plain.runCode({ code: hex('60 01 5f 52 60 01 61 10 00 52 00'), gasLimit: 100_000n })
    const expansion = memoryGas(rs, 0n, 32n, common) + memoryGas(rs, 0x1000n, 32n, common)
    expect(r.exceptionError).toBeUndefined()
    // PUSH1 3, PUSH0 2, MSTORE 3, PUSH1 3, PUSH2 3, MSTORE 3
    expect(r.executionGasUsed).toBe(17n + expansion)
    expect(rs.memoryWordCount).toBe(r.runState!.memoryWordCount)
  })

  it('halt ends the frame as the stock trap does: the error, all gas consumed', async () => {
    const evm = await createEVM({
      customOpcodes: [{ opcode: 0x0c, opcodeName: 'HALT', baseFee: 1, logicFunction: () => halt('OUT_OF_GAS') }],
    })
    const r = await evm.runCode({ code: hex('60 01 0c 00'), gasLimit: 5_000n })
    expect(r.exceptionError?.error).toBe('out of gas')
    expect(r.executionGasUsed).toBe(5_000n)
  })

  it('runTx refuses a sender with code (EIP-3607); runTxFromAnySender runs it', async () => {
    const ex = chain().executor
    const sm = ex.stateManager
    const sender = createAddressFromString('0x00000000000000000000000000000000000000bb')
    const tx = createLegacyTx({ nonce: 0n, gasLimit: 21_000n, to: sender }, { common: ex.common, freeze: false })
    tx.getSenderAddress = () => sender
    tx.verifySignature = () => true
    const block = ex.blockFor({
      number: 1n,
      timestamp: 1n,
      coinbase: new Uint8Array(20),
      gasLimit: 6_800_000n,
      difficulty: 1n,
      minimumGasPrice: 0n,
    })
    const opts = { tx, block, skipBalance: true, skipHardForkValidation: true }
    await sm.checkpoint()
    try {
      await sm.putAccount(sender, new Account(0n, 10n ** 18n))
      await sm.putCode(sender, hex('00'))
      await expect(runTx(ex.vm, opts)).rejects.toThrow(/EIP-3607/)
      const r = await runTxFromAnySender(ex.vm, sm, sender, opts)
      expect(r.execResult.exceptionError).toBeUndefined()
      expect(sm.clearSenderCodeMask()).toBe(false)
    } finally {
      await sm.revert()
    }
  })

  it('LegacyTx overrides: a pinned encoding is what hash() hashes; other transactions keep the prototype methods', () => {
    const common = chain().reads.common
    checkTransactionShape(common)
    const tx = createLegacyTx({ nonce: 1n, gasLimit: 21_000n, v: 27n, r: 1n, s: 1n }, { common, freeze: false })
    const sender = createAddressFromString('0x00000000000000000000000000000000000000cc')
    const raw = hex('c0')
    pinKnownParts(tx, sender, raw)
    expect(tx.getSenderAddress()).toBe(sender)
    expect(Buffer.from(tx.hash()).equals(Buffer.from(keccak256(raw)))).toBe(true)
    const other = createLegacyTx({ nonce: 1n, gasLimit: 21_000n }, { common })
    expect(Object.hasOwn(other, 'getSenderAddress')).toBe(false)
    expect(other.getSenderAddress).toBe(LegacyTx.prototype.getSenderAddress)
  })

  it('a derived context block is what the EVM reads (NUMBER, TIMESTAMP, GASLIMIT, DIFFICULTY)', async () => {
    const common = chain().reads.common
    const base = createBlock({ header: { number: 5n } }, { common, skipConsensusFormatValidation: true, freeze: false })
    checkBlockShape(base)
    const block = deriveBlock(base, { number: 77n, timestamp: 1234n, gasLimit: 9_000_000n, difficulty: 3n })
    // NUMBER TIMESTAMP GASLIMIT DIFFICULTY, stored at 0x60 0x40 0x20 0x00, RETURN 128 bytes
    const code = hex('43 60 60 52 42 60 40 52 45 60 20 52 44 5f 52 60 80 5f f3')
    const r = await chain().executor.vm.evm.runCode({ code, gasLimit: 100_000n, block })
    const words = Buffer.from(r.returnValue)
      .toString('hex')
      .match(/.{64}/g)!
      .map((w) => BigInt('0x' + w))
    expect(words).toEqual([3n, 9_000_000n, 1234n, 77n])
    expect(base.header.number).toBe(5n)
  })

  it("the blockchain stub answers BLOCKHASH with the node's canonical block hash (0 for an unknown block)", async () => {
    await rpc(node.url, 'evm_mine')
    const one = await rpc<{ hash: string }>(node.url, 'eth_getBlockByNumber', ['0x1', false])
    const base = createBlock(
      { header: { number: 5n } },
      { common: chain().reads.common, skipConsensusFormatValidation: true, freeze: false },
    )
    const block = deriveBlock(base, { number: 3n, timestamp: 1n, gasLimit: 6_800_000n, difficulty: 1n })
    // BLOCKHASH(1) at 0x00, BLOCKHASH(2) at 0x20 (block 2 is not mined), RETURN 64 bytes
    const code = hex('60 01 40 5f 52 60 02 40 60 20 52 60 40 5f f3')
    const r = await nodeEvm().runCode({ code, gasLimit: 100_000n, block })
    expect(r.exceptionError).toBeUndefined()
    expect('0x' + Buffer.from(r.returnValue).toString('hex')).toBe(one.hash + '0'.repeat(64))
  })

  it("freezeParams keeps RSKIP400's calldata price on every copy of the Common", () => {
    const common = createChainCommon(33)
    const tx = createLegacyTx({ gasLimit: 100_000n, to: `0x${'11'.repeat(20)}`, data: hex('ff') }, { common })
    expect(tx.getIntrinsicGas()).toBe(21_000n + 16n)
    expect(tx.common.updateParams).toBe(common.updateParams)
  })
})

describe('guards fail loudly', () => {
  it('the interpreter guard names what is missing', () => {
    const evm = { DEBUG: false, events: { listenerCount: () => 0 } }
    const broken = {
      _evm: evm,
      common: { isActivatedEIP: () => false },
      run() {},
      runStep() {},
      lookupOpInfo() {},
      useGas() {},
    }
    expect(() => checkInterpreterShape(broken as never, evm)).toThrow(EthereumjsShapeError)
    expect(() => checkInterpreterShape(broken as never, evm)).toThrow(
      /interpreter loop.*_getValidJumpDestinations is not a function/,
    )
  })

  it('the journal guard refuses a journal without a touched Set, and applyReferenceStateRules runs it', () => {
    const journal = { cleanup: async () => {}, touched: new Map() }
    expect(() => checkJournalShape(journal)).toThrow(/journal cleanup.*touched is not a Set/)
    expect(() => applyReferenceStateRules({ stateManager: undefined, evm: { journal } })).toThrow(EthereumjsShapeError)
  })

  it('the Common guard refuses a Common whose copies do not inherit the no-op', () => {
    const fake = { updateParams() {}, copy: () => ({}) }
    expect(() => freezeParams(fake as never)).toThrow(/Common parameters.*copy\(\) does not copy own properties/)
  })

  it('the block guard refuses a header without own fields', () => {
    const fake = { header: Object.create({ number: 1n }) }
    expect(() => checkBlockShape(fake as never)).toThrow(/context block.*BlockHeader.number/)
  })

  it('every guard error says which release the patches were checked against', () => {
    const e = new EthereumjsShapeError('x', ['y'])
    expect(e.message).toContain(`@ethereumjs ${VERIFIED_ETHEREUMJS_VERSION}`)
    expect(e.message).toContain('docs/architecture.md#dependency-patches')
  })
})
