/**
 * BLAKE2 F compression at 0x…09 (EIP-152 as RSKIP153, active from block 0 on regtest; rskj
 * J/org/ethereum/vm/PrecompiledContracts.java `Blake2F`). The petersburg-based Common of this chain does not
 * turn @ethereumjs' own 0x09 on (it comes with Istanbul), so it is added here with the reference's rules:
 * - gas = the 4-byte big-endian round count; input that is not exactly 213 bytes costs 0 and fails;
 * - a final-block flag other than 0 or 1 fails (charging the rounds);
 * - a CALL passes at most 213 bytes (RSKIP516 max input), so longer input from code is cut, not refused.
 * The compression itself is @ethereumjs' precompile, reached through an Istanbul Common's precompile map.
 */
import { Common, Hardfork, Mainnet } from '@ethereumjs/common'
import { getActivePrecompiles, paramsEVM, type PrecompileFunc, type PrecompileInput } from '@ethereumjs/evm'
import type { PlainPrecompile } from './plain-precompile.js'

/** Address of BLAKE2 F. */
export const BLAKE2F_ADDRESS = '0x0000000000000000000000000000000000000009'

let impl: { fn: PrecompileFunc; common: Common } | undefined

/** @ethereumjs' BLAKE2 F with a Common that has it (built on first use). */
function blake2fImpl(): { fn: PrecompileFunc; common: Common } {
  if (impl === undefined) {
    const common = new Common({ chain: Mainnet, hardfork: Hardfork.Istanbul, params: paramsEVM })
    impl = { fn: getActivePrecompiles(common).get('0000000000000000000000000000000000000009')!, common }
  }
  return impl
}

/** BLAKE2 F as the reference prices and validates it. */
export const blake2f: PlainPrecompile = {
  price: (data) => (data.length === 213 ? BigInt(new DataView(data.buffer, data.byteOffset, 4).getUint32(0)) : 0n),
  maxInput: 213,
  run: async (data, input: PrecompileInput) => {
    if (data.length !== 213) throw new Error('input length for BLAKE2 F precompile should be exactly 213 bytes')
    if (data[212] !== 0 && data[212] !== 1) throw new Error('incorrect final block indicator flag')
    const { fn, common } = blake2fImpl()
    const r = await fn({ ...input, data, common, gasLimit: BigInt(2) ** BigInt(64) })
    if (r.exceptionError !== undefined) throw new Error(r.exceptionError.error)
    return r.returnValue
  },
}
