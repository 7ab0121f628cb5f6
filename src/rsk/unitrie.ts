/**
 * The RSK Unitrie: a binary (arity 2) Patricia trie with RSKIP107 node serialization.
 *
 * It is used by the reference node (rskj) for the world state, the transactions root and the
 * receipts root. This module is a pure, in-memory, persistent implementation:
 *
 * - nodes are immutable; `put`/`delete` return a NEW {@link Unitrie} that shares every untouched
 *   subtree with the old one, so old roots stay readable;
 * - each node caches its serialized message, its hash and its subtree size, so hashing after N
 *   puts only re-serializes the nodes on the N modified paths (a put is O(key bits));
 * - nodes can be written to / lazily read back from a synchronous content-addressed key-value
 *   store ({@link TrieNodeStore}) keyed by node hash (and long values keyed by value hash).
 *
 * Keys are byte strings; they are expanded to bit strings MSB-first (bit 0 = left child,
 * bit 1 = right child). Values are byte strings of 1..16 777 215 bytes; storing an empty value
 * is the same as deleting the key (as in the reference).
 *
 * Reference sources (rskj master, paths under rskj-core/src/main/java/):
 * - co/rsk/trie/Trie.java            node model, put/split/delete-coalesce, toMessage, getNodes
 * - co/rsk/trie/NodeReference.java   embedded vs hashed children, referenceSize
 * - co/rsk/trie/SharedPathSerializer.java  shared-path length prefix
 * - co/rsk/trie/PathEncoder.java     bit packing (first bit = most significant)
 * - co/rsk/trie/TrieKeySlice.java    bit-string slices
 * - co/rsk/trie/TrieStoreImpl.java   what gets persisted under which key
 */
import { bytesToHex } from '@ethereumjs/util'
import { EMPTY_TRIE_HASH, keccak256 } from '../crypto/keccak.js'
import { bytesEqual, toKey } from '../util/bytes.js'

// ---------------------------------------------------------------------------------------------
// Constants (Trie.java)
// ---------------------------------------------------------------------------------------------

/** A terminal child whose message is at most this many bytes is embedded in its parent (Trie.java MAX_EMBEDDED_NODE_SIZE_IN_BYTES). */
export const MAX_EMBEDDED_NODE_SIZE = 44
/** Values longer than this are stored out of the node as keccak(value) ‖ uint24 length (Trie.hasLongValue). */
export const MAX_SHORT_VALUE_LENGTH = 32
/** Largest value length representable (Uint24). */
export const MAX_VALUE_LENGTH = 0xffffff

/** RSKIP107 node flags (see {@link TrieNode.message}): version, long value, shared path, children, embedded children. */
export const FLAG_VERSION = 0b0100_0000
export const FLAG_LONG_VALUE = 0b0010_0000
export const FLAG_SHARED_PATH = 0b0001_0000
export const FLAG_LEFT = 0b0000_1000
export const FLAG_RIGHT = 0b0000_0100
export const FLAG_LEFT_EMBEDDED = 0b0000_0010
export const FLAG_RIGHT_EMBEDDED = 0b0000_0001

const EMPTY_BITS: Uint8Array = new Uint8Array(0)

// ---------------------------------------------------------------------------------------------
// Store interface
// ---------------------------------------------------------------------------------------------

/**
 * A synchronous content-addressed key-value store for trie data (rskj `TrieStore` over a
 * `KeyValueDataSource`).
 *
 * - node messages are stored under keccak256(message) (the node hash, 32 B);
 * - long values (> 32 B) are stored under keccak256(value) (the value hash, 32 B).
 *
 * Both key spaces share one store, exactly like the reference `TrieStoreImpl.save`.
 */
export interface TrieNodeStore {
  /** The bytes stored under `hash`, or undefined. */
  get(hash: Uint8Array): Uint8Array | undefined
  /** Store `data` under `hash` (idempotent: the data for a given hash never changes). */
  put(hash: Uint8Array, data: Uint8Array): void
}

