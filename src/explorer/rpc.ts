/**
 * JSON-RPC over `fetch` POST to the page's own origin (`/`, the node's JSON-RPC port), and the explorer's GET
 * endpoints (`/explorer-api/…`). Only the read methods listed in {@link READ_METHODS} can be called: the explorer
 * never asks the node about keys or signing (no personal_*, eth_sign*, eth_accounts, eth_sendTransaction).
 */

/** The methods the explorer calls; anything else throws before a request is made. */
export const READ_METHODS = new Set([
  'eth_chainId',
  'eth_blockNumber',
  'eth_getBlockByNumber',
  'eth_getBlockByHash',
  'eth_getTransactionByHash',
  'eth_getTransactionReceipt',
  'eth_getBalance',
  'eth_getTransactionCount',
  'eth_getCode',
  'ots_traceTransaction',
  'ots_getTransactionError',
  'ots_searchTransactionsBefore',
  'ots_searchTransactionsAfter',
])

/** A JSON-RPC error answer (`code` per JSON-RPC 2.0, e.g. -32601 method not found). */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message)
  }
}

let nextId = 1

/**
 * Calls `method` with `params` on the node that served the page.
 * @returns the answer's `result`
 * @throws RpcError with the node's code and message on a JSON-RPC error; Error on a network or HTTP failure, or
 *   when `method` is not one of {@link READ_METHODS}
 */
export async function rpc<T = unknown>(method: string, params: unknown[] = []): Promise<T> {
  if (!READ_METHODS.has(method)) throw new Error(`the explorer does not call ${method}`)
  const res = await fetch('/', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }),
  })
  if (!res.ok && res.headers.get('content-type')?.includes('json') !== true) {
    throw new Error(`HTTP ${res.status} from the node`)
  }
  const body = (await res.json()) as { result?: T; error?: { code: number; message: string; data?: unknown } }
  if (body.error) throw new RpcError(body.error.code, body.error.message, body.error.data)
  return body.result as T
}

/**
 * GETs one of the explorer's JSON endpoints (`/explorer-api/contract/<address>`, `/explorer-api/console/<hash>`).
 * @returns the parsed body, or null when the node answers 404 (an explorer without the endpoint)
 * @throws Error on a network failure or another non-2xx status
 */
export async function getJson<T>(path: string): Promise<T | null> {
  const res = await fetch(path, { headers: { accept: 'application/json' } })
  if (res.status === 404) return null
  if (!res.ok) throw new Error(`HTTP ${res.status} for ${path}`)
  return (await res.json()) as T
}
