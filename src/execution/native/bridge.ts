/**
 * The Bridge at 0x0000000000000000000000000000000001000006, read side (rskj
 * J/co/rsk/peg/Bridge.java, BridgeMethods.java, BridgeSupport.java, BridgeStorageProvider.java,
 * BridgeStorageIndexKey.java, federation/FederationSupportImpl.java, whitelist/WhitelistSupportImpl.java).
 *
 * Calling convention (Bridge.getGasForData / execute): gas = the method's fixed cost + 2 per call-data byte; data
 * that names no method costs releaseBtc's 23 000 and fails. Getters marked local answer only eth_call /
 * eth_estimateGas runs (also from a contract inside them): in a mined transaction they fail (RSKIP88). Getters
 * accept CALL and STATICCALL; DELEGATECALL/CALLCODE fail (RSKIP417).
 *
 * State comes from the Bridge's storage with the reference's keys (DataWord.fromString(name), or
 * keccak(name-id) for per-item keys) and encodings (RLP big integers, the stored federations:
 * ./federation-storage.ts), else from the network's constants (./bridge-constants.ts) — a fresh Bridge. On a fork
 * that storage is the remote's at the fork block under the local writes, so an elected federation, the locking
 * cap and the fee per KB are the remote's (docs/reference-rules.md#rule-bridge-federation). Where the storage holds
 * structures node-cli does not decode (received BTC headers, a lock whitelist, queued peg-outs, the legacy
 * processed-hash map, a pending federation) the getter fails with a "not supported by node-cli" message instead
 * of answering wrongly.
 *
 * On a fork the methods follow the remote network's rules at the executing block
 * (docs/reference-rules.md#rule-bridge-activations): a method whose rule is not active yet names no method (the
 * call fails, 23 000 gas), and a few answers and checks change with their rule (RSKIP88, RSKIP219, RSKIP220,
 * RSKIP383, RSKIP385, RSKIP417, RSKIP419).
 */
import type { PrecompileInput } from '@ethereumjs/evm'
import { bridgeStorageIsEmpty, compound, named, rlpNumber } from './bridge-storage.js'
export { BRIDGE_ADDRESS } from './bridge-storage.js'
import { encodeBytes, encodeString, encodeUint, type ArgReader } from './abi.js'
import type { FederationView } from './bridge-federation.js'
import { BRIDGE_CONSTANTS } from './bridge-constants.js'
import { bridgeFederations } from './federation-storage.js'
import {
  dataGas,
  NativeContractError,
  since,
  type NativeCall,
  type NativeHost,
  type NativeMethod,
} from './native-contract.js'
import type { MsgType } from './message-tracker.js'
import { bridgeWriteMethods } from './bridge-writes.js'

/** Gas of call data naming no Bridge method: BridgeMethods.RELEASE_BTC's cost, without the data cost. */
export const BRIDGE_NO_METHOD_GAS = 23_000n

/** Bitcoin regtest genesis block hash (bitcoinj RegTestParams), the Bridge's BTC chain without checkpoints. */
export const BTC_REGTEST_GENESIS_HASH = '0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206'

/**
 * The Bitcoin regtest genesis header, 80 bytes as bitcoinj serializes it (version 1, no parent, the genesis merkle
 * root, time 1296688602, bits 0x207fffff, nonce 2); its double SHA-256, reversed, is {@link BTC_REGTEST_GENESIS_HASH}.
 */
export const BTC_REGTEST_GENESIS_HEADER =
  '01000000' +
  '00'.repeat(32) +
  '3ba3edfd7a7b12b27ac72c3e67768f617fc81bc3888a51323a9fb8aa4b1e5e4a' +
  'dae5494d' +
  'ffff7f20' +
  '02000000'

/** BridgeConstants.minimumPeginTxValue (RSKIP219; the same on every network), in satoshis. */
export const MINIMUM_PEGIN_VALUE = 500_000n
/** BridgeConstants.legacyMinimumPeginTxValue (before RSKIP219; the same on every network), in satoshis. */
export const LEGACY_MINIMUM_PEGIN_VALUE = 1_000_000n

