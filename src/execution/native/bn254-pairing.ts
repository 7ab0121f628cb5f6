/**
 * The bn254 pairing check (0x08, EIP-197) computed a few pairs at a time, so that one call with many pairs stops at
 * the execution's deadline and yields the thread like the opcode loop does (../deadline.ts,
 * docs/reference-rules.md#rule-send-deadline): in JavaScript a pair costs ~15-25 ms (its G2 subgroup check and Miller
 * loop), so the ~200 pairs a 6.8 M-gas transaction can pay for took seconds in one synchronous step before.
 *
 * The result is the one @ethereumjs' own pairing precompile answers (same @noble/curves arithmetic, same input
 * checks): the product of the pairs' Miller loops, final-exponentiated once, compared with one. Miller loops of
 * chunks multiply into the same product, and the final exponentiation is applied to the whole of it.
 *
 * The curve is imported on the first pairing: building it at start-up costs milliseconds and touches WebCrypto
 * (the CLI's bundle defers @ethereumjs' own import of it likewise, scripts/bundle.mjs).
 */
import type { bn254 as Bn254 } from '@noble/curves/bn254.js'
import type { PrecompileInput } from '@ethereumjs/evm'
import { executionCheckpoint } from '../deadline.js'

type Curve = typeof Bn254
type G1 = InstanceType<Curve['G1']['Point']>
type G2 = InstanceType<Curve['G2']['Point']>

let curve: Curve | undefined

/** The bn254 curve of @noble/curves, imported on first use. */
async function loadCurve(): Promise<Curve> {
  curve ??= (await import('@noble/curves/bn254.js')).bn254
  return curve
}

/** Bytes of one (G1, G2) pair of the input. */
const PAIR_BYTES = 192
/** Pairs whose Miller loops are computed between two checkpoints (~30-50 ms; larger batches save little). */
const PAIRS_PER_STEP = 2

function isZero(b: Uint8Array): boolean {
  for (let i = 0; i < b.length; i++) if (b[i] !== 0) return false
  return true
}

function word(b: Uint8Array, at: number): bigint {
  return BigInt('0x' + Buffer.from(b.buffer, b.byteOffset + at, 32).toString('hex'))
}

/**
 * A G1 point from 64 bytes (x, y big-endian); all zeros is the point at infinity.
 * @throws Error when it is not a point of the curve (coordinates ≥ p included)
 */
function g1At(bn254: Curve, b: Uint8Array): G1 {
  if (isZero(b)) return bn254.G1.Point.ZERO
  const p = bn254.G1.Point.fromAffine({ x: word(b, 0), y: word(b, 32) })
  p.assertValidity()
  return p
}

/**
 * A G2 point from 128 bytes (x imaginary, x real, y imaginary, y real; big-endian); all zeros is the point at
 * infinity.
 * @throws Error when a coordinate is ≥ p, or the point is off the twist or outside the prime-order subgroup
 */
function g2At(bn254: Curve, b: Uint8Array): G2 {
  if (isZero(b)) return bn254.G2.Point.ZERO
  const { Fp, Fp2 } = bn254.fields
  const [xi, xr, yi, yr] = [word(b, 0), word(b, 32), word(b, 64), word(b, 96)]
  for (const c of [xi, xr, yi, yr]) if (c >= Fp.ORDER) throw new Error('bn254: coordinate not in the field')
  const p = bn254.G2.Point.fromAffine({ x: Fp2.fromBigTuple([xr, xi]), y: Fp2.fromBigTuple([yr, yi]) })
  p.assertValidity()
  return p
}

/**
 * The pairing check of `data` (k pairs of 192 bytes; the caller has checked the length is a multiple of 192).
 * @param input the precompile's input (its `_EVM` carries the execution's deadline)
 * @returns 32 bytes: 1 when the product of the pairings is one, else 0
 * @throws Error on an invalid point (the call fails); ExecutionTimeoutError (-32011) past the deadline
 */
export async function pairingCheck(data: Uint8Array, input: PrecompileInput): Promise<Uint8Array> {
  const bn254 = await loadCurve()
  const { Fp12 } = bn254.fields
  let product = Fp12.ONE
  const pairs = data.length / PAIR_BYTES
  for (let first = 0; first < pairs; first += PAIRS_PER_STEP) {
    const step: { g1: G1; g2: G2 }[] = []
    for (let k = first; k < Math.min(first + PAIRS_PER_STEP, pairs); k++) {
      const at = k * PAIR_BYTES
      const p = g1At(bn254, data.subarray(at, at + 64))
      const q = g2At(bn254, data.subarray(at + 64, at + PAIR_BYTES))
      // a pair with the point at infinity contributes one
      if (!p.equals(bn254.G1.Point.ZERO) && !q.equals(bn254.G2.Point.ZERO)) step.push({ g1: p, g2: q })
    }
    if (step.length > 0) product = Fp12.mul(product, bn254.pairingBatch(step, false))
    const pause = executionCheckpoint(input._EVM)
    if (pause !== undefined) await pause
  }
  const out = new Uint8Array(32)
  if (Fp12.eql(Fp12.finalExponentiate(product), Fp12.ONE)) out[31] = 1
  return out
}
