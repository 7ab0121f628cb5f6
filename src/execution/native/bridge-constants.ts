/**
 * The Bridge's constants per network, for the values it answers while its storage holds none
 * (docs/reference-rules.md#rule-bridge-federation): the genesis federation, the emergency (ERP) keys and delay,
 * the federation activation age, the initial locking cap and fee per KB, the Bitcoin network's P2SH address
 * version. Sources: rskj J/co/rsk/peg/federation/constants/Federation{MainNet,TestNet,RegTest}Constants.java,
 * J/co/rsk/peg/lockingcap/constants/LockingCap{MainNet,TestNet,RegTest}Constants.java,
 * J/co/rsk/peg/feeperkb/constants/FeePerKb{MainNet,TestNet,RegTest}Constants.java, bitcoinj's MainNetParams /
 * TestNet3Params / RegTestParams. The devnet (32) has no Bridge constants in the reference; node-cli gives it
 * regtest's.
 */
import {
  federation,
  FORMAT_P2SH_P2WSH_ERP,
  FORMAT_STANDARD_MULTISIG,
  singleKeyMember,
  type FederationScriptParams,
  type FederationView,
} from './bridge-federation.js'

/** A network whose Bridge node-cli runs. */
export type BridgeNetwork = 30 | 31 | 32 | 33

/** A network's Bridge constants. */
export interface BridgeConstants extends FederationScriptParams {
  /** genesisFederationPublicKeys (compressed BTC keys; the genesis members use one key for all purposes). */
  genesisKeys: readonly Uint8Array[]
  /** genesisFederationCreationTime, milliseconds since the epoch. */
  genesisCreationTimeMs: bigint
  /** genesisFederationType (FederationFormatVersion). */
  genesisFormat: number
  /**
   * FederationConstants.getFederationActivationAge: blocks a new federation waits before it is the active one.
   * @param isActive whether a consensus rule is active at the executing block
   */
  activationAge(isActive: (rule: string) => boolean): bigint
  /** LockingCapConstants.initialValue, satoshis. */
  initialLockingCap: bigint
  /** FeePerKbConstants.genesisFeePerKb, satoshis. */
  genesisFeePerKb: bigint
}

const keys = (...hex: string[]): Uint8Array[] => hex.map((h) => Uint8Array.from(Buffer.from(h, 'hex')))

/** FederationSupportImpl.getGenesisFederation: genesisFederationCreationBlockNumber. */
export const GENESIS_FEDERATION_CREATION_BLOCK = 1n

const MILLICOIN = 100_000n
const COIN = 100_000_000n

const REGTEST: BridgeConstants = {
  p2shVersion: 196,
  genesisKeys: keys(
    '0362634ab57dae9cb373a5d536e66a8c4f67468bbcfb063809bab643072d78a124',
    '03c5946b3fbae03a654237da863c9ed534e0878657175b132b8ca630f245df04db',
    '02cd53fc53a07f211641a677d250f6de99caf620e8e77071e811a28b3bcddf0be1',
  ),
  // 2016-01-01T00:00:00Z
  genesisCreationTimeMs: 1_451_606_400_000n,
  genesisFormat: FORMAT_P2SH_P2WSH_ERP,
  erpKeys: keys(
    '03b9fc46657cf72a1afa007ecf431de1cd27ff5cc8829fa625b66ca47b967e6b24',
    '029cecea902067992d52c38b28bf0bb2345bda9b21eca76b16a17c477a64e43301',
    '03284178e5fbcc63c54c3b38e3ef88adf2da6c526313650041b0ef955763634ebd',
    '03ab0e2cd7ed158687fc13b88019990860cdb72b1f5777b58513312550ea1584bc',
  ),
  erpDelay: 500,
  activationAge: (isActive) => (isActive('rskip383') ? 150n : 10n),
  initialLockingCap: 1_000n * COIN,
  genesisFeePerKb: MILLICOIN,
}

