/**
 * The chain's Common: the reference's EIPs and gas parameters, and that they survive the parameter merging
 * @ethereumjs does on every tx and header (regression: calldata was charged 68 gas per non-zero byte).
 */
import { createBlock, paramsBlock } from '@ethereumjs/block'
import { Common } from '@ethereumjs/common'
import { paramsEVM } from '@ethereumjs/evm'
import { createLegacyTx, paramsTx } from '@ethereumjs/tx'
import { createVM, paramsVM } from '@ethereumjs/vm'
import { describe, expect, it } from 'vitest'
import { createChainCommon } from '../../src/execution/common.js'

describe('createChainCommon', () => {
  it('has the chain id and the reference opcode EIPs, without EIP-1559/2929', () => {
    const c = createChainCommon(33)
    expect(c.chainId()).toBe(33n)
    for (const eip of [3855, 1153, 5656, 3860, 3541]) expect(c.isActivatedEIP(eip)).toBe(true)
    for (const eip of [1559, 2929, 2930, 3529, 3198]) expect(c.isActivatedEIP(eip)).toBe(false)
  })

  it('holds the parameters successive updateParams calls would give (one merge at construction)', () => {
    const c = createChainCommon(33)
    // the same chain, parameters loaded package by package as @ethereumjs documents
    const ref = new Common({
      chain: JSON.parse(JSON.stringify((c as unknown as { _chainParams: unknown })._chainParams)),
      hardfork: 'petersburg',
    })
    const ours = {
      1: { txDataNonZeroGas: 16, stackLimit: 400 },
      609: { bn254AddGas: 150, bn254MulGas: 6000, bn254PairingGas: 45000, bn254PairingWordGas: 34000 },
    }
    for (const params of [paramsTx, paramsBlock, paramsEVM, paramsVM, ours]) ref.updateParams(params)
    const internals = (x: Common) =>
      x as unknown as { _params: unknown; _paramsCache: unknown; _activatedEIPsCache: unknown }
    expect(internals(c)._params).toEqual(internals(ref)._params)
    expect(internals(c)._paramsCache).toEqual(internals(ref)._paramsCache)
    expect(internals(c)._activatedEIPsCache).toEqual(internals(ref)._activatedEIPsCache)
  })

  it('charges 4/16 gas per zero/non-zero calldata byte (RSKIP400), also after txs, headers and a VM were made', async () => {
    const common = createChainCommon(33)
    await createVM({ common })
    createBlock({ header: { number: 1n } }, { common })
    for (let i = 0; i < 3; i++) {
      const tx = createLegacyTx({ gasLimit: 100_000n, to: `0x${'11'.repeat(20)}`, data: '0xff00ff' }, { common })
      expect(tx.getIntrinsicGas()).toBe(21_000n + 16n + 4n + 16n)
    }
    expect(common.param('txDataNonZeroGas')).toBe(16n)
    expect(common.param('txDataZeroGas')).toBe(4n)
  })

  it('keeps Petersburg storage and account gas (SLOAD 200, BALANCE 400, SSTORE 20 000 / 5 000)', async () => {
    const common = createChainCommon(33)
    await createVM({ common })
    expect(common.param('sloadGas')).toBe(200n)
    expect(common.param('balanceGas')).toBe(400n)
    expect(common.param('sstoreSetGas')).toBe(20_000n)
    expect(common.param('sstoreResetGas')).toBe(5_000n)
    expect(common.param('sstoreRefundGas')).toBe(15_000n)
    expect(common.param('initCodeWordGas')).toBe(2n)
  })
})
