/**
 * What the method handlers need from the domain, and block-reference resolution shared by them.
 */
import type { AccountStore } from '../accounts/dev-accounts.js'
import type { Impersonation } from '../accounts/impersonation.js'
import type { Wallet } from '../accounts/wallet.js'
import type { Miner } from '../miner/miner.js'
import type { Chain } from '../chain/chain.js'
import { ErrorCode, RpcError } from './rpc-error.js'
import type { BlockRecord } from '../types/records.js'
import { toHex } from '../util/bytes.js'
import type { BlockRef } from './params.js'
import type { CompatProfile } from './compat.js'
import type { ForkHistory } from '../fork/fork-history.js'
import type { ForkPoint } from '../fork/fork-point.js'
import type { RemoteNode } from '../fork/remote-node.js'

/** The domain services handlers call. */
export interface Services {
  chain: Chain
  accounts: AccountStore
  /** Passphrase-protected accounts, unlock/lock, and the account checks of the signing methods. */
  wallet: Wallet
  /** Network number (30-33), answered by net_version. */
  network: number
  /** web3_clientVersion. */
  clientVersion: string
  /** Mining mode controller. */
  miner: Miner
  /** Addresses that may send without a key. */
  impersonation: Impersonation
  /** Turns the request log on/off (anvil_setLoggingEnabled). */
  setLogging(on: boolean): void
  /** Random id of this node instance (anvil_metadata.instanceId). */
  instanceId: string
  /** The compatibility profile (`--compat`); the reference's behaviour when none is chosen. */
  compat: CompatProfile
  /** Fork mode: the remote and its history up to the fork block (src/rpc/methods/fork.ts). */
  fork?: ForkServices
  /**
   * A node started with a fork: starts over on another fork (URL and block number; no block number: the remote's
   * default fork block), or with no fork (undefined: a plain local chain of the same network); sets
   * {@link fork}. The chain is unchanged when it fails.
   * @throws InvalidArgumentError (-32602) for a bad URL or block number, or a remote of another chain id;
   *   ForkRemoteError (-32000) when the remote cannot answer
   */
  switchFork?: (target: { url: string; blockNumber?: bigint } | undefined) => Promise<void>
}

/**
 * Resolves a block reference to a block, `'pending'`, or undefined when no such block exists.
 * @param ref decoded block reference
 */
export async function resolveBlock(chain: Chain, ref: BlockRef): Promise<BlockRecord | 'pending' | undefined> {
  switch (ref.kind) {
    case 'tag':
      if (ref.tag === 'latest') return chain.reads.head
      if (ref.tag === 'earliest') return chain.reads.blockByNumber(0n)
      return 'pending'
    case 'number':
      return chain.reads.blockByNumber(ref.number)
    case 'hash':
      return chain.reads.blockByHash(ref.hash)
  }
}

/**
 * Like {@link resolveBlock} for state reads: an unknown block is an error (reference -32600 "Block … not found").
 * @throws RpcError -32600
 */
export async function requireBlock(chain: Chain, ref: BlockRef): Promise<BlockRecord | 'pending'> {
  const b = await resolveBlock(chain, ref)
  if (b === undefined) {
    const id = ref.kind === 'hash' ? toHex(ref.hash) : ref.kind === 'number' ? '0x' + ref.number.toString(16) : ref.tag
    throw new RpcError(ErrorCode.InvalidRequest, `Block ${id} not found`)
  }
  return b
}

/**
 * The block a reference names, with `pending` built as the chain's pending block (docs/reference-rules.md
 * #rule-pending-block); undefined when unknown, or, when `required`, -32600 "Block … not found" as
 * {@link requireBlock} (reference Web3InformationRetriever).
 */
export async function blockOrPending(chain: Chain, ref: BlockRef, required = false): Promise<BlockRecord | undefined> {
  const b = await (required ? requireBlock(chain, ref) : resolveBlock(chain, ref))
  return b === 'pending' ? chain.reads.pendingBlock() : b
}

/** What the fork layer reads: the fork block, the remote's history and the remote itself. */
export interface ForkServices {
  /** The remote's URL (changed by anvil_setRpcUrl). */
  url: string
  point: ForkPoint
  history: ForkHistory
  remote: RemoteNode
}
