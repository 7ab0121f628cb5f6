/**
 * Internal access to a running node's parts, for the CLI and the tests (docs/architecture.md#request-flow).
 * Not part of the library API: src/index.ts does not export it and package.json's `exports` exposes only the
 * entry, so library users see the `Node` interface alone. Code here may change without notice.
 */
import type { Chain } from './chain/chain.js'
import type { Miner } from './miner/miner.js'

/** The parts of a node behind its public interface. */
export interface NodeInternals {
  /** The chain: blocks, state, pool, events (`block`, `console`, …). */
  readonly chain: Chain
  /** The mining-mode controller (the public `node.miner` is its `MiningControls` view). */
  readonly miner: Miner
}

/** Parts by node, for the nodes `createNode` made (weak: a closed, dropped node is collected). */
const parts = new WeakMap<object, NodeInternals>()

/**
 * Records a node's parts (createNode does, once).
 * @param node the object createNode returns
 */
export function registerInternals(node: object, internals: NodeInternals): void {
  parts.set(node, internals)
}

/**
 * The parts of a node made by `createNode`.
 * @throws Error for any other object
 */
export function internals(node: object): NodeInternals {
  const found = parts.get(node)
  if (found === undefined) throw new Error('not a node made by createNode')
  return found
}
