/**
 * The reference node's gas rules for frames (docs/reference-rules.md#rule-call-gas; rskj VM.java computeCallGas /
 * getMessageCall / doCREATE / doSUICIDE, Program.java callToAddress / createContract / getMaxDepth), over a
 * real node and JSON-RPC with hand-assembled contracts:
 * - no 63/64 rule: CALL passes min(gas left, requested + stipend), CREATE/CREATE2 pass all the gas left;
 * - the 2 300 stipend of a value CALL comes out of the caller's gas (a value CALL costs 2 300 more than on
 *   Ethereum);
 * - CALL to an account that does not exist costs 25 000 more even with no value (not STATICCALL);
 * - SELFDESTRUCT to a beneficiary that does not exist costs 25 000 more even with no balance; refund 24 000,
 *   capped at gasUsed/2;
 * - call depth limit 400 (RSKIP150): the 401st nested call fails (pushes 0), the 400th runs;
 * - unchanged: an ERC-20 transfer, the 1 024-item operand stack, eth_estimateGas limits that succeed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Interface, Wallet } from 'ethers'
import type { Node } from '../../src/index.js'
import { Token } from '../../fixtures/index.js'
import { COW, COW1, rpc, rpcError, rpcRaw, startNode } from '../helpers/node.js'
import { deploy, sendTx } from '../rpc/shapes.js'

let node: Node
let url: string

/** A 32-byte word (hex, no 0x) of a bigint or an address. */
const w = (v: bigint | string): string =>
  (typeof v === 'string' ? v.slice(2).toLowerCase() : v.toString(16)).padStart(64, '0')
/** Joins bytecode pieces ("5f 35 …", with spaces for readability) into 0x-hex. */
const code = (...parts: string[]): string => '0x' + parts.join('').replace(/\s+/g, '')
/** Init code that deploys `runtime` (PUSH2 len DUP1 PUSH1 10 PUSH0 CODECOPY PUSH0 RETURN, then the runtime). */
const initCode = (runtime: string): string => {
  const len = (runtime.length - 2) / 2
  return code('61', len.toString(16).padStart(4, '0'), '80 60 0a 5f 39 5f f3', runtime.slice(2))
}
/** Intrinsic gas of a call with this data: 21 000 + 4/16 per zero/non-zero byte (RSKIP400). */
const intrinsic = (data: string): bigint => {
  let g = 21_000n
  for (let i = 2; i < data.length; i += 2) g += data.slice(i, i + 2) === '00' ? 4n : 16n
  return g
}
const words = (hex: string): bigint[] => (hex.slice(2).match(/.{64}/g) ?? []).map((x) => BigInt('0x' + x))
const call = (to: string, data: string, extra: Record<string, unknown> = {}) =>
  rpc<string>(url, 'eth_call', [{ from: COW.address, to, data, gas: '0x2dc6c0', ...extra }, 'latest'])
/** Mines a tx from COW; returns the receipt after checking its status. */
async function send(to: string, data: string, status = '0x1', extra: Record<string, unknown> = {}): Promise<any> {
  const r = await sendTx(url, { to, data, ...extra })
  expect(r.status).toBe(status)
  return r
}

/** Callee: returns gasleft() as its first opcode sees it (GAS PUSH0 MSTORE PUSH1 32 PUSH0 RETURN). */
const GAS_REPORTER = code('5a 5f 52 60 20 5f f3')

/**
 * CALL (or CALLCODE; DELEGATECALL and STATICCALL without the value operand) with gas = calldata[1],
 * to = calldata[0], value = CALLVALUE, in 0/0, out 32/32; returns [gasleft() just before, callee's return word].
 * From the GAS to the op: 31 gas (PUSH0 2, MSTORE 3 + 3 memory, PUSH1 3, PUSH1 3, PUSH0 2, PUSH0 2, CALLVALUE 2,
 * PUSH0 2 + CALLDATALOAD 3, PUSH1 3 + CALLDATALOAD 3; 29 without CALLVALUE), then the op: 700 + 3 (memory to 2
 * words) + 9 000 with a value.
 */
const callerFor = (op: 'f1' | 'f2' | 'f4' | 'fa'): string =>
  code(
    '5a 5f 52', // GAS PUSH0 MSTORE
    '60 20 60 20 5f 5f', // outLen 32, outOff 32, inLen 0, inOff 0
    op === 'f1' || op === 'f2' ? '34' : '', // value CALLVALUE
    '5f 35 60 20 35', // to = calldata[0], gas = calldata[1]
    op,
    '50', // CALL… POP
    '60 40 5f f3', // RETURN mem[0..64]
  )
