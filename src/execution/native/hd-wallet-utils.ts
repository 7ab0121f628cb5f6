/**
 * The HDWalletUtils native contract at 0x0000000000000000000000000000000001000009 (RSKIP106, active from block 0
 * on regtest). rskj J/co/rsk/pcc/bto/HDWalletUtils.java, HDWalletUtilsHelper.java, ToBase58Check.java,
 * DeriveExtendedPublicKey.java, ExtractPublicKeyFromExtendedPublicKey.java, GetMultisigScriptHash.java; keys as
 * bitcoinj's DeterministicKey (de)serializes them (BIP-32 public derivation).
 *
 * | method | gas | result |
 * |---|---|---|
 * | toBase58Check(bytes hash160, int256 version) → string | 13 000 | Base58Check(version ‖ hash) |
 * | deriveExtendedPublicKey(string xpub, string path) → string | 107 000 | the xpub/tpub of the child at `path` |
 * | extractPublicKeyFromExtendedPublicKey(string xpub) → bytes | 11 300 | 33-byte compressed public key |
 * | getMultisigScriptHash(int256 m, bytes[] keys) → bytes | 20 000 + 700/key past 2 | hash160 of the redeem script |
 *
 * Failures (the call fails, its price charged; see ./native-contract.ts): a hash that is not 20 bytes, a version
 * outside 0-255; an xpub not starting with "xpub"/"tpub", with a bad checksum, header or length, or whose key is
 * not on the curve; a path that is empty, does not start and end with a digit, has a part that is not a
 * non-negative 32-bit decimal (no hardening, no "m/"), or more than 10 parts; m ≤ 0, fewer than 2 keys, fewer keys
 * than m, more than 15 keys, a key that is not 33/65 bytes or not on the curve.
 */
import { bytesToBigInt, concat } from '../../util/bytes.js'
import { encodeBytes, encodeString, type ArgReader } from './abi.js'
import {
  base58check,
  decodeBase58check,
  decodePoint,
  hash160,
  hashes,
  ORDER_N,
  Point,
  type CurvePoint,
} from './curve.js'
import { NativeContractError, type NativeMethod } from './native-contract.js'

/** Address of the HDWalletUtils contract (rskj PrecompiledContracts.HD_WALLET_UTILS_ADDR_STR). */
export const HD_WALLET_UTILS_ADDRESS = '0x0000000000000000000000000000000001000009'

/** BIP-32 public-key version headers: mainnet "xpub", testnet "tpub" (bitcoinj MainNetParams/TestNet3Params). */
const XPUB = 0x0488b21e
const TPUB = 0x043587cf

/** A deserialized extended public key (bitcoinj DeterministicKey, public). */
interface ExtendedKey {
  version: number
  depth: number
  fingerprint: Uint8Array
  index: number
  chainCode: Uint8Array
  /** 33 bytes as serialized (decoded lazily, as bitcoinj's LazyECPoint). */
  key: Uint8Array
}

/**
 * HDWalletUtilsHelper.validateAndExtractNetworkFromExtendedPublicKey + DeterministicKey.deserializeB58.
 * @throws NativeContractError "Invalid extended public key '…'" (the reference trims and, for long keys,
 *   abbreviates the key in its log message; only the failure is visible on chain)
 */
function parseXpub(xpub: string): ExtendedKey {
  const invalid = () => new NativeContractError(`Invalid extended public key '${xpub.trim()}'`)
  const version = xpub.startsWith('xpub') ? XPUB : xpub.startsWith('tpub') ? TPUB : undefined
  if (version === undefined) throw invalid()
  let raw: Uint8Array
  try {
    raw = decodeBase58check(xpub)
  } catch {
    throw invalid()
  }
  const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength)
  if (raw.length !== 78 || view.getUint32(0) !== version) throw invalid()
  return {
    version,
    depth: raw[4]!,
    fingerprint: raw.slice(5, 9),
    index: view.getUint32(9),
    chainCode: raw.slice(13, 45),
    key: raw.slice(45, 78),
  }
}

/** The key's point. @throws NativeContractError when the 33 bytes are not a compressed point on the curve */
function keyPoint(k: ExtendedKey, xpub: string): CurvePoint {
  try {
    if (k.key[0] !== 2 && k.key[0] !== 3) throw new Error('not a compressed key')
    return decodePoint(k.key)
  } catch {
    throw new NativeContractError(`Invalid extended public key '${xpub.trim()}'`)
  }
}

/** bitcoinj DeterministicKey.serializePubB58. */
function serializeXpub(k: ExtendedKey): string {
  const out = new Uint8Array(78)
  const view = new DataView(out.buffer)
  view.setUint32(0, k.version)
  out[4] = k.depth & 0xff
  out.set(k.fingerprint, 5)
  view.setUint32(9, k.index)
  out.set(k.chainCode, 13)
  out.set(k.key, 45)
  return base58check(out)
}

/** BIP-32 CKDpub (bitcoinj HDKeyDerivation.deriveChildKey on a public key, non-hardened index). */
function deriveChild(
  parent: ExtendedKey,
  parentPoint: CurvePoint,
  index: number,
): { key: ExtendedKey; point: CurvePoint } {
  const data = new Uint8Array(37)
  data.set(parent.key)
  new DataView(data.buffer).setUint32(33, index)
  const h = hashes()
  const i = h.hmac(h.sha512, parent.chainCode, data)
  const il = bytesToBigInt(i.subarray(0, 32))
  const point = il === 0n ? parentPoint : Point().BASE.multiply(il).add(parentPoint)
  // (HDDerivationException in the reference: astronomically rare)
  if (il >= ORDER_N || point.is0()) throw new NativeContractError('Illegal derived key')
  const key = point.toBytes(true)
  return {
    key: {
      version: parent.version,
      depth: parent.depth + 1,
      fingerprint: hash160(parent.key).slice(0, 4),
      index,
      chainCode: i.slice(32),
      key,
    },
    point,
  }
}

