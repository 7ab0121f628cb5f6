/**
 * Reading one RSKIP107 Unitrie node message (docs/reference-rules.md#rule-unitrie-node) into its parts, as offsets:
 * the one reader behind decoding a node (src/unitrie/unitrie-node.ts decodeNode), the entry walk over stored
 * messages (src/unitrie/unitrie-walk.ts) and the arena copy (src/unitrie/trie-arena-copy.ts). It checks that every
 * part lies inside the message's bounds — a message is often a range of a larger buffer (an arena chunk, a parent
 * holding an embedded child), so a read past its end would not fail on its own but read the next record's bytes —
 * and rejects the pre-RSKIP107 ("Orchid") format.
 *
 *   flags(1) ‖ [shared path] ‖ [left] ‖ [right] ‖ [VarInt childrenSize, if a child] ‖ value
 *
 * (written by TrieNode.message, which documents each part). A short value is the rest of the message, so a
 * message cut inside its short value (or right before it) still reads as a node with a shorter (or no) value: the
 * format cannot tell. Every other cut is caught.
 *
 * Reference sources (rskj master, paths under rskj-core/src/main/java/): co/rsk/trie/Trie.java (fromMessage,
 * fromMessageRskip107), co/rsk/trie/SharedPathSerializer.java, co/rsk/trie/NodeReference.java.
 */
import {
  EMBEDDED_LENGTH_SIZE,
  FLAG_LEFT,
  FLAG_LEFT_EMBEDDED,
  FLAG_LONG_VALUE,
  FLAG_RIGHT,
  FLAG_RIGHT_EMBEDDED,
  FLAG_SHARED_PATH,
  FLAGS_SIZE,
  HASH_SIZE,
  LONG_VALUE_SIZE,
  ORCHID_FIRST_BYTE,
  PATH_LONG_OFFSET,
  PATH_SHORT_MAX_BITS,
  PATH_VARINT_MARKER,
  varIntAt,
  varIntLength,
} from './unitrie-codec.js'

const NONE = new Uint8Array(0)

/** The error a malformed message raises (the plain Error decodeNode has always raised). */
function bad(what: string): Error {
  return new Error(`Unitrie: ${what}`)
}

/**
 * The parts of one node message, as offsets into the buffer read ({@link NodeMessage.read} fills them): one object
 * is reused message after message, so reading allocates nothing. Offsets are absolute (into {@link bytes}).
 */
export class NodeMessage {
  /** The buffer read; the message is bytes [{@link start}, {@link end}) of it. */
  bytes: Uint8Array = NONE
  start = 0
  end = 0
  /** The flags byte (FLAG_* in src/unitrie/unitrie-codec.ts). */
  flags = 0
  /** The shared path's length in bits (0: none) and where its bits start, packed MSB-first. */
  pathBits = 0
  pathAt = 0
  /**
   * The left child's bytes [leftAt, leftEnd): its message when embedded, else its 32-byte hash; −1 and −1 when
   * there is no left child. Likewise {@link rightAt} and {@link rightEnd}.
   */
  leftAt = -1
  leftEnd = -1
  rightAt = -1
  rightEnd = -1
  /** RSKIP107 childrenSize (bytes of the subtree below; 0 when the node has no child). */
  childrenSize = 0
  /**
   * Where the value part starts: a short value is bytes [valueAt, end); a long value's keccak256 hash is bytes
   * [valueAt, valueAt + 32), followed by its length.
   */
  valueAt = 0
  /** The value's length in bytes (0: no value; for a long value, the length written in the message). */
  valueLength = 0

  /** True when the value is kept out of the message (hash and length). */
  get hasLongValue(): boolean {
    return (this.flags & FLAG_LONG_VALUE) !== 0
  }

  /** True when the node has neither child. */
  get isTerminal(): boolean {
    return (this.flags & (FLAG_LEFT | FLAG_RIGHT)) === 0
  }

  /** Where the child for bit `side` (0 left, 1 right) starts, or −1 when there is none. */
  childAt(side: number): number {
    return side === 0 ? this.leftAt : this.rightAt
  }

  /** Where the child for bit `side` ends (see {@link childAt}). */
  childEnd(side: number): number {
    return side === 0 ? this.leftEnd : this.rightEnd
  }