const CALLER = callerFor('f1')
const BEFORE_CALL = 31n
const CALL_BASE = 703n

/** CALL(gas 0, to = calldata[0], value 0, no memory); or STATICCALL with the same operands. */
const POKE_CALL = code('5f 5f 5f 5f 5f 5f 35 5f f1 00')
const POKE_STATICCALL = code('5f 5f 5f 5f 5f 35 5f fa 00')

/**
 * R(n): n = calldata[0]; n = 0 returns 1; else calls itself with n-1 and all its gas and returns
 * callSucceeded × the callee's return word (0 when the nested call failed).
 */
const RECURSE = code(
  '5f 35 80 60 0e 57', // n; if n != 0 jump to 0x0e
  '60 01 5f 52 60 20 5f f3', // return 1
  '5b 60 01 90 03 5f 52', // JUMPDEST; mem[0] = n - 1
  '60 20 60 20 60 20 5f 5f 30 5a f1', // CALL(GAS, ADDRESS, 0, in 0/32, out 32/32)
  '60 20 51 02 5f 52 60 20 5f f3', // return ok * mem[32]
)

/** Init code reverting with gasleft() as its first opcode sees it (GAS PUSH0 MSTORE PUSH1 32 PUSH0 REVERT). */
const REVERT_GAS_INIT = '5a5f5260205ffd'

/**
 * CREATE (or CREATE2, salt 0) of REVERT_GAS_INIT; returns [gasleft() just before, …, the init code's revert
 * data]. From the GAS to the CREATE: 28 gas (PUSH0 2, MSTORE 3 + 3, PUSH7 3, PUSH1 3, MSTORE 3 + 3 memory to 2
 * words, PUSH1 3, PUSH1 3, PUSH0 2), CREATE2 2 more for the salt; the op: 32 000 + 2 per init-code word
 * (RSKIP438), CREATE2 + 6 per word of hashing.
 */
const creator = (create2: boolean): string =>
  code(
    '5a 5f 52', // GAS PUSH0 MSTORE
    '66',
    REVERT_GAS_INIT,
    '60 20 52', // mem[32..64] = init code, right-aligned (bytes 57..63)
    create2 ? '5f' : '', // salt 0
    '60 07 60 39 5f',
    create2 ? 'f5' : 'f0',
    '50', // CREATE(2)(value 0, offset 57, length 7) POP
    '60 20 5f 60 40 3e', // RETURNDATACOPY(64, 0, 32)
    '60 60 5f f3', // RETURN mem[0..96]
  )

/** SELFDESTRUCT to calldata[0]. */
const DESTRUCT = code('5f 35 ff')

let reporter: string
let caller: string
let pokeCall: string
let pokeStaticcall: string
let recurse: string

beforeAll(async () => {
  node = await startNode()
  url = node.url
  ;[reporter, caller, pokeCall, pokeStaticcall, recurse] = await Promise.all(
    [GAS_REPORTER, CALLER, POKE_CALL, POKE_STATICCALL, RECURSE].map(
      async (c) => (await deploy(url, initCode(c))).address,
    ),
  )
})
afterAll(() => node?.close())

