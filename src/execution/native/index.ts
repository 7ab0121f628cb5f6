/**
 * The reference node's native contracts as @ethereumjs custom precompiles (rskj
 * J/org/ethereum/vm/PrecompiledContracts.java; all active from block 0 on regtest,
 * docs/reference-rules.md#rule-precompiles). Remasc (0x…01000008) is not here: it runs as the block's last transaction
 * (src/rsk/remasc.ts).
 */
import { createAddressFromString } from '@ethereumjs/util'
import type { PrecompileInput, ExecResult } from '@ethereumjs/evm'
import { BLOCK_HEADER_ADDRESS, blockHeaderMethods } from './block-header.js'
import { BRIDGE_ADDRESS, BRIDGE_NO_METHOD_GAS, bridgeMethods, bridgeReleaseBtc } from './bridge.js'
import { ENVIRONMENT_ADDRESS, environmentMethods } from './environment.js'
import { HD_WALLET_UTILS_ADDRESS, hdWalletUtilsMethods } from './hd-wallet-utils.js'
import { nativeContract, type NativeHost } from './native-contract.js'
import { BLAKE2F_ADDRESS, blake2f } from './blake2f.js'
import { plainPrecompile } from './plain-precompile.js'
import { bn254Precompiles } from './bn254.js'
import type { Common } from '@ethereumjs/common'
import { SECP256K1_ADD_ADDRESS, SECP256K1_MUL_ADDRESS, secp256k1Add, secp256k1Mul } from './secp256k1.js'

export type { NativeHost } from './native-contract.js'
export { trackMessages } from './message-tracker.js'

/** An entry of `createEVM({ customPrecompiles })`. */
export interface NativePrecompile {
  address: ReturnType<typeof createAddressFromString>
  function: (input: PrecompileInput) => Promise<ExecResult> | ExecResult
}

/**
 * The native contracts (and the precompiles @ethereumjs lacks on this chain's Common) for
 * `createVM({ evmOpts: { customPrecompiles } })`.
 * @param host the node's side of the contracts (block lookups, local-call flag)
 * @param common this chain's Common (for @ethereumjs' bn254 arithmetic, wrapped with the reference's rules)
 */
export function nativePrecompiles(host: NativeHost, common: Common): NativePrecompile[] {
  return [
    ...bn254Precompiles(common).map(([address, p]) => ({
      address: createAddressFromString(address),
      function: plainPrecompile(p),
    })),
    {
      address: createAddressFromString(BRIDGE_ADDRESS),
      function: nativeContract(bridgeMethods, host, {
        noMethodGas: BRIDGE_NO_METHOD_GAS,
        defaultMethod: bridgeReleaseBtc,
        // Bridge.validateLocalCall, validateCallMessageType, execute (docs/reference-rules.md#rule-bridge-activations)
        rules: { localCalls: 'rskip88', callTypes: 'rskip417', noMethodFails: 'rskip88' },
      }),
    },
    { address: createAddressFromString(HD_WALLET_UTILS_ADDRESS), function: nativeContract(hdWalletUtilsMethods, host) },
    { address: createAddressFromString(BLOCK_HEADER_ADDRESS), function: nativeContract(blockHeaderMethods, host) },
    { address: createAddressFromString(ENVIRONMENT_ADDRESS), function: nativeContract(environmentMethods, host) },
    { address: createAddressFromString(SECP256K1_ADD_ADDRESS), function: plainPrecompile(secp256k1Add) },
    { address: createAddressFromString(SECP256K1_MUL_ADDRESS), function: plainPrecompile(secp256k1Mul) },
    { address: createAddressFromString(BLAKE2F_ADDRESS), function: plainPrecompile(blake2f) },
  ]
}
