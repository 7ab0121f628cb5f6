/**
 * Message signatures of the node-held keys: eth_sign / personal_sign (the "\x19Ethereum Signed Message:\n"
 * prefix, reference EthModuleWalletEnabled.sign) and EIP-712 typed data (eth_signTypedData_v4, beyond the
 * reference). Signatures are 65 bytes r ‖ s ‖ v with v = 27/28, low-s, deterministic (RFC 6979) — what
 * ethers `verifyMessage` / `verifyTypedData` and viem accept.
 *
 * EIP-712 hashing is ethers' `TypedDataEncoder` (ethers/hash), imported on first use.
 */
import { InvalidArgumentError } from '../errors/domain-errors.js'
import { keccak256, signHash } from '../crypto/secp256k1.js'
import { concat, fromHex, toHex } from '../util/bytes.js'

/**
 * keccak256("\x19Ethereum Signed Message:\n" + byteLength(message) + message) — EIP-191 version 0x45.
 * @param message the message bytes (the length is their decimal byte count)
 */
export function personalMessageHash(message: Uint8Array): Uint8Array {
  const prefix = new TextEncoder().encode(`\x19Ethereum Signed Message:\n${message.length}`)
  return keccak256(concat(prefix, message))
}

/**
 * Signs a 32-byte digest; returns r ‖ s ‖ v (v 27/28) as 0x-hex, 65 bytes.
 * @param digest 32 bytes
 * @param privateKey 32-byte secp256k1 key
 */
export function signDigest(digest: Uint8Array, privateKey: Uint8Array): string {
  const { r, s, v } = signHash(digest, privateKey)
  return toHex(concat(r, s, Uint8Array.of(v)))
}

/**
 * eth_sign / personal_sign signature of `message`.
 * @returns 0x-hex r ‖ s ‖ v (65 bytes, v 27/28)
 */
export function signPersonalMessage(message: Uint8Array, privateKey: Uint8Array): string {
  return signDigest(personalMessageHash(message), privateKey)
}

/** One field of an EIP-712 struct type. */
interface TypedField {
  name: string
  type: string
}

/** An EIP-712 request as eth_signTypedData_v4 carries it (a JSON string or the object). */
export interface TypedData {
  types: Record<string, TypedField[]>
  primaryType?: string
  domain: Record<string, unknown>
  message: Record<string, unknown>
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v)
}

/**
 * Decodes the typed-data parameter: a JSON string (ethers, viem, MetaMask) or an object.
 * @throws InvalidArgumentError naming what is wrong (the legacy v1 array format is rejected here)
 */
export function decodeTypedData(value: unknown, index: number): TypedData {
  let v = value
  if (typeof v === 'string') {
    try {
      v = JSON.parse(v)
    } catch {
      throw new InvalidArgumentError(`invalid argument ${index}: typed data is not valid JSON`)
    }
  }
  if (Array.isArray(v))
    throw new InvalidArgumentError(
      `invalid argument ${index}: the legacy (v1) typed-data array is not supported; ` +
        'send EIP-712 {types, primaryType, domain, message}',
    )
  if (!isObject(v) || !isObject(v.types) || !isObject(v.message)) {
    throw new InvalidArgumentError(
      `invalid argument ${index}: typed data must be an object {types, primaryType, domain, message}`,
    )
  }
  for (const [name, fields] of Object.entries(v.types)) {
    if (
      !Array.isArray(fields) ||
      !fields.every((f) => isObject(f) && typeof f.name === 'string' && typeof f.type === 'string')
    ) {
      throw new InvalidArgumentError(`invalid argument ${index}: type "${name}" must be an array of {name, type}`)
    }
  }
  if (v.primaryType !== undefined && typeof v.primaryType !== 'string')
    throw new InvalidArgumentError(`invalid argument ${index}: primaryType must be a string`)
  if (v.domain !== undefined && v.domain !== null && !isObject(v.domain))
    throw new InvalidArgumentError(`invalid argument ${index}: domain must be an object`)
  return {
    types: v.types as Record<string, TypedField[]>,
    primaryType: v.primaryType as string | undefined,
    domain: (v.domain ?? {}) as Record<string, unknown>,
    message: v.message,
  }
}

type EthersHash = typeof import('ethers/hash')
let ethersHash: Promise<EthersHash> | undefined

/** The struct types `root` refers to, itself included (fields' base types, arrays stripped). */
function reachableTypes(types: Record<string, TypedField[]>, root: string): Record<string, TypedField[]> {
  const out: Record<string, TypedField[]> = {}
  const visit = (name: string) => {
    if (out[name] || !types[name]) return
    out[name] = types[name]!
    for (const f of types[name]!) visit(f.type.replace(/(\[\d*\])+$/, ''))
  }
  visit(root)
  return out
}

/**
 * The EIP-712 digest keccak256(0x19 0x01 ‖ domainSeparator ‖ hashStruct(message)). The domain separator
 * uses the request's `EIP712Domain` type when given (its field order), else the fields the domain has.
 * Types the primary type does not refer to are ignored; recursive types are not supported (ethers).
 * @throws InvalidArgumentError "invalid typed data: …" when the types or values do not encode
 */
export async function typedDataDigest(data: TypedData): Promise<Uint8Array> {
  ethersHash ??= import('ethers/hash')
  const { TypedDataEncoder } = await ethersHash
  try {
    const { EIP712Domain: domainType, ...structTypes } = data.types
    const domainHash = domainType
      ? TypedDataEncoder.hashStruct('EIP712Domain', { EIP712Domain: domainType }, data.domain)
      : TypedDataEncoder.hashDomain(data.domain as never)
    const primaryType = data.primaryType ?? TypedDataEncoder.getPrimaryType(structTypes)
    if (primaryType === 'EIP712Domain') return keccak256(concat(Uint8Array.of(0x19, 0x01), fromHex(domainHash)))
    if (!structTypes[primaryType]) throw new Error(`primaryType "${primaryType}" is not among the types`)
    const messageHash = TypedDataEncoder.from(reachableTypes(structTypes, primaryType)).hashStruct(
      primaryType,
      data.message,
    )
    return keccak256(concat(Uint8Array.of(0x19, 0x01), fromHex(domainHash), fromHex(messageHash)))
  } catch (err) {
    const msg = (err as { shortMessage?: string }).shortMessage ?? (err as Error).message
    throw new InvalidArgumentError(`invalid typed data: ${msg}`)
  }
}
