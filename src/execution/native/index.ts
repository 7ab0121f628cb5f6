/**
 * The reference node's native contracts as @ethereumjs custom precompiles (rskj
 * J/org/ethereum/vm/PrecompiledContracts.java; all active from block 0 on regtest, facts §5).
 * Remasc (0x…01000008) is not here: it runs as the block's last transaction (src/rsk/remasc.ts).
 */
import { createAddressFromString } from '@ethereumjs/util'
import type { PrecompileInput, ExecResult } from '@ethereumjs/evm'
import { BLOCK_HEADER_ADDRESS, blockHeaderMethods } from './block-header.js'
import { ENVIRONMENT_ADDRESS, environmentMethods } from './environment.js'
import { HD_WALLET_UTILS_ADDRESS, hdWalletUtilsMethods } from './hd-wallet-utils.js'
import { nativeContract, type NativeHost } from './native-contract.js'

export type { NativeHost } from './native-contract.js'
export { trackMessages } from './message-tracker.js'

/** An entry of `createEVM({ customPrecompiles })`. */
export interface NativePrecompile {
  address: ReturnType<typeof createAddressFromString>
  function: (input: PrecompileInput) => Promise<ExecResult> | ExecResult
}

/**
 * The native contracts for `createVM({ evmOpts: { customPrecompiles } })`.
 * @param host the node's side of the contracts (block lookups, local-call flag)
 */
export function nativePrecompiles(host: NativeHost): NativePrecompile[] {
  return [
    { address: createAddressFromString(HD_WALLET_UTILS_ADDRESS), function: nativeContract(hdWalletUtilsMethods, host) },
    { address: createAddressFromString(BLOCK_HEADER_ADDRESS), function: nativeContract(blockHeaderMethods, host) },
    { address: createAddressFromString(ENVIRONMENT_ADDRESS), function: nativeContract(environmentMethods, host) },
  ]
}
