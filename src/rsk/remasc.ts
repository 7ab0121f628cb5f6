/**
 * The Remasc transaction and contract (reward manager), as the reference node executes it at the end of
 * every block (rskj master):
 * - J/co/rsk/remasc/RemascTransaction.java: the unsigned last transaction of every block, nonce
 *   blockNumber−1, gasPrice/gasLimit the raw byte 0x00, to 0x…01000008, value 0, no data, v/r/s empty.
 *   Its sender is a special address whose trie key is built from the single byte 0x00 (not 20 zero
 *   bytes; TrieKeyMapper.REMASC_ACCOUNT_KEY_SIZE), and TransactionExecutor increments its nonce.
 * - J/co/rsk/remasc/Remasc.java `processMinersFees`, RemascStorageProvider.java, RemascFeesPayer.java,
 *   R/remasc.json: fees of block N−maturity are added to the reward balance; from N−maturity ≥
 *   syntheticSpan a 1/syntheticSpan share is paid: 1/5 to RSK Labs, 1/100 of the rest to the federation
 *   (split among its members, the remainder to the last one), the rest to the processing block's
 *   coinbase. Every payment (even of 0 wei) creates the payee account and logs
 *   [MINING_FEE_TOPIC, payee] with data RLP[blockHash, value].
 * - Storage (keys are DataWord.fromString: the ASCII right-aligned in 32 bytes): rewardBalance,
 *   burnedBalance, federationBalance as minimal bytes (0 deletes the cell), siblings = RLP [] (0xc0,
 *   written by every execution), brokenSelectionRule = one byte 0x00/0x01 (written once fees are
 *   paid).
 *
 * A single-miner chain has no uncles, so the sibling and broken-selection-rule branches never pay or
 * burn anything here; they are implemented for the no-sibling case only.
 *
 * Which of these rules apply depends on the block's height on a fork (RSKIP85 minimum payable amounts, RSKIP218
 * RSK Labs' address): docs/reference-rules.md#rule-remasc-activations.
 */
import { keccak256 } from '../crypto/keccak.js'
import { rlpBytes, rlpList, unsignedBytes } from './rlp-encoding.js'
import { fromHex, padLeft } from '../util/bytes.js'
import { bigToBytes, bytesToBig, paymentData, payeeTopic } from './remasc-payment-log.js'
import type { RskLog } from './receipt-rlp.js'

/** The Remasc contract 0x…01000008 (PrecompiledContracts.REMASC_ADDR). */
export const REMASC_ADDRESS: Uint8Array = fromHex('0000000000000000000000000000000001000008')

/** What the Remasc sender's account key is built from (RemascTransaction.REMASC_ADDRESS.getBytes()). */
export const REMASC_SENDER_KEY_BYTES: Uint8Array = Uint8Array.of(0)

/** The address the JSON shows as the Remasc transaction's sender. */
export const REMASC_SENDER_JSON: Uint8Array = new Uint8Array(20)

/** Remasc parameters of a network (R/remasc.json; divisors from RemascConfig defaults). */
export interface RemascConfig {
  maturity: bigint
  syntheticSpan: bigint
  rskLabsDivisor: bigint
  federationDivisor: bigint
  punishmentDivisor: bigint
  /** RSK Labs' address from RSKIP218 on (rskLabsAddressRskip218; node-cli's own chains always use it). */
  rskLabsAddress: Uint8Array
  /** RSK Labs' address before RSKIP218 (rskLabsAddress; it differs from the newer one on network 30 only). */
  rskLabsAddressBeforeRskip218: Uint8Array
}

const COMMON = { rskLabsDivisor: 5n, federationDivisor: 100n, punishmentDivisor: 10n }

/** R/remasc.json per network number: 30 main, 31 testnet, 32 devnet, 33 regtest. */
export const REMASC_CONFIGS: Record<30 | 31 | 32 | 33, RemascConfig> = {
  30: {
    ...COMMON,
    maturity: 4000n,
    syntheticSpan: 10n,
    rskLabsAddress: fromHex('dcb12179ba4697350f66224c959bdd9c282818df'),
    rskLabsAddressBeforeRskip218: fromHex('14d3065c8eb89895f4df12450ec6b130049f8034'),
  },
  31: {
    ...COMMON,
    maturity: 50n,
    syntheticSpan: 10n,
    rskLabsAddress: fromHex('dabadabadabadabadabadabadabadabadaba0003'),
    rskLabsAddressBeforeRskip218: fromHex('dabadabadabadabadabadabadabadabadaba0003'),
  },
  32: {
    ...COMMON,
    maturity: 20n,
    syntheticSpan: 10n,
    rskLabsAddress: fromHex('dabadabadabadabadabadabadabadabadaba0002'),
    rskLabsAddressBeforeRskip218: fromHex('dabadabadabadabadabadabadabadabadaba0002'),
  },
  33: {
    ...COMMON,
    maturity: 10n,
    syntheticSpan: 5n,
    rskLabsAddress: fromHex('dabadabadabadabadabadabadabadabadaba0001'),
    rskLabsAddressBeforeRskip218: fromHex('dabadabadabadabadabadabadabadabadaba0001'),
  },
}