const STATIC_OK: readonly MsgType[] = ['CALL', 'STATICCALL']

/** FederationSupportImpl.getActiveFederation. */
async function activeFederation(input: PrecompileInput, host: NativeHost): Promise<FederationView> {
  return (await bridgeFederations(input, host)).active
}

/**
 * A read method without arguments: gas = `cost` + the call-data gas ({@link dataGas}), callable by CALL and
 * STATICCALL; `localOnly` methods fail in mined transactions (rskj Bridge local-call methods).
 */
function getter(
  signature: string,
  cost: bigint,
  localOnly: boolean,
  run: (call: NativeCall<void>) => Promise<Uint8Array>,
): NativeMethod<void> {
  return {
    signature,
    gas: (_a, data) => cost + dataGas(data),
    localCallsOnly: localOnly,
    callTypes: STATIC_OK,
    execute: run,
  }
}

/**
 * A read method with arguments, priced like {@link getter} (`cost` + the data gas) and callable by CALL and
 * STATICCALL.
 * @param decode reads the arguments from the ABI call data
 */
function reader<A>(
  signature: string,
  decode: (r: ArgReader) => A,
  cost: bigint,
  localOnly: boolean,
  run: (call: NativeCall<A>) => Promise<Uint8Array>,
): NativeMethod<A> {
  return {
    signature,
    decode,
    gas: (_a, data) => cost + dataGas(data),
    localCallsOnly: localOnly,
    callTypes: STATIC_OK,
    execute: run,
  }
}

/** Division rounding toward −∞ (Instant.getEpochSecond of a time in milliseconds). */
function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b
  return a % b !== 0n && a < 0n ? q - 1n : q
}

/** Sha256Hash.wrap(hex string): 64 hex characters. */
function btcHash(s: string): string {
  if (!/^[0-9a-fA-F]{64}$/.test(s)) throw new NativeContractError(`Invalid BTC tx hash '${s}'`)
  return s.toLowerCase()
}

/** BridgeStorageProvider.getHeightIfBtcTxhashIsAlreadyProcessed: the height, or undefined. */
async function processedHeight(input: PrecompileInput, hash: string): Promise<bigint | undefined> {
  await bridgeStorageIsEmpty(input, 'the legacy processed BTC tx map', 'btcTxHashesAP')
  const v = await compound(input, 'btcTxHashAP', hash)
  return v.length === 0 ? undefined : rlpNumber(v)
}

/**
 * BridgeUtils.calculateSegwitTxSize (P2SH-P2WSH federation): a transaction with `outputs` P2SH outputs to the
 * federation (legacy serialization: version 4 + input count 1 + output count 1 + 32 per output + locktime 4), plus
 * 36 bytes of script sig per input = base size; + 72 per signature per input + the redeem script per input =
 * total size; virtual size = (total + 3 × base) / 4 (BIP141, integer division).
 */
export function segwitPegoutSize(fed: FederationView, inputs: number, outputs: number): number {
  const base = 4 + 1 + 1 + outputs * (8 + 1 + 23) + 4 + inputs * 36
  const total = base + fed.threshold * inputs * 72 + inputs * fed.redeemScript.length
  return Math.floor((total + 3 * base) / 4)
}

const genesisHeader = (): Uint8Array => Uint8Array.from(Buffer.from(BTC_REGTEST_GENESIS_HEADER, 'hex'))

/** The BTC light chain: only the regtest genesis while no header was received. */
async function btcChainHeight(input: PrecompileInput): Promise<bigint> {
  await bridgeStorageIsEmpty(input, 'a received BTC header chain', 'blockStoreChainHead')
  return 0n
}

