/**
 * The root hash of a block's transactions or receipts trie (BlockHashesHelper: a Unitrie keyed by RLP.encodeInt(index))
 * for a block of one or two items, written straight from the Unitrie node layout (RSKIP107,
 * docs/reference-rules.md#rule-unitrie-node) instead of putting the items into a trie and hashing it. An automined
 * block holds one transaction and the Remasc transaction: the trie is then always the same shape (a branch at the
 * first key bit with two 7-bit-path leaves), so only the values' hashes and the three small messages change.
 * Same bytes as src/rsk/receipt-rlp.ts `indexedTrie(items).hash()` (test/rsk/trie-keys-receipt.test.ts compares them).
 */
import { keccak256 } from '../crypto/keccak.js'
import { tempBytes } from '../util/bytes.js'
import {
  EMBEDDED_LENGTH_SIZE,
  FLAG_LEFT,
  FLAG_LEFT_EMBEDDED,
  FLAG_LONG_VALUE,
  FLAG_RIGHT,
  FLAG_RIGHT_EMBEDDED,
  FLAG_SHARED_PATH,
  FLAG_VERSION,
  FLAGS_SIZE,
  HASH_SIZE,
  LONG_VALUE_SIZE,
  MAX_EMBEDDED_NODE_SIZE,
  MAX_SHORT_VALUE_LENGTH,
  MAX_VALUE_LENGTH,
  varIntSize,
  writeVarInt,
} from '../unitrie/unitrie-codec.js'

/**
 * The message of a leaf whose shared path has `bits` bits (1…8: one length byte `bits − 1` and one packed byte
 * `packed`) and whose value is `value` (long values, over 32 bytes, as keccak256 ‖ uint24 length).
 */
function leafMessage(bits: number, packed: number, value: Uint8Array): Uint8Array {
  const long = value.length > MAX_SHORT_VALUE_LENGTH
  const out = new Uint8Array(FLAGS_SIZE + 2 + (long ? LONG_VALUE_SIZE : value.length))
  out[0] = FLAG_VERSION | FLAG_SHARED_PATH | (long ? FLAG_LONG_VALUE : 0)
  out[1] = bits - 1
  out[2] = packed
  if (long) {
    out.set(keccak256(value), 3)
    out[3 + HASH_SIZE] = (value.length >>> 16) & 0xff
    out[4 + HASH_SIZE] = (value.length >>> 8) & 0xff
    out[5 + HASH_SIZE] = value.length & 0xff
  } else out.set(value, 3)
  return out
}

/** NodeReference.referenceSize of a leaf: its message and its long value when it has one. */
function leafSize(message: Uint8Array, value: Uint8Array): number {
  return message.length + (value.length > MAX_SHORT_VALUE_LENGTH ? value.length : 0)
}

/** Writes a child at `pos`: uint8 length ‖ message when embedded, else keccak256(message); the next position. */
function writeChild(out: Uint8Array, pos: number, message: Uint8Array, embedded: boolean): number {
  if (!embedded) {
    out.set(keccak256(message), pos)
    return pos + HASH_SIZE
  }
  out[pos] = message.length
  out.set(message, pos + 1)
  return pos + 1 + message.length
}

/**
 * The root of the Unitrie holding `items[i]` at RLP.encodeInt(i), for one or two items; undefined for any other
 * count, or an empty or oversized item (the caller builds the trie then).
 * - one item: a leaf with the 8-bit path 0x80 (the key of index 0);
 * - two items: keys 0x80 (index 0) and 0x01 (index 1) part at their first bit: a branch with no path and no value,
 *   index 1 on the left (bit 0) and index 0 on the right, each a leaf with the key's 7 other bits (0000001, 0000000),
 *   embedded when its message is at most 44 bytes (it always is: 3 + at most 35 bytes), followed by the
 *   branch's childrenSize (VarInt).
 */
export function smallIndexedRoot(items: readonly Uint8Array[]): Uint8Array | undefined {
  for (const v of items) if (v.length === 0 || v.length > MAX_VALUE_LENGTH) return undefined
  if (items.length === 1) return keccak256(leafMessage(8, 0x80, items[0]!))
  if (items.length !== 2) return undefined
  const left = leafMessage(7, 0x02, items[1]!)
  const right = leafMessage(7, 0x00, items[0]!)
  const leftEmbedded = left.length <= MAX_EMBEDDED_NODE_SIZE
  const rightEmbedded = right.length <= MAX_EMBEDDED_NODE_SIZE
  const childrenSize = leafSize(left, items[1]!) + leafSize(right, items[0]!)
  const leftLength = leftEmbedded ? EMBEDDED_LENGTH_SIZE + left.length : HASH_SIZE
  const rightLength = rightEmbedded ? EMBEDDED_LENGTH_SIZE + right.length : HASH_SIZE
  // (only hashed: a short-lived view, util/bytes tempBytes; every byte is written)
  const out = tempBytes(FLAGS_SIZE + leftLength + rightLength + varIntSize(childrenSize))
  out[0] =
    FLAG_VERSION |
    FLAG_LEFT |
    FLAG_RIGHT |
    (leftEmbedded ? FLAG_LEFT_EMBEDDED : 0) |
    (rightEmbedded ? FLAG_RIGHT_EMBEDDED : 0)
  let pos = writeChild(out, FLAGS_SIZE, left, leftEmbedded)
  pos = writeChild(out, pos, right, rightEmbedded)
  writeVarInt(out, pos, childrenSize)
  return keccak256(out)
}
