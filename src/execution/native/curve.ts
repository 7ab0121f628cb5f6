/**
 * secp256k1 points and Bitcoin hashes for the native contracts (HDWalletUtils, secp256k1 add/mul, Bridge).
 * @noble/curves (which ships with @ethereumjs/util, as src/crypto/secp256k1.ts uses it) and the @noble/hashes SHA-2,
 * RIPEMD-160 and HMAC modules are loaded on first use, not at start-up (their module set-up computes round
 * constants; start-up needs none of them).
 */
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)

type Hash = (data: Uint8Array) => Uint8Array

/** The @noble/hashes functions the native contracts use. */
export interface Hashes {
  sha256: Hash
  sha512: Hash & { outputLen: number; blockLen: number }
  ripemd160: Hash
  hmac(hash: Hashes['sha512'], key: Uint8Array, message: Uint8Array): Uint8Array
}

let loadedHashes: Hashes | undefined

/** SHA-256, SHA-512, RIPEMD-160 and HMAC from @noble/hashes (loaded once). */
export function hashes(): Hashes {
  if (loadedHashes === undefined) {
    const sha2 = require('@noble/hashes/sha2') as Pick<Hashes, 'sha256' | 'sha512'>
    loadedHashes = {
      sha256: sha2.sha256,
      sha512: sha2.sha512,
      ripemd160: (require('@noble/hashes/legacy') as Pick<Hashes, 'ripemd160'>).ripemd160,
      hmac: (require('@noble/hashes/hmac') as Pick<Hashes, 'hmac'>).hmac,
    }
  }
  return loadedHashes
}

/** SHA-256. */
export const sha256 = (data: Uint8Array): Uint8Array => hashes().sha256(data)

/** The slice of @noble/curves' secp256k1 Point the native contracts use. */
export interface CurvePoint {
  add(other: CurvePoint): CurvePoint
  multiply(scalar: bigint): CurvePoint
  multiplyUnsafe(scalar: bigint): CurvePoint
  toAffine(): { x: bigint; y: bigint }
  toBytes(compressed?: boolean): Uint8Array
  is0(): boolean
  assertValidity(): void
}

interface PointStatic {
  BASE: CurvePoint
  ZERO: CurvePoint
  fromBytes(bytes: Uint8Array): CurvePoint
  fromAffine(p: { x: bigint; y: bigint }): CurvePoint
  CURVE(): { p: bigint; n: bigint }
}

let point: PointStatic | undefined

/** @noble/curves secp256k1 Point class (loaded once). */
export function Point(): PointStatic {
  point ??= (require('@noble/curves/secp256k1.js') as { secp256k1: { Point: PointStatic } }).secp256k1.Point
  return point
}

/** secp256k1 field prime p. */
export const FIELD_P = 0xfffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2fn
/** secp256k1 group order n. */
export const ORDER_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n

/**
 * Decodes a SEC1 public key (33-byte compressed or 65-byte uncompressed).
 * @throws Error when the bytes are not a point on the curve
 */
export function decodePoint(bytes: Uint8Array): CurvePoint {
  return Point().fromBytes(bytes)
}

/** Double SHA-256 (Bitcoin's checksum and block/tx hash). */
export const sha256d = (data: Uint8Array): Uint8Array => sha256(sha256(data))

/** RIPEMD-160 of SHA-256 (Bitcoin's hash160). */
export const hash160 = (data: Uint8Array): Uint8Array => hashes().ripemd160(sha256(data))

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz'

/** Bitcoin Base58 of raw bytes (leading zero bytes become '1's). */
export function base58(bytes: Uint8Array): string {
  let n = 0n
  for (const b of bytes) n = (n << 8n) | BigInt(b)
  let out = ''
  while (n > 0n) {
    out = ALPHABET[Number(n % 58n)]! + out
    n /= 58n
  }
  for (let i = 0; i < bytes.length && bytes[i] === 0; i++) out = '1' + out
  return out
}

/** Base58Check: the payload, then the first 4 bytes of its double SHA-256. */
export function base58check(payload: Uint8Array): string {
  const out = new Uint8Array(payload.length + 4)
  out.set(payload)
  out.set(sha256d(payload).subarray(0, 4), payload.length)
  return base58(out)
}

/**
 * Decodes Base58Check.
 * @returns the payload without its checksum
 * @throws Error on a character outside the alphabet, fewer than 4 bytes, or a wrong checksum
 */
export function decodeBase58check(text: string): Uint8Array {
  let n = 0n
  for (const c of text) {
    const d = ALPHABET.indexOf(c)
    if (d < 0) throw new Error(`Illegal character ${c}`)
    n = n * 58n + BigInt(d)
  }
  const body: number[] = []
  while (n > 0n) {
    body.unshift(Number(n & 0xffn))
    n >>= 8n
  }
  let zeros = 0
  while (zeros < text.length && text[zeros] === '1') zeros++
  const bytes = Uint8Array.from([...new Array<number>(zeros).fill(0), ...body])
  if (bytes.length < 4) throw new Error('Input too short')
  const payload = bytes.subarray(0, bytes.length - 4)
  const check = sha256d(payload)
  for (let i = 0; i < 4; i++) if (check[i] !== bytes[payload.length + i]) throw new Error('Checksum does not validate')
  return payload
}
