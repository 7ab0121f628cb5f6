/**
 * Test helper: raw HTTP over a real TCP socket (node:net), for what fetch cannot send: any `Host` header,
 * HTTP/1.0, malformed request heads, slow clients.
 */
import { Socket } from 'node:net'

/** What came back on a raw socket. */
export interface RawReply {
  /** Everything the server wrote, as latin1 text. */
  text: string
  /** Status code of the first response line (0 when none). */
  status: number
  /** True when the server closed the socket before the deadline. */
  closed: boolean
}

/**
 * Writes `request` (as is) to 127.0.0.1:`port` and collects the reply until the server closes the socket or
 * `untilMs` passes (then the socket is destroyed and `closed` is false).
 * @param port server port
 * @param request raw bytes to send (use `Connection: close` to get the socket closed after a good answer)
 * @param untilMs generous deadline in ms
 */
export function rawExchange(port: number, request: string | Buffer, untilMs = 5_000): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const socket = new Socket()
    let text = ''
    let done = false
    const finish = (closed: boolean): void => {
      if (done) return
      done = true
      clearTimeout(timer)
      socket.destroy()
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(text)
      resolve({ text, status: m ? Number(m[1]) : 0, closed })
    }
    const timer = setTimeout(() => finish(false), untilMs)
    socket.on('data', (d: Buffer) => (text += d.toString('latin1')))
    socket.on('end', () => finish(true))
    socket.on('close', () => finish(true))
    socket.on('error', (err: NodeJS.ErrnoException) => {
      // a reset after the answer counts as closed
      if (err.code === 'ECONNRESET' || err.code === 'EPIPE') finish(true)
      else if (!done) {
        done = true
        clearTimeout(timer)
        reject(err)
      }
    })
    socket.connect(port, '127.0.0.1', () => socket.write(request))
  })
}

/**
 * A JSON-RPC POST as raw HTTP/1.1 text with the given headers (Host defaults to 127.0.0.1:<port>).
 * @param port server port
 * @param body JSON-RPC request object
 * @param headers extra headers (`host`, `origin`…); a `host` entry replaces the default
 */
export function rpcPost(port: number, body: unknown, headers: Record<string, string> = {}): string {
  const json = JSON.stringify(body)
  const all: Record<string, string> = {
    host: `127.0.0.1:${port}`,
    'content-type': 'application/json',
    connection: 'close',
    ...headers,
  }
  all['content-length'] = String(Buffer.byteLength(json))
  return (
    'POST / HTTP/1.1\r\n' +
    Object.entries(all)
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('') +
    '\r\n' +
    json
  )
}

/** The body of a raw HTTP reply (after the blank line; chunked replies are not decoded). */
export function replyBody(reply: RawReply): string {
  const i = reply.text.indexOf('\r\n\r\n')
  return i < 0 ? '' : reply.text.slice(i + 4)
}

/** The value of a header in a raw HTTP reply (case-insensitive), or undefined. */
export function replyHeader(reply: RawReply, name: string): string | undefined {
  const head = reply.text.split('\r\n\r\n')[0] ?? ''
  for (const line of head.split('\r\n').slice(1)) {
    const colon = line.indexOf(':')
    if (colon > 0 && line.slice(0, colon).trim().toLowerCase() === name.toLowerCase())
      return line.slice(colon + 1).trim()
  }
  return undefined
}
