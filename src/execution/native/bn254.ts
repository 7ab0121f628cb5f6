/**
 * bn254 (alt_bn128) add, mul and pairing at 0x06-0x08 with the reference's failure rule (rskj
 * J/co/rsk/pcc/altBN128/BN128PrecompiledContract.java, BN128Addition.java, BN128Multiplication.java,
 * BN128Pairing.java): prices 150 / 6 000 / 45 000 + 34 000 per 192-byte pair, and — RSKIP197, active from block 0
 * on regtest — invalid input (a point off the curve, a pairing input that is not whole pairs) fails the call
 * charging the price only, where @ethereumjs consumes all the call's gas. CALLs pass at most 128 / 96 bytes to
 * add / mul (RSKIP516). The arithmetic of add and mul is @ethereumjs' own precompile; the pairing is computed a few
 * pairs at a time with the same arithmetic (./bn254-pairing.ts), so that a long one stops at the deadline and yields.
 */
import type { Common } from '@ethereumjs/common'
import { getActivePrecompiles, type PrecompileFunc } from '@ethereumjs/evm'
import type { PlainPrecompile } from './plain-precompile.js'
import { pairingCheck } from './bn254-pairing.js'

/** Wraps @ethereumjs' precompile at `suffix` (e.g. '06') with a reference price. */
function wrap(fn: PrecompileFunc, price: (data: Uint8Array) => bigint, maxInput?: number): PlainPrecompile {
  return {
    price,
    maxInput,
    run: async (data, input) => {
      const r = await fn({ ...input, data, gasLimit: price(data) })
      if (r.exceptionError !== undefined) throw new Error(`Invalid result. (${r.exceptionError.error})`)
      return r.returnValue
    },
  }
}

/**
 * The bn254 precompiles as the reference runs them.
 * @param common this chain's Common (bn254 is active in it, with the reference's prices as params)
 * @returns address (0x-prefixed, 20 bytes) → precompile
 */
export function bn254Precompiles(common: Common): Array<[string, PlainPrecompile]> {
  const active = getActivePrecompiles(common)
  const at = (suffix: string) => active.get(suffix.padStart(40, '0'))!
  return [
    ['0x' + '06'.padStart(40, '0'), wrap(at('06'), () => 150n, 128)],
    ['0x' + '07'.padStart(40, '0'), wrap(at('07'), () => 6000n, 96)],
    [
      '0x' + '08'.padStart(40, '0'),
      {
        price: (d) => 45_000n + 34_000n * BigInt(Math.floor(d.length / 192)),
        run: (data, input) => {
          if (data.length % 192 !== 0) throw new Error('Invalid result. (invalid input length)')
          return pairingCheck(data, input)
        },
      },
    ],
  ]
}
