/**
 * Byte/hex helpers used across the node (Buffer-backed for speed).
 * QUANTITY = minimal `0x` hex of a non-negative integer; DATA = `0x` hex of bytes
 * (docs/reference-rules.md#rule-encoding).
 */

/** `0x`-prefixed lowercase hex of bytes (DATA). */
export function toHex(bytes: Uint8Array): string {
  return '0x' + toKey(bytes)
}

/** Scratch for hex-encoding short arrays (see {@link toKey}). */
const HEX_SCRATCH = Buffer.allocUnsafeSlow(64)

/**
 * Lowercase hex of bytes without prefix (map keys). Short arrays (hashes, addresses, keys) are copied into a
 * scratch Buffer first: wrapping them (`bytes.buffer`) would make V8 move a small typed array's bytes off the
 * heap into a separately allocated ArrayBuffer (~170 B more per array, for the life of the array), and nearly
 * every stored hash and address gets hex-encoded at some point (memory per mined transaction).
 */
export function toKey(bytes: Uint8Array): string {
  const n = bytes.length
  if (n > 64) return Buffer.from(bytes.buffer, bytes.byteOffset, n).toString('hex')
  HEX_SCRATCH.set(bytes)
  return HEX_SCRATCH.toString('hex', 0, n)
}

/** Minimal `0x` hex of a non-negative integer (QUANTITY): 0 → "0x0". */
export function quantity(value: bigint | number): string {
  return '0x' + value.toString(16)
}

/**
 * Bytes of an even-length hex string with or without `0x` (caller validates). The result owns its memory:
 * `Buffer.from(hex)` would hand out a view into Node's shared 8 KB allocation pool, and anything the chain
 * keeps (a transaction's fields are views into its decoded bytes) would pin a whole pool slab.
 */
export function fromHex(hex: string): Uint8Array {
  const s = hex.startsWith('0x') || hex.startsWith('0X') ? hex.slice(2) : hex
  const out = new Uint8Array((s.length + 1) >>> 1)
  const even = s.length % 2 ? '0' + s : s
  if (out.length <= HEX_SCRATCH.length) {
    // through the scratch Buffer: wrapping `out.buffer` would move a small array's bytes off the heap (see toKey)
    const written = HEX_SCRATCH.write(even, 'hex')
    for (let i = 0; i < written; i++) out[i] = HEX_SCRATCH[i]!
  } else Buffer.from(out.buffer).write(even, 'hex')
  return out
}

/** Big-endian unsigned integer of bytes (empty → 0n). */
export function bytesToBigInt(bytes: Uint8Array): bigint {
  if (bytes.length === 0) return 0n
  return BigInt('0x' + toKey(bytes))
}

/** Minimal big-endian bytes of a non-negative integer (0 → empty). */
export function bigIntToBytes(value: bigint): Uint8Array {
  if (value === 0n) return new Uint8Array(0)
  return fromHex(value.toString(16))
}

/** Left-pads bytes with zeros to `length` (no-op when already that long or longer). */
export function padLeft(bytes: Uint8Array, length: number): Uint8Array {
  if (bytes.length >= length) return bytes
  const out = new Uint8Array(length)
  out.set(bytes, length - bytes.length)
  return out
}

/** Byte-wise equality. */
export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a === b) return true
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

/** Concatenates byte arrays. */
export function concat(...parts: Uint8Array[]): Uint8Array {
  let n = 0
  for (const p of parts) n += p.length
  const out = new Uint8Array(n)
  let o = 0
  for (const p of parts) {
    out.set(p, o)
    o += p.length
  }
  return out
}

/** 32 zero bytes. */
export const ZERO_HASH = new Uint8Array(32)

/** 20 zero bytes. */
export const ZERO_ADDRESS = new Uint8Array(20)

/** Allocates `n` bytes (see {@link tempBytes}). */
export type Allocator = (n: number) => Uint8Array

/** A zero-filled array of its own: for values that are kept. */
export const heapBytes: Allocator = (n) => new Uint8Array(n)

/**
 * `n` bytes for a short-lived value (encoded only to be hashed, copied or written out), NOT zero-filled.
 * V8 gives every typed array over 64 bytes a backing store of its own, allocated and later swept outside the
 * JS heap: ~2.5 µs each on the 2-core bench machine, and an automined transfer made ~58 of them
 * (docs/architecture.md#performance-rules). From 65 bytes to 4 KB this returns a view on Node's shared Buffer pool
 * instead (no allocation of its own). Never keep the result: a kept view pins its 8 KB pool slab.
 */
export const tempBytes: Allocator = (n) => {
  if (n <= 64 || n >= 4096) return new Uint8Array(n)
  const b = Buffer.allocUnsafe(n)
  return new Uint8Array(b.buffer, b.byteOffset, n)
}

/**
 * Position of the last occurrence of the byte string `needle` in `hay`, or -1 when it does not occur (used to find
 * the `RSKBLOCK:` tag in a merged-mining coinbase, docs/reference-rules.md#rule-hash-for-merged-mining).
 */
export function lastIndexOf(hay: Uint8Array, needle: Uint8Array): number {
  outer: for (let i = hay.length - needle.length; i >= 0; i--) {
    for (let j = 0; j < needle.length; j++) if (hay[i + j] !== needle[j]) continue outer
    return i
  }
  return -1
}
