/**
 * The node transport's early 413 for chunked bodies: a `Transfer-Encoding: chunked` request whose chunk-size
 * lines announce more than the body limit is refused as soon as the size line arrives, not after the body
 * stalls (node:http delivers only chunk data, never the sizes, so a request announcing a 16 MB chunk and
 * sending nothing would otherwise wait for the body idle timeout).
 *
 * The sizes are read from the raw bytes beside node:http's own parser: the part of the current socket read that
 * follows the request head (node:http's `parser.getCurrentBuffer()`, the head located by its request line and
 * header names), then each later read of the socket (a `data` listener, which switches node:http from reading
 * the socket in C++ to JavaScript for the rest of that connection). Anything unexpected — the head not whole in
 * that read, two heads that fit, a framing byte that is not one — stops the watch without a verdict: the body is
 * then limited by the byte count and the idle timeout as before. Framing: RFC 9112 §7.1.
 */
import type { IncomingMessage } from 'node:http'

/** What a scan of more bytes found. */
export type ChunkScan = 'more' | 'over' | 'done' | 'lost'

const SIZE = 0
const EXTENSION = 1
const SIZE_LF = 2
const DATA = 3
const DATA_CR = 4
const DATA_LF = 5

/**
 * The chunk framing of one body, fed its raw bytes in order: sums the announced chunk sizes and reports when the
 * sum exceeds the limit (as soon as the size's digits do), when the last chunk (size 0) was announced, or that
 * the bytes are not chunk framing.
 */
export class ChunkSizeScanner {
  private state = SIZE
  private digits = 0
  private size = 0
  private remaining = 0
  private total = 0
  private verdict: ChunkScan = 'more'

  /** @param maxBodyBytes the body limit in bytes */
  constructor(private readonly maxBodyBytes: number) {}

  /**
   * Scans `bytes[from…]`.
   * @returns 'over' (the announced sizes exceed the limit), 'done' (the last chunk was announced), 'lost' (not
   *   chunk framing) — each final, repeated by later calls — or 'more'
   */
  feed(bytes: Uint8Array, from = 0): ChunkScan {
    let i = from
    while (this.verdict === 'more' && i < bytes.length) {
      const c = bytes[i]!
      switch (this.state) {
        case SIZE: {
          const digit = hexDigit(c)
          if (digit >= 0) {
            this.size = this.size * 16 + digit
            this.digits++
            if (this.total + this.size > this.maxBodyBytes) this.verdict = 'over'
          } else if (this.digits === 0) this.verdict = 'lost'
          else if (c === 0x0d) this.state = SIZE_LF
          else if (c === 0x3b /* ; */ || c === 0x20 || c === 0x09) this.state = EXTENSION
          else this.verdict = 'lost'
          i++
          break
        }
        case EXTENSION:
          if (c === 0x0d) this.state = SIZE_LF
          i++
          break
        case SIZE_LF:
          if (c !== 0x0a) this.verdict = 'lost'
          else if (this.size === 0) this.verdict = 'done'
          else {
            this.total += this.size
            this.remaining = this.size
            this.state = DATA
          }
          i++
          break
        case DATA: {
          const n = Math.min(this.remaining, bytes.length - i)
          this.remaining -= n
          i += n
          if (this.remaining === 0) this.state = DATA_CR
          break
        }
        case DATA_CR:
          this.state = DATA_LF
          if (c !== 0x0d) this.verdict = 'lost'
          i++
          break
        case DATA_LF:
          if (c !== 0x0a) this.verdict = 'lost'
          this.state = SIZE
          this.size = this.digits = 0
          i++
          break
      }
    }
    return this.verdict
  }
}

function hexDigit(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30
  const lower = c | 0x20
  return lower >= 0x61 && lower <= 0x66 ? lower - 0x61 + 10 : -1
}

/** node:http's parser as far as it is read here (not part of Node's documented API: checked before use). */
interface ParserWithBuffer {
  getCurrentBuffer?: () => Buffer
}

/**
 * Where the head of `req` ends in `read` (the index after its blank line), or -1 when it is not there whole
 * or more than one place fits: the request line `METHOD url HTTP/x.y` followed by exactly the header lines
 * node:http reported (by name, in order) and the blank line.
 */
export function headEnd(read: Buffer, req: IncomingMessage): number {
  const requestLine = Buffer.from(`${req.method} ${req.url} HTTP/${req.httpVersion}\r\n`, 'latin1')
  const names = req.rawHeaders.filter((_, k) => k % 2 === 0).map((n) => n.toLowerCase())
  let found = -1
  for (let at = read.indexOf(requestLine); at >= 0; at = read.indexOf(requestLine, at + 1)) {
    let line = at + requestLine.length
    let ok = true
    for (const name of names) {
      const eol = read.indexOf('\r\n', line, 'latin1')
      const colon = read.indexOf(':', line, 'latin1')
      if (eol < 0 || colon < 0 || colon > eol || read.toString('latin1', line, colon).toLowerCase() !== name) {
        ok = false
        break
      }
      line = eol + 2
    }
    if (!ok || read[line] !== 0x0d || read[line + 1] !== 0x0a) continue
    if (found >= 0) return -1
    found = line + 2
  }
  return found
}

/**
 * Watches the chunk sizes of a chunked request's body (see the module comment) and calls `onOver` once, at
 * once, when they announce more than `maxBodyBytes`. Call it from the `request` event (the current socket read
 * is then the one that held the end of the head). The watch ends with the body, the request, or its verdict.
 * @param req a request with `Transfer-Encoding: chunked`
 * @param maxBodyBytes the body limit in bytes
 * @param onOver answers 413 (and closes the connection)
 */
export function watchChunkSizes(req: IncomingMessage, maxBodyBytes: number, onOver: () => void): void {
  const socket = req.socket as IncomingMessage['socket'] & { parser?: ParserWithBuffer | null }
  const read = socket.parser?.getCurrentBuffer?.()
  if (!Buffer.isBuffer(read)) return
  const start = headEnd(read, req)
  if (start < 0) return
  const scanner = new ChunkSizeScanner(maxBodyBytes)
  const first = scanner.feed(read, start)
  if (first === 'over') onOver()
  if (first !== 'more') return
  let stopped = false
  const onData = (chunk: Buffer): void => {
    // (a listener removed during an emit is still called for that emit)
    if (stopped) return
    const verdict = scanner.feed(chunk)
    if (verdict === 'more') return
    stop()
    if (verdict === 'over') onOver()
  }
  const stop = (): void => {
    stopped = true
    socket.removeListener('data', onData)
    req.removeListener('end', stop)
    req.removeListener('close', stop)
  }
  socket.on('data', onData)
  req.once('end', stop)
  req.once('close', stop)
}

/** Whether a request's body is chunked (its last transfer coding is `chunked`, RFC 9112 §6.1). */
export function isChunked(req: IncomingMessage): boolean {
  const te = req.headers['transfer-encoding']
  return te !== undefined && /(?:^|,)\s*chunked\s*$/i.test(te)
}