  /** True when the child for bit `side` is embedded (its message is in this one), false when kept by hash or none. */
  childEmbedded(side: number): boolean {
    return (this.flags & (side === 0 ? FLAG_LEFT_EMBEDDED : FLAG_RIGHT_EMBEDDED)) !== 0 && this.childAt(side) >= 0
  }

  /**
   * Reads the message bytes [start, end) of `bytes` into this object's fields (the buffer is kept by reference).
   * @returns this object
   * @throws Error `Unitrie: …` when the message is empty, in the pre-RSKIP107 format (first byte 2), or ends
   *   before one of its parts does (shared path, embedded child, child hash, childrenSize), or when a long value is
   *   not exactly the message's last 35 bytes
   */
  read(bytes: Uint8Array, start = 0, end: number = bytes.length): this {
    if (start >= end) throw bad('empty node message')
    const flags = bytes[start]!
    if (flags === ORCHID_FIRST_BYTE) throw bad('pre-RSKIP107 (Orchid) node serialization is not supported')
    this.bytes = bytes
    this.start = start
    this.end = end
    this.flags = flags
    let pos = start + FLAGS_SIZE
    let pathBits = 0
    if (flags & FLAG_SHARED_PATH) {
      // length prefix: bits − 1 for 1..32 bits, bits − 128 for 160..382, else 0xff ‖ VarInt(bits)
      if (pos >= end) throw bad('truncated shared path')
      const first = bytes[pos++]!
      if (first < PATH_SHORT_MAX_BITS) pathBits = first + 1
      else if (first < PATH_VARINT_MARKER) pathBits = first + PATH_LONG_OFFSET
      else {
        pathBits = this.varInt(pos)
        pos += varIntLength(bytes[pos]!)
      }
      // (compared in bits: a VarInt length may be past 2^31, where `>> 3` would wrap)
      if (pathBits > (end - pos) * 8) throw bad('truncated shared path')
    }
    this.pathBits = pathBits
    this.pathAt = pos
    pos += (pathBits + 7) >> 3
    if (flags & FLAG_LEFT) {
      this.leftAt = this.childStart(pos, (flags & FLAG_LEFT_EMBEDDED) !== 0)
      pos = this.leftEnd = this.childStop(pos, (flags & FLAG_LEFT_EMBEDDED) !== 0)
    } else this.leftAt = this.leftEnd = -1
    if (flags & FLAG_RIGHT) {
      this.rightAt = this.childStart(pos, (flags & FLAG_RIGHT_EMBEDDED) !== 0)
      pos = this.rightEnd = this.childStop(pos, (flags & FLAG_RIGHT_EMBEDDED) !== 0)
    } else this.rightAt = this.rightEnd = -1
    if (flags & (FLAG_LEFT | FLAG_RIGHT)) {
      this.childrenSize = this.varInt(pos)
      pos += varIntLength(bytes[pos]!)
    } else this.childrenSize = 0
    this.valueAt = pos
    if (flags & FLAG_LONG_VALUE) {
      if (pos + LONG_VALUE_SIZE !== end) throw bad('bad long value encoding')
      const at = pos + HASH_SIZE
      this.valueLength = (bytes[at]! << 16) | (bytes[at + 1]! << 8) | bytes[at + 2]!
    } else this.valueLength = end - pos
    return this
  }

  /** Where a child written at `pos` starts (past an embedded child's length byte). */
  private childStart(pos: number, embedded: boolean): number {
    return embedded ? pos + EMBEDDED_LENGTH_SIZE : pos
  }

  /** Where a child written at `pos` ends, checked against the message's end. */
  private childStop(pos: number, embedded: boolean): number {
    const end = this.end
    if (!embedded) {
      if (pos + HASH_SIZE > end) throw bad('truncated child hash')
      return pos + HASH_SIZE
    }
    if (pos >= end) throw bad('truncated embedded node')
    const stop = pos + EMBEDDED_LENGTH_SIZE + this.bytes[pos]!
    if (stop > end) throw bad('truncated embedded node')
    return stop
  }

  /** The VarInt at `pos`, checked against the message's end. */
  private varInt(pos: number): number {
    if (pos >= this.end || pos + varIntLength(this.bytes[pos]!) > this.end) throw bad('truncated VarInt')
    return varIntAt(this.bytes, pos)
  }
}
