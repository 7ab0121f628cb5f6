/**
 * How a forked state is held in the Unitrie (docs/architecture.md#forking): the local trie holds only what was
 * written locally, and beside each written key a *local mark* says that the local trie — not the remote — is
 * the truth for that key, even when the key has since been deleted (a cell set to zero, an account destroyed).
 * A key without a mark, and under no marked subtree, reads from the remote at the fork block.
 *
 * Marks live in their own key space, `0xf0 ‖ key`, outside the reference's state keys (which start with 0x00),
 * so they survive `deleteRecursive` of an account and are part of the root: a root identifies both the local
 * state and which keys are local, hence what every read answers.
 */
import { CONSENSUS_PRECOMPILE_ADDRESSES, GENESIS_PRECOMPILE_ADDRESSES } from '../rsk/genesis-state.js'
import type { Unitrie } from '../unitrie/unitrie.js'
import { bytesEqual } from '../util/bytes.js'
import type { ForkAccount } from './fork-source.js'

/** First byte of a local mark's key. */
export const LOCAL_MARK_PREFIX = 0xf0
/** Mark bit: this exact key is local. */
const EXACT = 1
/** Mark bit: every key below this one (and the key itself) is local. */
const SUBTREE = 2

/** The key of the local mark of `key`: `0xf0 ‖ key`. */
export function localMarkKey(key: Uint8Array): Uint8Array {
  const k = new Uint8Array(key.length + 1)
  k[0] = LOCAL_MARK_PREFIX
  k.set(key, 1)
  return k
}

function markBits(t: Unitrie, key: Uint8Array): number {
  const v = t.get(localMarkKey(key))
  return v === undefined || v.length === 0 ? 0 : v[0]!
}

/**
 * Marks `key` local in `t` (persistent: returns the new trie). `subtree` marks every key below it too, as a
 * wipe of an account or of its storage does.
 */
export function markLocal(t: Unitrie, key: Uint8Array, subtree: boolean): Unitrie {
  const bits = markBits(t, key)
  const want = bits | (subtree ? SUBTREE : EXACT)
  return want === bits ? t : t.put(localMarkKey(key), Uint8Array.of(want))
}

/**
 * Whether the local trie `t` is the truth for `key`: the key is present, or marked, or lies below one of the
 * `enclosing` keys (its account key, its storage prefix) marked as a subtree.
 */
export function isLocal(t: Unitrie, key: Uint8Array, enclosing: readonly Uint8Array[]): boolean {
  if (t.getValueLength(key) > 0 || markBits(t, key) !== 0) return true
  for (const e of enclosing) if ((markBits(t, e) & SUBTREE) !== 0) return true
  return false
}

/** Whether `address` is one of this chain's precompiled or native contracts (they always exist). */
export function isPrecompile(address: Uint8Array): boolean {
  return (
    GENESIS_PRECOMPILE_ADDRESSES.some((a) => bytesEqual(a, address)) ||
    CONSENSUS_PRECOMPILE_ADDRESSES.some(([a]) => bytesEqual(a, address))
  )
}

/**
 * Whether a remote account exists for the state manager. The reference's RPC cannot tell an existing empty
 * account from a missing one (no proof method), so an account with zero nonce, zero balance and no code counts
 * as missing, except precompiles.
 */
export function remoteAccountExists(address: Uint8Array, a: ForkAccount): boolean {
  return a.nonce !== 0n || a.balance !== 0n || a.code.length > 0 || isPrecompile(address)
}

/**
 * Whether a remote account carries the storage marker ("is a contract"), which the RPC does not show: contracts
 * with code and precompiles do (docs/reference-rules.md#rule-unitrie-state-writes).
 */
export function remoteHasStorageMarker(address: Uint8Array, a: ForkAccount): boolean {
  return a.code.length > 0 || isPrecompile(address)
}
