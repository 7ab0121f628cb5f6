/**
 * Deterministic pseudo-random integers for tests that try many generated inputs (xorshift32): a failure replays
 * with the same seed.
 * @param seed a 32-bit integer (0, which xorshift would never leave, stands for a fixed non-zero seed)
 * @returns a function giving an integer in [0, n) for each call
 */
export function seededRandom(seed: number): (n: number) => number {
  let x = seed | 0 || 0x2545f491
  return (n) => {
    x ^= x << 13
    x ^= x >>> 17
    x ^= x << 5
    return (x >>> 0) % n
  }
}
