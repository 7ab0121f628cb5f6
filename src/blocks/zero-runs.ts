/**
 * The zero-run packing of the in-memory block backend's encodings (src/blocks/memory-block-backend.ts,
 * docs/architecture.md#storage), applied before its chunks are compressed (src/blocks/block-chunks.ts).
 */

/**
 * Zero-run packing: a zero byte followed by a count (1-255) stands for that many zeros; other bytes are
 * themselves. Blooms, padded topics and leading-zero fields make a third to a half of a block's encodings zeros.
 * @returns the number of bytes written to `out` at `at` (at most `src.length` + 1 per 255 zeros)
 */
export function packZeros(src: Uint8Array, out: Uint8Array, at: number): number {
  let o = at
  for (let i = 0; i < src.length;) {
    const b = src[i]!
    if (b !== 0) {
      out[o++] = b
      i++
      continue
    }
    let run = 1
    while (run < 255 && i + run < src.length && src[i + run] === 0) run++
    out[o++] = 0
    out[o++] = run
    i += run
  }
  return o - at
}

/**
 * Reverses {@link packZeros}.
 * @param length the unpacked length
 */
export function unpackZeros(packed: Uint8Array, length: number): Uint8Array {
  const out = new Uint8Array(length)
  let o = 0
  for (let i = 0; i < packed.length;) {
    const b = packed[i++]!
    if (b !== 0) out[o++] = b
    else o += packed[i++]!
  }
  return out
}
