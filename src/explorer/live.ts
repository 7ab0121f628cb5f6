/**
 * Live chain head over a WebSocket to the page's own origin (`eth_subscribe` `newHeads`): subscribers get the
 * newest head at most every {@link RENDER_INTERVAL_MS} (coalesced: 100 blocks/s still render ~4 times a second),
 * and a dropped socket reconnects with exponential back-off (0.5 s doubling to 10 s).
 */

/** The head fields the explorer reads (an `eth_subscribe` `newHeads` notification's result). */
export interface Head {
  number: string
  hash: string
  timestamp: string
}

/** At most one render per this many milliseconds. */
export const RENDER_INTERVAL_MS = 250

type Listener = (head: Head) => void

const listeners = new Set<Listener>()
let socket: WebSocket | undefined
let latest: Head | undefined
let lastFlush = 0
let timer: ReturnType<typeof setTimeout> | undefined
let retry = 500

function flush(): void {
  timer = undefined
  lastFlush = Date.now()
  if (latest) for (const l of listeners) l(latest)
}

function schedule(): void {
  if (timer !== undefined) return
  timer = setTimeout(flush, Math.max(0, lastFlush + RENDER_INTERVAL_MS - Date.now()))
}

function connect(): void {
  const ws = new WebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/`)
  socket = ws
  ws.onopen = () => {
    retry = 500
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] }))
  }
  ws.onmessage = (e: MessageEvent<string>) => {
    const msg = JSON.parse(e.data) as { method?: string; params?: { result?: Head } }
    if (msg.method === 'eth_subscription' && msg.params?.result) {
      latest = msg.params.result
      schedule()
    }
  }
  ws.onclose = () => {
    if (socket !== ws) return
    socket = undefined
    if (listeners.size === 0) return
    setTimeout(() => listeners.size > 0 && socket === undefined && connect(), retry)
    retry = Math.min(retry * 2, 10_000)
  }
}

/**
 * Calls `listener` with the newest head (coalesced) while subscribed; opens the socket on the first subscriber.
 * @returns unsubscribe; the socket closes when the last subscriber leaves
 */
export function subscribeHeads(listener: Listener): () => void {
  listeners.add(listener)
  if (socket === undefined) connect()
  return () => {
    listeners.delete(listener)
    if (listeners.size === 0 && socket) {
      const ws = socket
      socket = undefined
      ws.close()
      if (timer !== undefined) clearTimeout(timer)
      timer = undefined
    }
  }
}
