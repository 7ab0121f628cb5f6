/**
 * Network presets 30 (main), 31 (test), 32 (dev), 33 (local/regtest): chain id, network id, genesis header
 * fields and allocation, dev accounts, miner defaults.
 *
 * Sources: docs/reference-rules.md#rule-network-ids (chain and network ids),
 * docs/reference-rules.md#rule-regtest-genesis, docs/reference-rules.md#rule-dev-accounts,
 * docs/reference-rules.md#rule-derived-header-values (regtest genesis rsk-dev.json, cow accounts, miner coinbase,
 * targetgaslimit 7 500 000), genesis files from the reference node (R/genesis/rsk-mainnet.json, orchid-testnet.json,
 * devnet-genesis.json, rsk-dev.json).
 */
import devnetGenesis from './genesis/devnet-genesis.json' with { type: 'json' }
import testnetGenesis from './genesis/orchid-testnet.json' with { type: 'json' }
import mainnetGenesis from './genesis/rsk-mainnet.json' with { type: 'json' }
import regtestGenesis from './genesis/rsk-dev.json' with { type: 'json' }
import { keccak256 } from '../crypto/secp256k1.js'
import { fromHex } from '../util/bytes.js'

/** A genesis file as the reference node ships it. */
interface GenesisJson {
  alloc: Record<string, { balance: string }>
  timestamp: string
  extraData: string
  gasLimit: string
  difficulty: string
  coinbase: string
  minimumGasPrice: string
}

/** Everything network-specific the node needs to start a chain. */
export interface NetworkPreset {
  /** Network number as used on the CLI and by `net_version` (30-33). */
  network: number
  /** EIP-155 chain id (`eth_chainId`). */
  chainId: number
  name: string
  /** Genesis header fields. */
  genesis: {
    timestamp: bigint
    extraData: Uint8Array
    gasLimit: bigint
    /** Difficulty bytes exactly as in the genesis file (the reference hashes them raw). */
    difficultyBytes: Uint8Array
    coinbase: Uint8Array
    minimumGasPrice: bigint
  }
  /** Genesis allocation: 0x-address → balance (wei). Includes the dev accounts' funding. */
  alloc: Record<string, bigint>
  /** Seeds of the dev accounts (private key = keccak256(utf8(seed))). */
  devAccountSeeds: string[]
  /** Gas limit the miner steps toward, parent/1024 per block (reference miner.targetgaslimit). */
  targetGasLimit: bigint
  /**
   * Private key of the miner's coinbase account (reference: keccak of the coinbase secret), when the wallet holds it.
   */
  minerSecret: string
}

/** Balance of each dev account (wei): 1e30, as the regtest genesis funds the cow accounts. */
export const DEV_ACCOUNT_BALANCE = 10n ** 30n

const COW_SEEDS = ['cow', ...Array.from({ length: 9 }, (_, i) => `cow${i + 1}`)]

/** Private key of a seed account: keccak256(utf8(seed)) (reference J/co/rsk/core/Wallet.java). */
export function seedToPrivateKey(seed: string): Uint8Array {
  return keccak256(new TextEncoder().encode(seed))
}

function preset(network: number, name: string, g: GenesisJson): NetworkPreset {
  const alloc: Record<string, bigint> = {}
  for (const [addr, { balance }] of Object.entries(g.alloc)) {
    alloc['0x' + addr.replace(/^0x/, '').toLowerCase()] = BigInt(balance)
  }
  return {
    network,
    chainId: network,
    name,
    genesis: {
      timestamp: BigInt(g.timestamp),
      extraData: fromHex(g.extraData),
      gasLimit: BigInt(g.gasLimit),
      difficultyBytes: fromHex(g.difficulty),
      coinbase: fromHex(g.coinbase),
      minimumGasPrice: BigInt(g.minimumGasPrice),
    },
    alloc,
    devAccountSeeds: COW_SEEDS,
    targetGasLimit: 7_500_000n,
    minerSecret: 'regtest_miner_secret_please_change',
  }
}

/** The reference node's genesis files (R/genesis/*.json), bundled as JSON modules. */
const FILES: Record<number, [string, GenesisJson]> = {
  30: ['mainnet', mainnetGenesis],
  31: ['testnet', testnetGenesis],
  32: ['devnet', devnetGenesis],
  33: ['regtest', regtestGenesis],
}

/**
 * The preset of a network: its own genesis header fields and allocation. (The node funds the dev accounts on
 * networks whose genesis does not, see src/accounts/dev-accounts.ts.)
 * @throws Error for a network outside 30-33
 */
export function networkPreset(network: number): NetworkPreset {
  const entry = FILES[network]
  if (!entry) throw new Error(`unknown network ${network}: use 30, 31, 32 or 33`)
  return preset(network, entry[0], entry[1])
}

/**
 * The largest chain id whose EIP-155 signatures all carry a one-byte v (v = 2·chainId + 35 + recovery bit ≤ 255):
 * the reference reads v as one byte (docs/reference-rules.md#rule-chain-id-limit).
 */
export const MAX_EIP155_CHAIN_ID = 109

/**
 * Checks a chain id chosen with `--chain-id` / `createNode({ chainId })`.
 * @param chainId the EIP-155 chain id
 * @throws RangeError naming the limit and why, for a chain id that is not an integer from 1 to
 *   {@link MAX_EIP155_CHAIN_ID} (docs/reference-rules.md#rule-chain-id-limit)
 */
export function checkChainId(chainId: number): void {
  if (Number.isInteger(chainId) && chainId >= 1 && chainId <= MAX_EIP155_CHAIN_ID) return
  throw new RangeError(
    `chain id ${chainId} is not supported: the largest chain id is ${MAX_EIP155_CHAIN_ID}, because this chain's ` +
      `nodes read a signature's v as one byte (v = 2 × chain id + 35 or 36 must be at most 255); ` +
      `use a chain id from 1 to ${MAX_EIP155_CHAIN_ID} (the networks' own are 30-33)`,
  )
}
