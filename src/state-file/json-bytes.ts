/**
 * Output of a state file's JSON text as bytes: pieces (ASCII syntax, hex digits straight from byte arrays) are
 * written into a buffer that is handed out in chunks of about {@link CHUNK_SIZE} bytes — no string per value and
 * no UTF-8 encoding pass (a dump of a million storage cells made a few million strings).
 *
 * Not src/util/chunked-bytes.ts (a store of chunks kept and addressed by chunk and offset): this is an output
 * buffer whose written bytes are handed away whole ({@link JsonBytes.take}) and never read again, so it holds one
 * buffer at a time and grows it in place when a piece does not fit (a piece may not straddle two buffers: the
 * writers fill it by index). Its {@link CHUNK_SIZE} is the size of a piece of output, not of a storage chunk.
 */
import { encodeHexInto } from '../util/hex-codec.js'

/** Bytes after which {@link JsonBytes.full} says a chunk is ready. */
export const CHUNK_SIZE = 1 << 20

const ZERO = 0x30

/** A growing chunk of output (see the module comment). */
export class JsonBytes {
  private buf = Buffer.allocUnsafe(CHUNK_SIZE + 4096)
  private pos = 0

  /** Whether a chunk's worth is written ({@link take} it). */
  get full(): boolean {
    return this.pos >= CHUNK_SIZE
  }

  /** The bytes written so far, as their own buffer; the writer starts a new one. */
  take(): Uint8Array {
    const out = this.buf.subarray(0, this.pos)
    this.buf = Buffer.allocUnsafe(CHUNK_SIZE + 4096)
    this.pos = 0
    return out
  }

  /** Bytes written since the last {@link take} or {@link clear}. */
  get length(): number {
    return this.pos
  }

  /** Forgets what was written (keeps the buffer). */
  clear(): void {
    this.pos = 0
  }

  /** Writes what `other` holds (it is unchanged). */
  append(other: JsonBytes): this {
    this.room(other.pos)
    other.buf.copy(this.buf, this.pos, 0, other.pos)
    this.pos += other.pos
    return this
  }

  /** Makes room for `n` more bytes. */
  private room(n: number): void {
    if (this.pos + n <= this.buf.length) return
    const bigger = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n))
    this.buf.copy(bigger, 0, 0, this.pos)
    this.buf = bigger
  }

  /** Writes text (UTF-8; state files only hold ASCII). */
  text(s: string): this {
    this.room(s.length * 3)
    this.pos += this.buf.write(s, this.pos, 'utf8')
    return this
  }

  /** Writes one ASCII character by code. */
  char(code: number): this {
    this.room(1)
    this.buf[this.pos++] = code
    return this
  }

  /** Writes `"0x<hex of bytes [from, to)>"`. */
  quotedHex(bytes: Uint8Array, from = 0, to = bytes.length): this {
    this.room(4 + 2 * (to - from))
    const b = this.buf
    b[this.pos++] = 0x22
    b[this.pos++] = ZERO
    b[this.pos++] = 0x78
    this.pos = encodeHexInto(bytes, from, to, b, this.pos)
    b[this.pos++] = 0x22
    return this
  }

  /** Writes `"0x<64 hex digits>"`: bytes [from, to) (at most 32) as a 32-byte word, zeros in front. */
  quotedWord(bytes: Uint8Array, from = 0, to = bytes.length): this {
    this.room(68)
    const b = this.buf
    b[this.pos++] = 0x22
    b[this.pos++] = ZERO
    b[this.pos++] = 0x78
    for (let k = 2 * (to - from); k < 64; k++) b[this.pos++] = ZERO
    this.pos = encodeHexInto(bytes, from, to, b, this.pos)
    b[this.pos++] = 0x22
    return this
  }
}
