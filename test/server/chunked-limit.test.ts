/**
 * A `Transfer-Encoding: chunked` request whose chunk-size lines announce more than the body limit is answered
 * 413 at once on the node transport — the size line alone, nothing of the chunk sent — well before the 10 s
 * body idle timeout (the tests wait for the answer within a 5 s test timeout, not by measuring time). Chunked
 * bodies within the limit (split over many writes, pipelined, on a keep-alive connection)
 * are still served, on both transports. (The node transport used to answer 408 after the 10 s timeout.)
 *
 * uWS (uws-pack 20.0.8) gives JavaScript only the chunks' data, never their sizes, so on that transport such a
 * request is refused only when its data passes the limit (tested as such); an announced-but-unsent chunk waits for
 * uWS's idle timeout (then the socket is closed without an answer), so the early-413 cases are the node transport's.
 */
import { connect, type Socket } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer } from '../../src/server/index.js'
import type { RunningServer } from '../../src/server/types.js'
import { waitUntil } from '../helpers/wait.js'

type Transport = 'uws' | 'node'
const LIMIT = 1024
const HEAD =
  'POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n'

/** A chunk of `text` in chunked framing. */
const chunk = (text: string): string => `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`

/** A raw connection: write pieces (each its own socket write, a pause between them) and collect the answers. */
class RawClient {
  private readonly socket: Socket
  private text = ''
  private closed = false
  private readonly ready: Promise<void>

  constructor(port: number) {
    this.socket = connect(port, '127.0.0.1')
    this.ready = new Promise((resolve) => this.socket.once('connect', () => resolve()))
    this.socket.on('data', (d: Buffer) => (this.text += d.toString('latin1')))
    this.socket.on('close', () => (this.closed = true))
    this.socket.on('error', () => {})
  }

  /**
   * Writes each piece as its own write, 50 ms apart (so the server reads them apart). Not a wait for an event: the
   * pause shapes the input into separate reads, which the raw socket cannot observe on the server's side.
   */
  async send(...pieces: string[]): Promise<void> {
    await this.ready
    for (const [k, piece] of pieces.entries()) {
      if (k > 0) await new Promise((r) => setTimeout(r, 50))
      this.socket.write(piece)
    }
  }

  /** Resolves with everything received once `n` answers (status lines) arrived, or the socket closed. */
  async answers(n: number): Promise<string> {
    const count = () => (this.text.match(/HTTP\/1\.1 \d{3}/g) ?? []).length
    await waitUntil(() => count() >= n || this.closed, `${n} answer(s)`, 20_000, 10)
    return this.text
  }

  close(): void {
    this.socket.destroy()
  }
}

/** Starts a transport with the {@link LIMIT} body limit for the tests of one describe block; closes it after them. */
function serving(transport: Transport): { readonly port: number } {
  let server: RunningServer | undefined
  beforeAll(async () => {
    server = await startServer(
      { handle: async (body: string) => ({ status: 200, body: JSON.stringify({ length: body.length }) }) },
      { host: '127.0.0.1', port: 0, transport, maxBodyBytes: LIMIT },
    )
  })
  afterAll(async () => {
    await server?.close()
  })
  return {
    get port() {
      return server!.port
    },
  }
}

describe('node transport: chunk sizes announcing more than the limit', () => {
  const server = serving('node')

  it('a size line announcing more than the limit gets 413 at once (head and size line in one write)', async () => {
    const client = new RawClient(server.port)
    await client.send(HEAD + (LIMIT + 1).toString(16) + '\r\n')
    const reply = await client.answers(1)
    client.close()
    expect(reply).toMatch(/^HTTP\/1\.1 413 /)
    expect(reply).toContain(`exceeds ${LIMIT} bytes`)
  }, 5_000)

  it('the size line in a later write than the head; a chunk size with an extension; 16 MB', async () => {
    for (const size of [(LIMIT + 1).toString(16) + ';name=value', '1000000', 'ffffffffffffffff']) {
      const client = new RawClient(server.port)
      await client.send(HEAD, size + '\r\n')
      const reply = await client.answers(1)
      client.close()
      expect(reply, size).toMatch(/^HTTP\/1\.1 413 /)
    }
  }, 5_000)

  it('chunks within the limit, then one that takes the announced total over it', async () => {
    const client = new RawClient(server.port)
    await client.send(HEAD, chunk('a'.repeat(LIMIT / 2)), (LIMIT / 2 + 1).toString(16) + '\r\n')
    const reply = await client.answers(1)
    client.close()
    expect(reply).toMatch(/^HTTP\/1\.1 413 /)
  }, 5_000)
})

describe('uws transport: chunk sizes are not seen, the data is', () => {
  const server = serving('uws')

  it('a chunk announcing more than the limit gets 413 once its data passes the limit', async () => {
    const client = new RawClient(server.port)
    await client.send(HEAD + (LIMIT + 1).toString(16) + '\r\n', 'a'.repeat(LIMIT + 1) + '\r\n')
    const reply = await client.answers(1)
    client.close()
    expect(reply).toMatch(/^HTTP\/1\.1 413 /)
  }, 5_000)
})

describe.each<Transport>(['node', 'uws'])('%s transport: chunked bodies within the limit', (transport) => {
  const server = serving(transport)

  it('chunked bodies within the limit: split over writes, keep-alive, pipelined', async () => {
    const client = new RawClient(server.port)
    // one body split at awkward places: inside the size line, between the size line and the data, inside the
    // data (uWS answers 400 to chunk extensions: those only in the node-only tests above)
    const body = chunk('{"a":' + '1'.repeat(300)) + chunk('2}   ') + '0\r\n\r\n'
    await client.send(HEAD + '1', body.slice(1, 4), body.slice(4, 200), body.slice(200, 307), body.slice(307))
    expect(await client.answers(1)).toMatch(/^HTTP\/1\.1 200 [^]*\{"length":310\}/)
    // the same connection: two requests in one write, the first exactly at the limit
    await client.send(HEAD + chunk('x'.repeat(LIMIT)) + '0\r\n\r\n' + HEAD + chunk('y') + '0\r\n\r\n')
    const replies = await client.answers(3)
    expect(replies.match(/HTTP\/1\.1 200 /g)).toHaveLength(3)
    expect(replies).toContain(`{"length":${LIMIT}}`)
    expect(replies).toContain('{"length":1}')
    // and an oversized body on it afterwards is still refused
    await client.send(HEAD + chunk('z'.repeat(LIMIT)), chunk('z'))
    expect(await client.answers(4)).toMatch(/HTTP\/1\.1 413 [^]*$/)
    client.close()
  }, 10_000)
})
