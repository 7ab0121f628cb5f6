/**
 * The explorer's GET routes on the JSON-RPC port (the {@link GetHandler} both transports call after their
 * Origin/Host check, src/server/types.ts): the JSON endpoints under `/explorer-api/` and, for every other path, the
 * built explorer's files (src/server/static-files.ts: the pages, `/assets/…`, 404).
 *
 * Endpoints (interface 3 of the explorer; `application/json`, `Cache-Control: no-store`):
 * - `/explorer-api/contract/<0xaddress>`: `{ name, source?, abi }` of the `--artifacts` contract whose runtime code
 *   matches the code at that address in the latest block (./artifacts/artifact-registry.ts `match`), else `null`;
 * - `/explorer-api/console/<0xtxhash>`: the console.log lines the mined transaction printed (./console-lines.ts),
 *   else `null`;
 * - a malformed address or hash: 400 `{"error": "…"}`; another path under `/explorer-api/`: 404 `{"error": "…"}`;
 *   a failed state read (e.g. a fork's remote down): 500 `{"error": "<its message>"}`.
 */
import type { Chain } from '../chain/chain.js'
import { NOSNIFF, StaticFiles } from '../server/static-files.js'
import type { GetHandler, GetRequest, GetResponse } from '../server/types.js'
import { fromHex } from '../util/bytes.js'
import type { ConsoleLines } from './console-lines.js'

/** What the contract endpoint answers for a matched contract. */
export interface ContractInfo {
  /** Contract name, e.g. `Counter`. */
  name: string
  /** Source file as the artifact names it, e.g. `contracts/Counter.sol`. */
  source?: string
  /** The contract's ABI. */
  abi: readonly unknown[]
}

/** The `--artifacts` matcher as the routes use it (./artifacts/artifact-registry.ts `ArtifactRegistry`). */
export interface ArtifactMatcher {
  /**
   * @param runtimeCode the code at an address
   * @returns the matching contract, or undefined
   */
  match(runtimeCode: Uint8Array): ContractInfo | undefined
}

/** Options of {@link ExplorerRoutes}. */
export interface ExplorerRoutesOptions {
  /** The node's chain (its `reads` are looked up per request: a reset replaces them). */
  chain: Chain
  /** The captured console.log lines. */
  consoleLines: ConsoleLines
  /** The `--artifacts` matcher; undefined without `--artifacts` (every contract then answers `null`). */
  artifacts?: ArtifactMatcher
  /** The built explorer directory (dist/explorer/; tests give another). */
  dir: string | URL
}

const API = '/explorer-api/'
const ADDRESS = /^0x[0-9a-fA-F]{40}$/
const HASH = /^0x[0-9a-fA-F]{64}$/

/**
 * A JSON answer of an endpoint.
 * @param status HTTP status
 * @param value the value to serialize
 */
function json(status: number, value: unknown): GetResponse {
  return {
    status,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store', ...NOSNIFF },
    body: JSON.stringify(value),
  }
}

/** The explorer's GET routes of one node; see the module comment. */
export class ExplorerRoutes implements GetHandler {
  private readonly files: StaticFiles

  /**
   * @param options chain, console lines, artifacts and the explorer directory
   */
  constructor(private readonly options: ExplorerRoutesOptions) {
    this.files = new StaticFiles({ dir: options.dir })
  }

  /**
   * Answers one GET/HEAD.
   * @param request path (no query string), Host and Accept-Encoding
   * @returns the endpoint's JSON, or the file (a Promise only for the contract endpoint, which reads state)
   */
  handle(request: GetRequest): GetResponse | Promise<GetResponse> {
    const p = request.path
    if (!p.startsWith(API)) return this.files.serve(request)
    const slash = p.indexOf('/', API.length)
    const endpoint = slash < 0 ? '' : p.slice(API.length, slash)
    const arg = slash < 0 ? '' : p.slice(slash + 1)
    if (endpoint === 'contract') {
      if (!ADDRESS.test(arg)) return json(400, { error: 'expected an address: 0x and 40 hex digits' })
      return this.contract(fromHex(arg))
    }
    if (endpoint === 'console') {
      if (!HASH.test(arg)) return json(400, { error: 'expected a transaction hash: 0x and 64 hex digits' })
      return json(200, this.options.consoleLines.get(arg) ?? null)
    }
    return json(404, { error: `no such endpoint: ${p.slice(0, 100)}` })
  }

  /** The artifact of the code at `address` in the latest block, or null. */
  private async contract(address: Uint8Array): Promise<GetResponse> {
    const { chain, artifacts } = this.options
    let code: Uint8Array
    try {
      const reads = chain.reads
      code = await reads.code(address, reads.head)
    } catch (err) {
      return json(500, { error: err instanceof Error ? err.message : String(err) })
    }
    const found = code.length === 0 ? undefined : artifacts?.match(code)
    if (found === undefined) return json(200, null)
    const info: ContractInfo = { name: found.name, abi: found.abi }
    if (found.source !== undefined) info.source = found.source
    return json(200, info)
  }
}
