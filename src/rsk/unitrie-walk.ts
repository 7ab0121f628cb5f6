/**
 * Every entry of a Unitrie in key order, for walks over a whole state (a state file dump): nodes in memory are
 * read as objects, and a subtree known only by hash is read straight from its stored messages (RSKIP107 layout,
 * docs/reference-rules.md#rule-unitrie-node) — its shared paths copied bit for bit into the key, embedded children
 * read in place — without decoding a node object per node, nor keeping any.
 */
import {
  FLAG_LEFT,
  FLAG_LEFT_EMBEDDED,
  FLAG_LONG_VALUE,
  FLAG_RIGHT,
  FLAG_RIGHT_EMBEDDED,
  FLAG_SHARED_PATH,
  readVarInt,
  type TrieNode,
  type TrieNodeStore,
  type Unitrie,
  type UnitrieEntry,
} from './unitrie.js'

/** A node to visit: an object, or a message (bytes [start, end) of `bytes`) read through `store`. */
interface Frame {
  node: TrieNode | undefined
  bytes: Uint8Array
  start: number
  end: number
  store: TrieNodeStore | undefined
  /** Key bits above the node (the branch bit included when `bit` ≥ 0). */
  depth: number
  /** The branch bit leading to the node, −1 for the root. */
  bit: number
}

const NONE = new Uint8Array(0)
const SIDES = [0, 1] as const
const SIDES_RIGHT_FIRST = [1, 0] as const

/**
 * The (key, value) pairs of `trie` in ascending key order, as {@link Unitrie.entries} yields them (keys that
 * are whole bytes), each key and value a fresh copy.
 * @throws Error when a node or long value is missing from the store
 */
export function* unitrieEntries(trie: Unitrie): Generator<UnitrieEntry> {
  if (!trie.root) return
  let key = new Uint8Array(64)
  const setBit = (d: number, bit: number): void => {
    const i = d >> 3
    if (i >= key.length) {
      const bigger = new Uint8Array(key.length * 2)
      bigger.set(key)
      key = bigger
    }
    if (bit) key[i]! |= 0x80 >> (d & 7)
    else key[i]! &= ~(0x80 >> (d & 7))
  }
  const frame = (
    node: TrieNode | undefined,
    bytes: Uint8Array,
    start: number,
    end: number,
    store: TrieNodeStore | undefined,
    depth: number,
    bit: number,
  ): Frame => ({ node, bytes, start, end, store, depth, bit })
  const stored = (hash: Uint8Array, store: TrieNodeStore | undefined, depth: number, bit: number): Frame => {
    const msg = store?.get(hash)
    if (!msg) throw new Error(`Unitrie: missing node ${Buffer.from(hash).toString('hex')} in store`)
    return frame(undefined, msg, 0, msg.length, store, depth, bit)
  }
  const stack: Frame[] = [frame(trie.root, NONE, 0, 0, undefined, 0, -1)]
  while (stack.length > 0) {
    const f = stack.pop()!
    let d = f.depth
    if (f.bit >= 0) setBit(d++, f.bit)
    const n = f.node
    if (n) {
      const path = n.path
      for (let i = 0; i < path.length; i++) setBit(d++, path[i]!)
      if (n.valueLength > 0 && (d & 7) === 0) yield [key.slice(0, d >> 3), n.getValue()!.slice()]
      for (const b of SIDES_RIGHT_FIRST) {
        const ref = n.childRef(b)
        if (ref === undefined) continue
        stack.push('node' in ref ? frame(ref.node, NONE, 0, 0, undefined, d, b) : stored(ref.hash, ref.store, d, b))
      }
      continue
    }
    // a stored message: flags ‖ [shared path] ‖ [left] ‖ [right] ‖ [children size] ‖ value (TrieNode.message)
    const m = f.bytes
    const store = f.store
    const flags = m[f.start]!
    let pos = f.start + 1
    if (flags & FLAG_SHARED_PATH) {
      const first = m[pos++]!
      let bits: number
      if (first <= 31) bits = first + 1
      else if (first <= 254) bits = first + 128
      else [bits, pos] = readVarInt(m, pos)
      // packed MSB-first like the key: copied a byte at a time, shifted when the key's bit offset is not whole
      const bytes = (bits + 7) >> 3
      const at = d >> 3
      if (at + bytes + 1 >= key.length) setBit(d + bits + 8, 0) // (grows the key)
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
      d += bits
      pos += bytes
    }
    let left: Frame | undefined
    let right: Frame | undefined
    for (const side of SIDES) {
      if (!(flags & (side === 0 ? FLAG_LEFT : FLAG_RIGHT))) continue
      let child: Frame
      if (flags & (side === 0 ? FLAG_LEFT_EMBEDDED : FLAG_RIGHT_EMBEDDED)) {
        const len = m[pos]!
        child = frame(undefined, m, pos + 1, pos + 1 + len, store, d, side)
        pos += 1 + len
      } else {
        child = stored(m.subarray(pos, pos + 32), store, d, side)
        pos += 32
      }
      if (side === 0) left = child
      else right = child
    }
    if (left || right) pos = readVarInt(m, pos)[1]
    let value: Uint8Array | undefined
    if (flags & FLAG_LONG_VALUE) {
      const stored = store?.get(m.subarray(pos, pos + 32))
      if (!stored) throw new Error('Unitrie: long value not in the store')
      value = stored.slice()
    } else if (pos < f.end) value = m.slice(pos, f.end)
    if (value !== undefined && (d & 7) === 0) yield [key.slice(0, d >> 3), value]
    if (right) stack.push(right)
    if (left) stack.push(left)
  }
}