/** A {@link TrieNodeStore} backed by a `Map<hexHash, bytes>`. */
export class MemoryTrieNodeStore implements TrieNodeStore {
  /** The backing map; keys are lowercase hex without 0x. */
  readonly map = new Map<string, Uint8Array>()
  get(hash: Uint8Array): Uint8Array | undefined {
    return this.map.get(hexKey(hash))
  }
  put(hash: Uint8Array, data: Uint8Array): void {
    this.map.set(hexKey(hash), data)
  }
  /** Number of stored entries (nodes + long values). */
  get size(): number {
    return this.map.size
  }
}

function hexKey(b: Uint8Array): string {
  return toKey(b)
}

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

function unpackBits(src: Uint8Array, offset: number, bitLength: number): Uint8Array {
  const bits = new Uint8Array(bitLength)
  for (let k = 0; k < bitLength; k++) {
    bits[k] = (src[offset + (k >> 3)]! >> (7 - (k & 7))) & 1
  }
  return bits
}

function commonPrefixLength(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length)
  let i = 0
  while (i < n && a[i] === b[i]) i++
  return i
}

/** Equal values, where undefined (no value) equals only undefined. */
function sameValue(a: Uint8Array | undefined, b: Uint8Array | undefined): boolean {
  return a === b || (a !== undefined && b !== undefined && bytesEqual(a, b))
}

