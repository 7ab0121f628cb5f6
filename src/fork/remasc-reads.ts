/**
 * What a fork's first local block reads of the remote state for its Remasc execution (src/rsk/remasc.ts): the
 * Remasc contract's account and storage cells, the Bridge's federation cells (which federation is paid,
 * docs/reference-rules.md#rule-bridge-federation), and the payees known before any block runs (RSK Labs and the
 * genesis federators). The execution reads them one after another, one round trip each (some twenty on network
 * 30); a fork asks for them together when it opens instead (src/fork/fork-setup.ts). An elected federation's
 * members are read together when they are first paid (`RemascRepository.preparePayees`).
 */
import { bytesEqual, fromHex } from '../util/bytes.js'
import { dataWordFromString, GENESIS_FEDERATORS, REMASC_ADDRESS, REMASC_CONFIGS, REMASC_KEYS } from '../rsk/remasc.js'

/** The Bridge (0x…01000006). */
const BRIDGE = fromHex('0000000000000000000000000000000001000006')

/** The Bridge's federation cells (rskj FederationStorageIndexKey; src/execution/native/federation-storage.ts). */
const FEDERATION_CELLS = ['newFederation', 'newFederationFormatVersion', 'oldFederation', 'oldFederationFormatVersion']

/**
 * The accounts (20-byte addresses) and storage cells (address, 32-byte key) a block's Remasc execution may read on
 * network `network`.
 */
export function remascReads(network: 30 | 31 | 33): {
  accounts: Uint8Array[]
  cells: Array<[Uint8Array, Uint8Array]>
} {
  const cfg = REMASC_CONFIGS[network]
  // RSK Labs' address before RSKIP218 differs on network 30 only (docs/reference-rules.md#rule-remasc-activations)
  const rskLabs = bytesEqual(cfg.rskLabsAddress, cfg.rskLabsAddressBeforeRskip218)
    ? [cfg.rskLabsAddress]
    : [cfg.rskLabsAddress, cfg.rskLabsAddressBeforeRskip218]
  return {
    accounts: [REMASC_ADDRESS, ...rskLabs, ...GENESIS_FEDERATORS[network]],
    cells: [
      ...Object.values(REMASC_KEYS).map((key): [Uint8Array, Uint8Array] => [REMASC_ADDRESS, key]),
      ...FEDERATION_CELLS.map((name): [Uint8Array, Uint8Array] => [BRIDGE, dataWordFromString(name)]),
    ],
  }
}