/**
 * RSK addresses of the genesis federation members, in federation order (members sorted by their
 * compressed BTC public key; address = keccak256(uncompressed key)[12..]). While the Bridge's storage has no
 * "new" federation, the active federation is the genesis one (FederationSupportImpl.getActiveFederation; an
 * elected one is read from the Bridge's storage: src/execution/native/federation-storage.ts). Keys:
 * BridgeRegTestConstants (regtest),
 * FederationTestNetConstants, FederationMainNetConstants; the devnet has no federation constants in the
 * reference and uses the testnet ones here.
 */
export const GENESIS_FEDERATORS: Record<30 | 31 | 32 | 33, readonly Uint8Array[]> = {
  33: [
    '6b045752f4d650a510a353bbf7e52988331e7f5b',
    '85845342b0d5260d516d6da5280a7df9a96d1925',
    '138161cda86b55c0de1bc3a0adef974633c85fbe',
  ].map(fromHex),
  31: [
    '4495768e683423a4299d6a7f02a0689a6ff5a0a4',
    '0345174501d5f6fc7926377b63317c4ad7215905',
    '13bcf2c2342b6eaa24119f9690aca0d718f384ff',
    '9a3bfdea2245738dd5f25453d13742350a4f1c6e',
  ].map(fromHex),
  32: [
    '4495768e683423a4299d6a7f02a0689a6ff5a0a4',
    '0345174501d5f6fc7926377b63317c4ad7215905',
    '13bcf2c2342b6eaa24119f9690aca0d718f384ff',
    '9a3bfdea2245738dd5f25453d13742350a4f1c6e',
  ].map(fromHex),
  30: [
    '1888fa870b97a4845a6a1f7eee4ebb507dbe0967',
    '530aad5be57e9be2084881b1d84f2a30e896ae36',
    '0474f314fef5373fd2afaafdcd7a8bdec1ab4309',
    '2c40fc683ee04c1b918635005ae7c89e1eb7b1f1',
    '1e01385c6d522583575f60fee384f30405ffae01',
    '304660d1beeb0918b7b3f7657d8418686cb578b1',
    'e4945372d758650275e23fa90f754d0f67fa66e2',
    'abb1d944a0dc0ead5a36b31087bd1fc31726e674',
    '32c865f2dbf36ce6f4cfcb624b559ef98b33a2d1',
    'f006f6202e0c29ef2e3b1532d2307427864ed77a',
    'ee877101e4e5758930222e6605cbd0a19e8ad981',
    '67af698c927ae574fb43d45a50522c207f81100f',
    '0a1d7f3c50dae072b019eff0f306ae1613b56b3c',
    '571dde4b32017efaad8dc0c9fa9b748096c036a2',
    'f74b7e0d5bdd14eaedf725bb1549ce14abeb71dd',
  ].map(fromHex),
}

/** Constants.getMinimumPayableGas / getFederatorMinimumPayableGas (RSKIP85). */
export const MINIMUM_PAYABLE_GAS = 200_000n
export const FEDERATOR_MINIMUM_PAYABLE_GAS = 50_000n

/** DataWord.fromString(s): the UTF-8 bytes right-aligned in 32 bytes. */
export function dataWordFromString(s: string): Uint8Array {
  return padLeft(new TextEncoder().encode(s), 32)
}

/** Storage keys of the Remasc contract (RemascStorageProvider). */
export const REMASC_KEYS = {
  rewardBalance: dataWordFromString('rewardBalance'),
  burnedBalance: dataWordFromString('burnedBalance'),
  siblings: dataWordFromString('siblings'),
  brokenSelectionRule: dataWordFromString('brokenSelectionRule'),
  federationBalance: dataWordFromString('federationBalance'),
} as const

/** RemascContract.MINING_FEE_TOPIC = DataWord.fromString("mining_fee_topic"). */
export const MINING_FEE_TOPIC: Uint8Array = dataWordFromString('mining_fee_topic')

/** The RLP and hash of the last block's Remasc transaction (see {@link remascTransactionRlp}). */
let lastRemascTx: { blockNumber: bigint; rlp: Uint8Array; hash?: Uint8Array } | undefined

