/**
 * The byte-level pieces of the Unitrie node serialization (RSKIP107, docs/reference-rules.md#rule-unitrie-node):
 * node flags and size limits, bit strings (keys expanded to one bit per element, packed MSB-first), the
 * CompactSize VarInt and the shared-path encoding. The node message itself is written in
 * src/unitrie/unitrie-node.ts (and src/unitrie/unitrie-bulk.ts) and read in src/unitrie/node-message.ts.
 *
 * Reference sources (rskj master, paths under rskj-core/src/main/java/): co/rsk/trie/Trie.java (limits, flags),
 * co/rsk/trie/PathEncoder.java, co/rsk/trie/TrieKeySlice.java, co/rsk/trie/SharedPathSerializer.java.
 */

// ---------------------------------------------------------------------------------------------
// Constants (Trie.java)
// ---------------------------------------------------------------------------------------------

/**
 * A terminal child whose message is at most this many bytes is embedded in its parent (Trie.java
 * MAX_EMBEDDED_NODE_SIZE_IN_BYTES).
 */
export const MAX_EMBEDDED_NODE_SIZE = 44
/** Values longer than this are stored out of the node as keccak(value) ‖ uint24 length (Trie.hasLongValue). */
export const MAX_SHORT_VALUE_LENGTH = 32
/** Largest value length representable (Uint24). */
export const MAX_VALUE_LENGTH = 0xffffff

/**
 * RSKIP107 node flags (see TrieNode.message in src/unitrie/unitrie-node.ts): version, long value, shared path,
 * children, embedded children.
 */
export const FLAG_VERSION = 0b0100_0000
export const FLAG_LONG_VALUE = 0b0010_0000
export const FLAG_SHARED_PATH = 0b0001_0000
export const FLAG_LEFT = 0b0000_1000
export const FLAG_RIGHT = 0b0000_0100
export const FLAG_LEFT_EMBEDDED = 0b0000_0010
export const FLAG_RIGHT_EMBEDDED = 0b0000_0001

/**
 * Sizes in the RSKIP107 node message (TrieNode.message in src/unitrie/unitrie-node.ts, read back by
 * src/unitrie/node-message.ts): the flags byte, a child or long value kept by hash (keccak256), an embedded child's
 * length prefix, and a long value written as its hash and its length (uint24 big-endian).
 */
export const FLAGS_SIZE = 1
export const HASH_SIZE = 32
export const EMBEDDED_LENGTH_SIZE = 1
export const LONG_VALUE_LENGTH_SIZE = 3
/** Bytes a long value takes in its node's message: keccak256(value) ‖ uint24 length. */
export const LONG_VALUE_SIZE = HASH_SIZE + LONG_VALUE_LENGTH_SIZE
/**
 * The first byte of a pre-RSKIP107 ("Orchid") message, the trie's arity: the reference reads such a message with its
 * older decoder (Trie.fromMessage: `message[0] == ARITY`); this node rejects it.
 */
export const ORCHID_FIRST_BYTE = 2

/**
 * Shared-path length prefixes (SharedPathSerializer.java): one byte for a path of 1..32 bits (bits − 1) or of
 * 160..382 bits (bits − 128), else {@link PATH_VARINT_MARKER} followed by a VarInt of the bits.
 */
export const PATH_SHORT_MAX_BITS = 32
export const PATH_LONG_MIN_BITS = 160
export const PATH_LONG_MAX_BITS = 382
export const PATH_LONG_OFFSET = 128
export const PATH_VARINT_MARKER = 0xff

/** The empty bit string (a node with no shared path). */
export const EMPTY_BITS: Uint8Array = new Uint8Array(0)

// ---------------------------------------------------------------------------------------------
// Bits helpers (PathEncoder.java / TrieKeySlice.java)
// ---------------------------------------------------------------------------------------------

/** Expand bytes to a bit string, one 0/1 per array element, first bit = MSB of byte 0. */
export function bytesToBits(key: Uint8Array): Uint8Array {
  const bits = new Uint8Array(key.length * 8)
  for (let i = 0; i < key.length; i++) {
    const b = key[i]!
    const o = i * 8
    bits[o] = (b >> 7) & 1
    bits[o + 1] = (b >> 6) & 1
    bits[o + 2] = (b >> 5) & 1
    bits[o + 3] = (b >> 4) & 1
    bits[o + 4] = (b >> 3) & 1
    bits[o + 5] = (b >> 2) & 1
    bits[o + 6] = (b >> 1) & 1
    bits[o + 7] = b & 1
  }
  return bits
}

/** Pack a bit string MSB-first into ceil(n/8) bytes, zero padded (PathEncoder.encodeBinaryPath). */
export function bitsToBytes(bits: Uint8Array): Uint8Array {
  const out = new Uint8Array((bits.length + 7) >> 3)
  for (let k = 0; k < bits.length; k++) {
    if (bits[k]) out[k >> 3]! |= 0x80 >> (k & 7)
  }
  return out
}