const FEDERATION_METHODS: NativeMethod<any>[] = [
  getter('getFederationAddress()', 11_000n, true, async ({ input, host }) =>
    encodeString((await activeFederation(input, host)).address),
  ),
  getter('getFederationSize()', 10_000n, true, async ({ input, host }) =>
    encodeUint(BigInt((await activeFederation(input, host)).btcKeys.length)),
  ),
  getter('getFederationThreshold()', 11_000n, true, async ({ input, host }) =>
    encodeUint(BigInt((await activeFederation(input, host)).threshold)),
  ),
  // seconds since the epoch from RSKIP419, milliseconds before (Bridge.getFederationCreationTimeEpochBased…)
  getter('getFederationCreationTime()', 10_000n, true, async ({ input, host }) => {
    // Instant.getEpochSecond / toEpochMilli
    const ms = (await activeFederation(input, host)).creationTimeMs
    return encodeUint(host.isRuleActive('rskip419') ? floorDiv(ms, 1000n) : ms)
  }),
  getter('getFederationCreationBlockNumber()', 10_000n, true, async ({ input, host }) =>
    encodeUint((await activeFederation(input, host)).creationBlockNumber),
  ),
  since(
    'rskip293',
    getter('getActivePowpegRedeemScript()', 30_000n, false, async ({ input, host }) =>
      encodeBytes((await activeFederation(input, host)).redeemScript),
    ),
  ),
  since(
    'rskip186',
    getter('getActiveFederationCreationBlockHeight()', 3_000n, false, async ({ input, host }) => {
      // FederationSupportImpl.getActiveFederationCreationBlockHeight
      const next = await named(input, 'nextFedCreationBlockHeight')
      if (next.length > 0) {
        const n = rlpNumber(next)
        const age = BRIDGE_CONSTANTS[host.network].activationAge((rule) => host.isRuleActive(rule))
        if (host.executionBlockNumber() >= n + age) return encodeUint(n)
      }
      const active = await named(input, 'activeFedCreationBlockHeight')
      return encodeUint(active.length > 0 ? rlpNumber(active) : 0n)
    }),
  ),
  since(
    'rskip123',
    reader(
      'getFederatorPublicKeyOfType(int256,string)',
      (r) => ({ index: r.int(0), type: r.string(1) }),
      10_000n,
      true,
      async ({ args, input, host }) => {
        // FederationMember.KeyType.byValue: "btc", "rsk", "mst" (the genesis members use one key for all three)
        const type = args.type as 'btc' | 'rsk' | 'mst'
        if (!['btc', 'rsk', 'mst'].includes(type)) throw new NativeContractError(`Invalid key type '${args.type}'`)
        const fed = await activeFederation(input, host)
        // BigInteger.intValue(): the low 32 bits, signed
        const index = Number(BigInt.asIntN(32, args.index))
        if (index < 0 || index >= fed.btcKeys.length) {
          throw new NativeContractError(`Index must be between 0 and ${fed.btcKeys.length - 1}`)
        }
        return encodeBytes(fed.members[index]![type])
      },
    ),
  ),
  // -1 / "" while there is no retiring federation (FederationSupportImpl.getRetiringFederation)
  getter('getRetiringFederationSize()', 3_000n, true, async ({ input, host }) => {
    const retiring = (await bridgeFederations(input, host)).retiring
    return encodeUint(retiring === undefined ? -1n : BigInt(retiring.members.length))
  }),
  getter('getRetiringFederationAddress()', 3_000n, true, async ({ input, host }) => {
    const retiring = (await bridgeFederations(input, host)).retiring
    return encodeString(retiring === undefined ? '' : retiring.address)
  }),
  // no pending federation while the storage holds none
  getter('getPendingFederationSize()', 3_000n, true, async ({ input }) => {
    await bridgeStorageIsEmpty(input, 'a pending federation', 'pendingFederation')
    return encodeUint(-1n)
  }),
]