/** The Bridge constants of each network. */
export const BRIDGE_CONSTANTS: Record<BridgeNetwork, BridgeConstants> = {
  30: {
    p2shVersion: 5,
    genesisKeys: keys(
      '03b53899c390573471ba30e5054f78376c5f797fda26dde7a760789f02908cbad2',
      '027319afb15481dbeb3c426bcc37f9a30e7f51ceff586936d85548d9395bcc2344',
      '0355a2e9bf100c00fc0a214afd1bf272647c7824eb9cb055480962f0c382596a70',
      '02566d5ded7c7db1aa7ee4ef6f76989fb42527fcfdcddcd447d6793b7d869e46f7',
      '0294c817150f78607566e961b3c71df53a22022a80acbb982f83c0c8baac040adc',
      '0372cd46831f3b6afd4c044d160b7667e8ebf659d6cb51a825a3104df6ee0638c6',
      '0340df69f28d69eef60845da7d81ff60a9060d4da35c767f017b0dd4e20448fb44',
      '02ac1901b6fba2c1dbd47d894d2bd76c8ba1d296d65f6ab47f1c6b22afb53e73eb',
      '031aabbeb9b27258f98c2bf21f36677ae7bae09eb2d8c958ef41a20a6e88626d26',
      '0245ef34f5ee218005c9c21227133e8568a4f3f11aeab919c66ff7b816ae1ffeea',
      '02550cc87fa9061162b1dd395a16662529c9d8094c0feca17905a3244713d65fe8',
      '02481f02b7140acbf3fcdd9f72cf9a7d9484d8125e6df7c9451cfa55ba3b077265',
      '03f909ae15558c70cc751aff9b1f495199c325b13a9e5b934fd6299cd30ec50be8',
      '02c6018fcbd3e89f3cf9c7f48b3232ea3638eb8bf217e59ee290f5f0cfb2fb9259',
      '03b65694ccccda83cbb1e56b31308acd08e993114c33f66a456b627c2c1c68bed6',
    ),
    // 1970-01-18T12:49:08.400Z (as the reference records it)
    genesisCreationTimeMs: 1_514_948_400n,
    genesisFormat: FORMAT_STANDARD_MULTISIG,
    erpKeys: keys(
      '0257c293086c4d4fe8943deda5f890a37d11bebd140e220faa76258a41d077b4d4',
      '03c2660a46aa73078ee6016dee953488566426cf55fc8011edd0085634d75395f9',
      '03cd3e383ec6e12719a6c69515e5559bcbe037d0aa24c187e1e26ce932e22ad7b3',
      '02370a9838e4d15708ad14a104ee5606b36caaaaf739d833e67770ce9fd9b3ec80',
    ),
    erpDelay: 52_560,
    activationAge: (isActive) => (isActive('rskip383') ? 40_320n : 18_500n),
    initialLockingCap: 300n * COIN,
    genesisFeePerKb: 5n * MILLICOIN,
  },
  31: {
    p2shVersion: 196,
    genesisKeys: keys(
      '039a060badbeb24bee49eb2063f616c0f0f0765d4ca646b20a88ce828f259fcdb9',
      '02afc230c2d355b1a577682b07bc2646041b5d0177af0f98395a46018da699b6da',
      '0344a3c38cd59afcba3edcebe143e025574594b001700dec41e59409bdbd0f2a09',
      '034844a99cd7028aa319476674cc381df006628be71bc5593b8b5fdb32bb42ef85',
    ),
    // 1970-01-18T19:29:27.600Z
    genesisCreationTimeMs: 1_538_967_600n,
    genesisFormat: FORMAT_STANDARD_MULTISIG,
    erpKeys: keys(
      '0216c23b2ea8e4f11c3f9e22711addb1d16a93964796913830856b568cc3ea21d3',
      '034db69f2112f4fb1bb6141bf6e2bd6631f0484d0bd95b16767902c9fe219d4a6f',
      '0275562901dd8faae20de0a4166362a4f82188db77dbed4ca887422ea1ec185f14',
    ),
    erpDelay: 52_560,
    // testnet's own rule: 60 before RSKIP383, 120 until RSKIP419, 2 400 from it
    activationAge: (isActive) => (!isActive('rskip383') ? 60n : !isActive('rskip419') ? 120n : 2_400n),
    initialLockingCap: 200n * COIN,
    genesisFeePerKb: MILLICOIN,
  },
  32: REGTEST,
  33: REGTEST,
}

/**
 * Each network's genesis federation, built on first use. Not a bounded cache (no eviction): one entry per
 * {@link BridgeNetwork}, a fixed handful, each built once for the process's life.
 */
const genesisCache = new Map<BridgeNetwork, FederationView>()

/** The network's genesis federation (FederationSupportImpl.getGenesisFederation), built once. */
export function genesisFederation(network: BridgeNetwork): FederationView {
  let fed = genesisCache.get(network)
  if (fed === undefined) {
    const c = BRIDGE_CONSTANTS[network]
    fed = federation(
      c.genesisKeys.map(singleKeyMember),
      c.genesisCreationTimeMs,
      GENESIS_FEDERATION_CREATION_BLOCK,
      c.genesisFormat,
      c,
    )
    genesisCache.set(network, fed)
  }
  return fed
}
