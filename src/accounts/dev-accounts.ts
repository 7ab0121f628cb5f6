/**
 * The node's unlocked accounts: the seeded dev accounts (regtest "cow" seeds, reference
 * J/co/rsk/rpc/modules/personal/PersonalModuleWalletEnabled.java) and the miner coinbase account, in the
 * order `eth_accounts` lists them (reference-node-facts.md §3).
 */
import { createLegacyTx, type LegacyTx, type LegacyTxData } from '@ethereumjs/tx'
import type { Common } from '@ethereumjs/common'
import { privateKeyToAddress } from '../execution/crypto.js'
import { seedToPrivateKey } from '../rsk/networks.js'
import { toHex, toKey } from '../util/bytes.js'

/** An account whose key the node holds. */
export interface LocalAccount {
  /** 20-byte address. */
  address: Uint8Array
  /** 32-byte secp256k1 private key. Never logged except in the startup banner and personal_dumpRawKey. */
  privateKey: Uint8Array
  /** Where it came from: a seed ("cow3"), "miner", or "imported". */
  origin: string
}

/** The keyring of unlocked accounts, in listing order. */
export class AccountStore {
  private readonly list: LocalAccount[] = []
  private readonly byAddress = new Map<string, LocalAccount>()

  /** Adds an account (no-op when already present). */
  add(account: LocalAccount): void {
    const key = toKey(account.address)
    if (this.byAddress.has(key)) return
    this.list.push(account)
    this.byAddress.set(key, account)
  }

  /** All accounts in listing order. */
  all(): readonly LocalAccount[] {
    return this.list
  }

  /** The account holding `address`'s key, or undefined. */
  get(address: Uint8Array): LocalAccount | undefined {
    return this.byAddress.get(toKey(address))
  }

  /**
   * Signs a legacy transaction with the account's key (EIP-155 with the Common's chain id).
   * @throws Error when the node does not hold the key
   */
  signTransaction(address: Uint8Array, data: LegacyTxData, common: Common): LegacyTx {
    const account = this.get(address)
    if (!account) throw new Error(`unknown account ${toHex(address)}`)
    return createLegacyTx(data, { common }).sign(account.privateKey)
  }
}

/**
 * The seeded accounts: private key = keccak256(utf8(seed)).
 * @param seeds e.g. ["cow", "cow1", …]
 */
export function seededAccounts(seeds: readonly string[]): LocalAccount[] {
  return seeds.map((seed) => {
    const privateKey = seedToPrivateKey(seed)
    return { address: privateKeyToAddress(privateKey), privateKey, origin: seed }
  })
}
