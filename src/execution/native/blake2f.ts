/**
 * BLAKE2 F compression at 0x…09 (EIP-152 as RSKIP153, active from block 0 on regtest; rskj
 * J/org/ethereum/vm/PrecompiledContracts.java `Blake2F`), with the reference's rules:
 * - gas = the 4-byte big-endian round count; input that is not exactly 213 bytes costs 0 and fails;
 * - a final-block flag other than 0 or 1 fails (charging the rounds);
 * - a CALL passes at most 213 bytes (RSKIP516 max input), so longer input from code is cut, not refused.
 *
 * The compression (RFC 7693 §3.2, any number of rounds as EIP-152 defines it) is computed here rather than by
 * @ethereumjs, a slice of rounds at a time: a round costs 1 gas and ~0.3-0.8 µs, so the 6.8 M rounds one transaction
 * can pay for took seconds in one synchronous step; between slices the execution's deadline is checked and the
 * thread yielded as in the opcode loop (../deadline.ts, docs/reference-rules.md#rule-send-deadline).
 */
import type { PrecompileInput } from '@ethereumjs/evm'
import { executionCheckpoint } from '../deadline.js'
import type { PlainPrecompile } from './plain-precompile.js'

/** Address of BLAKE2 F. */
export const BLAKE2F_ADDRESS = '0x0000000000000000000000000000000000000009'

/** Rounds computed between two checkpoints (~5-15 ms). */
const ROUNDS_PER_SLICE = 16_384

/** BLAKE2b's initialisation vector as 32-bit (low, high) halves of its eight 64-bit words. */
const IV = Uint32Array.of(
  0xf3bcc908,
  0x6a09e667,
  0x84caa73b,
  0xbb67ae85,
  0xfe94f82b,
  0x3c6ef372,
  0x5f1d36f1,
  0xa54ff53a,
  0xade682d1,
  0x510e527f,
  0x2b3e6c1f,
  0x9b05688c,
  0xfb41bd6b,
  0x1f83d9ab,
  0x137e2179,
  0x5be0cd19,
)

/** The message word schedule of each round (RFC 7693 §2.7), round r using row r mod 10; pre-doubled (halves). */
const SIGMA = [
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
  [14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3],
  [11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4],
  [7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8],
  [9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13],
  [2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9],
  [12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11],
  [13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10],
  [6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5],
  [10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0],
].map((row) => Uint8Array.from(row, (i) => 2 * i))

/**
 * The mixing function G on the 64-bit words a, b, c, d of `v` (as indexes of their low halves) with message
 * words at `x` and `y` of `m`; 64-bit additions and rotations done on 32-bit halves.
 */
function mix(v: Uint32Array, a: number, b: number, c: number, d: number, m: Uint32Array, x: number, y: number): void {
  let lo: number, hi: number, t: number
  // a = a + b + m[x]
  lo = v[a]! + v[b]!
  hi = v[a + 1]! + v[b + 1]! + (lo >= 0x1_0000_0000 ? 1 : 0)
  lo >>>= 0
  t = lo + m[x]!
  v[a + 1] = hi + m[x + 1]! + (t >= 0x1_0000_0000 ? 1 : 0)
  v[a] = t
  // d = (d ^ a) >>> 32: swap the halves
  lo = v[d]! ^ v[a]!
  hi = v[d + 1]! ^ v[a + 1]!
  v[d] = hi
  v[d + 1] = lo
  // c = c + d
  t = v[c]! + v[d]!
  v[c + 1] = v[c + 1]! + v[d + 1]! + (t >= 0x1_0000_0000 ? 1 : 0)
  v[c] = t
  // b = (b ^ c) >>> 24
  lo = v[b]! ^ v[c]!
  hi = v[b + 1]! ^ v[c + 1]!
  v[b] = (lo >>> 24) | (hi << 8)
  v[b + 1] = (hi >>> 24) | (lo << 8)
  // a = a + b + m[y]
  lo = v[a]! + v[b]!
  hi = v[a + 1]! + v[b + 1]! + (lo >= 0x1_0000_0000 ? 1 : 0)
  lo >>>= 0
  t = lo + m[y]!
  v[a + 1] = hi + m[y + 1]! + (t >= 0x1_0000_0000 ? 1 : 0)
  v[a] = t
  // d = (d ^ a) >>> 16
  lo = v[d]! ^ v[a]!
  hi = v[d + 1]! ^ v[a + 1]!
  v[d] = (lo >>> 16) | (hi << 16)
  v[d + 1] = (hi >>> 16) | (lo << 16)
  // c = c + d
  t = v[c]! + v[d]!
  v[c + 1] = v[c + 1]! + v[d + 1]! + (t >= 0x1_0000_0000 ? 1 : 0)
  v[c] = t
  // b = (b ^ c) >>> 63, i.e. rotated left by 1
  lo = v[b]! ^ v[c]!
  hi = v[b + 1]! ^ v[c + 1]!
  v[b] = (lo << 1) | (hi >>> 31)
  v[b + 1] = (hi << 1) | (lo >>> 31)
}

