/**
 * Genesis world state of the RSK networks, as the reference node builds it.
 *
 * Reference sources (rskj master, paths under rskj-core/src/main/java/):
 * - org/ethereum/core/genesis/GenesisLoaderImpl.java  mapFromJson, loadGenesisInitalState,
 *   setupPrecompiledContractsStorage
 * - co/rsk/core/bc/BlockExecutor.java  maintainPrecompiledContractStorageRoots
 * - org/ethereum/vm/PrecompiledContracts.java  GENESIS_ADDRESSES, CONSENSUS_ENABLED_ADDRESSES
 * - org/ethereum/db/MutableRepository.java  createAccount (writes an empty account, overwriting),
 *   setupContract (storage marker 0x01), saveCode, addStorageBytes
 * - rskj-core/src/main/resources/config/{regtest,devnet,main,testnet}.conf + reference.conf
 *   (activation heights)
 *
 * Rules:
 * 1. Every alloc account (except the literal key "00") gets RLP[nonce (default 0), balance];
 *    contracts also get code, the storage marker and their storage cells.
 * 2. If RSKIP126 activates AT block 0 (regtest, devnet): each of GENESIS_ADDRESSES
 *    (0x01–0x05, Bridge 0x…01000006, Remasc 0x…01000008) gets an empty account (c2 80 00) unless it
 *    already exists, plus the storage marker.
 * 3. Each consensus precompile whose rule activates AT block 0 gets createAccount (an empty
 *    account, overwriting any alloc entry!) plus the storage marker. On regtest/devnet that is
 *    every one of them: 0x06–0x08 (RSKIP137), 0x09 (RSKIP153), 0x…01000009 (RSKIP106),
 *    0x…01000010 (RSKIP119), 0x…01000011 (RSKIP203), 0x…01000016/17 (RSKIP516).
 * On mainnet (30) none of these rules activates at 0, so only rule 1 applies; testnet (31) has
 * wasabi100 at 0, so rule 2 applies plus HDWalletUtils and BlockHeader (RSKIP106/119). Mainnet and
 * testnet genesis JSONs carry an explicit pre-RSKIP126 `stateRoot` that the header uses instead of
 * this trie's hash (GenesisLoaderImpl.load).
 *
 * The resulting root depends on the release: adding a precompile whose rule is at 0 changes it.
 * This module matches rskj 9.0.x/master (regtest stateRoot 0x9c13f6bf…723f).
 */
import { hexToBytes } from '@ethereumjs/util'
import { EMPTY_LIST_HASH, EMPTY_TRIE_HASH } from '../crypto/keccak.js'
import type { RskHeader } from './header.js'
import { Unitrie } from '../unitrie/unitrie.js'
import {
  accountKey,
  codeKey,
  encodeAccountState,
  EMPTY_ACCOUNT_STATE,
  storageKey,
  storagePrefixKey,
  STORAGE_MARKER_VALUE,
} from './trie-keys.js'

/** One genesis alloc entry. */
export interface GenesisAccount {
  /** Wei. */
  balance: bigint
  /** Defaults to the network's initial nonce (0 on every RSK network). */
  nonce?: bigint
  /** Contract code (genesis "contract.code"). */
  code?: Uint8Array
  /** Contract storage: 32-byte slot word (hex or bytes) → raw value bytes, stored as given. */
  storage?: ReadonlyArray<readonly [slot: Uint8Array | bigint, value: Uint8Array]>
}

/**
 * Genesis alloc: address (hex, with or without 0x; or 20 bytes) → balance in wei, or a full entry.
 * A Map keeps insertion order; a plain object works too.
 */
export type GenesisAlloc =
  ReadonlyMap<string, bigint | GenesisAccount> | Readonly<Record<string, bigint | GenesisAccount>>

/** RSK chain ids: 30 mainnet, 31 testnet, 32 devnet, 33 regtest. */
export type RskNetworkId = 30 | 31 | 32 | 33

function addr(hex: string): Uint8Array {
  const h = hex.startsWith('0x') || hex.startsWith('0X') ? hex.slice(2) : hex
  if (h.length !== 40) throw new Error(`bad genesis address ${hex}`)
  return hexToBytes(`0x${h.toLowerCase()}`)
}

function pcc(suffix: string): Uint8Array {
  return addr(suffix.padStart(40, '0'))
}

