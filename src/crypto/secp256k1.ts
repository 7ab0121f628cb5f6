/**
 * Native-backed hashing and secp256k1 for the hot paths (sender recovery, tx hashing, signing).
 *
 * Uses the `keccak` and `secp256k1` npm packages (prebuilt N-API binaries); where a binary does not load,
 * falls back to the pure-JS @noble implementations that @ethereumjs uses by default, with the same results.
 * Plugged into @ethereumjs through `Common({ customCrypto })` (see docs/reference-rules.md#lib-custom-crypto).
 */
import { createRequire } from 'node:module'
import type { CustomCrypto } from '@ethereumjs/common'
import { keccak256 } from './keccak.js'

const require = createRequire(import.meta.url)

interface NativeSecp256k1 {
  ecdsaRecover(sig: Uint8Array, recid: number, msg32: Uint8Array, compressed?: boolean): Uint8Array
  ecdsaSign(msg32: Uint8Array, seckey: Uint8Array): { signature: Uint8Array; recid: number }
  publicKeyCreate(seckey: Uint8Array, compressed?: boolean): Uint8Array
}

function tryRequire<T>(name: string): T | undefined {
  try {
    return require(name) as T
  } catch {
    return undefined
  }
}

// `secp256k1` picks its native binding at require time and falls back to JS itself; we only use it when
// the native binding is the one loaded. Keccak comes from ./keccak.ts (native addon, self-tested).
// Loaded on first use, not at import: loading the addon takes ~6 ms, and start-up signs and recovers nothing
// (the dev accounts' addresses are known, see ../accounts/dev-accounts.ts).
let nativeSecpLoaded: NativeSecp256k1 | null | undefined
function nativeSecp(): NativeSecp256k1 | null {
  if (nativeSecpLoaded === undefined) nativeSecpLoaded = tryRequire<NativeSecp256k1>('secp256k1/bindings') ?? null
  return nativeSecpLoaded
}

/** Keccak-256 (re-exported for the execution layer). */
export { keccak256 }

function leftPad32(bytes: Uint8Array): Uint8Array {
  if (bytes.length === 32) return bytes
  if (bytes.length > 32) throw new Error('signature component longer than 32 bytes')
  const out = new Uint8Array(32)
  out.set(bytes, 32 - bytes.length)
  return out
}

/**
 * Recovers the 64-byte uncompressed public key (no 0x04 prefix) from a signature, like @ethereumjs/util `ecrecover`.
 * @param msgHash 32-byte message hash
 * @param v recovery value: 0/1, 27/28, or EIP-155 `chainId*2+35/36` when `chainId` is given
 * @param r,s signature components (up to 32 bytes each)
 * @param chainId EIP-155 chain id, when the signature is replay-protected
 * @throws Error on an invalid v or an unrecoverable signature
 */
export function ecrecover(msgHash: Uint8Array, v: bigint, r: Uint8Array, s: Uint8Array, chainId?: bigint): Uint8Array {
  let recovery: bigint
  if (v === 0n || v === 1n) recovery = v
  else if (chainId === undefined) recovery = v - 27n
  else recovery = v - (chainId * 2n + 35n)
  if (recovery !== 0n && recovery !== 1n) throw new Error('Invalid signature v value')
  const sig = new Uint8Array(64)
  sig.set(leftPad32(r), 0)
  sig.set(leftPad32(s), 32)
  const native = nativeSecp()
  if (native) {
    return native.ecdsaRecover(sig, Number(recovery), msgHash, false).subarray(1)
  }
  return nobleRecover(sig, Number(recovery), msgHash)
}

function nobleRecover(sig64: Uint8Array, recovery: number, msgHash: Uint8Array): Uint8Array {
  const noble = requireNoble()
  const signature = noble.Signature.fromBytes(sig64).addRecoveryBit(recovery)
  return signature.recoverPublicKey(msgHash).toBytes(false).subarray(1)
}

interface NobleSecp {
  Signature: {
    fromBytes(
      b: Uint8Array,
      format?: string,
    ): {
      addRecoveryBit(n: number): { recoverPublicKey(h: Uint8Array): { toBytes(c: boolean): Uint8Array } }
    }
  }
  sign(msg: Uint8Array, pk: Uint8Array, opts: Record<string, unknown>): Uint8Array
  getPublicKey(pk: Uint8Array, compressed?: boolean): Uint8Array
}
let noble: NobleSecp | undefined
function requireNoble(): NobleSecp {
  // @noble/curves ships with @ethereumjs/util; only loaded when the native binding is missing.
  noble ??= (require('@noble/curves/secp256k1.js') as { secp256k1: NobleSecp }).secp256k1
  return noble
}

/**
 * Signs a 32-byte hash with a private key; returns 65 bytes `recovery(1) ‖ r(32) ‖ s(32)` — the
 * "recovered" format @ethereumjs/tx expects from `customCrypto.ecsign`. Deterministic (RFC 6979), low-s.
 * @throws Error on an invalid private key
 */
export function ecsign(msgHash: Uint8Array, privateKey: Uint8Array): Uint8Array {
  const native = nativeSecp()
  if (native) {
    const { signature, recid } = native.ecdsaSign(msgHash, privateKey)
    const out = new Uint8Array(65)
    out[0] = recid
    out.set(signature, 1)
    return out
  }
  return requireNoble().sign(msgHash, privateKey, { format: 'recovered', prehash: false, extraEntropy: false })
}

/**
 * Signs a hash and returns `{ r, s, v }` with `v` = 27/28 (the `eth_sign` / personal-message convention).
 * @param msgHash 32-byte hash
 * @param privateKey 32-byte secp256k1 private key
 */
export function signHash(msgHash: Uint8Array, privateKey: Uint8Array): { r: Uint8Array; s: Uint8Array; v: number } {
  const sig = ecsign(msgHash, privateKey)
  return { r: sig.slice(1, 33), s: sig.slice(33, 65), v: 27 + sig[0]! }
}

/**
 * The 20-byte address of a private key: keccak256(uncompressed public key without prefix)[12..32].
 * @param privateKey 32-byte secp256k1 private key
 */
export function privateKeyToAddress(privateKey: Uint8Array): Uint8Array {
  const native = nativeSecp()
  const pub = native ? native.publicKeyCreate(privateKey, false) : requireNoble().getPublicKey(privateKey, false)
  return keccak256(pub.subarray(1)).slice(12)
}

/** The `customCrypto` handed to every @ethereumjs Common of this node. */
export const customCrypto: CustomCrypto = {
  keccak256,
  ecrecover,
  ecsign: ((msgHash: Uint8Array, privateKey: Uint8Array) =>
    ecsign(msgHash, privateKey)) as unknown as CustomCrypto['ecsign'],
}
