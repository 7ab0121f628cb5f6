/**
 * RLP encoding as the reference node writes it (org/ethereum/util/RLP.java encodeElement / encodeList and its number
 * encodings), shared by the header, receipt, Remasc and trie-key codecs. The header's use of each number encoding is
 * described in src/rsk/header.ts.
 */
import { concat, fromHex, heapBytes, type Allocator } from '../util/bytes.js'

// ---------------------------------------------------------------------------------------------
// RLP primitives (org/ethereum/util/RLP.java encodeElement / encodeList)
// ---------------------------------------------------------------------------------------------

/** Bytes of the RLP length prefix of a payload of `len` bytes (RLP.java encodeLength: 1, or 1 + the length's bytes). */
export function rlpPrefixSize(len: number): number {
  if (len < 56) return 1
  let n = 1
  for (let l = len; l > 255; l = Math.floor(l / 256)) n++
  return 1 + n
}

/**
 * Writes the RLP prefix of a `len`-byte payload at `pos` (for one-pass encoders that size everything first).
 * @param offset 0x80 for a byte string, 0xc0 for a list
 * @returns the position after the prefix
 */
export function writeRlpPrefix(out: Uint8Array, pos: number, len: number, offset: number): number {
  if (len < 56) {
    out[pos] = offset + len
    return pos + 1
  }
  const size = rlpPrefixSize(len)
  out[pos] = offset + 55 + size - 1
  for (let i = size - 1, l = len; i >= 1; i--, l = Math.floor(l / 256)) out[pos + i] = l & 0xff
  return pos + size
}

/** Bytes of RLP.encodeElement(data): a single byte below 0x80 is itself, else prefix ‖ bytes (empty: 0x80). */
export function rlpElementSize(data: Uint8Array): number {
  return data.length === 1 && data[0]! < 0x80 ? 1 : rlpPrefixSize(data.length) + data.length
}

/** Writes RLP.encodeElement(data) at `pos`; returns the position after it. */
export function writeRlpElement(out: Uint8Array, pos: number, data: Uint8Array): number {
  if (data.length === 1 && data[0]! < 0x80) {
    out[pos] = data[0]!
    return pos + 1
  }
  pos = writeRlpPrefix(out, pos, data.length, 0x80)
  out.set(data, pos)
  return pos + data.length
}

/**
 * RLP-encode a byte string (RLP.encodeElement): empty/null → 0x80; one byte < 0x80 (including
 * 0x00) → itself; otherwise length prefix ‖ bytes. One allocation (block assembly encodes ~100 items per
 * mined block: headers three times, receipts, logs), from `alloc` (util/bytes {@link tempBytes} for values
 * that are only hashed).
 */
export function rlpBytes(data: Uint8Array | null | undefined, alloc: Allocator = heapBytes): Uint8Array {
  if (!data || data.length === 0) return Uint8Array.of(0x80)
  if (data.length === 1 && data[0]! < 0x80) return Uint8Array.of(data[0]!)
  const out = alloc(rlpPrefixSize(data.length) + data.length)
  out.set(data, writeRlpPrefix(out, 0, data.length, 0x80))
  return out
}

/**
 * RLP list of ALREADY-ENCODED items (RLP.encodeList): list prefix ‖ items concatenated (one allocation, from
 * `alloc`, as {@link rlpBytes}).
 */
export function rlpList(encodedItems: readonly Uint8Array[], alloc: Allocator = heapBytes): Uint8Array {
  let n = 0
  for (const p of encodedItems) n += p.length
  const out = alloc(rlpPrefixSize(n) + n)
  let pos = writeRlpPrefix(out, 0, n, 0xc0)
  for (const p of encodedItems) {
    out.set(p, pos)
    pos += p.length
  }
  return out
}

/**
 * Writes the items of an RLP list into one buffer without an array per item (a header's ~20 fields, for instance):
 * the same sequence of calls runs twice, first after {@link RlpItemWriter.size} (the calls only add up the bytes
 * they would write, in {@link RlpItemWriter.pos}), then after {@link RlpItemWriter.into} (they write, from the
 * position given). The items are RLP.java's: byte strings (RLP.encodeElement) and its number encodings (below), the
 * same bytes as {@link rlpBytes}, {@link rlpUnsigned}, {@link rlpSignedCoin} and the RLP of
 * {@link javaBigIntegerBytes}.
 */
export class RlpItemWriter {
  private out: Uint8Array | undefined
  /** While sizing: the bytes counted so far; while writing: the next position in the buffer. */
  pos = 0

  /** Starts a sizing pass. */
  size(): this {
    this.out = undefined
    this.pos = 0
    return this
  }

  /** Starts a writing pass into `out` at `pos` (the buffer must hold what the sizing pass counted). */
  into(out: Uint8Array, pos: number): this {
    this.out = out
    this.pos = pos
    return this
  }

  /** RLP.encodeElement(data): null and empty → 0x80, one byte below 0x80 itself, else prefix ‖ bytes. */
  bytes(data: Uint8Array | null | undefined): void {
    const d = data ?? NO_BYTES
    if (this.out === undefined) this.pos += rlpElementSize(d)
    else this.pos = writeRlpElement(this.out, this.pos, d)
  }