/** PrecompiledContracts.GENESIS_ADDRESSES, in the reference order. */
export const GENESIS_PRECOMPILE_ADDRESSES: readonly Uint8Array[] = [
  pcc('01'), // ecrecover
  pcc('02'), // sha256
  pcc('03'), // ripemd160
  pcc('04'), // identity
  pcc('05'), // modexp
  pcc('01000006'), // Bridge
  pcc('01000008'), // Remasc
]

/** PrecompiledContracts.CONSENSUS_ENABLED_ADDRESSES: address → the consensus rule that enables it. */
export const CONSENSUS_PRECOMPILE_ADDRESSES: ReadonlyArray<readonly [Uint8Array, string]> = [
  [pcc('01000009'), 'rskip106'], // HDWalletUtils
  [pcc('01000010'), 'rskip119'], // BlockHeader
  [pcc('06'), 'rskip137'], // bn128 add
  [pcc('07'), 'rskip137'], // bn128 mul
  [pcc('08'), 'rskip137'], // bn128 pairing
  [pcc('09'), 'rskip153'], // blake2f
  [pcc('01000011'), 'rskip203'], // Environment
  [pcc('01000016'), 'rskip516'], // secp256k1 add
  [pcc('01000017'), 'rskip516'], // secp256k1 mul
]

/**
 * Consensus rules that activate exactly at block 0 on each network (only the ones that matter for
 * the genesis state). Regtest/devnet set every relevant hard fork (wasabi100, papyrus200,
 * iris300, arrowhead600, reed800) to 0; mainnet/testnet activate them later.
 */
export function rulesActiveAtGenesis(network: RskNetworkId): ReadonlySet<string> {
  if (network === 32 || network === 33) {
    return new Set(['rskip126', 'rskip106', 'rskip119', 'rskip137', 'rskip153', 'rskip203', 'rskip516'])
  }
  // testnet.conf: wasabi100 = 0 (RSKIP106/119/126), papyrus200 and later > 0
  if (network === 31) return new Set(['rskip126', 'rskip106', 'rskip119'])
  return new Set()
}

function entries(alloc: GenesisAlloc): Array<[string, GenesisAccount]> {
  const raw: Array<[string, bigint | GenesisAccount]> =
    alloc instanceof Map ? [...(alloc as ReadonlyMap<string, bigint | GenesisAccount>)] : Object.entries(alloc)
  return raw.map(([k, v]) => [k, typeof v === 'bigint' ? { balance: v } : v])
}

/**
 * Build the genesis state Unitrie (GenesisLoaderImpl.loadGenesisTrie).
 *
 * @param alloc   address → balance (wei) or full account entry
 * @param network chain id; 32/33 add the precompile accounts and storage markers
 * @param opts.rulesAtGenesis override the set of consensus rules considered active at block 0
 * @returns the trie; its `hash()` is the genesis stateRoot
 */
export function genesisStateTrie(
  alloc: GenesisAlloc,
  network: RskNetworkId,
  opts: { rulesAtGenesis?: ReadonlySet<string> } = {},
): Unitrie {
  const rules = opts.rulesAtGenesis ?? rulesActiveAtGenesis(network)
  let t = Unitrie.empty()
  const accounts = entries(alloc).filter(([k]) => k !== '00')

  // loadGenesisInitalState: accounts, then code/storage, then the account states
  for (const [k] of accounts) t = t.put(accountKey(addr(k)), EMPTY_ACCOUNT_STATE)
  for (const [k, a] of accounts) {
    if (!a.code) continue
    const address = addr(k)
    t = t.put(storagePrefixKey(address), STORAGE_MARKER_VALUE) // setupContract
    t = t.put(codeKey(address), a.code)
    for (const [slot, value] of a.storage ?? []) t = t.put(storageKey(address, slot), value)
  }
  for (const [k, a] of accounts) {
    t = t.put(accountKey(addr(k)), encodeAccountState({ nonce: a.nonce ?? 0n, balance: a.balance }))
  }

  // setupPrecompiledContractsStorage → BlockExecutor.maintainPrecompiledContractStorageRoots
  if (rules.has('rskip126')) {
    for (const a of GENESIS_PRECOMPILE_ADDRESSES) {
      if (t.getValueLength(accountKey(a)) === 0) t = t.put(accountKey(a), EMPTY_ACCOUNT_STATE)
      t = t.put(storagePrefixKey(a), STORAGE_MARKER_VALUE)
    }
    for (const [a, rule] of CONSENSUS_PRECOMPILE_ADDRESSES) {
      if (!rules.has(rule)) continue
      t = t.put(accountKey(a), EMPTY_ACCOUNT_STATE)
      t = t.put(storagePrefixKey(a), STORAGE_MARKER_VALUE)
    }
  }
  return t
}