describe('CALL passes min(gas left, requested + stipend): no 63/64 rule', () => {
  const MAX = (1n << 256n) - 1n

  it('requested gas above the gas left: the callee gets all the gas left after the CALL charge', async () => {
    const [g0, seen] = words(await call(caller, code(w(reporter), w(MAX))))
    // callee limit = g0 - 31 - 703; its GAS reports 2 less. The 63/64 rule would keep 1/64 back.
    expect(seen).toBe(g0 - BEFORE_CALL - CALL_BASE - 2n)
  })

  for (const [name, op, before] of [
    ['CALLCODE', 'f2', 31n],
    ['DELEGATECALL', 'f4', 29n],
    ['STATICCALL', 'fa', 29n],
  ] as const) {
    it(`${name} too`, async () => {
      const { address } = await deploy(url, initCode(callerFor(op)))
      const [g0, seen] = words(await call(address, code(w(reporter), w(MAX))))
      expect(seen).toBe(g0 - before - CALL_BASE - 2n)
      if (op === 'f2') {
        // CALLCODE with a value: 9 000 more, the stipend inside the callee gas
        const [g1, seen1] = words(await call(address, code(w(reporter), w(MAX)), { value: '0x1' }))
        expect(seen1).toBe(g1 - before - CALL_BASE - 9_000n - 2n)
      }
    })
  }

  it('requested gas below the gas left: the callee gets exactly it', async () => {
    const [, seen] = words(await call(caller, code(w(reporter), w(10_000n))))
    expect(seen).toBe(10_000n - 2n)
  })

  it('with a value the stipend is part of the callee gas, not on top of the gas left', async () => {
    const [g0, seen] = words(await call(caller, code(w(reporter), w(MAX)), { value: '0x1' }))
    // g0 - 31 - (703 + 9 000); Ethereum would give 63/64 of that plus 2 300
    expect(seen).toBe(g0 - BEFORE_CALL - CALL_BASE - 9_000n - 2n)
    const [, small] = words(await call(caller, code(w(reporter), w(1_000n)), { value: '0x1' }))
    expect(small).toBe(1_000n + 2_300n - 2n)
  })

  it('with a value, out of gas unless the stipend is left after the CALL charge', async () => {
    const data = code(w(reporter), w(MAX))
    // tx gas = intrinsic + GAS 2 + 31 + CALL 9 703 + what is left for the callee
    const at = (left: bigint) =>
      rpcRaw<string>(url, 'eth_call', [
        {
          from: COW.address,
          to: caller,
          data,
          value: '0x1',
          gas: '0x' + (intrinsic(data) + 2n + BEFORE_CALL + CALL_BASE + 9_000n + left).toString(16),
        },
        'latest',
      ])
    const ok = await at(2_300n)
    expect(words(ok.body.result!)[1]).toBe(2_300n - 2n) // the callee gets the 2 300 (uses 15; 7 left for the caller)
    const short = await at(2_299n) // Ethereum would still run the callee with 2 299·63/64 + 2 300
    expect(short.body.result === undefined || short.body.result === '0x').toBe(true)
  })

  it('the caller pays the CALL charge plus what the callee used: a value CALL costs 9 700 + used', async () => {
    const data = code(w(reporter), w(MAX))
    const r = await send(caller, data, '0x1', { value: '0x1' })
    // caller: GAS 2 + 31 + CALL (703 + 9 000) + POP, PUSH1, PUSH0, RETURN 7; callee: 15. (Ethereum: 2 300 less.)
    expect(BigInt(r.gasUsed)).toBe(intrinsic(data) + 2n + BEFORE_CALL + CALL_BASE + 9_000n + 7n + 15n)
  })
})

describe('CALL to an account that does not exist costs 25 000 more, even with no value', () => {
  it('CALL: 25 000 more than to an existing account; the call creates the account', async () => {
    const fresh = Wallet.createRandom().address
    const exec = async (to: string) => {
      const data = code(w(to))
      return BigInt((await send(pokeCall, data)).gasUsed) - intrinsic(data)
    }
    const existing = await exec(COW1.address)
    expect(existing).toBe(7n * 2n + 3n + 700n) // 7 × PUSH0, CALLDATALOAD, CALL (callee gets 0 gas)
    expect(await rpc(url, 'eth_getTransactionCount', [fresh, 'latest'])).toBe('0x0')
    expect(await exec(fresh)).toBe(existing + 25_000n)
    // the 0-value call created it (reference Repository.addBalance), so the next call is not charged
    expect(await exec(fresh)).toBe(existing)
  })

  it('STATICCALL to a missing account: no new-account charge (only CALL has it)', async () => {
    const exec = async (to: string) => {
      const data = code(w(to))
      return BigInt((await send(pokeStaticcall, data)).gasUsed) - intrinsic(data)
    }
    expect(await exec(Wallet.createRandom().address)).toBe(await exec(COW1.address))
  })
})

describe('call depth limit 400 (RSKIP150)', () => {
  it('400 nested calls run, the 401st fails (the CALL pushes 0)', async () => {
    expect(words(await call(recurse, code(w(400n))))).toEqual([1n])
    expect(words(await call(recurse, code(w(401n))))).toEqual([0n])
    expect(words(await call(recurse, code(w(1n))))).toEqual([1n])
  })

  it('the operand stack still holds 1 024 items', async () => {
    const pushes = async (n: number) => (await deploy(url, initCode(code('5f'.repeat(n), '00')))).address
    await send(await pushes(1024), '0x', '0x1')
    // stack overflow: the node reports the mined failure (-32015)
    const e = await rpcError(url, 'eth_sendTransaction', [
      { from: COW.address, to: await pushes(1025), gas: '0x30d40' },
    ])
    expect(e.code).toBe(-32015)
  })
})