const PEGIN_METHODS: NativeMethod<any>[] = [
  getter('getFeePerKb()', 2_000n, true, async ({ input, host }) => {
    const v = await named(input, 'feePerKb')
    return encodeUint(v.length > 0 ? rlpNumber(v) : BRIDGE_CONSTANTS[host.network].genesisFeePerKb)
  }),
  // BridgeConstants.getMinimumPeginTxValue: the legacy value before RSKIP219
  getter('getMinimumLockTxValue()', 2_000n, true, async ({ host }) =>
    encodeUint(host.isRuleActive('rskip219') ? MINIMUM_PEGIN_VALUE : LEGACY_MINIMUM_PEGIN_VALUE),
  ),
  // RSKIP220 header reads (Bridge.getBtcBlockchainBlockHeaderBy…: any failure answers empty bytes)
  since(
    'rskip220',
    reader(
      'getBtcBlockchainBlockHeaderByHeight(uint256)',
      (r) => r.uint(0),
      5_000n,
      false,
      async ({ args, input }) => {
        await btcChainHeight(input)
        // BigInteger.intValue(), then the main chain at that height: only the genesis at 0
        return encodeBytes(BigInt.asIntN(32, args) === 0n ? genesisHeader() : new Uint8Array(0))
      },
    ),
  ),
  since(
    'rskip220',
    reader(
      'getBtcBlockchainBlockHeaderByHash(bytes32)',
      (r) => r.word(0),
      4_600n,
      false,
      async ({ args, input }) => {
        await btcChainHeight(input)
        return encodeBytes(
          Buffer.from(args).toString('hex') === BTC_REGTEST_GENESIS_HASH ? genesisHeader() : new Uint8Array(0),
        )
      },
    ),
  ),
  since(
    'rskip220',
    reader(
      'getBtcBlockchainParentBlockHeaderByHash(bytes32)',
      (r) => r.word(0),
      4_900n,
      false,
      async ({ input }) => {
        await btcChainHeight(input)
        return encodeBytes(new Uint8Array(0)) // the genesis has no stored parent; other hashes are unknown
      },
    ),
  ),
  // local calls only before RSKIP220 (Bridge.getBtcBlockchainBestChainHeightOnlyAllowsLocalCalls)
  {
    ...getter('getBtcBlockchainBestChainHeight()', 19_000n, false, async ({ input }) =>
      encodeUint(await btcChainHeight(input)),
    ),
    localCallsOnly: (host) => !host.isRuleActive('rskip220'),
  },
  since(
    'rskip89',
    getter('getBtcBlockchainInitialBlockHeight()', 20_000n, true, async ({ input }) => {
      await btcChainHeight(input)
      return encodeUint(0n)
    }),
  ),
  since(
    'rskip89',
    reader(
      'getBtcBlockchainBlockHashAtDepth(int256)',
      (r) => r.int(0),
      20_000n,
      true,
      async ({ args, input }) => {
        const best = await btcChainHeight(input)
        const depth = BigInt.asIntN(32, args)
        if (depth < 0n || depth > best) throw new NativeContractError(`Height must be between 0 and ${best}`)
        return encodeBytes(Uint8Array.from(Buffer.from(BTC_REGTEST_GENESIS_HASH, 'hex')))
      },
    ),
  ),
  reader(
    'getBtcTxHashProcessedHeight(string)',
    (r) => r.string(0),
    22_000n,
    true,
    async ({ args, input }) => encodeUint((await processedHeight(input, btcHash(args))) ?? -1n),
  ),
  reader(
    'isBtcTxHashAlreadyProcessed(string)',
    (r) => r.string(0),
    23_000n,
    true,
    async ({ args, input }) => encodeUint((await processedHeight(input, btcHash(args))) === undefined ? 0n : 1n),
  ),
  getter('getLockWhitelistSize()', 16_000n, true, async ({ input }) => {
    await bridgeStorageIsEmpty(input, 'a lock whitelist', 'lockWhitelist', 'unlimitedLockWhitelist')
    return encodeUint(0n)
  }),
  reader(
    'getLockWhitelistAddress(int256)',
    (r) => r.int(0),
    16_000n,
    true,
    async ({ input }) => {
      await bridgeStorageIsEmpty(input, 'a lock whitelist', 'lockWhitelist', 'unlimitedLockWhitelist')
      return encodeString('') // no entry at any index: ""
    },
  ),
  since(
    'rskip87',
    reader(
      'getLockWhitelistEntryByAddress(string)',
      (r) => r.string(0),
      16_000n,
      true,
      async ({ input }) => {
        await bridgeStorageIsEmpty(input, 'a lock whitelist', 'lockWhitelist', 'unlimitedLockWhitelist')
        return encodeUint(-1n) // WhitelistResponseCode.ADDRESS_NOT_EXIST (also for an unparsable address)
      },
    ),
  ),
]

