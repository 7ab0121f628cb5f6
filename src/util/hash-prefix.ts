/**
 * The prefix of a hash that the node's hash tables are keyed or indexed by: the in-memory block backend's hash and
 * transaction indexes (src/blocks/hash-prefix-index.ts), the decoded blocks' transaction index
 * (src/blocks/cached-tx-index.ts) and the packed trie store's table (src/unitrie/trie-arena.ts).
 *
 * One width and one byte order for all of them: the first 30 bits, big-endian (the hash's first byte holds the
 * highest bits). The value is a non-negative int32 (it fits an `Int32Array` slot beside the −1 of an empty one) and
 * a small integer in V8 on every platform (no heap number when it passes through a `Map` or an array); 30 bits
 * index a table of a billion slots, more than any of these tables reaches, and a table's lookups compare the full
 * hash, so a shorter prefix costs only collisions. The hashes are Keccak-256 outputs, so any bits of them are
 * uniformly spread; callers take the low bits as a table index (`& mask`).
 */

/** Number of bits {@link hashPrefix} returns. */
export const HASH_PREFIX_BITS = 30

/**
 * The first {@link HASH_PREFIX_BITS} bits of the hash at bytes [at, at + 4) of `bytes`, big-endian.
 * @param bytes holds at least `at + 4` bytes (a shorter array reads its missing bytes as 0)
 * @param at where the hash starts (default 0)
 * @returns an integer in 0 … 2^30 − 1
 */
export function hashPrefix(bytes: Uint8Array, at = 0): number {
  return (bytes[at]! << 22) | (bytes[at + 1]! << 14) | (bytes[at + 2]! << 6) | (bytes[at + 3]! >>> 2)
}
