/**
 * Hex text ↔ bytes straight into and out of preallocated buffers, for bulk work (state files: millions of
 * storage words) where fromHex/toHex (./bytes.ts) would make an intermediate string or array per value.
 * Decoding checks every character (either case) and reports a bad one by its result instead of throwing, so the
 * caller can name the field; encoding writes lowercase ASCII.
 */
/** Value of each ASCII code as a hex digit, −1 when it is none. */
const NIBBLE = new Int8Array(128).fill(-1)
for (let c = 0; c < 10; c++) NIBBLE[0x30 + c] = c
for (let c = 0; c < 6; c++) {
  NIBBLE[0x41 + c] = 10 + c
  NIBBLE[0x61 + c] = 10 + c
}
/** ASCII of each lowercase hex digit. */
const DIGIT = new Uint8Array([...'0123456789abcdef'].map((c) => c.charCodeAt(0)))

/** The digit's value, or −1 (`c` is a UTF-16 code unit). */
function nibble(c: number): number {
  return c < 128 ? NIBBLE[c]! : -1
}

/** Whether `text` starts with `0x` (or `0X`). */
export function hasHexPrefix(text: string): boolean {
  return text.length >= 2 && text.charCodeAt(0) === 0x30 && (text.charCodeAt(1) | 0x20) === 0x78
}

/**
 * Decodes `0x`-prefixed hex bytes (an even number of digits, either case; `0x` alone is no bytes) into
 * `out` from `at` on.
 * @param out must have room for (text.length − 2) / 2 bytes from `at`
 * @returns the number of bytes written, or −1 when `text` has no `0x`, an odd number of digits or a
 *   non-hex character (out may then be partly written)
 */
export function decodeHexInto(text: string, out: Uint8Array, at: number): number {
  const n = text.length - 2
  if (n < 0 || (n & 1) !== 0 || !hasHexPrefix(text)) return -1
  for (let i = 2, p = at; i < text.length; i += 2, p++) {
    const hi = nibble(text.charCodeAt(i))
    const lo = nibble(text.charCodeAt(i + 1))
    if ((hi | lo) < 0) return -1
    out[p] = (hi << 4) | lo
  }
  return n >> 1
}

/**
 * Decodes a `0x`-prefixed hex word of 1 to 64 digits (either case; an odd count is a leading zero nibble) as a
 * 32-byte big-endian word into out[at, at + 32), left-padded with zeros.
 * @returns false when `text` is not such a word (out may then be partly written)
 */
export function decodeHexWordInto(text: string, out: Uint8Array, at: number): boolean {
  const digits = text.length - 2
  if (digits < 1 || digits > 64 || !hasHexPrefix(text)) return false
  // digits right-aligned in 64 nibbles: nibble k of the word is digit k − (64 − digits)
  const skip = 64 - digits
  const full = skip >> 1
  for (let p = at; p < at + full; p++) out[p] = 0
  let i = 2
  let p = at + full
  if (skip & 1) {
    const lo = nibble(text.charCodeAt(i++))
    if (lo < 0) return false
    out[p++] = lo
  }
  for (; i < text.length; i += 2, p++) {
    const hi = nibble(text.charCodeAt(i))
    const lo = nibble(text.charCodeAt(i + 1))
    if ((hi | lo) < 0) return false
    out[p] = (hi << 4) | lo
  }
  return true
}

/**
 * Writes bytes [from, to) of `bytes` as lowercase hex ASCII (no prefix) into `out` from `at` on.
 * @param out must have room for 2 × (to − from) bytes from `at`
 * @returns the position after the last digit written
 */
export function encodeHexInto(bytes: Uint8Array, from: number, to: number, out: Uint8Array, at: number): number {
  let p = at
  for (let i = from; i < to; i++) {
    const b = bytes[i]!
    out[p++] = DIGIT[b >> 4]!
    out[p++] = DIGIT[b & 15]!
  }
  return p
}
