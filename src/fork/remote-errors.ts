/**
 * Failures of a fork's remote node (docs/architecture.md#forking): it cannot be reached, it answered a call with
 * an error or with something that is not JSON-RPC, or it lacks what the fork needs. All are
 * {@link ForkRemoteError}s, answered as -32000 (docs/architecture.md#errors). Messages name the remote by its
 * origin only: the path of a hosted service's URL holds its API key.
 */
import { ForkRemoteError } from '../errors/domain-errors.js'

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
 * every retry, or within the cool-down that follows such a failure.
 */
export class RemoteUnavailableError extends ForkRemoteError {
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
      attempts > 0
        ? `fork remote ${origin} is unavailable: ${reason} (${attempts} attempt${attempts === 1 ? '' : 's'})`
        : `fork remote ${origin} is unavailable: ${reason} (not retried: it failed moments ago)`,
    )
  }
}

/** The remote answered a call with a JSON-RPC error (its own code is kept as {@link remoteCode}). */
export class RemoteCallError extends ForkRemoteError {
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
    super(`fork remote answered ${method} with ${remoteCode}: ${remoteMessage}`)
  }
}

/** The remote answered with something that is not a JSON-RPC response to the request. */
export class RemoteProtocolError extends ForkRemoteError {
  /**
   * @param origin the remote's origin
   * @param detail what was wrong with the answer
   */
  constructor(
    readonly origin: string,
    readonly detail: string,
  ) {
    super(`fork remote ${origin} sent an invalid answer: ${detail}`)
  }
}

/**
 * The remote lacks what the fork needs: a block or header at the fork block, a method (raw headers, the
 * storage bytes of a native contract's long cell), or a header that hashes to the fork block's hash.
 */
export class RemoteDataError extends ForkRemoteError {}
