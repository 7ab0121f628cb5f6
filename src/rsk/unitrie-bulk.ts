/**
 * Building a whole Unitrie from its entries in one pass: sorted keys, nodes created bottom-up once each. The
 * trie's shape depends only on its key set, so the result (and its root hash) is the one that putting the same
 * entries one by one gives — without the persistent copies of every path each put makes (loading a state file
 * of 1 M cells: the garbage of those copies dominated the time and the peak memory).
 */
import { TrieNode, Unitrie, type TrieNodeStore } from './unitrie.js'

/** Bit `i` (0 = most significant of byte 0) of `key`. */
function bit(key: Uint8Array, i: number): number {
  return (key[i >> 3]! >> (7 - (i & 7))) & 1
}

/** Bits [from, to) of `key`, one per byte (TrieNode's path form). */
function bits(key: Uint8Array, from: number, to: number): Uint8Array {
  const out = new Uint8Array(to - from)
  for (let i = from; i < to; i++) out[i - from] = bit(key, i)
  return out
}

function compareKeys(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) {
    const d = a[i]! - b[i]!
    if (d !== 0) return d
  }
  return a.length - b.length
}

/**
 * The trie holding `entries` (a later entry wins over an earlier one with the same key; an empty value means no
 * entry), as {@link Unitrie.fromEntries} would give it.
 * @param entries [key, value] pairs; the array is sorted in place
 * @param store the node store the trie resolves through (none for an in-memory trie)
 */
export function unitrieFromEntries(entries: [Uint8Array, Uint8Array][], store?: TrieNodeStore): Unitrie {
  // stable sort by key, then keep the last entry of each key
  const order = entries.map((_, i) => i)
  order.sort((i, j) => compareKeys(entries[i]![0], entries[j]![0]) || i - j)
  const keys: Uint8Array[] = []
  const values: Uint8Array[] = []
  for (let k = 0; k < order.length; k++) {
    const [key, value] = entries[order[k]!]!
    const next = order[k + 1]
    if (next !== undefined && compareKeys(entries[next]![0], key) === 0) continue
    if (value.length === 0) continue
    keys.push(key)
    values.push(value)
  }
  return Unitrie.fromRootNode(build(keys, values, 0, keys.length, 0, store), store)
}

/** The node for keys[lo, hi), which share their first `depth` bits (consumed by the ancestors). */
function build(
  keys: Uint8Array[],
  values: Uint8Array[],
  lo: number,
  hi: number,
  depth: number,
  store: TrieNodeStore | undefined,
): TrieNode | undefined {
  if (lo >= hi) return undefined
  const first = keys[lo]!
  const last = keys[hi - 1]!
  // sorted: the range's common prefix is the common prefix of its first and last keys
  const end = Math.min(first.length, last.length) * 8
  let d = depth
  while (d < end && bit(first, d) === bit(last, d)) d++
  const path = bits(first, depth, d)
  let value: Uint8Array | undefined
  let start = lo
  if (first.length * 8 === d) {
    // a key ending at this node (sorted first: it is a prefix of the others)
    value = values[lo]
    start = lo + 1
  }
  if (start === hi) return new TrieNode(path, value, value!.length, undefined, undefined, undefined, 0, undefined)
  // the keys with bit d = 1 follow those with 0: find the first of them
  let a = start
  let b = hi
  while (a < b) {
    const m = (a + b) >> 1
    if (bit(keys[m]!, d) === 0) a = m + 1
    else b = m
  }
  const left = build(keys, values, start, a, d + 1, store)
  const right = build(keys, values, a, hi, d + 1, store)
  return new TrieNode(path, value, value?.length ?? 0, undefined, left, right, undefined, store)
}
