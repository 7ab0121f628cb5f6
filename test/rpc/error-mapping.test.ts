/**
 * The one mapping from domain errors to JSON-RPC errors (src/rpc/error-mapping.ts, docs/architecture.md#errors):
 * every domain error class has its row in the mapping and in the documented table, with the same code; and
 * toRpcError answers each kind with the code, message, data and cause the table states. The answers over HTTP
 * are pinned by the method tests (txpool, filters, eth-call, compat, personal, state-history, trace, …).
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import * as domainErrors from '../../src/errors/domain-errors.js'
import {
  DomainError,
  FilterNotFoundError,
  StateNotFoundError,
  VmExecutionError,
} from '../../src/errors/domain-errors.js'
import { PoolApplyError, PoolTimeoutError } from '../../src/chain/mining/block-builder.js'
import { executionError } from '../../src/chain/queries/revert.js'
import { TraceTooLargeError } from '../../src/execution/tracers/struct-logs.js'
import { compatProfile } from '../../src/rpc/compat.js'
import { DOMAIN_ERROR_CODES, toRpcError } from '../../src/rpc/error-mapping.js'
import { RpcError } from '../../src/rpc/rpc-error.js'

/** Error(string) revert data for "no". */
const REVERT_NO = Uint8Array.from(
  Buffer.from(
    '08c379a0' + '20'.padStart(64, '0') + '2'.padStart(64, '0') + Buffer.from('no').toString('hex').padEnd(64, '0'),
    'hex',
  ),
)

/** The domain error classes src/errors/domain-errors.ts exports (the abstract base left out). */
const CLASSES = (Object.entries(domainErrors) as [string, unknown][]).filter(
  (e): e is [string, abstract new (...a: never[]) => DomainError] =>
    typeof e[1] === 'function' && e[1] !== DomainError && e[1].prototype instanceof DomainError,
)

/** Rows of docs/architecture.md#errors: class name → code. */
function documentedCodes(): Map<string, number> {
  const doc = readFileSync(new URL('../../docs/architecture.md', import.meta.url), 'utf8')
  const section = doc.slice(doc.indexOf('<a id="errors"></a>'), doc.indexOf('<a id="adding-a-method"></a>'))
  const rows = new Map<string, number>()
  for (const m of section.matchAll(/^\| `(\w+)`[^|]*\|[^|]*\| (-?\d+) \|/gm)) rows.set(m[1]!, Number(m[2]))
  return rows
}

describe('domain error → JSON-RPC mapping', () => {
  it('every domain error class has a code in the mapping, and the documented table says the same', () => {
    expect(CLASSES.length).toBeGreaterThan(10)
    const documented = documentedCodes()
    for (const [name, cls] of CLASSES) {
      const code = cls === VmExecutionError ? -32015 : DOMAIN_ERROR_CODES.get(cls)
      expect(code, `${name} has no row in DOMAIN_ERROR_CODES`).toBeTypeOf('number')
      expect(documented.get(name), `docs/architecture.md#errors row of ${name}`).toBe(code)
    }
    expect(documented.size).toBe(CLASSES.length)
  })

  it('a class answers with its code and its message, the domain error as cause; a subclass as its class', () => {
    const pool = new PoolApplyError('transaction nonce too low', 0)
    expect(toRpcError(pool)).toMatchObject({
      code: -32010,
      message: 'transaction nonce too low',
      data: undefined,
      cause: pool,
    })
    expect(toRpcError(new TraceTooLargeError(10 * 1024 * 1024))).toMatchObject({
      code: -32011,
      message: expect.stringMatching(/^Response size exceeded/),
    })
    expect(toRpcError(new StateNotFoundError('ab12'))).toMatchObject({
      code: -32600,
      message: 'State not found for block with hash 0xab12',
    })
    expect(toRpcError(new FilterNotFoundError('0x01'))).toMatchObject({ code: -32000, message: 'filter not found' })
    expect(toRpcError(new domainErrors.ExecutionTimeoutError())).toMatchObject({
      code: -32011,
      message: 'Execution has got timeout out.',
    })
    expect(toRpcError(new PoolTimeoutError(0))).toMatchObject({
      code: -32011,
      message: 'Execution has got timeout out.',
    })
    class Unlisted extends DomainError {}
    expect(toRpcError(new Unlisted('other'))).toMatchObject({ code: -32000, message: 'other' })
  })

  it('a failed execution: -32015 with the revert bytes as data for a revert, no data otherwise', () => {
    const revert = executionError('revert', REVERT_NO)
    const e = toRpcError(revert)!
    expect({ code: e.code, message: e.message, data: e.data }).toEqual({
      code: -32015,
      message: 'VM Exception while processing transaction: revert no',
      data: '0x' + Buffer.from(REVERT_NO).toString('hex'),
    })
    const oog = toRpcError(executionError('out of gas', new Uint8Array(0), 90_000n))!
    expect(oog.code).toBe(-32015)
    expect(oog.data).toBeUndefined()
    expect(oog.message).toMatch(/out of gas \(gas limit 90000, the default of eth_sendTransaction without "gas"\)$/)
  })

  it('a compatibility profile shapes reverts only', () => {
    const hash = new Uint8Array(32).fill(0xab)
    const revert = executionError('revert', REVERT_NO, 100_000n, hash)
    const hardhat = toRpcError(revert, compatProfile('hardhat'))!
    // Hardhat 3's node: code 3, its wording, the revert bytes as data (no transaction hash)
    expect(hardhat.code).toBe(3)
    expect(hardhat.message).toBe("VM Exception while processing transaction: reverted with reason string 'no'")
    expect(hardhat.data).toBe('0x' + Buffer.from(REVERT_NO).toString('hex'))
    const anvil = toRpcError(revert, compatProfile('anvil'))!
    expect({ code: anvil.code, message: anvil.message }).toEqual({ code: 3, message: 'execution reverted: no' })
    expect(toRpcError(executionError('out of gas', new Uint8Array(0)), compatProfile('anvil'))!.code).toBe(-32015)
    expect(toRpcError(revert, compatProfile('reference'))!.code).toBe(-32015)
  })

  it('an RpcError passes unchanged; anything else is not mapped (the dispatcher answers -32603 and logs it)', () => {
    const own = new RpcError(-32601, 'method not found')
    expect(toRpcError(own)).toBe(own)
    expect(toRpcError(new Error('boom'))).toBeUndefined()
    expect(toRpcError('a string')).toBeUndefined()
  })
})
