/**
 * Test helpers: start a real node on a random port and talk to it over real HTTP.
 */
import { createNode, type Node } from '../../src/index.js'
import type { NodeConfig } from '../../src/config.js'

/** The chain and miner behind a node (not library API: src/node-internals.ts), for tests that drive them directly. */
export { internals } from '../../src/node-internals.js'

/** Starts a node on 127.0.0.1 with a free port. Close it in afterAll. */
export function startNode(config: NodeConfig = {}): Promise<Node> {
  return createNode({ port: 0, ...config })
}

/** A JSON-RPC response as received. */
export interface RpcResponse<T = unknown> {
  jsonrpc?: string
  id?: number | string | null
  result?: T
  error?: { code: number; message: string; data?: unknown }
}

let nextId = 1

/** Posts one JSON-RPC request; returns the parsed response envelope and the HTTP status. */
export async function rpcRaw<T = unknown>(
  url: string,
  method: string,
  params: unknown[] = [],
): Promise<{ status: number; body: RpcResponse<T> }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }),
  })
  return { status: res.status, body: (await res.json()) as RpcResponse<T> }
}

/** Calls a method and returns `result`; throws with the JSON-RPC error (code, message, data) on error. */
export async function rpc<T = any>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const { body } = await rpcRaw<T>(url, method, params)
  if (body.error) throw Object.assign(new Error(body.error.message), body.error)
  return body.result as T
}

/** Calls a method expecting an error; returns the error object (fails the test when it succeeds). */
export async function rpcError(
  url: string,
  method: string,
  params: unknown[] = [],
): Promise<{ code: number; message: string; data?: unknown; status: number }> {
  const { status, body } = await rpcRaw(url, method, params)
  if (!body.error) throw new Error(`${method} succeeded with ${JSON.stringify(body.result)}; an error was expected`)
  return { ...body.error, status }
}

/** The ten regtest dev accounts (address, private key): keccak256("cow"), keccak256("cow1"), … */
export const COW = {
  address: '0xcd2a3d9f938e13cd947ec05abc7fe734df8dd826',
  privateKey: '0xc85ef7d79691fe79573b1a7064c19c1a9819ebdbd1faaab1a8ec92344438aaf4',
}
export const COW1 = {
  address: '0x7986b3df570230288501eea3d890bd66948c9b79',
  privateKey: '0x0c06818f82e04c564290b32ab86b25676731fc34e9a546108bf109194c8e3aae',
}
