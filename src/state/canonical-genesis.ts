/**
 * Loading an @ethereumjs-style genesis description into a state manager with the reference's semantics (code →
 * storage marker); used by `UnitrieStateManager.generateCanonicalGenesis` (src/state/unitrie-state-manager.ts).
 */
import type { StateManagerInterface } from '@ethereumjs/common'
import { Account, Address, toBytes } from '@ethereumjs/util'

/** The writes {@link putCanonicalGenesis} needs: the state manager interface plus rskj `setupContract`. */
export type GenesisTarget = Pick<StateManagerInterface, 'putAccount' | 'putCode' | 'putStorage'> & {
  /** Writes the storage marker of `address` (rskj Repository.setupContract). */
  setupContract(address: Address): Promise<void>
}

/**
 * Writes every entry of `initState` into `sm`: address (0x hex) → balance (wei, decimal/hex string or bigint) or
 * `[balance, code, storage, nonce]` where code is 0x hex, storage a list of [slot, value] 0x hex pairs. An entry
 * with code also gets the storage marker (written before the code). Nothing is flushed or committed.
 */
export async function putCanonicalGenesis(sm: GenesisTarget, initState: Record<string, unknown>): Promise<void> {
  for (const [addressHex, state] of Object.entries(initState)) {
    const address = new Address(toBytes(addressHex as `0x${string}`))
    if (!Array.isArray(state)) {
      await sm.putAccount(address, new Account(0n, BigInt(state as string | bigint)))
      continue
    }
    const [balance, code, storage, nonce] = state as [
      string | bigint | undefined,
      string | undefined,
      Array<[string, string]> | undefined,
      string | bigint | undefined,
    ]
    await sm.putAccount(address, new Account(BigInt(nonce ?? 0), BigInt(balance ?? 0)))
    if (code !== undefined) {
      await sm.setupContract(address)
      await sm.putCode(address, toBytes(code as `0x${string}`))
    }
    for (const [k, v] of storage ?? [])
      await sm.putStorage(address, toBytes(k as `0x${string}`), toBytes(v as `0x${string}`))
  }
}