describe('CREATE and CREATE2 pass all the gas left', () => {
  for (const [name, create2, before, charge] of [
    ['CREATE', false, 28n, 32_002n],
    ['CREATE2', true, 30n, 32_008n],
  ] as const) {
    it(`${name}: the init code gets the gas left after the ${name} charge`, async () => {
      const { address } = await deploy(url, initCode(creator(create2)))
      const [g0, , seen] = words(await call(address, '0x'))
      expect(seen).toBe(g0 - before - charge - 2n)
    })
  }
})

describe('SELFDESTRUCT', () => {
  it('5 000, + 25 000 to a missing beneficiary even with no balance; refund 24 000 capped at gasUsed/2', async () => {
    const run = async (beneficiary: string, extra: bigint) => {
      const { address } = await deploy(url, initCode(DESTRUCT))
      const data = code(w(beneficiary))
      const r = await send(address, data)
      const before = intrinsic(data) + 2n + 3n + 5_000n + extra // PUSH0, CALLDATALOAD, SELFDESTRUCT
      const refund = before / 2n < 24_000n ? before / 2n : 24_000n
      expect(BigInt(r.gasUsed)).toBe(before - refund)
      expect(await rpc(url, 'eth_getCode', [address, 'latest'])).toBe('0x')
    }
    await run(COW1.address, 0n) // refund capped at half
    await run(Wallet.createRandom().address, 25_000n) // the full 24 000
  })
})

describe('regressions', () => {
  it('an ERC-20 deploy and transfers use the same gas as before', async () => {
    const tok = new Interface(Token.abi)
    const { address, receipt } = await deploy(url, Token.bytecode + tok.encodeDeploy(['T', 'T', 10n ** 24n]).slice(2))
    expect(BigInt(receipt.gasUsed)).toBe(506_818n)
    const data = tok.encodeFunctionData('transfer', ['0x1234567890123456789012345678901234567890', 1000n])
    expect(BigInt((await send(address, data)).gasUsed)).toBe(49_647n) // new balance slot
    expect(BigInt((await send(address, data)).gasUsed)).toBe(34_647n)
    expect(BigInt(await rpc(url, 'eth_estimateGas', [{ from: COW.address, to: address, data }]))).toBe(34_647n)
  })

  it('eth_estimateGas gives limits that succeed for calls that pass all their gas down', async () => {
    const cases: Array<{ to: string; data: string; value?: string; check?: (ret: string) => void }> = [
      { to: recurse, data: code(w(100n)), check: (ret) => expect(words(ret)).toEqual([1n]) },
      { to: caller, data: code(w(reporter), w((1n << 256n) - 1n)), value: '0x1' },
      { to: caller, data: code(w(reporter), w(50_000n)), value: '0x1' },
      { to: pokeCall, data: code(w(Wallet.createRandom().address)) },
    ]
    for (const c of cases) {
      const req = { from: COW.address, to: c.to, data: c.data, ...(c.value ? { value: c.value } : {}) }
      const gas = BigInt(await rpc(url, 'eth_estimateGas', [req]))
      c.check?.(await rpc(url, 'eth_call', [{ ...req, gas: '0x' + gas.toString(16) }, 'latest']))
      const r = await sendTx(url, { ...req, gas: '0x' + gas.toString(16) })
      expect(r.status).toBe('0x1')
      expect(BigInt(r.gasUsed)).toBeLessThanOrEqual(gas)
    }
  })
})

/**
 * eth_estimateGas runs once and answers with the run's peak consumption (rskj EthModule.internalEstimateGas;
 * src/execution/gas-estimation.ts): the top frame's gas spent including each child's whole reservation; the
 * gas consumed before refunds when some CALL handed all the caller's gas down; + 2 300 after a value CALL;
 * capped at 6 800 000. Flags raised in a child frame that reverted do not count.
 */