/**
 * The Remasc transaction of block `blockNumber` in the reference RLP (Transaction.getEncoded of
 * `new RemascTransaction(blockNumber)`): [nonce, 0x00, 0x00, to, 0x80, 0x80, 0x80, 0x80, 0x80]. The last block's
 * is kept (a mined block asks for its RLP and its hash, and again when it is stored or read back): it depends on
 * the number alone. Shared: read it, never write into it.
 */
export function remascTransactionRlp(blockNumber: bigint): Uint8Array {
  if (lastRemascTx?.blockNumber === blockNumber) return lastRemascTx.rlp
  const rlp = rlpList([
    rlpBytes(unsignedBytes(blockNumber - 1n)),
    Uint8Array.of(0x00),
    Uint8Array.of(0x00),
    rlpBytes(REMASC_ADDRESS),
    Uint8Array.of(0x80),
    Uint8Array.of(0x80),
    Uint8Array.of(0x80),
    Uint8Array.of(0x80),
    Uint8Array.of(0x80),
  ])
  lastRemascTx = { blockNumber, rlp }
  return rlp
}

/** The Remasc transaction's hash: keccak256 of its RLP (the last block's kept, as its RLP; shared, read-only). */
export function remascTransactionHash(blockNumber: bigint): Uint8Array {
  const rlp = remascTransactionRlp(blockNumber)
  const last = lastRemascTx!
  return (last.hash ??= keccak256(rlp))
}

/** The block whose fees a Remasc execution processes (block N − maturity). */
export interface ProcessingBlock {
  hash: Uint8Array
  coinbase: Uint8Array
  paidFees: bigint
}

/** The state operations Remasc needs (a MutableRepository view). */
export interface RemascRepository {
  /** Raw bytes of a Remasc storage cell (empty when unset). */
  getStorageBytes(key: Uint8Array): Promise<Uint8Array>
  /** Writes raw bytes into a Remasc storage cell; empty deletes it. */
  putStorageBytes(key: Uint8Array, value: Uint8Array): Promise<void>
  /** Repository.addBalance: creates a missing account (even for 0), then adds `delta` (may be negative). */
  addBalance(address: Uint8Array, delta: bigint): Promise<void>
  /** Loads the accounts of payees about to be paid together (a fork's remote reads in one round trip); optional. */
  preparePayees?(addresses: readonly Uint8Array[]): Promise<void>
}

/**
 * The consensus rules that change what Remasc does, as they stand at the executing block
 * (docs/reference-rules.md#rule-remasc-activations). RSKIP415 (federators paid at the address of their RSK key
 * instead of their BTC key) is not here: it decides the addresses {@link RemascExecution.federators} gives.
 */
export interface RemascRules {
  /** RSKIP85: minimum payable amounts (the share and each federator's cut); none before it. */
  rskip85: boolean
  /** RSKIP218: RSK Labs is paid at {@link RemascConfig.rskLabsAddress}, before it at the older address. */
  rskip218: boolean
}

/** Every Remasc rule on: node-cli's own chains, whatever their network. */
export const NEWEST_REMASC_RULES: RemascRules = { rskip85: true, rskip218: true }

/**
 * The Remasc rules at a block.
 * @param isActive whether a consensus rule (`'rskip85'`…) is active at the executing block
 */
export function remascRulesAt(isActive: (rule: string) => boolean): RemascRules {
  return { rskip85: isActive('rskip85'), rskip218: isActive('rskip218') }
}

/** Input of {@link processMinersFees}. */
export interface RemascExecution {
  blockNumber: bigint
  /** The executing block's minimumGasPrice (RSKIP85 minimum payable fees). */
  minimumGasPrice: bigint
  config: RemascConfig
  /**
   * RSK addresses of the active federation's members, in federation order, or how to read them (asked only when
   * the federation is paid; docs/reference-rules.md#rule-remasc-activations).
   */
  federators: readonly Uint8Array[] | (() => Promise<readonly Uint8Array[]>)
  /** The rules at `blockNumber` (default {@link NEWEST_REMASC_RULES}). */
  rules?: RemascRules
  /** Block N − maturity (needed once N − maturity ≥ 1). */
  processing: (number: bigint) => Promise<ProcessingBlock | undefined>
}

/** A Remasc payment log, with its place among the block's logs (0 until the block numbers its logs). */
export type RemascLog = RskLog & { logIndex: number }

/**
 * Remasc.processMinersFees + RemascStorageProvider.save for one block (docs/reference-rules.md#rule-remasc-payment,
 * with the rules of the block: docs/reference-rules.md#rule-remasc-activations). Mutates the repository
 * (balances, payee accounts, storage) and returns the payment logs in order.
 */
