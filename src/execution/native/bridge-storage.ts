/**
 * Reading the Bridge's storage as the reference lays it out (rskj J/co/rsk/peg/BridgeStorageProvider.java,
 * BridgeStorageIndexKey.java, BridgeSerializationUtils.java): cells under DataWord.fromString(name) (the UTF-8 name
 * right-aligned in 32 bytes) or, per item, keccak256(name + "-" + id); numbers as RLP big integers.
 */
import { decode as rlpDecode } from '@ethereumjs/rlp'
import type { PrecompileInput } from '@ethereumjs/evm'
import { keccak256 } from '../../crypto/keccak.js'
import { dataWordFromString } from '../../rsk/remasc.js'
import { bytesToBigInt } from '../../util/bytes.js'
import { NativeContractError } from './native-contract.js'

/** Address of the Bridge (rskj PrecompiledContracts.BRIDGE_ADDR_STR). */
export const BRIDGE_ADDRESS = '0x0000000000000000000000000000000001000006'
const BRIDGE_BYTES = Uint8Array.from(Buffer.from(BRIDGE_ADDRESS.slice(2), 'hex'))

/** Raw bytes of a Bridge storage cell (empty when unset). */
export async function cell(input: PrecompileInput, key: Uint8Array): Promise<Uint8Array> {
  const sm = (
    input._EVM as unknown as { stateManager: { getStorageBytes(a: Uint8Array, k: Uint8Array): Promise<Uint8Array> } }
  ).stateManager
  return (await sm.getStorageBytes(BRIDGE_BYTES, key)) ?? new Uint8Array(0)
}

/** The cell under DataWord.fromString(name). */
export const named = (input: PrecompileInput, name: string) => cell(input, dataWordFromString(name))

/** The cell under BridgeStorageIndexKey.getCompoundKey("-", id) = keccak256(name + "-" + id). */
export const compound = (input: PrecompileInput, name: string, id: string) =>
  cell(input, keccak256(new TextEncoder().encode(`${name}-${id}`)))

/** BridgeSerializationUtils.deserializeCoin / deserializeOptionalLong: an RLP big integer. */
export function rlpNumber(bytes: Uint8Array): bigint {
  const item = rlpDecode(bytes)
  if (!(item instanceof Uint8Array)) throw new NativeContractError('malformed Bridge storage value')
  return bytesToBigInt(item)
}

/**
 * Fails when a storage structure node-cli does not decode is present.
 * @param what the structure, for the message; @param names its DataWord.fromString keys
 * @throws NativeContractError "… in the Bridge storage is not supported by node-cli"
 */
export async function bridgeStorageIsEmpty(input: PrecompileInput, what: string, ...names: string[]): Promise<void> {
  for (const n of names) {
    if ((await named(input, n)).length > 0)
      throw new NativeContractError(`${what} in the Bridge storage is not supported by node-cli`)
  }
}
