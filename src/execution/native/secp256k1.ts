/**
 * secp256k1 point addition (0x0000000000000000000000000000000001000016) and scalar multiplication
 * (0x…01000017), RSKIP516 (rule reed800: active from block 0 on regtest in the release the facts describe).
 * rskj J/co/rsk/pcc/secp256k1/Secp256k1Addition.java, Secp256k1Multiplication.java,
 * Secp256k1PrecompiledContract.java; J/org/ethereum/crypto/signature/Secp256k1ServiceBC.java `add`, `mul`.
 *
 * - add: input x1 ‖ y1 ‖ x2 ‖ y2 (32-byte words, missing bytes read as zero); 150 gas; max input 128 bytes.
 * - mul: input x ‖ y ‖ scalar; 3 000 gas; max input 96 bytes.
 * - (0, 0) is the point at infinity; any other pair must be on the curve with coordinates below p, else the
 *   call fails ("Invalid point coordinates"). Output: x ‖ y of the result, 64 zero bytes for infinity.
 */
import { bytesToBigInt } from '../../util/bytes.js'
import { word } from './abi.js'
import { FIELD_P, Point, type CurvePoint } from './curve.js'
import type { PlainPrecompile } from './plain-precompile.js'

/** Address of secp256k1 addition (rskj PrecompiledContracts.SECP256K1_ADD_ADDR_STR). */
export const SECP256K1_ADD_ADDRESS = '0x0000000000000000000000000000000001000016'
/** Address of secp256k1 multiplication (rskj PrecompiledContracts.SECP256K1_MUL_ADDR_STR). */
export const SECP256K1_MUL_ADDRESS = '0x0000000000000000000000000000000001000017'

/** Word `index` of `data`, right-padded with zeros (ByteUtil.parseWord). */
function parseWord(data: Uint8Array, index: number): bigint {
  const w = new Uint8Array(32)
  const start = 32 * index
  if (start < data.length) w.set(data.subarray(start, Math.min(start + 32, data.length)))
  return bytesToBigInt(w)
}

/** Secp256k1ServiceBC.getPoint: (0,0) = infinity; otherwise a validated affine point. */
function getPoint(x: bigint, y: bigint, what: string): CurvePoint {
  const P = Point()
  if (x === 0n && y === 0n) return P.ZERO
  if (x >= FIELD_P || y >= FIELD_P) throw new Error(`Invalid point coordinates for ${what}`)
  const p = P.fromAffine({ x, y })
  try {
    p.assertValidity()
  } catch {
    throw new Error(`Invalid point coordinates for ${what}`)
  }
  return p
}

/** x ‖ y of a point, 64 zero bytes for infinity (Secp256k1ServiceBC.getOutput). */
function output(p: CurvePoint): Uint8Array {
  const out = new Uint8Array(64)
  if (p.is0()) return out
  const { x, y } = p.toAffine()
  out.set(word(x), 0)
  out.set(word(y), 32)
  return out
}

/** secp256k1 addition. */
export const secp256k1Add: PlainPrecompile = {
  price: () => 150n,
  maxInput: 128,
  run: (data) => {
    const p1 = getPoint(parseWord(data, 0), parseWord(data, 1), 'first point in add operation')
    const p2 = getPoint(parseWord(data, 2), parseWord(data, 3), 'second point in add operation')
    return output(p1.add(p2))
  },
}

/** secp256k1 scalar multiplication (any 256-bit scalar; multiples of the order give infinity). */
export const secp256k1Mul: PlainPrecompile = {
  price: () => 3000n,
  maxInput: 96,
  run: (data) => {
    const p = getPoint(parseWord(data, 0), parseWord(data, 1), 'mul operation')
    const s = parseWord(data, 2)
    if (p.is0()) return output(p)
    const n = Point().CURVE().n
    const k = s % n
    return output(k === 0n ? Point().ZERO : p.multiplyUnsafe(k))
  },
}
