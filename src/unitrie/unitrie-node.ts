/**
 * One Unitrie node (rskj `Trie` instance) and its RSKIP107 message codec (docs/reference-rules.md#rule-unitrie-node):
 * the immutable node with its cached message, hash and subtree size, children in memory or known only by hash
 * (loaded from a {@link TrieNodeStore} on first access), writing the message (flags, shared path, embedded child
 * or child hash, VarInt childrenSize, value or long-value hash and length) and decoding one (read by
 * src/unitrie/node-message.ts, which checks it).
 *
 * Reference sources (rskj master, paths under rskj-core/src/main/java/): co/rsk/trie/Trie.java (toMessage,
 * fromMessageRskip107, getHash), co/rsk/trie/NodeReference.java (embedded vs hashed children, referenceSize).
 */
import { bytesToHex } from '@ethereumjs/util'
import { EMPTY_TRIE_HASH, keccak256 } from '../crypto/keccak.js'
import {
  EMBEDDED_LENGTH_SIZE,
  EMPTY_BITS,
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
  sharedPathSerializedLength,
  unpackBits,
  varIntSize,
  writeSharedPath,
  writeVarInt,
} from './unitrie-codec.js'
import { NodeMessage } from './node-message.js'
import type { TrieNodeStore } from './unitrie-store.js'

// ---------------------------------------------------------------------------------------------
// Nodes
// ---------------------------------------------------------------------------------------------

/**
 * A reference to a child node that is known only by hash (it was stored as a 32-byte hash in a
 * parent's message loaded from a store). The node is fetched from the store on first access.
 * Equivalent of a rskj `NodeReference` with `lazyNode == null`.
 * @internal used by the trie operations and saving (src/unitrie/unitrie-put.ts, src/unitrie/unitrie-save.ts).
 */
export class HashRef {
  private loaded: TrieNode | undefined
  /** Loads through {@link nodeAfter} so far. */
  private visits = 0
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
  /**
   * The node, kept from the `keepAt`-th call on: the calls before decode it anew each time and keep nothing, so a
   * node reached once (a lookup of a random key) is left to the garbage collector while one reached again and
   * again (a hot account, a holder read in a loop) ends up kept as with {@link node}.
   */
  nodeAfter(keepAt: number): TrieNode {
    if (this.loaded) return this.loaded
    return ++this.visits >= keepAt ? this.node : this.decode()
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

/** @internal a child reference: the node in memory, or its hash to load it by. */
export type Child = TrieNode | HashRef
/** @internal the node of a child, loaded from the store when known only by hash. */
export function resolve(child: Child): TrieNode {
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
   * the store to read its message from (src/unitrie/unitrie-walk.ts walks stored messages without decoding them).
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
    const leftLen = childLength(this.left, leftEmb)
    const rightLen = childLength(this.right, rightEmb)
    const terminal = this.isTerminal
    const cs = terminal ? 0 : this.childrenSize()
    const valueLen = long ? LONG_VALUE_SIZE : this.valueLength
    const out = new Uint8Array(FLAGS_SIZE + pathLen + leftLen + rightLen + (terminal ? 0 : varIntSize(cs)) + valueLen)
    let flags = FLAG_VERSION
    if (long) flags |= FLAG_LONG_VALUE
    if (this.path.length > 0) flags |= FLAG_SHARED_PATH
    if (this.left) flags |= FLAG_LEFT
    if (this.right) flags |= FLAG_RIGHT
    if (leftEmb) flags |= FLAG_LEFT_EMBEDDED
    if (rightEmb) flags |= FLAG_RIGHT_EMBEDDED
    out[0] = flags
    let pos = FLAGS_SIZE
    if (this.path.length > 0) pos = writeSharedPath(out, pos, this.path)
    pos = writeChild(out, pos, this.left, leftEmb)
    pos = writeChild(out, pos, this.right, rightEmb)
    if (!terminal) pos = writeVarInt(out, pos, cs)
    if (long) {
      out.set(this.getValueHash()!, pos)
      pos += HASH_SIZE
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

/** Bytes child `c` takes in its parent's message: its length byte and message when embedded, else its hash. */
function childLength(c: Child | undefined, embedded: boolean): number {
  if (c === undefined) return 0
  return embedded ? EMBEDDED_LENGTH_SIZE + resolve(c).message().length : HASH_SIZE
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
  return pos + HASH_SIZE
}

/** @internal NodeReference.referenceSize: childrenSize + external long-value length + message length. */
export function refSize(c: Child | undefined): number {
  if (c === undefined) return 0
  const n = resolve(c)
  return n.childrenSize() + (n.hasLongValue ? n.valueLength : 0) + n.message().length
}

/** The reader decodeNode uses (its fields are copied out before an embedded child is decoded with it). */
const reading = new NodeMessage()

/**
 * Decode one RSKIP107 node message (Trie.fromMessageRskip107), read by {@link NodeMessage}. Embedded children are
 * decoded recursively; hashed children become lazy references resolved through `store`.
 * Pre-RSKIP107 ("Orchid", first byte 0x02) messages are rejected.
 *
 * @param message the serialized node (kept by reference as the node's cached message)
 * @param store   where hashed children and long values are fetched from
 * @throws Error `Unitrie: …` when the message is malformed (see NodeMessage.read)
 */
export function decodeNode(message: Uint8Array, store?: TrieNodeStore): TrieNode {
  const { flags, pathBits, pathAt, leftAt, leftEnd, rightAt, rightEnd, childrenSize, valueAt, valueLength } =
    reading.read(message)
  const path = pathBits > 0 ? unpackBits(message, pathAt, pathBits) : EMPTY_BITS
  const left = leftAt < 0 ? undefined : decodeChild(message, leftAt, leftEnd, flags & FLAG_LEFT_EMBEDDED, store)
  const right = rightAt < 0 ? undefined : decodeChild(message, rightAt, rightEnd, flags & FLAG_RIGHT_EMBEDDED, store)
  let value: Uint8Array | undefined
  let valueHash: Uint8Array | undefined
  if (flags & FLAG_LONG_VALUE) valueHash = message.slice(valueAt, valueAt + HASH_SIZE)
  else if (valueLength > 0) value = message.subarray(valueAt)
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

/** The child kept at bytes [at, end) of `message`: an embedded node (decoded now), or a hash to load it by. */
function decodeChild(message: Uint8Array, at: number, end: number, embedded: number, store?: TrieNodeStore): Child {
  if (embedded) return decodeNode(message.subarray(at, end), store)
  return new HashRef(message.slice(at, end), store)
}