  /** RLP.encodeBigInteger (as {@link rlpUnsigned}): minimal big-endian, zero → 0x80. @throws Error for negatives */
  unsigned(value: bigint | number): void {
    const v = BigInt(value)
    if (v < 0n) throw new Error('unsignedBytes: negative value')
    const len = uintLength(v)
    if (len === 1 && v < 0x80n) this.raw(Number(v))
    else this.number(v, len, len)
  }

  /** RLP of Java `BigInteger.toByteArray()` of a non-negative value ({@link javaBigIntegerBytes}; zero → 0x00). */
  javaBigInteger(value: bigint): void {
    if (value < 0n) throw new Error('javaBigIntegerBytes: negative values are not supported')
    if (value === 0n) return this.raw(0)
    const len = uintLength(value)
    // (a 0x00 first byte when the top bit is set: the value stays positive in two's complement)
    const size = value >> BigInt(8 * len - 1) === 1n ? len + 1 : len
    if (size === 1 && value < 0x80n) this.raw(Number(value))
    else this.number(value, len, size)
  }

  /** RLP.encodeSignedCoinNonNullZero (as {@link rlpSignedCoin}): null → 0x80, zero → raw 0x00, else toByteArray. */
  signedCoin(value: bigint | null | undefined): void {
    if (value === null || value === undefined) this.raw(0x80)
    else this.javaBigInteger(value)
  }

  /** ByteUtil.shortsToRLP: an RLP string of the values as little-endian int16. */
  int16LE(values: readonly number[]): void {
    const len = values.length * 2
    if (this.out === undefined) {
      this.pos += rlpPrefixSize(len) + len
      return
    }
    const out = this.out
    let pos = writeRlpPrefix(out, this.pos, len, 0x80)
    for (const x of values) {
      out[pos++] = x & 0xff
      out[pos++] = (x >> 8) & 0xff
    }
    this.pos = pos
  }

  /** One byte as it is (an item of its own: a byte below 0x80, or 0x80 for an empty string). */
  private raw(byte: number): void {
    if (this.out !== undefined) this.out[this.pos] = byte
    this.pos++
  }

  /** An RLP string of `size` bytes: `size − len` zero bytes, then `v`'s `len` big-endian bytes. */
  private number(v: bigint, len: number, size: number): void {
    if (this.out === undefined) {
      this.pos += rlpPrefixSize(size) + size
      return
    }
    const out = this.out
    let pos = writeRlpPrefix(out, this.pos, size, 0x80)
    for (let i = len; i < size; i++) out[pos++] = 0
    writeUint(out, pos, v, len)
    this.pos = pos + len
  }
}

const NO_BYTES = new Uint8Array(0)

/**
 * Writes the non-negative `v` as `len` big-endian bytes at `out[pos …]` (its low `len` bytes; number arithmetic up to
 * 6 bytes, where a bigint loop would allocate a bigint per byte).
 */
function writeUint(out: Uint8Array, pos: number, v: bigint, len: number): void {
  if (len <= 6) {
    for (let i = len - 1, n = Number(v); i >= 0; i--, n = Math.floor(n / 256)) out[pos + i] = n % 256
  } else {
    for (let i = len - 1, n = v; i >= 0; i--, n >>= 8n) out[pos + i] = Number(n & 0xffn)
  }
}

/** Bytes of the minimal big-endian form of a non-negative value (0 for zero). */
function uintLength(v: bigint): number {
  if (v <= 0xffffffffffffn) {
    let length = 0
    for (let n = Number(v); n > 0; n = Math.floor(n / 256)) length++
    return length
  }
  return (v.toString(16).length + 1) >> 1
}

// ---------------------------------------------------------------------------------------------
// Number → bytes helpers
// ---------------------------------------------------------------------------------------------

/** Minimal unsigned big-endian bytes; 0 → empty (so RLP gives 0x80). Rejects negatives. */
export function unsignedBytes(value: bigint | number): Uint8Array {
  const v = BigInt(value)
  if (v < 0n) throw new Error('unsignedBytes: negative value')
  if (v <= 0xffffffffffffn) {
    // (most values: nonces, gas, small balances; byte by byte without a hex string)
    const length = uintLength(v)
    const out = new Uint8Array(length)
    writeUint(out, 0, v, length)
    return out
  }
  return fromHex(v.toString(16))
}

/**
 * Java `BigInteger.toByteArray()` of a non-negative value: minimal two's complement, i.e. a 0x00
 * prefix when the top bit is set, and zero → the single byte 0x00.
 */
export function javaBigIntegerBytes(value: bigint | number): Uint8Array {
  const v = BigInt(value)
  if (v < 0n) throw new Error('javaBigIntegerBytes: negative values are not supported')
  if (v === 0n) return Uint8Array.of(0)
  const u = unsignedBytes(v)
  return u[0]! & 0x80 ? concat(Uint8Array.of(0), u) : u
}

/** RLP.encodeBigInteger: minimal big-endian, zero → 0x80. */
export function rlpUnsigned(value: bigint | number): Uint8Array {
  return rlpBytes(unsignedBytes(value))
}

/** RLP.encodeSignedCoinNonNullZero: null → 0x80, zero → raw 0x00, else RLP(toByteArray()). */
export function rlpSignedCoin(value: bigint | null | undefined): Uint8Array {
  if (value === null || value === undefined) return Uint8Array.of(0x80)
  return rlpBytes(javaBigIntegerBytes(value))
}
