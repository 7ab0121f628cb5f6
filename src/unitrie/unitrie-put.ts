/**
 * The Unitrie operations on immutable nodes (Trie.put, internalPut, split, delete-coalesce, find): a write returns
 * new nodes along the modified path only and shares every untouched subtree, and a child known only by hash is
 * loaded only when the path goes through it. src/unitrie/unitrie.ts wraps them in the Unitrie class.
 *
 * Reference source: rskj-core/src/main/java/co/rsk/trie/Trie.java.
 */
import { bytesEqual } from '../util/bytes.js'
import { commonPrefixLength, concatBits } from './unitrie-codec.js'
import { HashRef, refSize, resolve, TrieNode, type Child } from './unitrie-node.js'

/**
 * How deep a lookup or a write keeps what it loads: a child known only by hash that sits less than this many nodes
 * below the root is decoded into the trie and stays there (the top levels every path crosses); a deeper one is kept
 * only once operations have reached it {@link KEEP_AT_VISIT} times, and decoded for the operation alone before
 * (HashRef.nodeAfter), so reads of random keys do not keep most of a large state decoded (~1.4 KB of objects per
 * node) until the next periodic unload, while a path read again and again is kept level by level
 * (docs/measurements/2026-11-sustained-memory.md). A write still returns new nodes along its path, which the new
 * trie version holds.
 */
export const KEPT_DEPTH = 12
/** The visit of a node below {@link KEPT_DEPTH} from which it is kept (see there). */
export const KEEP_AT_VISIT = 8

/** The node of child `c` at depth `depth` (the root is at 0), kept as {@link KEPT_DEPTH} says. */
function load(c: Child, depth: number): TrieNode {
  return c instanceof HashRef ? (depth < KEPT_DEPTH ? c.node : c.nodeAfter(KEEP_AT_VISIT)) : c
}

/** Equal values, where undefined (no value) equals only undefined. */
function sameValue(a: Uint8Array | undefined, b: Uint8Array | undefined): boolean {
  return a === b || (a !== undefined && b !== undefined && bytesEqual(a, b))
}

function leaf(path: Uint8Array, value: Uint8Array): TrieNode {
  return new TrieNode(path, value, value.length, undefined, undefined, undefined, 0, undefined)
}

/** put into the empty trie: Trie().internalPut + put's delete normalisation. */
export function putIntoEmpty(key: Uint8Array, value: Uint8Array | undefined): TrieNode | undefined {
  return value === undefined ? undefined : leaf(key, value)
}

/** Same node content under another shared path (caches that do not depend on the path are kept). */
function withPath(n: TrieNode, path: Uint8Array): TrieNode {
  const c = new TrieNode(path, n._value, n.valueLength, n._valueHash, n.left, n.right, n._childrenSize, n.store)
  c._sideSize = n._sideSize
  return c
}

function split(n: TrieNode, commonLength: number): TrieNode {
  const child = withPath(n, n.path.subarray(commonLength + 1))
  const bit = n.path[commonLength]!
  return new TrieNode(
    n.path.subarray(0, commonLength),
    undefined,
    0,
    undefined,
    bit === 0 ? child : undefined,
    bit === 0 ? undefined : child,
    undefined, // computed lazily from the single child
    n.store,
  )
}

/**
 * The subtree `n` with `key` (bit string, relative to `n`) set to `value` (undefined or empty: deleted), or with the
 * node at `key` and its whole subtree removed when `recursiveDelete`; undefined when nothing is left. Returns `n`
 * itself when nothing changes (Trie.put / delete / deleteRecursive).
 * @param depth how many nodes `n` is below the trie's root (0: `n` is the root), for {@link KEPT_DEPTH}
 */
export function put(
  n: TrieNode,
  key: Uint8Array,
  value: Uint8Array | undefined,
  recursiveDelete: boolean,
  depth = 0,
): TrieNode | undefined {
  if (value !== undefined && value.length === 0) value = undefined
  const t = internalPut(n, key, value, recursiveDelete, depth)
  if (t === undefined || value !== undefined) return t
  // delete: coalesce a value-less node with a single child into that child
  if (t.isEmpty) return undefined
  if (t.valueLength > 0) return t
  if ((t.left === undefined) === (t.right === undefined)) return t
  const bit = t.left !== undefined ? 0 : 1
  const child = resolve((t.left ?? t.right)!)
  return withPath(child, concatBits(t.path, bit, child.path))
}

function internalPut(
  n: TrieNode,
  key: Uint8Array,
  value: Uint8Array | undefined,
  recursiveDelete: boolean,
  depth: number,
): TrieNode | undefined {
  const common = commonPrefixLength(key, n.path)
  if (common < n.path.length) {
    // the key leaves this node's shared path: nothing to delete, otherwise split here
    if (value === undefined) return n
    return put(split(n, common), key, value, recursiveDelete, depth)
  }
  if (n.path.length >= key.length) {
    // the key ends exactly at this node
    if (n.valueLength === (value?.length ?? 0) && sameValue(n.getValue(), value)) return n
    if (recursiveDelete) return undefined
    if (value === undefined && n.isTerminal) return undefined
    const c = new TrieNode(n.path, value, value?.length ?? 0, undefined, n.left, n.right, n._childrenSize, n.store)
    c._sideSize = n._sideSize
    return c
  }
  if (n.isEmpty) return putIntoEmpty(key, value)
  const bit = key[n.path.length]!
  const oldRef = bit === 0 ? n.left : n.right
  const oldChild = oldRef === undefined ? undefined : load(oldRef, depth + 1)
  const subKey = key.subarray(n.path.length + 1)
  const newChild =
    oldChild === undefined ? putIntoEmpty(subKey, value) : put(oldChild, subKey, value, recursiveDelete, depth + 1)
  if (newChild === oldChild) return n
  const newLeft = bit === 0 ? newChild : n.left
  const newRight = bit === 0 ? n.right : newChild
  if (n.valueLength === 0 && newLeft === undefined && newRight === undefined) return undefined
  // The reference keeps childrenSize incrementally. We recompute it lazily at hash time instead,
  // but remember the size of the untouched sibling when it is known without loading it: either a
  // hint already on `n`, or n's total size minus the (already serialized) old child's size.
  const other = (1 - bit) as 0 | 1
  let otherSize = n._sideSize[other]
  if (
    otherSize === undefined &&
    n._childrenSize !== undefined &&
    (oldChild === undefined || oldChild._msg !== undefined)
  ) {
    otherSize = n._childrenSize - refSize(oldChild)
  }
  const c = new TrieNode(n.path, n._value, n.valueLength, n._valueHash, newLeft, newRight, undefined, n.store)
  if (other === 0) c._sideSize = [otherSize, undefined]
  else c._sideSize = [undefined, otherSize]
  return c
}

/** The node exactly at `key` (bit string) below `root`, or undefined (Trie.find). */
export function find(root: TrieNode | undefined, key: Uint8Array): TrieNode | undefined {
  let n = root
  let k = key
  let depth = 0
  while (n) {
    if (n.path.length > k.length) return undefined
    const common = commonPrefixLength(k, n.path)
    if (common < n.path.length) return undefined
    if (common === k.length) return n
    const c = k[common] === 0 ? n.left : n.right
    n = c === undefined ? undefined : load(c, ++depth)
    k = k.subarray(common + 1)
  }
  return undefined
}
