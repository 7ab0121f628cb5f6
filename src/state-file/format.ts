/**
 * State files (`--dump-state`, `--load-state`, `--state`, anvil_dumpState / anvil_loadState): the format.
 *
 * The file is Anvil's state JSON (foundry `anvil --dump-state`), so that Anvil loads a node-cli file where the
 * chains' rules allow and node-cli loads Anvil's:
 *
 * ```
 * { "block": { number, beneficiary, timestamp, gas_limit, basefee, difficulty, prevrandao },
 *   "accounts": { "0x<address>": { nonce (JSON number), balance, code, storage: { "0x<slot32>": "0x<word32>" } } },
 *   "best_block_number": <number>, "blocks": [], "transactions": [], "historical_states": null,
 *   "node_cli": { … } }
 * ```
 *
 * plus, in a `node_cli` member Anvil ignores, what this chain needs to continue exactly where it was:
 * - `version` ({@link STATE_FILE_VERSION}), `network`, `chainId`, `genesisHash`, `stateRoot` (the live Unitrie root),
 *   `head` (best block number), `minimumGasPrice` (wei, of the head);
 * - `blocks`: every block after the genesis as `[blockRlp, derived, addresses]` — the block exactly as the reference
 *   encodes it, the record the chain keeps beside it (hash, hashForMergedMining, total difficulty, senders, receipts;
 *   see src/db/chain-storage.ts) and the addresses its transactions touched (src/blocks/address-index-record.ts) —
 *   so blocks, transactions, receipts, logs and address pages read as before the dump (files without the third
 *   element load too: their blocks are then left out of the address index);
 * - `storageBytes`: `{ "0x<address>": { "0x<slot32>": "0x<bytes>" } }` for storage cells Anvil's 32-byte words cannot
 *   carry (longer than 32 bytes, or stored with leading zeros: the Remasc and Bridge contracts' cells);
 * - `rawEntries`: `[["0x<key>", "0x<value>"], …]` Unitrie entries that the accounts cannot express (a storage
 *   marker without storage, a non-canonical account encoding), so the rebuilt trie has the same root.
 *
 * Numbers in `node_cli` are 0x-hex strings. Keystore keys are never written.
 */

/** Version of the `node_cli` member; files of another version are refused with the reason. */
export const STATE_FILE_VERSION = 1

/** A problem with a state file (what is wrong, where): the node does not start or the load is not applied. */
export class StateFileError extends Error {}

/** One account as Anvil writes it. */
export interface AnvilAccount {
  /** A JSON number in Anvil's files (a hex string is accepted too). */
  nonce: number | string
  balance: string
  code: string
  storage: Record<string, string>
}

/** Anvil's block environment (what node-cli writes of its head; only informative when loading). */
export interface AnvilBlockEnv {
  number: string
  beneficiary: string
  timestamp: string
  gas_limit: number | string
  basefee: number | string
  difficulty: string
  prevrandao: string | null
}

/** The `node_cli` member without the streamed parts (blocks, storageBytes, rawEntries). */
export interface NodeCliMeta {
  version: number
  network: number
  chainId: number
  /** Genesis hash, 0x-hex. */
  genesisHash: string
  /** Live state root, 0x-hex. */
  stateRoot: string
  /** Best block number, 0x-hex. */
  head: string
  /** minimumGasPrice of the head, wei, 0x-hex. */
  minimumGasPrice: string
}
