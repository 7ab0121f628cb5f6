/**
 * The Environment native contract at 0x0000000000000000000000000000000001000011 (RSKIP203, active from block 0
 * on regtest; rskj J/co/rsk/pcc/environment/Environment.java, GetCallStackDepth.java).
 *
 * `getCallStackDepth() returns (uint32)`: the call depth of the caller plus one, at least 1 (a transaction sent
 * straight to the contract answers 1; a contract called by a transaction that calls Environment answers 1; each
 * further nested CALL adds one), as one ABI word. Gas 0. No default method: empty call data fails.
 *
 * Checked against rskj ARROWHEAD-6.0.0 (the first release with the contract), REED-8.1.0, VETIVER-9.0.3 and
 * master of mid-2026: all declare the output `uint32` and return `getCallDeep() + 1` as an integer. The form
 * declaring `bytes` and returning `ByteUtil.intToBytes(depth)` (4 bytes, ABI `bytes`: offset, length 4, the
 * bytes padded) existed only in pre-release commits of November 2023 and was never shipped: not followed here.
 */
import { encodeUint } from './abi.js'
import type { NativeMethod } from './native-contract.js'

/** Address of the Environment contract (rskj PrecompiledContracts.ENVIRONMENT_ADDR_STR). */
export const ENVIRONMENT_ADDRESS = '0x0000000000000000000000000000000001000011'

/**
 * getCallStackDepth: rskj `programInvoke.getCallDeep() + 1` (1 without a calling program). The precompile's
 * own @ethereumjs message depth is the calling program's depth + 1, and 0 for a transaction or eth_call to it.
 */
const getCallStackDepth: NativeMethod<void> = {
  signature: 'getCallStackDepth()',
  gas: () => 0n,
  execute: ({ depth }) => encodeUint(BigInt(Math.max(depth, 1))),
}

/** The Environment contract's methods. */
export const environmentMethods: NativeMethod<any>[] = [getCallStackDepth]
