/**
 * Test helper: a raw JSON-RPC WebSocket client that keeps every frame it receives (requests, responses and
 * eth_subscription notifications); its polling wait `until` lives in ./wait.ts.
 */
import WebSocket from 'ws'
import { until } from './wait.js'

/** The polling wait for a value, for the tests that import it from here (./wait.ts). */
export { until }

/** A raw JSON-RPC WebSocket client. */
export class WsClient {
  /** Every text frame received, raw, in arrival order. */
  readonly frames: string[] = []
  /** Every text frame received, parsed, in arrival order. */
  readonly messages: any[] = []
  private nextId = 1
  private readonly waiting = new Map<number, (msg: any) => void>()

  private constructor(private readonly ws: WebSocket) {
    ws.on('message', (data) => {
      const text = data.toString()
      this.frames.push(text)
      const msg = JSON.parse(text)
      this.messages.push(msg)
      if (msg.id !== undefined && this.waiting.has(msg.id)) {
        this.waiting.get(msg.id)!(msg)
        this.waiting.delete(msg.id)
      }
    })
  }

  static open(url: string): Promise<WsClient> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url)
      ws.once('open', () => resolve(new WsClient(ws)))
      ws.once('error', reject)
    })
  }

  /** Sends a request; resolves with the whole response envelope. */
  request(method: string, params: unknown[] = []): Promise<any> {
    const id = this.nextId++
    return new Promise((resolve) => {
      this.waiting.set(id, resolve)
      this.ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }))
    })
  }

  /** Sends a request; resolves with `result`, rejects with the JSON-RPC error. */
  async call<T = any>(method: string, params: unknown[] = []): Promise<T> {
    const msg = await this.request(method, params)
    if (msg.error) throw Object.assign(new Error(msg.error.message), msg.error)
    return msg.result as T
  }

  /** Raw notification frames of one subscription. */
  rawNotifications(sub: string): string[] {
    return this.frames.filter((_, i) => {
      const m = this.messages[i]
      return m.method === 'eth_subscription' && m.params?.subscription === sub
    })
  }

  /** Results of one subscription's notifications, in arrival order. */
  results(sub: string): any[] {
    return this.messages
      .filter((m) => m.method === 'eth_subscription' && m.params?.subscription === sub)
      .map((m) => m.params.result)
  }

  /** Waits until the subscription has at least `n` notifications; returns them all. */
  waitResults(sub: string, n: number): Promise<any[]> {
    return until(() => {
      const r = this.results(sub)
      return r.length >= n ? r : undefined
    }, `${n} notification(s) of ${sub}`)
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      if (this.ws.readyState === WebSocket.CLOSED) return resolve()
      this.ws.once('close', () => resolve())
      this.ws.close()
    })
  }
}
