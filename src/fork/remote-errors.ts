/**
 * Errors of a fork's remote node, as JSON-RPC errors the node can answer with (-32000, docs/architecture.md#forking):
 * the remote cannot be reached, or it answered a call with an error or with something that is not JSON-RPC.
 * Messages name the remote by its origin only: the path of a hosted service's URL holds its API key.
 */
import { ErrorCode, RpcError } from '../errors/rpc-error.js'

/** The remote's URL without path, query or credentials (`https://host:port`), for messages and logs. */
export function remoteOrigin(url: string): string {
  try {
    return new URL(url).origin
  } catch {
    return '(invalid URL)'
  }
}

/**
 * The remote could not be reached: connection refused or reset, DNS failure, timeouts, HTTP 429 or 5xx, after
 * every retry, or within the cool-down that follows such a failure. JSON-RPC -32000.
 */
export class RemoteUnavailableError extends RpcError {
  /**
   * @param origin the remote's origin (see {@link remoteOrigin})
   * @param reason what the last attempt saw (`connection refused`, `timed out after 30000 ms`, `HTTP 503`…)
   * @param attempts HTTP attempts made for this call (0 within the cool-down)
   */
  constructor(
    readonly origin: string,
    readonly reason: string,
    readonly attempts: number,
  ) {
    super(
      ErrorCode.Server,
      attempts > 0
        ? `fork remote ${origin} is unavailable: ${reason} (${attempts} attempt${attempts === 1 ? '' : 's'})`
        : `fork remote ${origin} is unavailable: ${reason} (not retried: it failed moments ago)`,
    )
    this.name = 'RemoteUnavailableError'
  }
}

/** The remote answered a call with a JSON-RPC error. JSON-RPC -32000; the remote's own code is kept. */
export class RemoteCallError extends RpcError {
  /**
   * @param method the method called
   * @param remoteCode the code the remote answered (-32601 when it does not serve the method)
   * @param remoteMessage the remote's message
   */
  constructor(
    readonly method: string,
    readonly remoteCode: number,
    readonly remoteMessage: string,
  ) {
    super(ErrorCode.Server, `fork remote answered ${method} with ${remoteCode}: ${remoteMessage}`)
    this.name = 'RemoteCallError'
  }
}

/** The remote answered with something that is not a JSON-RPC response to the request. JSON-RPC -32000. */
export class RemoteProtocolError extends RpcError {
  /**
   * @param origin the remote's origin
   * @param detail what was wrong with the answer
   */
  constructor(
    readonly origin: string,
    readonly detail: string,
  ) {
    super(ErrorCode.Server, `fork remote ${origin} sent an invalid answer: ${detail}`)
    this.name = 'RemoteProtocolError'
  }
}
