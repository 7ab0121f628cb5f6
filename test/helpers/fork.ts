/**
 * The set-up the fork tests share (test/fork/): a remote node-cli behind the reference-like proxy
 * (./rskj-proxy.ts), a node forking it with the tests' fork options, a temporary cache directory, and closing all
 * of it in order.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { ForkConfig } from '../../src/config.js'
import type { Node } from '../../src/index.js'
import { startNode } from './node.js'
import { startRskjProxy, type RskjProxy } from './rskj-proxy.js'

/** A remote node-cli and the reference-like proxy in front of it. */
export interface ForkRemote {
  /** The node-cli itself (set it up through its own URL). */
  node: Node
  /** The proxy a fork is pointed at. */
  proxy: RskjProxy
}

/**
 * Starts a remote: a node-cli on a free port, then the proxy in front of it.
 * @param opts `chainId`: the network the proxy presents the node as (default: the node's own, 33)
 */
export async function startForkRemote(opts: { chainId?: number } = {}): Promise<ForkRemote> {
  const node = await startNode()
  try {
    return { node, proxy: await startRskjProxy({ upstream: node.url, chainId: opts.chainId }) }
  } catch (err) {
    await node.close()
    throw err
  }
}

/**
 * The fork options of the tests: no retries and 5 s per request (a failing remote fails the test fast), no disk
 * cache and the remote's genesis as the fork block unless `extra` says otherwise.
 */
export function forkConfig(url: string, extra: Partial<ForkConfig> = {}): ForkConfig {
  return { url, blockNumber: 0, cache: false, retries: 0, timeoutMs: 5_000, ...extra }
}

/** Starts a node on a free port forking `url` with {@link forkConfig}`(url, extra)`. */
export function startFork(url: string, extra: Partial<ForkConfig> = {}): Promise<Node> {
  return startNode({ fork: forkConfig(url, extra) })
}

/** A new temporary directory for a fork cache (remove it with {@link closeForkTest}). */
export function tempCacheDir(name: string): Promise<string> {
  return mkdtemp(join(tmpdir(), `node-cli-${name}-`))
}

/**
 * Closes what a fork test started, in the order given (the fork first, then proxies, then remotes); entries not
 * started (undefined) are skipped, and directories (strings) are removed.
 */
export async function closeForkTest(
  ...parts: Array<Node | RskjProxy | ForkRemote | string | undefined>
): Promise<void> {
  for (const p of parts) {
    if (p === undefined) continue
    if (typeof p === 'string') await rm(p, { recursive: true, force: true })
    else if ('proxy' in p && 'node' in p) {
      await p.proxy.close()
      await p.node.close()
    } else await p.close()
  }
}