/** Parse the `alloc` object of a reference genesis JSON (decimal balance strings, optional nonce/contract). */
export function parseGenesisAlloc(json: {
  alloc: Record<string, { balance: string; nonce?: string; contract?: { code: string; data?: Record<string, string> } }>
}): Map<string, GenesisAccount> {
  const m = new Map<string, GenesisAccount>()
  for (const [k, v] of Object.entries(json.alloc)) {
    const acct: GenesisAccount = { balance: BigInt(v.balance) }
    if (v.nonce !== undefined) acct.nonce = BigInt(v.nonce)
    if (v.contract) {
      acct.code = hexToBytes(`0x${v.contract.code.replace(/^0x/, '')}`)
      acct.storage = Object.entries(v.contract.data ?? {}).map(
        ([slot, val]) =>
          [BigInt(`0x${slot.replace(/^0x/, '') || '0'}`), hexToBytes(`0x${val.replace(/^0x/, '')}`)] as const,
      )
    }
    m.set(k, acct)
  }
  return m
}

/** Header inputs of a genesis JSON (GenesisJson fields, already hex-decoded). */
export interface GenesisHeaderInput {
  /** The genesis state root: the JSON `stateRoot` if present, else genesisStateTrie(...).hash(). */
  stateRoot: Uint8Array
  coinbase: Uint8Array
  extraData: Uint8Array
  /** gasLimit as a number (the reference parses the JSON to a long and strips leading zeros). */
  gasLimit: bigint
  /** Difficulty bytes exactly as in the JSON (e.g. 0x0000000001), hashed verbatim. */
  difficultyBytes: Uint8Array
  timestamp: bigint
  minimumGasPrice: bigint
  /** Merged-mining fields from the JSON; every reference genesis has 0x00 for all three. */
  bitcoinMergedMiningHeader?: Uint8Array
  bitcoinMergedMiningMerkleProof?: Uint8Array
  bitcoinMergedMiningCoinbaseTransaction?: Uint8Array
}

/**
 * The genesis header (GenesisLoaderImpl.mapFromJson + GenesisHeader): a V0 header with
 * number 0, parentHash zero, unclesHash keccak(RLP([])), empty tx/receipt roots, zero bloom,
 * paidFees 0, uncleCount 0, no ummRoot/edges/baseEvent, and RSKIP92 encoding when orchid is at 0
 * (every network but mainnet, whose genesis hash therefore covers the MM proof and coinbase).
 */
export function genesisHeader(input: GenesisHeaderInput, network: RskNetworkId): RskHeader {
  let gl = input.gasLimit.toString(16)
  if (gl.length % 2) gl = '0' + gl
  return {
    parentHash: new Uint8Array(32),
    unclesHash: EMPTY_LIST_HASH,
    coinbase: input.coinbase,
    stateRoot: input.stateRoot,
    txTrieRoot: EMPTY_TRIE_HASH,
    receiptTrieRoot: EMPTY_TRIE_HASH,
    logsBloom: new Uint8Array(256),
    difficulty: input.difficultyBytes,
    number: 0n,
    gasLimit: hexToBytes(`0x${gl}`),
    gasUsed: 0n,
    timestamp: input.timestamp,
    extraData: input.extraData,
    paidFees: 0n,
    minimumGasPrice: input.minimumGasPrice,
    uncleCount: 0,
    ummRoot: null,
    version: 0,
    edges: null,
    baseEvent: null,
    bitcoinMergedMiningHeader: input.bitcoinMergedMiningHeader ?? Uint8Array.of(0),
    bitcoinMergedMiningMerkleProof: input.bitcoinMergedMiningMerkleProof ?? Uint8Array.of(0),
    bitcoinMergedMiningCoinbaseTransaction: input.bitcoinMergedMiningCoinbaseTransaction ?? Uint8Array.of(0),
    useRskip92Encoding: network !== 30,
  }
}