/** Peg-out state reads that do not exist before RSKIP271. */
const RSKIP271_METHODS: NativeMethod<any>[] = [
  getter('getQueuedPegoutsCount()', 3_000n, false, async ({ input }) => {
    await bridgeStorageIsEmpty(input, 'queued peg-out requests', 'releaseRequestQueue', 'releaseRequestQueueWithTxHash')
    return encodeUint(0n)
  }),
  getter('getEstimatedFeesForNextPegOutEvent()', 10_000n, false, async ({ input, host }) => {
    // BridgeSupport.getEstimatedFeesForNextPegOutEvent (RSKIP385, RSKIP305): the simulated peg-out cannot be built
    // from a federation wallet without UTXOs, so the reference falls back to feePerKb × the size of a 2-input,
    // (queued + 2)-output peg-out (BridgeUtils.calculatePegoutTxSize) / 1 000
    await bridgeStorageIsEmpty(input, 'queued peg-out requests', 'releaseRequestQueue', 'releaseRequestQueueWithTxHash')
    // before RSKIP385, no fee while no peg-out is queued
    if (!host.isRuleActive('rskip385')) return encodeUint(0n)
    await bridgeStorageIsEmpty(input, 'federation UTXOs', 'newFederationBtcUTXOs')
    const fee = await named(input, 'feePerKb')
    const feePerKb = fee.length > 0 ? rlpNumber(fee) : BRIDGE_CONSTANTS[host.network].genesisFeePerKb
    return encodeUint((feePerKb * BigInt(segwitPegoutSize(await activeFederation(input, host), 2, 2))) / 1000n)
  }),
  getter('getNextPegoutCreationBlockNumber()', 3_000n, false, async ({ input }) => {
    const v = await named(input, 'nextPegoutHeight')
    return encodeUint(v.length > 0 ? rlpNumber(v) : 0n)
  }),
].map((m) => since('rskip271', m))

const PEGOUT_METHODS: NativeMethod<any>[] = [
  // LockingCapSupportImpl.getLockingCap: the stored cap, else the network's initial value
  since(
    'rskip134',
    getter('getLockingCap()', 3_000n, true, async ({ input, host }) => {
      const v = await named(input, 'lockingCap')
      return encodeUint(v.length > 0 ? rlpNumber(v) : BRIDGE_CONSTANTS[host.network].initialLockingCap)
    }),
  ),
  ...RSKIP271_METHODS,
]

/**
 * releaseBtc, the default method (empty call data, a plain value transfer): 23 000 gas. node-cli accepts the
 * value and queues no peg-out (the reference queues a release request or refunds an amount below the minimum).
 */
export const bridgeReleaseBtc: NativeMethod<void> = {
  signature: 'releaseBtc()',
  gas: (_a, data) => BRIDGE_NO_METHOD_GAS + dataGas(data),
  execute: () => new Uint8Array(0),
}

/** The Bridge methods node-cli answers (see the module doc for the rest). */
export const bridgeMethods: NativeMethod<any>[] = [
  ...FEDERATION_METHODS,
  ...PEGIN_METHODS,
  ...PEGOUT_METHODS,
  bridgeReleaseBtc,
  ...bridgeWriteMethods,
]
