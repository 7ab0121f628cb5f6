/**
 * What the state manager needs from a fork's remote state (docs/architecture.md#forking), declared here so that
 * `state/` imports nothing of `fork/`, which implements it (src/fork/forked-state-source.ts).
 */

/** An account as the remote holds it at the fork block. A missing account reads as zero nonce and balance, no code. */
export interface ForkAccount {
  nonce: bigint
  balance: bigint
  code: Uint8Array
}

/**
 * The remote state at the fork block. Each read answers synchronously when the value is already at hand
 * (memory) and with a promise otherwise (disk cache, then the remote), so reads of known values cost no await.
 * Failures reject with the source's error (a JSON-RPC error the node can answer with).
 */
export interface ForkStateSource {
  /** Nonce, balance and code of `address` (20 bytes). */
  account(address: Uint8Array): ForkAccount | Promise<ForkAccount>
  /**
   * The raw stored bytes of a storage cell (`slot` is 32 bytes) as the Unitrie keeps them: no leading zeros
   * for a word, any length for the cells of native contracts; empty when unset.
   */
  storage(address: Uint8Array, slot: Uint8Array): Uint8Array | Promise<Uint8Array>
}
