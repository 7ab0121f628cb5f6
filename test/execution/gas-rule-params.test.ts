/**
 * The fork gas rules switch on the node's Common (src/execution/ethereumjs/gas-rule-params.ts,
 * docs/reference-rules.md#rule-gas-activations): it reaches every copy of the Common (transactions, headers, VMs),
 * and its guard refuses a Common whose caches are not where it writes.
 */
import { createLegacyTx } from '@ethereumjs/tx'
import { describe, expect, it } from 'vitest'
import { createChainCommon } from '../../src/execution/common.js'
import { EthereumjsShapeError, forgetDataGas, gasRuleSwitch } from '../../src/execution/ethereumjs/index.js'

const TO = `0x${'11'.repeat(20)}` as const
const INIT = new Uint8Array(64).fill(1)

describe('gasRuleSwitch', () => {
  it('prices calldata and init code the older way on every copy, and back', () => {
    const common = createChainCommon(31)
    const copy = common.copy()
    const set = gasRuleSwitch(common)
    const call = () => createLegacyTx({ gasLimit: 100_000n, to: TO, data: INIT }, { common, freeze: false })
    const create = () => createLegacyTx({ gasLimit: 100_000n, data: INIT }, { common, freeze: false })
    expect(call().getIntrinsicGas()).toBe(21_000n + 64n * 16n)
    expect(create().getIntrinsicGas()).toBe(53_000n + 64n * 16n + 2n * 2n)
    set({ rskip400: false, rskip438: false })
    expect(call().getIntrinsicGas()).toBe(21_000n + 64n * 68n)
    expect(create().getIntrinsicGas()).toBe(53_000n + 64n * 68n)
    expect(copy.param('txDataNonZeroGas')).toBe(68n)
    expect(copy.isActivatedEIP(3860)).toBe(false)
    expect(copy.param('initCodeWordGas')).toBe(0n)
    // no init code limit without RSKIP438: a creation over 49 152 bytes is a valid transaction
    expect(() => createLegacyTx({ gasLimit: 300_000n, data: new Uint8Array(49_153) }, { common })).not.toThrow()
    set({ rskip400: true, rskip438: true })
    expect(call().getIntrinsicGas()).toBe(21_000n + 64n * 16n)
    expect(copy.isActivatedEIP(3860)).toBe(true)
    expect(copy.param('initCodeWordGas')).toBe(2n)
    expect(() => createLegacyTx({ gasLimit: 300_000n, data: new Uint8Array(49_153) }, { common })).toThrow(/initcode/)
  })

  it("forgetDataGas drops a frozen transaction's cached data gas", () => {
    const common = createChainCommon(31)
    const set = gasRuleSwitch(common)
    const tx = createLegacyTx({ gasLimit: 100_000n, to: TO, data: INIT }, { common })
    expect(tx.getDataGas()).toBe(64n * 16n)
    set({ rskip400: false, rskip438: true })
    expect(tx.getDataGas()).toBe(64n * 16n) // cached
    forgetDataGas(tx)
    expect(tx.getDataGas()).toBe(64n * 68n)
  })

  it('refuses a Common whose copies do not share the caches', () => {
    const common = createChainCommon(31)
    const fake = Object.assign(Object.create(Object.getPrototypeOf(common) as object) as object, common, {
      copy: () => ({ ...common, _paramsCache: {} }),
    })
    expect(() => gasRuleSwitch(fake as never)).toThrow(EthereumjsShapeError)
    expect(() => gasRuleSwitch(fake as never)).toThrow(/Common gas rules.*does not share its parameter caches/)
  })
})
