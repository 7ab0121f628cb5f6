/**
 * What a fork's first local block reads of the remote state for its Remasc execution (src/rsk/remasc.ts): the
 * Remasc contract's account and storage cells, the Bridge's federation cells (which federation is paid,
 * docs/reference-rules.md#rule-bridge-federation), and the payees known before any block runs (RSK Labs and the
 * genesis federators). The execution reads them one after another, one round trip each (some twenty on network
 * 30); a fork asks for them together when it opens instead (src/fork/fork-setup.ts), and reads ahead the remote
 * blocks its first local blocks process. An elected federation's members are read together when they are first
 * paid (`RemascRepository.preparePayees`).
 */
import { bytesEqual, fromHex } from '../util/bytes.js'
import { BRIDGE_ADDRESS } from '../execution/native/bridge-storage.js'
import { FEDERATION_KEYS } from '../execution/native/federation-storage.js'
import { GENESIS_FEDERATORS, REMASC_ADDRESS, REMASC_CONFIGS, REMASC_KEYS } from '../rsk/remasc.js'

/** The Bridge (0x…01000006). */
const BRIDGE = fromHex(BRIDGE_ADDRESS)

/**
 * The remote block whose fees the Remasc execution of local block `blockNumber` processes (its number minus the
 * network's maturity, src/rsk/remasc.ts), or undefined when it processes none (below block 1).
 */
export function remascProcessedBlock(network: 30 | 31 | 33, blockNumber: bigint): bigint | undefined {
  const n = blockNumber - REMASC_CONFIGS[network].maturity
  return n >= 1n ? n : undefined
}

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
      ...Object.values(FEDERATION_KEYS).map((key): [Uint8Array, Uint8Array] => [BRIDGE, key]),
    ],
  }
}