/** The `bitLength` bits packed MSB-first in `src` from byte `offset`, one bit per element. */
export function unpackBits(src: Uint8Array, offset: number, bitLength: number): Uint8Array {
  const bits = new Uint8Array(bitLength)
  for (let k = 0; k < bitLength; k++) {
    bits[k] = (src[offset + (k >> 3)]! >> (7 - (k & 7))) & 1
  }
  return bits
}
/** Number of leading elements `a` and `b` share. */
export function commonPrefixLength(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length)
  let i = 0
  while (i < n && a[i] === b[i]) i++
  return i
}
/** The bit string `a` ‖ `bit` ‖ `b` (a parent's path, the branch bit, a child's path). */
export function concatBits(a: Uint8Array, bit: number, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + 1 + b.length)
  out.set(a, 0)
  out[a.length] = bit
  out.set(b, a.length + 1)
  return out
}

// ---------------------------------------------------------------------------------------------
// VarInt (bitcoinj VarInt = Bitcoin CompactSize, little-endian payload)
// ---------------------------------------------------------------------------------------------

/** Encoded size of a CompactSize integer: 1 (<253), 3 (≤0xffff), 5 (≤0xffffffff) or 9 bytes. */
export function varIntSize(value: number): number {
  if (value < 253) return 1
  if (value <= 0xffff) return 3
  if (value <= 0xffffffff) return 5
  return 9
}

/** Writes a CompactSize integer at `pos`; @returns the position after it. */
export function writeVarInt(out: Uint8Array, pos: number, value: number): number {
  if (value < 253) {
    out[pos] = value
    return pos + 1
  }
  if (value <= 0xffff) {
    out[pos] = 0xfd
    out[pos + 1] = value & 0xff
    out[pos + 2] = (value >>> 8) & 0xff
    return pos + 3
  }
  if (value <= 0xffffffff) {
    out[pos] = 0xfe
    new DataView(out.buffer, out.byteOffset).setUint32(pos + 1, value, true)
    return pos + 5
  }
  out[pos] = 0xff
  new DataView(out.buffer, out.byteOffset).setBigUint64(pos + 1, BigInt(value), true)
  return pos + 9
}

/** Encode a CompactSize integer (bitcoinj `new VarInt(v).encode()`). */
export function encodeVarInt(value: number): Uint8Array {
  const out = new Uint8Array(varIntSize(value))
  writeVarInt(out, 0, value)
  return out
}

/** Encoded size of the CompactSize integer whose first byte is `first`: 1, 3 (0xfd), 5 (0xfe) or 9 (0xff). */
export function varIntLength(first: number): number {
  return first < 253 ? 1 : first === 253 ? 3 : first === 254 ? 5 : 9
}

/**
 * The CompactSize integer at `pos` (the caller has checked that its {@link varIntLength} bytes are there; values
 * above 2^53 lose precision). Allocates nothing.
 */
export function varIntAt(msg: Uint8Array, pos: number): number {
  const first = msg[pos]!
  if (first < 253) return first
  const low = msg[pos + 1]! | (msg[pos + 2]! << 8)
  if (first === 253) return low
  const word = (low | (msg[pos + 3]! << 16) | (msg[pos + 4]! << 24)) >>> 0
  if (first === 254) return word
  const high = (msg[pos + 5]! | (msg[pos + 6]! << 8) | (msg[pos + 7]! << 16) | (msg[pos + 8]! << 24)) >>> 0
  return high * 2 ** 32 + word
}

// ---------------------------------------------------------------------------------------------
// Shared path serialization (SharedPathSerializer.java)
// ---------------------------------------------------------------------------------------------

/** Serialized size (bytes) of a shared path of `bitLength` bits: length prefix and packed bits (0 for none). */
export function sharedPathSerializedLength(bitLength: number): number {
  if (bitLength === 0) return 0
  const prefix =
    bitLength <= PATH_SHORT_MAX_BITS || (bitLength >= PATH_LONG_MIN_BITS && bitLength <= PATH_LONG_MAX_BITS)
      ? 1
      : 1 + varIntSize(bitLength)
  return prefix + ((bitLength + 7) >> 3)
}

/**
 * Sets bit `d` (MSB-first) of the packed key `key` to `bit` (0 or 1), doubling the buffer while `d` lies past its
 * end; used by the walks that build entry keys a bit at a time.
 * @returns `key`, or the larger copy of it that now holds bit `d`
 */
export function setPackedBit(key: Uint8Array, d: number, bit: number): Uint8Array {
  const i = d >> 3
  while (i >= key.length) {
    const bigger = new Uint8Array(key.length * 2)
    bigger.set(key)
    key = bigger
  }
  if (bit) key[i]! |= 0x80 >> (d & 7)
  else key[i]! &= ~(0x80 >> (d & 7))
  return key
}

/** Writes the shared path `bits` (length prefix, then packed bits) at `pos`; @returns the position after it. */
export function writeSharedPath(out: Uint8Array, pos: number, bits: Uint8Array): number {
  const n = bits.length
  if (n >= 1 && n <= PATH_SHORT_MAX_BITS) out[pos++] = n - 1
  else if (n >= PATH_LONG_MIN_BITS && n <= PATH_LONG_MAX_BITS) out[pos++] = n - PATH_LONG_OFFSET
  else {
    out[pos++] = PATH_VARINT_MARKER
    pos = writeVarInt(out, pos, n)
  }
  for (let k = 0; k < n; k++) {
    if (bits[k]) out[pos + (k >> 3)]! |= 0x80 >> (k & 7)
  }
  return pos + ((n + 7) >> 3)
}