/** Reads `n` little-endian 32-bit halves from `data` at `at`. */
function halves(data: Uint8Array, at: number, n: number): Uint32Array {
  const out = new Uint32Array(n)
  const view = new DataView(data.buffer, data.byteOffset + at, 4 * n)
  for (let i = 0; i < n; i++) out[i] = view.getUint32(4 * i, true)
  return out
}

/**
 * The F compression of an EIP-152 input (213 bytes: rounds, h, m, t, f; already checked).
 * @param checkpoint awaited between slices of rounds (it may throw to stop the execution)
 * @returns the new state h (64 bytes)
 */
export async function compress(data: Uint8Array, checkpoint: () => Promise<void> | undefined): Promise<Uint8Array> {
  const rounds = new DataView(data.buffer, data.byteOffset, 4).getUint32(0)
  const h = halves(data, 4, 16)
  const m = halves(data, 68, 32)
  const t = halves(data, 196, 4)
  const v = new Uint32Array(32)
  v.set(h, 0)
  v.set(IV, 16)
  for (let i = 0; i < 4; i++) v[24 + i]! ^= t[i]!
  if (data[212] === 1) {
    v[28] = ~v[28]!
    v[29] = ~v[29]!
  }
  for (let r = 0; r < rounds; r++) {
    const s = SIGMA[r % 10]!
    mix(v, 0, 8, 16, 24, m, s[0]!, s[1]!)
    mix(v, 2, 10, 18, 26, m, s[2]!, s[3]!)
    mix(v, 4, 12, 20, 28, m, s[4]!, s[5]!)
    mix(v, 6, 14, 22, 30, m, s[6]!, s[7]!)
    mix(v, 0, 10, 20, 30, m, s[8]!, s[9]!)
    mix(v, 2, 12, 22, 24, m, s[10]!, s[11]!)
    mix(v, 4, 14, 16, 26, m, s[12]!, s[13]!)
    mix(v, 6, 8, 18, 28, m, s[14]!, s[15]!)
    if ((r + 1) % ROUNDS_PER_SLICE === 0) {
      const pause = checkpoint()
      if (pause !== undefined) await pause
    }
  }
  for (let i = 0; i < 16; i++) h[i] = h[i]! ^ v[i]! ^ v[i + 16]!
  const out = new Uint8Array(64)
  const view = new DataView(out.buffer)
  for (let i = 0; i < 16; i++) view.setUint32(4 * i, h[i]!, true)
  return out
}

/** BLAKE2 F as the reference prices and validates it. */
export const blake2f: PlainPrecompile = {
  price: (data) => (data.length === 213 ? BigInt(new DataView(data.buffer, data.byteOffset, 4).getUint32(0)) : 0n),
  maxInput: 213,
  run: async (data, input: PrecompileInput) => {
    if (data.length !== 213) throw new Error('input length for BLAKE2 F precompile should be exactly 213 bytes')
    if (data[212] !== 0 && data[212] !== 1) throw new Error('incorrect final block indicator flag')
    return compress(data, () => executionCheckpoint(input._EVM))
  },
}