describe('eth_estimateGas: the reference rule (one run, peak consumption)', () => {
  const estimate = async (req: Record<string, unknown>): Promise<bigint> =>
    BigInt(await rpc(url, 'eth_estimateGas', [{ from: COW.address, ...req }]))
  /** CALL(gas = all, to = reporter, value 0, no memory), then REVERT (or STOP). */
  const passAllThen = (end: 'fd' | '00'): string =>
    code('5f 5f 5f 5f 5f 73', reporter.slice(2), '5a f1', end === 'fd' ? '5f 5f fd' : '00')
  /** SSTORE(0, calldata[0]). */
  const STORE = code('5f 35 5f 55 00')
  /** What the CALLER contract spends before its CALL: the GAS opcode (2), then BEFORE_CALL. */
  const TO_CALL = 2n + BEFORE_CALL

  it('a plain transfer: 21 000', async () => {
    expect(await estimate({ to: Wallet.createRandom().address, value: '0x1' })).toBe(21_000n)
  })

  it('a CALL with explicit gas: the whole reservation counts, though the callee uses little of it', async () => {
    const data = code(w(reporter), w(50_000n))
    const gas = await estimate({ to: caller, data })
    expect(gas).toBe(intrinsic(data) + TO_CALL + CALL_BASE + 50_000n)
    const r = await send(caller, data)
    expect(BigInt(r.gasUsed)).toBeLessThan(gas - 40_000n)
  })

  it('a value CALL with explicit gas: reservation with the stipend, + 2 300', async () => {
    const data = code(w(reporter), w(50_000n))
    const gas = await estimate({ to: caller, data, value: '0x1' })
    expect(gas).toBe(intrinsic(data) + TO_CALL + CALL_BASE + 9_000n + 50_000n + 2_300n + 2_300n)
    expect((await sendTx(url, { to: caller, data, value: '0x1', gas: '0x' + gas.toString(16) })).status).toBe('0x1')
  })

  it('a value CALL handing all the gas down: the gas consumed, + 2 300', async () => {
    const data = code(w(reporter), w((1n << 256n) - 1n))
    const gas = await estimate({ to: caller, data, value: '0x1' })
    const r = await send(caller, data, '0x1', { value: '0x1' })
    expect(gas).toBe(BigInt(r.gasUsed) + 2_300n)
  })

  it('refunds are not subtracted: the gas consumed before them', async () => {
    const { address } = await deploy(url, initCode(STORE))
    await send(address, code(w(1n)))
    const data = code(w(0n))
    const gas = await estimate({ to: address, data })
    const r = await send(address, data)
    // the refund (15 000, capped at half the gas used) went back to the sender; the estimate did not take it
    expect(gas).toBe(BigInt(r.gasUsed) + gas / 2n)
    expect(BigInt(r.gasUsed)).toBeLessThan(gas)
    expect(gas).toBe(intrinsic(data) + 2n + 3n + 2n + 5_000n)
  })

  it('a CREATE hands all the gas down without counting as such: the estimate is the cap', async () => {
    const { address } = await deploy(url, initCode(code('5f 5f 5f f0 00')))
    expect(await estimate({ to: address })).toBe(6_800_000n)
    expect(await estimate({ to: address, gas: '0x30d40' })).toBe(200_000n)
  })

  it('a child that passed all its gas down counts only when it did not revert', async () => {
    const [reverting, stopping] = await Promise.all(
      [passAllThen('fd'), passAllThen('00')].map(async (c) => (await deploy(url, initCode(c))).address),
    )
    const reservation = (to: string) => code(w(to), w(100_000n))
    const viaReverting = reservation(reverting)
    expect(await estimate({ to: caller, data: viaReverting })).toBe(
      intrinsic(viaReverting) + TO_CALL + CALL_BASE + 100_000n,
    )
    const viaStopping = reservation(stopping)
    const gas = await estimate({ to: caller, data: viaStopping })
    expect(gas).toBe(BigInt((await send(caller, viaStopping)).gasUsed))
    expect(gas).toBeLessThan(intrinsic(viaStopping) + 100_000n)
  })

  it('a revert at the limit is -32015 with the revert data, not an estimate', async () => {
    const { address } = await deploy(url, initCode(code('60 2a 5f 52 60 20 5f fd')))
    const err = await rpcError(url, 'eth_estimateGas', [{ from: COW.address, to: address }])
    expect(err.code).toBe(-32015)
    expect(err.data).toBe('0x' + w(42n))
  })
})