function concatBits(a: Uint8Array, bit: number, b: Uint8Array): Uint8Array {
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

/** Reads a CompactSize integer at `pos`: [value, position after it]. @throws Error when truncated */
export function readVarInt(msg: Uint8Array, pos: number): [value: number, next: number] {
  const first = msg[pos]
  if (first === undefined) throw new Error('Unitrie: truncated VarInt')
  if (first < 253) return [first, pos + 1]
  const dv = new DataView(msg.buffer, msg.byteOffset, msg.byteLength)
  if (first === 253) return [dv.getUint16(pos + 1, true), pos + 3]
  if (first === 254) return [dv.getUint32(pos + 1, true), pos + 5]
  return [Number(dv.getBigUint64(pos + 1, true)), pos + 9]
}

// ---------------------------------------------------------------------------------------------
// Shared path serialization (SharedPathSerializer.java)
// ---------------------------------------------------------------------------------------------

/** Serialized size (bytes) of a shared path of `bitLength` bits: length prefix and packed bits (0 for none). */
export function sharedPathSerializedLength(bitLength: number): number {
  if (bitLength === 0) return 0
  const prefix =
    (bitLength >= 1 && bitLength <= 32) || (bitLength >= 160 && bitLength <= 382) ? 1 : 1 + varIntSize(bitLength)
  return prefix + ((bitLength + 7) >> 3)
}

function writeSharedPath(out: Uint8Array, pos: number, bits: Uint8Array): number {
  const n = bits.length
  if (n >= 1 && n <= 32) out[pos++] = n - 1
  else if (n >= 160 && n <= 382) out[pos++] = n - 128
  else {
    out[pos++] = 0xff
    pos = writeVarInt(out, pos, n)
  }
  for (let k = 0; k < n; k++) {
    if (bits[k]) out[pos + (k >> 3)]! |= 0x80 >> (k & 7)
  }
  return pos + ((n + 7) >> 3)
}

// ---------------------------------------------------------------------------------------------
// Nodes
// ---------------------------------------------------------------------------------------------

/**
 * A reference to a child node that is known only by hash (it was stored as a 32-byte hash in a
 * parent's message loaded from a store). The node is fetched from the store on first access.
 * Equivalent of a rskj `NodeReference` with `lazyNode == null`.
 */
class HashRef {
  private loaded: TrieNode | undefined
  constructor(
    readonly hash: Uint8Array,
    private readonly store: TrieNodeStore | undefined,
  ) {}
  get isLoaded(): boolean {
    return this.loaded !== undefined
  }
  /** The store the node is read from (undefined: none given). */
  get source(): TrieNodeStore | undefined {
    return this.store
  }
  get node(): TrieNode {
    if (this.loaded) return this.loaded
    this.loaded = this.decode()
    return this.loaded
  }
  /** The node, decoded anew (and not kept) when it is not in memory: a one-off walk over a stored trie. */
  peek(): TrieNode {
    return this.loaded ?? this.decode()
  }
  private decode(): TrieNode {
    if (!this.store) throw new Error(`Unitrie: node ${bytesToHex(this.hash)} is not in memory and no store was given`)
    const msg = this.store.get(this.hash)
    if (!msg) throw new Error(`Unitrie: missing node ${bytesToHex(this.hash)} in store`)
    const node = decodeNode(msg, this.store)
    node._savedIn = this.store
    node._hash = this.hash
    return node
  }
}

type Child = TrieNode | HashRef

function resolve(child: Child): TrieNode {
  return child instanceof HashRef ? child.node : child
}

/**
 * One immutable Unitrie node (rskj `Trie` instance).
 *
 * Shape: an optional shared path (bit string), an optional value, optional left (bit 0) and right
 * (bit 1) children. Its message (RSKIP107) and hash = keccak256(message) are computed on demand
 * and cached.
 */
export class TrieNode {
  /** @internal cached serialization (RSKIP107 message). */
  _msg: Uint8Array | undefined
  /** @internal cached hash (set by loaders when the hash is already known). */
  _hash: Uint8Array | undefined
  /** @internal cached children size (RSKIP107 "childrenSize", total bytes of the subtree below). */
  _childrenSize: number | undefined
  /**
   * @internal known referenceSize of the left / right child when that child may not be in
   * memory (lets a modified node compute its childrenSize without loading untouched siblings).
   */
  _sideSize: [number | undefined, number | undefined] = [undefined, undefined]
  /** @internal store this node was last saved to / loaded from (save short-circuit). */
  _savedIn: TrieNodeStore | undefined
  /** @internal keccak256(value) if known. */
  _valueHash: Uint8Array | undefined
  /** @internal the value if in memory (long values of loaded nodes are fetched on demand). */
  _value: Uint8Array | undefined

  /** @internal use {@link Unitrie} to build tries. */
  constructor(
    /** Shared path, one bit per element. */
    readonly path: Uint8Array,
    value: Uint8Array | undefined,
    /** Length of the value in bytes (0 = no value). */
    readonly valueLength: number,
    valueHash: Uint8Array | undefined,
    /** @internal */ readonly left: Child | undefined,
    /** @internal */ readonly right: Child | undefined,
    childrenSize: number | undefined,
    /** @internal store used to fetch a long value that is not in memory. */
    readonly store: TrieNodeStore | undefined,
  ) {
    if (valueLength > MAX_VALUE_LENGTH) throw new Error(`Unitrie: value too long (${valueLength} bytes)`)
    this._value = value
    this._valueHash = valueHash
    this._childrenSize = childrenSize
  }

  /** True when the node has neither children nor value (only the empty trie's root). */
  get isEmpty(): boolean {
    return this.valueLength === 0 && !this.left && !this.right
  }

  /** True when the node has no children (Trie.isTerminal). */
  get isTerminal(): boolean {
    return !this.left && !this.right
  }

  /** True when the value is longer than 32 bytes and is serialized as hash + length. */
  get hasLongValue(): boolean {
    return this.valueLength > MAX_SHORT_VALUE_LENGTH
  }

  /** The value (copy-free view; do not mutate), or undefined. Long values may be fetched from the store. */
  getValue(): Uint8Array | undefined {
    if (this.valueLength === 0) return undefined
    if (this._value === undefined) {
      const hash = this._valueHash
      if (!hash || !this.store) throw new Error('Unitrie: long value not in memory and no store')
      const v = this.store.get(hash)
      if (!v) throw new Error(`Unitrie: missing long value ${bytesToHex(hash)} in store`)
      if (v.length !== this.valueLength) throw new Error('Unitrie: stored long value has the wrong length')
      this._value = v
    }
    return this._value
  }

  /** keccak256(value) (32 B) or undefined when there is no value (Trie.getValueHash). */
  getValueHash(): Uint8Array | undefined {
    if (this.valueLength === 0) return undefined
    if (!this._valueHash) this._valueHash = keccak256(this.getValue()!)
    return this._valueHash
  }

  /** The child for bit 0 (left) or 1 (right), loading it from the store if needed. */
  child(bit: number): TrieNode | undefined {
    const c = bit === 0 ? this.left : this.right
    return c === undefined ? undefined : resolve(c)
  }

  /**
   * The child for bit 0 (left) or 1 (right) without loading it: the node when it is in memory, else its hash and
   * the store to read its message from (src/rsk/unitrie-walk.ts walks stored messages without decoding them).
   */
  childRef(bit: number): { node: TrieNode } | { hash: Uint8Array; store: TrieNodeStore | undefined } | undefined {
    const c = bit === 0 ? this.left : this.right
    if (c === undefined) return undefined
    if (!(c instanceof HashRef)) return { node: c }
    return c.isLoaded ? { node: c.node } : { hash: c.hash, store: c.source }
  }

  /** {@link child}, but a child not in memory is decoded without being kept (see HashRef.peek). */
  peekChild(bit: number): TrieNode | undefined {
    const c = bit === 0 ? this.left : this.right
    return c === undefined ? undefined : c instanceof HashRef ? c.peek() : c
  }

  /**
   * RSKIP107 childrenSize: the total serialized size of the subtree below this node, i.e. for
   * each child: child.childrenSize + (child long value length, if any) + child message length.
   * 0 for terminal nodes (Trie.getChildrenSize / NodeReference.referenceSize).
   */
  childrenSize(): number {
    if (this._childrenSize === undefined) {
      this._childrenSize = this.isTerminal ? 0 : this.sideSize(0) + this.sideSize(1)
    }
    return this._childrenSize
  }

  /** @internal referenceSize of the child on `side` (0 if none), using the known-size hint if any. */
  sideSize(side: 0 | 1): number {
    const c = side === 0 ? this.left : this.right
    if (c === undefined) return 0
    return this._sideSize[side] ?? refSize(c)
  }

  /** True when a parent embeds this node instead of referencing it by hash (Trie.isEmbeddable). */
  isEmbeddable(): boolean {
    return this.isTerminal && this.message().length <= MAX_EMBEDDED_NODE_SIZE
  }

  /**
   * The RSKIP107 serialized node (Trie.internalToMessage):
   *
   *   flags(1) ‖ [sharedPath] ‖ [left] ‖ [right] ‖ [VarInt childrenSize if non-terminal] ‖ value
   *
   * flags = 0x40 | 0x20 long value | 0x10 shared path | 0x08 left | 0x04 right
   *       | 0x02 left embedded | 0x01 right embedded.
   * sharedPath = length prefix (bits−1 for 1..32 bits, bits−128 for 160..382 bits, else
   *   0xff ‖ VarInt(bits)) ‖ bits packed MSB-first.
   * child = embedded: uint8 length ‖ child message; otherwise the child's 32-byte hash.
   * value = long (> 32 B): keccak256(value) ‖ uint24 BE length; otherwise the raw bytes.
   *
   * The returned array is cached: do not mutate it.
   */
  message(): Uint8Array {
    if (this._msg) return this._msg
    const long = this.hasLongValue
    const pathLen = sharedPathSerializedLength(this.path.length)
    const leftEmb = childEmbeddable(this.left)
    const rightEmb = childEmbeddable(this.right)
    const leftLen = this.left ? (leftEmb ? 1 + resolve(this.left).message().length : 32) : 0
    const rightLen = this.right ? (rightEmb ? 1 + resolve(this.right).message().length : 32) : 0
    const terminal = this.isTerminal
    const cs = terminal ? 0 : this.childrenSize()
    const valueLen = long ? 35 : this.valueLength
    const out = new Uint8Array(1 + pathLen + leftLen + rightLen + (terminal ? 0 : varIntSize(cs)) + valueLen)
    let flags = FLAG_VERSION
    if (long) flags |= FLAG_LONG_VALUE
    if (this.path.length > 0) flags |= FLAG_SHARED_PATH
    if (this.left) flags |= FLAG_LEFT
    if (this.right) flags |= FLAG_RIGHT
    if (leftEmb) flags |= FLAG_LEFT_EMBEDDED
    if (rightEmb) flags |= FLAG_RIGHT_EMBEDDED
    out[0] = flags
    let pos = 1
    if (this.path.length > 0) pos = writeSharedPath(out, pos, this.path)
    pos = writeChild(out, pos, this.left, leftEmb)
    pos = writeChild(out, pos, this.right, rightEmb)
    if (!terminal) pos = writeVarInt(out, pos, cs)
    if (long) {
      out.set(this.getValueHash()!, pos)
      pos += 32
      out[pos++] = (this.valueLength >>> 16) & 0xff
      out[pos++] = (this.valueLength >>> 8) & 0xff
      out[pos++] = this.valueLength & 0xff
    } else if (this.valueLength > 0) {
      out.set(this.getValue()!, pos)
      pos += this.valueLength
    }
    if (pos !== out.length) throw new Error('Unitrie: internal size mismatch')
    this._msg = out
    return out
  }

  /** keccak256(message()) (32 B), cached. The empty node hashes to EMPTY_TRIE_HASH (Trie.getHash). */
  hash(): Uint8Array {
    if (!this._hash) this._hash = this.isEmpty ? EMPTY_TRIE_HASH : keccak256(this.message())
    return this._hash
  }
}

function childEmbeddable(c: Child | undefined): boolean {
  if (c === undefined) return false
  // NodeReference.isEmbeddable: a reference known only by hash is never embedded
  if (c instanceof HashRef) return c.isLoaded ? c.node.isEmbeddable() : false
  return c.isEmbeddable()
}

function writeChild(out: Uint8Array, pos: number, c: Child | undefined, embedded: boolean): number {
  if (c === undefined) return pos
  if (embedded) {
    const m = resolve(c).message()
    out[pos++] = m.length
    out.set(m, pos)
    return pos + m.length
  }
  out.set(c instanceof HashRef ? c.hash : c.hash(), pos)
  return pos + 32
}

/** NodeReference.referenceSize: childrenSize + external long-value length + message length. */
function refSize(c: Child | undefined): number {
  if (c === undefined) return 0
  const n = resolve(c)
  return n.childrenSize() + (n.hasLongValue ? n.valueLength : 0) + n.message().length
}

/**
 * Decode one RSKIP107 node message (Trie.fromMessageRskip107). Embedded children are decoded
 * recursively; hashed children become lazy references resolved through `store`.
 * Pre-RSKIP107 ("Orchid", first byte 0x02) messages are rejected.
 *
 * @param message the serialized node (kept by reference as the node's cached message)
 * @param store   where hashed children and long values are fetched from
 */
export function decodeNode(message: Uint8Array, store?: TrieNodeStore): TrieNode {
  if (message.length === 0) throw new Error('Unitrie: empty node message')
  const flags = message[0]!
  if (flags === 2) throw new Error('Unitrie: pre-RSKIP107 (Orchid) node serialization is not supported')
  let pos = 1
  let path: Uint8Array = EMPTY_BITS
  if (flags & FLAG_SHARED_PATH) {
    const first = message[pos++]!
    let bitLength: number
    if (first <= 31) bitLength = first + 1
    else if (first <= 254) bitLength = first + 128
    else [bitLength, pos] = readVarInt(message, pos)
    const byteLen = (bitLength + 7) >> 3
    if (pos + byteLen > message.length) throw new Error('Unitrie: truncated shared path')
    path = unpackBits(message, pos, bitLength)
    pos += byteLen
  }
  const readChild = (present: number, embedded: number): Child | undefined => {
    if (!(flags & present)) return undefined
    if (flags & embedded) {
      const len = message[pos++]!
      if (pos + len > message.length) throw new Error('Unitrie: truncated embedded node')
      const sub = message.subarray(pos, pos + len)
      pos += len
      return decodeNode(sub, store)
    }
    if (pos + 32 > message.length) throw new Error('Unitrie: truncated child hash')
    const h = message.slice(pos, pos + 32)
    pos += 32
    return new HashRef(h, store)
  }
  const left = readChild(FLAG_LEFT, FLAG_LEFT_EMBEDDED)
  const right = readChild(FLAG_RIGHT, FLAG_RIGHT_EMBEDDED)
  let childrenSize = 0
  if (left || right) [childrenSize, pos] = readVarInt(message, pos)
  let value: Uint8Array | undefined
  let valueHash: Uint8Array | undefined
  let valueLength = 0
  if (flags & FLAG_LONG_VALUE) {
    if (pos + 35 !== message.length) throw new Error('Unitrie: bad long value encoding')
    valueHash = message.slice(pos, pos + 32)
    valueLength = (message[pos + 32]! << 16) | (message[pos + 33]! << 8) | message[pos + 34]!
    pos += 35
  } else if (pos < message.length) {
    value = message.subarray(pos)
    valueLength = value.length
    pos = message.length
  }
  if (pos > message.length) throw new Error('Unitrie: truncated node message')
  const node = new TrieNode(path, value, valueLength, valueHash, left, right, childrenSize, store)
  node._msg = message
  // Per-side size hints so that later modifications never need to load an untouched sibling.
  if (!left && right) node._sideSize[1] = childrenSize
  else if (left && !right) node._sideSize[0] = childrenSize
  else if (left && right) {
    if (!(left instanceof HashRef)) node._sideSize[1] = childrenSize - refSize(left)
    else if (!(right instanceof HashRef)) node._sideSize[0] = childrenSize - refSize(right)
  }
  return node
}

/**
 * What a stored node message refers to outside itself: the hashes of its children kept by hash (nodes,
 * to fetch and decode in turn) and the hashes of the long values of the node and of its embedded children
 * (raw values, stored under keccak256(value)). Lets an asynchronous loader fetch a whole trie from a
 * database before reading it synchronously (src/chain/storage.ts).
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
 * Brings every node and long value of `trie` into memory (children known only by hash are fetched from
 * the trie's store now), so that later reads never touch the store. @returns the number of nodes visited
 */
export function loadAllNodes(trie: Unitrie): number {
  let count = 0
  const stack: TrieNode[] = trie.root ? [trie.root] : []
  while (stack.length > 0) {
    const n = stack.pop()!
    count++
    if (n.hasLongValue) n.getValue()
    for (const bit of [0, 1]) {
      const c = n.child(bit)
      if (c) stack.push(c)
    }
  }
  return count
}

// ---------------------------------------------------------------------------------------------
// Put / delete (Trie.put, internalPut, split)
// ---------------------------------------------------------------------------------------------

function leaf(path: Uint8Array, value: Uint8Array): TrieNode {
  return new TrieNode(path, value, value.length, undefined, undefined, undefined, 0, undefined)
}

/** put into the empty trie: Trie().internalPut + put's delete normalisation. */
function putIntoEmpty(key: Uint8Array, value: Uint8Array | undefined): TrieNode | undefined {
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

function put(
  n: TrieNode,
  key: Uint8Array,
  value: Uint8Array | undefined,
  recursiveDelete: boolean,
): TrieNode | undefined {
  if (value !== undefined && value.length === 0) value = undefined
  const t = internalPut(n, key, value, recursiveDelete)
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
): TrieNode | undefined {
  const common = commonPrefixLength(key, n.path)
  if (common < n.path.length) {
    // the key leaves this node's shared path: nothing to delete, otherwise split here
    if (value === undefined) return n
    return put(split(n, common), key, value, recursiveDelete)
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
  const oldChild = oldRef === undefined ? undefined : resolve(oldRef)
  const subKey = key.subarray(n.path.length + 1)
  const newChild = oldChild === undefined ? putIntoEmpty(subKey, value) : put(oldChild, subKey, value, recursiveDelete)
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

function find(root: TrieNode | undefined, key: Uint8Array): TrieNode | undefined {
  let n = root
  let k = key
  while (n) {
    if (n.path.length > k.length) return undefined
    const common = commonPrefixLength(k, n.path)
    if (common < n.path.length) return undefined
    if (common === k.length) return n
    n = n.child(k[common]!)
    k = k.subarray(common + 1)
  }
  return undefined
}

// ---------------------------------------------------------------------------------------------
// Public trie wrapper
// ---------------------------------------------------------------------------------------------

/** One entry yielded by {@link Unitrie.entries}. */
export type UnitrieEntry = [key: Uint8Array, value: Uint8Array]

/**
 * An immutable Unitrie root. All mutators return a new instance; the receiver is unchanged.
 *
 * Reference: co/rsk/trie/Trie.java (put, delete, deleteRecursive, get, find, getHash,
 * toMessage, getNodes).
 */
export class Unitrie {
  private constructor(
    /** The root node, or undefined for the empty trie. */
    readonly root: TrieNode | undefined,
    /** Store used to resolve lazily-loaded nodes (optional). */
    readonly store: TrieNodeStore | undefined,
  ) {}

  /** The empty trie (hash = EMPTY_TRIE_HASH). */
  static empty(store?: TrieNodeStore): Unitrie {
    return new Unitrie(undefined, store)
  }

  /**
   * A trie whose root is read lazily from `store` (only the root node is fetched now; other nodes
   * are fetched on access). `EMPTY_TRIE_HASH` yields the empty trie.
   *
   * @throws if the root node is not in the store
   */
  static fromRootHash(rootHash: Uint8Array, store: TrieNodeStore): Unitrie {
    if (rootHash.length !== 32) throw new Error('Unitrie: root hash must be 32 bytes')
    if (bytesEqual(rootHash, EMPTY_TRIE_HASH)) return new Unitrie(undefined, store)
    const ref = new HashRef(rootHash.slice(), store)
    return new Unitrie(ref.node, store)
  }

  /**
   * A trie over an already built root node (src/rsk/unitrie-bulk.ts builds whole tries bottom-up).
   * @param root the root node, or undefined for the empty trie
   */
  static fromRootNode(root: TrieNode | undefined, store?: TrieNodeStore): Unitrie {
    return new Unitrie(root, store)
  }

  /** Build a trie from key/value pairs (later duplicates win; empty values delete). */
  static fromEntries(entries: Iterable<readonly [Uint8Array, Uint8Array]>, store?: TrieNodeStore): Unitrie {
    let t = Unitrie.empty(store)
    for (const [k, v] of entries) t = t.put(k, v)
    return t
  }

  /** True when the trie has no keys. */
  get isEmpty(): boolean {
    return this.root === undefined
  }

  /** The value stored at `key`, or undefined (Trie.get). Do not mutate the returned array. */
  get(key: Uint8Array): Uint8Array | undefined {
    return find(this.root, bytesToBits(key))?.getValue()
  }

  /** True when `key` has a value. */
  has(key: Uint8Array): boolean {
    return (find(this.root, bytesToBits(key))?.valueLength ?? 0) > 0
  }

  /** Length in bytes of the value at `key` (0 if absent), without loading long values (Trie.getValueLength). */
  getValueLength(key: Uint8Array): number {
    return find(this.root, bytesToBits(key))?.valueLength ?? 0
  }

  /** keccak256 of the value at `key`, or undefined if absent (Trie.getValueHash). */
  getValueHash(key: Uint8Array): Uint8Array | undefined {
    return find(this.root, bytesToBits(key))?.getValueHash()
  }

  /** The node exactly at `key` (which may have no value), or undefined (Trie.find). */
  findNode(key: Uint8Array): TrieNode | undefined {
    return find(this.root, bytesToBits(key))
  }

  /**
   * Associate `value` with `key`; an empty `value` deletes the key. Returns a new trie.
   * @param value 0..16 777 215 bytes (the array is kept by reference: do not mutate it later)
   */
  put(key: Uint8Array, value: Uint8Array): Unitrie {
    const bits = bytesToBits(key)
    const v = value.length === 0 ? undefined : value
    const root = this.root ? put(this.root, bits, v, false) : putIntoEmpty(bits, v)
    return root === this.root ? this : new Unitrie(root, this.store)
  }

  /** Remove `key` (no-op if absent). Returns a new trie (Trie.delete). */
  delete(key: Uint8Array): Unitrie {
    if (!this.root) return this
    const root = put(this.root, bytesToBits(key), undefined, false)
    return root === this.root ? this : new Unitrie(root, this.store)
  }

  /**
   * Remove the node exactly at `key` together with its whole subtree (every key that has `key` as
   * a prefix), e.g. an account with its code and storage (Trie.deleteRecursive). As in the
   * reference, nothing happens when no node ends exactly at `key` or that node has no value.
   */
  deleteRecursive(key: Uint8Array): Unitrie {
    if (!this.root) return this
    const root = put(this.root, bytesToBits(key), undefined, true)
    return root === this.root ? this : new Unitrie(root, this.store)
  }

  /** Root hash (32 B): keccak256(root message), or EMPTY_TRIE_HASH for the empty trie. */
  hash(): Uint8Array {
    return this.root ? this.root.hash() : EMPTY_TRIE_HASH
  }

  /** Root node message (RSKIP107). The empty trie serializes as the single flags byte 0x40. */
  toMessage(): Uint8Array {
    return this.root ? this.root.message() : Uint8Array.of(FLAG_VERSION)
  }

  /**
   * The serialized messages of the nodes on the path to `key`, LEAF FIRST, ROOT LAST (the node
   * ending exactly at `key` first, even if it has no value), or undefined when no node ends at
   * `key` (Trie.getNodes → findNodes; used by rsk_getTransactionReceiptNodesByHash).
   */
  getNodes(key: Uint8Array): Uint8Array[] | undefined {
    const chain: TrieNode[] = []
    let n = this.root
    let k = bytesToBits(key)
    while (n) {
      if (n.path.length > k.length) return undefined
      const common = commonPrefixLength(k, n.path)
      if (common < n.path.length) return undefined
      chain.push(n)
      if (common === k.length) return chain.reverse().map((x) => x.message())
      n = n.child(k[common]!)
      k = k.subarray(common + 1)
    }
    return undefined
  }

  /**
   * Iterate the (key, value) pairs in ascending key order (a key before its extensions), optionally
   * only those whose key starts with `prefix`. Only keys that are whole bytes are yielded (all keys
   * written through this API are). Lazily loads nodes from the store.
   */
  *entries(prefix: Uint8Array = new Uint8Array(0)): Generator<UnitrieEntry> {
    const want = bytesToBits(prefix)
    let n = this.root
    const consumed: number[] = []
    let rest = want
    // descend to the subtree that contains every key starting with `prefix`
    while (n) {
      const common = commonPrefixLength(rest, n.path)
      if (common === rest.length) break // prefix ends inside (or at the end of) this node's path
      if (common < n.path.length) return // diverges
      for (let i = 0; i < n.path.length; i++) consumed.push(n.path[i]!)
      const bit = rest[common]!
      consumed.push(bit)
      rest = rest.subarray(common + 1)
      n = n.child(bit)
    }
    if (!n) return
    yield* walk(n, consumed)
  }

  /** All keys (see {@link entries}). */
  *keys(prefix?: Uint8Array): Generator<Uint8Array> {
    for (const [k] of this.entries(prefix)) yield k
  }

  /**
   * Persist every in-memory node not yet saved to `store` (TrieStoreImpl.save): the root always,
   * other nodes unless embedded in their parent, and every long value under keccak(value).
   * Subtrees already saved to the same store are skipped, so saving after each block only writes
   * the changed paths.
   *
   * @returns the root hash
   */
  save(store: TrieNodeStore | undefined = this.store): Uint8Array {
    if (!store) throw new Error('Unitrie.save: no store')
    if (this.root) saveNode(this.root, store, true)
    return this.hash()
  }
}

/**
 * The entries of the subtree `root`, whose key starts with `prefixBits`, in key order (pre-order, left first):
 * one explicit stack (no generator per level) and the key kept packed, so an entry costs its key's copy.
 */
function* walk(root: TrieNode, prefixBits: number[]): Generator<UnitrieEntry> {
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
  for (let i = 0; i < prefixBits.length; i++) setBit(i, prefixBits[i]!)
  const nodes: TrieNode[] = [root]
  const depths: number[] = [prefixBits.length]
  const bits: number[] = [-1]
  while (nodes.length > 0) {
    const n = nodes.pop()!
    let d = depths.pop()!
    const bit = bits.pop()!
    if (bit >= 0) setBit(d++, bit)
    const path = n.path
    for (let i = 0; i < path.length; i++) setBit(d++, path[i]!)
    if (n.valueLength > 0 && (d & 7) === 0) yield [key.slice(0, d >> 3), n.getValue()!]
    // (a walk over a whole stored state, e.g. a dump, must not bring every node into memory for good: peek)
    const right = n.peekChild(1)
    if (right) {
      nodes.push(right)
      depths.push(d)
      bits.push(1)
    }
    const left = n.peekChild(0)
    if (left) {
      nodes.push(left)
      depths.push(d)
      bits.push(0)
    }
  }
}

function saveNode(n: TrieNode, store: TrieNodeStore, isRoot: boolean): void {
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
