/**
 * Saving a Unitrie into a {@link TrieNodeStore} the way the reference persists it (TrieStoreImpl.save: the root,
 * every node not embedded in its parent, every long value under keccak256(value)), copying stored subtrees between
 * stores, and reading what a stored node message refers to (docs/reference-rules.md#rule-unitrie-node).
 */
import { bytesToHex } from '@ethereumjs/util'
import { decodeNode, HashRef, type TrieNode } from './unitrie-node.js'
import type { TrieNodeStore } from './unitrie-store.js'

/**
 * What a stored node message refers to outside itself: the hashes of its children kept by hash (nodes,
 * to fetch and decode in turn) and the hashes of the long values of the node and of its embedded children
 * (raw values, stored under keccak256(value)). Lets an asynchronous loader fetch a whole trie from a
 * database before reading it synchronously (src/db/chain-storage.ts).
 */
export function nodeReferences(message: Uint8Array): { nodes: Uint8Array[]; values: Uint8Array[] } {
  const out: { nodes: Uint8Array[]; values: Uint8Array[] } = { nodes: [], values: [] }
  const visit = (n: TrieNode): void => {
    if (n.hasLongValue) out.values.push(n._valueHash!)
    for (const c of [n.left, n.right]) {
      if (c === undefined) continue
      if (c instanceof HashRef) out.nodes.push(c.hash)
      else visit(c)
    }
  }
  visit(decodeNode(message))
  return out
}

/**
 * Persists `n` and its in-memory descendants not yet saved to `store` (subtrees saved to it already are skipped;
 * children known only by hash and read from another store are copied from it). `isRoot`: store `n` even when it is
 * embeddable.
 */
export function saveNode(n: TrieNode, store: TrieNodeStore, isRoot: boolean): void {
  if (n._savedIn === store) return
  for (const c of [n.left, n.right]) {
    if (c === undefined) continue
    if (c instanceof HashRef) {
      if (c.isLoaded) saveNode(c.node, store, false)
      else if (c.source !== undefined && c.source !== store) copyStored(c.hash, c.source, store)
    } else saveNode(c, store, false)
  }
  if (n.hasLongValue) store.put(n.getValueHash()!, n.getValue()!)
  if (!isRoot && n.isEmbeddable()) return
  store.put(n.hash(), n.message())
  n._savedIn = store
}

/**
 * Copies a stored subtree (the node under `hash`, its descendants kept by hash and every long value) from one
 * store to another without decoding it into memory for good (a state built into an arena, saved to a database).
 */
function copyStored(hash: Uint8Array, from: TrieNodeStore, to: TrieNodeStore): void {
  const stack = [hash]
  while (stack.length > 0) {
    const h = stack.pop()!
    if (to.get(h) !== undefined) continue
    const msg = from.get(h)
    if (!msg) throw new Error(`Unitrie: missing node ${bytesToHex(h)} in store`)
    const refs = nodeReferences(msg)
    for (const v of refs.values) {
      const value = from.get(v)
      if (!value) throw new Error(`Unitrie: missing long value ${bytesToHex(v)} in store`)
      to.put(v, value)
    }
    to.put(h, msg)
    stack.push(...refs.nodes)
  }
}