/** Java Integer.parseInt(s) ≥ 0 (optional sign, decimal digits, 32-bit range). */
function javaNonNegativeInt(s: string): number | undefined {
  if (!/^[+-]?[0-9]+$/.test(s)) return undefined
  const v = Number.parseInt(s, 10)
  if (v > 0x7fffffff || v < -0x80000000 || v < 0) return undefined
  return v === 0 ? 0 : v
}

const toBase58Check: NativeMethod<{ hash: Uint8Array; version: bigint }> = {
  signature: 'toBase58Check(bytes,int256)',
  decode: (r: ArgReader) => ({ hash: r.bytes(0), version: r.int(1) }),
  gas: () => 13_000n,
  execute: ({ args: { hash, version } }) => {
    if (hash.length !== 20) {
      throw new NativeContractError(
        `Invalid hash160 '${Buffer.from(hash).toString('hex')}' (should be 20 bytes and is ${hash.length} bytes)`,
      )
    }
    if (version < 0n || version >= 256n)
      throw new NativeContractError('version must be a numeric value between 0 and 255')
    return encodeString(base58check(concat(Uint8Array.of(Number(version)), hash)))
  },
}

const deriveExtendedPublicKey: NativeMethod<{ xpub: string; path: string }> = {
  signature: 'deriveExtendedPublicKey(string,string)',
  decode: (r: ArgReader) => ({ xpub: r.string(0), path: r.string(1) }),
  gas: () => 107_000n,
  execute: ({ args: { xpub, path } }) => {
    const parent = parseXpub(xpub)
    const invalidPath = () => new NativeContractError(`Invalid path '${path.trim()}'`)
    if (
      path.length === 0 ||
      javaNonNegativeInt(path[0]!) === undefined ||
      javaNonNegativeInt(path[path.length - 1]!) === undefined
    ) {
      throw invalidPath()
    }
    const parts = path.split('/')
    if (parts.length > 10) throw new NativeContractError('Path should contain 10 levels at most')
    const indexes = parts.map(javaNonNegativeInt)
    if (indexes.some((i) => i === undefined)) throw invalidPath()
    let key = parent
    let point = keyPoint(parent, xpub)
    for (const index of indexes as number[]) ({ key, point } = deriveChild(key, point, index))
    return encodeString(serializeXpub(key))
  },
}

const extractPublicKeyFromExtendedPublicKey: NativeMethod<{ xpub: string }> = {
  signature: 'extractPublicKeyFromExtendedPublicKey(string)',
  decode: (r: ArgReader) => ({ xpub: r.string(0) }),
  gas: () => 11_300n,
  execute: ({ args: { xpub } }) => {
    const k = parseXpub(xpub)
    return encodeBytes(keyPoint(k, xpub).toBytes(true))
  },
}

/** Bitcoin m-of-n multisig redeem script over compressed keys sorted by bytes (bitcoinj createRedeemScript). */
export function multisigRedeemScript(m: number, keys: Uint8Array[]): Uint8Array {
  const sorted = [...keys].sort((a, b) => Buffer.compare(a, b))
  const parts: Uint8Array[] = [Uint8Array.of(smallNumberOp(m))]
  for (const k of sorted) parts.push(Uint8Array.of(k.length), k)
  parts.push(Uint8Array.of(smallNumberOp(keys.length), 0xae)) // OP_CHECKMULTISIG
  return concat(...parts)
}

/** OP_0 / OP_1..OP_16 for 0-16. */
function smallNumberOp(n: number): number {
  return n === 0 ? 0x00 : 0x50 + n
}

const getMultisigScriptHash: NativeMethod<{ m: bigint; keys: Uint8Array[] }> = {
  signature: 'getMultisigScriptHash(int256,bytes[])',
  decode: (r: ArgReader) => ({ m: r.int(0), keys: r.bytesArray(1) }),
  gas: ({ keys }) => (keys.length < 2 ? 20_000n : 20_000n + BigInt(keys.length - 2) * 700n),
  execute: ({ args: { m, keys } }) => {
    if (m <= 0n) throw new NativeContractError('Minimum required signatures must be present and greater than zero')
    if (keys.length < 2) throw new NativeContractError('At least 2 public keys are required')
    if (BigInt(keys.length) < m) {
      throw new NativeContractError(
        `Given public keys (${keys.length}) are less than the minimum required signatures (${m})`,
      )
    }
    if (keys.length > 15) {
      throw new NativeContractError(
        `Given public keys (${keys.length}) are more than the maximum allowed signatures (15)`,
      )
    }
    const compressed = keys.map((k) => {
      if (k.length !== 33 && k.length !== 65) throw new NativeContractError(`Invalid public key length: ${k.length}`)
      try {
        return decodePoint(k).toBytes(true)
      } catch {
        throw new NativeContractError(`Invalid public key format: ${Buffer.from(k).toString('hex')}`)
      }
    })
    return encodeBytes(hash160(multisigRedeemScript(Number(m), compressed)))
  },
}

/** The HDWalletUtils contract's methods, in rskj's order. */
export const hdWalletUtilsMethods: NativeMethod<any>[] = [
  toBase58Check,
  deriveExtendedPublicKey,
  extractPublicKeyFromExtendedPublicKey,
  getMultisigScriptHash,
]
