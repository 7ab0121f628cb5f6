/**
 * The entries of a Unitrie (or of its subtree under a key prefix) in key order: nodes in memory are read as
 * objects, and a subtree known only by hash is read straight from its stored messages (RSKIP107 layout,
 * docs/reference-rules.md#rule-unitrie-node) — its shared paths copied bit for bit into the key, embedded children
 * read in place — without decoding a node object per node, nor keeping any.
 */
import { FLAG_LEFT_EMBEDDED, FLAG_LONG_VALUE, FLAG_RIGHT_EMBEDDED, HASH_SIZE, setPackedBit } from './unitrie-codec.js'
import { NodeMessage } from './node-message.js'
import type { TrieNode } from './unitrie-node.js'
import type { TrieNodeStore } from './unitrie-store.js'
import { ArenaTrieStore } from './trie-arena.js'

const NONE = new Uint8Array(0)
const SIDES_RIGHT_FIRST = [1, 0] as const

/**
 * One entry of a walk ({@link unitrieEntryViews}), as views valid until the walk goes on: the key is bytes
 * [0, keyLength) of `key`, the value bytes [valueStart, valueEnd) of `value`. Do not mutate them.
 */
export interface EntryView {
  key: Uint8Array
  keyLength: number
  value: Uint8Array
  valueStart: number
  valueEnd: number
}

/**
 * The entries of the subtree `root`, whose keys start with the bits `prefixBits`, in ascending key order (a key
 * before its extensions), as views: one {@link EntryView} object, updated for each entry, so a walk over a whole
 * state copies nothing (the caller copies what it keeps). Only keys that are whole bytes are yielded. Serves
 * Unitrie.entries (with copies) and the state-file dump.
 * @param root the subtree's node (undefined: an empty trie)
 * @param prefixBits the key bits above `root` (0/1 each)
 * @throws Error when a node or long value is missing from the store, or a stored message is malformed (truncated,
 *   pre-RSKIP107: src/unitrie/node-message.ts)
 */
export function* unitrieEntryViews(
  root: TrieNode | undefined,
  prefixBits: ArrayLike<number> = [],
): Generator<EntryView> {
  if (!root) return
  const view: EntryView = { key: NONE, keyLength: 0, value: NONE, valueStart: 0, valueEnd: 0 }
  const reader = new NodeMessage()
  let key: Uint8Array = new Uint8Array(64)
  const setBit = (d: number, bit: number): void => {
    key = setPackedBit(key, d, bit)
  }
  // the stack of nodes to visit, one array per field: an object node, or a message (bytes [start, end) of a
  // buffer, read through a store); the key bits above it and the branch bit leading to it (−1: the root)
  const nodes: (TrieNode | undefined)[] = []
  const buffers: Uint8Array[] = []
  const starts: number[] = []
  const ends: number[] = []
  const stores: (TrieNodeStore | undefined)[] = []
  const depths: number[] = []
  const bits: number[] = []
  const push = (
    node: TrieNode | undefined,
    buffer: Uint8Array,
    start: number,
    end: number,
    store: TrieNodeStore | undefined,
    depth: number,
    bit: number,
  ): void => {
    nodes.push(node)
    buffers.push(buffer)
    starts.push(start)
    ends.push(end)
    stores.push(store)
    depths.push(depth)
    bits.push(bit)
  }
  /** Pushes the stored node whose hash is bytes [at, at + HASH_SIZE) of `hashes`. */
  const pushStored = (hashes: Uint8Array, at: number, store: TrieNodeStore | undefined, depth: number, bit: number) => {
    if (store instanceof ArenaTrieStore) {
      const loc = store.locate(hashes, at)
      if (loc >= 0) return push(undefined, store.chunkOf(loc), store.startOf(loc), store.endOf(loc), store, depth, bit)
    } else {
      const msg = store?.get(hashes.subarray(at, at + HASH_SIZE))
      if (msg) return push(undefined, msg, 0, msg.length, store, depth, bit)
    }
    throw new Error(
      `Unitrie: missing node ${Buffer.from(hashes.subarray(at, at + HASH_SIZE)).toString('hex')} in store`,
    )
  }
  for (let i = 0; i < prefixBits.length; i++) setBit(i, prefixBits[i]!)
  push(root, NONE, 0, 0, undefined, prefixBits.length, -1)
  while (nodes.length > 0) {
    const n = nodes.pop()
    const m = buffers.pop()!
    const start = starts.pop()!
    const end = ends.pop()!
    const store = stores.pop()
    let d = depths.pop()!
    const bit = bits.pop()!
    if (bit >= 0) setBit(d++, bit)
    if (n) {
      const path = n.path
      for (let i = 0; i < path.length; i++) setBit(d++, path[i]!)
      if (n.valueLength > 0 && (d & 7) === 0) {
        const v = n.getValue()!
        view.key = key
        view.keyLength = d >> 3
        view.value = v
        view.valueStart = 0
        view.valueEnd = v.length
        yield view
      }
      for (const b of SIDES_RIGHT_FIRST) {
        const ref = n.childRef(b)
        if (ref === undefined) continue
        if ('node' in ref) push(ref.node, NONE, 0, 0, undefined, d, b)
        else pushStored(ref.hash, 0, ref.store, d, b)
      }
      continue
    }
    // a stored message (read and checked by src/unitrie/node-message.ts)
    const msg = reader.read(m, start, end)
    const flags = msg.flags
    const length = msg.pathBits
    if (length > 0) {
      // packed MSB-first like the key: copied a byte at a time, shifted when the key's bit offset is not whole
      const pos = msg.pathAt
      const bytes = (length + 7) >> 3
      const at = d >> 3
      if (at + bytes + 1 >= key.length) setBit(d + length + 8, 0) // (grows the key)
      const shift = d & 7
      if (shift === 0) for (let j = 0; j < bytes; j++) key[at + j] = m[pos + j]!
      else {
        const keep = (0xff << (8 - shift)) & 0xff
        for (let j = 0; j < bytes; j++) {
          const b = m[pos + j]!
          key[at + j] = (key[at + j]! & keep) | (b >> shift)
          key[at + j + 1] = (b << (8 - shift)) & 0xff
        }
      }
      d += length
    }
    const pos = msg.valueAt
    if ((d & 7) === 0 && (pos < end || flags & FLAG_LONG_VALUE)) {
      view.key = key
      view.keyLength = d >> 3
      if (flags & FLAG_LONG_VALUE) {
        const long = store?.get(m.subarray(pos, pos + HASH_SIZE))
        if (!long) throw new Error('Unitrie: long value not in the store')
        view.value = long
        view.valueStart = 0
        view.valueEnd = long.length
      } else {
        view.value = m
        view.valueStart = pos
        view.valueEnd = end
      }
      yield view
    }
    // right first: the left child is visited next (`msg` still holds this message: only the next turn reads again)
    if (msg.rightAt >= 0) {
      if (flags & FLAG_RIGHT_EMBEDDED) push(undefined, m, msg.rightAt, msg.rightEnd, store, d, 1)
      else pushStored(m, msg.rightAt, store, d, 1)
    }
    if (msg.leftAt >= 0) {
      if (flags & FLAG_LEFT_EMBEDDED) push(undefined, m, msg.leftAt, msg.leftEnd, store, d, 0)
      else pushStored(m, msg.leftAt, store, d, 0)
    }
  }
}