export async function processMinersFees(repo: RemascRepository, ex: RemascExecution): Promise<RemascLog[]> {
  const logs: RemascLog[] = []
  const cfg = ex.config
  const rules = ex.rules ?? NEWEST_REMASC_RULES
  let rewardBalance: bigint | undefined
  let burnedBalance: bigint | undefined
  let federationBalance: bigint | undefined
  let brokenSelectionRule: boolean | undefined
  const read = async (key: Uint8Array) => bytesToBig(await repo.getStorageBytes(key))
  // The contract's balance goes down by every payment (RemascFeesPayer: transfer from REMASC_ADDR to the payee); the
  // debits are added up and made once after the payments (one account write instead of one per payee: the final
  // state is the same, nothing reads the contract's balance in between).
  let paidOut: bigint | undefined
  const pay = (blockHash: Uint8Array, value: bigint, to: Uint8Array): Promise<void> => {
    paidOut = (paidOut ?? 0n) + value
    logs.push({
      address: REMASC_ADDRESS,
      topics: [MINING_FEE_TOPIC, payeeTopic(to)],
      data: paymentData(blockHash, value),
      logIndex: 0,
    })
    return repo.addBalance(to, value)
  }

  run: {
    const candidate = ex.blockNumber - cfg.maturity
    if (candidate < 1n) break run
    const processing = await ex.processing(candidate)
    if (!processing) throw new Error(`Remasc: block ${candidate} not found`)
    rewardBalance = (await read(REMASC_KEYS.rewardBalance)) + processing.paidFees
    if (candidate - cfg.syntheticSpan < 0n) break run
    // no siblings on a single-miner chain: the selection rule is not broken
    const previousBroken = (await repo.getStorageBytes(REMASC_KEYS.brokenSelectionRule))[0] ?? 0
    brokenSelectionRule = false
    let synthetic = rewardBalance / cfg.syntheticSpan
    if (rules.rskip85 && synthetic < ex.minimumGasPrice * MINIMUM_PAYABLE_GAS) break run
    rewardBalance -= synthetic
    const toRskLabs = synthetic / cfg.rskLabsDivisor
    await pay(processing.hash, toRskLabs, rules.rskip218 ? cfg.rskLabsAddress : cfg.rskLabsAddressBeforeRskip218)
    synthetic -= toRskLabs
    // federation share (Remasc.payToFederation)
    const federationReward = synthetic / cfg.federationDivisor
    const toFederation = (await read(REMASC_KEYS.federationBalance)) + federationReward
    const federators = typeof ex.federators === 'function' ? await ex.federators() : ex.federators
    const n = BigInt(federators.length)
    const perFederator = toFederation / n
    const rest = toFederation % n
    if (rules.rskip85 && perFederator < ex.minimumGasPrice * FEDERATOR_MINIMUM_PAYABLE_GAS) {
      federationBalance = toFederation
    } else {
      // (before RSKIP85 the federation balance cell is neither used up nor written)
      if (rules.rskip85) federationBalance = 0n
      await repo.preparePayees?.(federators)
      for (let k = 0; k < federators.length; k++) {
        const last = k === federators.length - 1 && rest > 0n
        await pay(processing.hash, last ? perFederator + rest : perFederator, federators[k]!)
      }
    }
    synthetic -= federationReward
    if (previousBroken !== 0) {
      const punishment = synthetic / cfg.punishmentDivisor
      synthetic -= punishment
      burnedBalance = (await read(REMASC_KEYS.burnedBalance)) + punishment
    }
    await pay(processing.hash, synthetic, processing.coinbase)
  }

  if (paidOut !== undefined) await repo.addBalance(REMASC_ADDRESS, -paidOut)
  // RemascStorageProvider.save
  if (rewardBalance !== undefined) await repo.putStorageBytes(REMASC_KEYS.rewardBalance, bigToBytes(rewardBalance))
  if (burnedBalance !== undefined) await repo.putStorageBytes(REMASC_KEYS.burnedBalance, bigToBytes(burnedBalance))
  await repo.putStorageBytes(REMASC_KEYS.siblings, Uint8Array.of(0xc0))
  if (brokenSelectionRule !== undefined)
    await repo.putStorageBytes(REMASC_KEYS.brokenSelectionRule, Uint8Array.of(brokenSelectionRule ? 1 : 0))
  if (federationBalance !== undefined)
    await repo.putStorageBytes(REMASC_KEYS.federationBalance, bigToBytes(federationBalance))
  return logs
}
