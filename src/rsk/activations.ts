/**
 * Hard-fork (network upgrade) activation heights of networks 30 (main), 31 (test) and 33 (regtest), and which
 * consensus rules (RSKIPs) are active at a block: the reference's `ActivationConfig` read from its network
 * configuration. A fork of a live network runs with that network's rules at the fork height
 * (docs/reference-rules.md#rule-network-activations).
 *
 * Sources (rskj, paths relative to `rskj-core/src/main/`): `resources/config/main.conf`,
 * `resources/config/testnet.conf`, `resources/config/regtest.conf` (`blockchain.config.hardforkActivationHeights`
 * and their `consensusRules` overrides); `resources/reference.conf` (`blockchain.config.consensusRules`: which
 * upgrade turns each rule on); `java/org/ethereum/config/blockchain/upgrades/ActivationConfig.java` (a rule is
 * active at block n when its height h satisfies 0 ≤ h ≤ n; a negative height means never) and
 * `NetworkUpgrade.java` (the upgrade names). Checked against rskj master of mid-2026 (9.1.0-SNAPSHOT).
 *
 * Devnet (32) is left out: its configuration in the reference lists no height for arrowhead631, reed810 and
 * tbd1000, which rules of reference.conf refer to.
 */
import type { HeaderVersion } from './header.js'
import type { HeaderDecodeRules } from './header-decode.js'

/** The reference's network upgrades, in activation order (NetworkUpgrade.java, without `genesis`). */
export const NETWORK_UPGRADES = [
  'bahamas',
  'afterBridgeSync',
  'orchid',
  'orchid060',
  'wasabi100',
  'twoToThree',
  'papyrus200',
  'iris300',
  'hop400',
  'hop401',
  'fingerroot500',
  'arrowhead600',
  'arrowhead631',
  'lovell700',
  'reed800',
  'reed810',
  'vetiver900',
  'tbd1000',
] as const

/** A network upgrade name as the reference's configuration spells it. */
export type NetworkUpgrade = (typeof NETWORK_UPGRADES)[number]

/** Networks whose activation heights are recorded. */
export type ActivationNetwork = 30 | 31 | 33

/**
 * Which upgrade activates each consensus rule by default (reference.conf `blockchain.config.consensusRules`).
 * `rskip535` has the height -1 there (never, unless a network sets it).
 */
const RULES_BY_UPGRADE: Readonly<Record<NetworkUpgrade, readonly string[]>> = {
  bahamas: ['rskip136'],
  afterBridgeSync: ['areBridgeTxsPaid'],
  orchid: ['rskip85', 'rskip87', 'rskip88', 'rskip89', 'rskip90', 'rskip91', 'rskip92', 'rskip97', 'rskip98'],
  orchid060: ['rskip103'],
  wasabi100: [
    'rskip106',
    'rskip110',
    'rskip119',
    'rskip120',
    'rskip122',
    'rskip123',
    'rskip124',
    'rskip125',
    'rskip126',
    'rskip132',
  ],
  twoToThree: ['rskip150'],
  papyrus200: [
    'rskip134',
    'rskip137',
    'rskip140',
    'rskip143',
    'rskip146',
    'rskip151',
    'rskip152',
    'rskip156',
    'rskipUMM',
  ],
  iris300: [
    'rskip153',
    'rskip169',
    'rskip170',
    'rskip171',
    'rskip174',
    'rskip176',
    'rskip179',
    'rskip180',
    'rskip181',
    'rskip185',
    'rskip186',
    'rskip191',
    'rskip197',
    'rskip199',
    'rskip200',
    'rskip201',
    'rskip218',
    'rskip219',
    'rskip220',
  ],
  hop400: ['rskip271', 'rskip284', 'rskip290', 'rskip293', 'rskip294', 'rskip297'],
  hop401: ['rskip353', 'rskip357'],
  fingerroot500: ['rskip252', 'rskip326', 'rskip374', 'rskip375', 'rskip377', 'rskip383', 'rskip385'],
  arrowhead600: ['rskip203', 'rskip376', 'rskip379', 'rskip398', 'rskip400', 'rskip412', 'rskip415', 'rskip417'],
  arrowhead631: ['rskip434'],
  lovell700: [
    'rskip419',
    'rskip427',
    'rskip428',
    'rskip438',
    'rskip445',
    'rskip446',
    'rskip453',
    'rskip454',
    'rskip459',
    'rskip460',
  ],
  reed800: ['rskip305', 'rskip516'],
  reed810: ['rskip144', 'rskip351', 'rskip502', 'rskip529', 'rskip536'],
  vetiver900: ['rskip540', 'rskip544', 'rskip551', 'rskip552'],
  tbd1000: ['rskip559'],
}

/** Rules with a fixed default height in reference.conf instead of an upgrade. */
const RULE_DEFAULT_HEIGHTS: Readonly<Record<string, number>> = { rskip535: -1 }

/** One network's configuration: upgrade heights (-1 = never) and rule heights that override the default mapping. */
interface NetworkActivations {
  /** Path of the reference's configuration file, relative to `rskj-core/src/main/`. */
  source: string
  upgrades: Readonly<Record<NetworkUpgrade, number>>
  overrides: Readonly<Record<string, number>>
}

const NETWORKS: Readonly<Record<ActivationNetwork, NetworkActivations>> = {
  30: {
    source: 'resources/config/main.conf',
    upgrades: {
      bahamas: 3397,
      afterBridgeSync: 370000,
      orchid: 729000,
      orchid060: 1052700,
      wasabi100: 1591000,
      twoToThree: 2018000,
      papyrus200: 2392700,
      iris300: 3614800,
      hop400: 4598500,
      hop401: 4976300,
      fingerroot500: 5468000,
      arrowhead600: 6223700,
      arrowhead631: 6549300,
      lovell700: 7338024,
      reed800: 8052200,
      reed810: -1,
      vetiver900: 8804200,
      tbd1000: -1,
    },
    overrides: { rskip536: 8804200 },
  },
  31: {
    source: 'resources/config/testnet.conf',
    upgrades: {
      bahamas: 0,
      afterBridgeSync: 114000,
      orchid: 0,
      orchid060: 0,
      wasabi100: 0,
      twoToThree: 504000,
      papyrus200: 863000,
      iris300: 2060500,
      hop400: 3103000,
      hop401: 3362200,
      fingerroot500: 4015800,
      arrowhead600: 4927100,
      arrowhead631: -1,
      lovell700: 6110487,
      reed800: 6835700,
      reed810: 7139600,
      vetiver900: 7604200,
      tbd1000: -1,
    },
    overrides: { rskip97: -1, rskip132: 43550, rskip284: 2581800, rskip290: 2581800, rskip535: 7604200 },
  },
  33: {
    source: 'resources/config/regtest.conf',
    upgrades: {
      bahamas: 0,
      afterBridgeSync: -1,
      orchid: 0,
      orchid060: 0,
      wasabi100: 0,
      twoToThree: 0,
      papyrus200: 0,
      iris300: 0,
      hop400: 0,
      hop401: 0,
      fingerroot500: 0,
      arrowhead600: 0,
      arrowhead631: -1,
      lovell700: 0,
      reed800: 0,
      reed810: 0,
      vetiver900: 0,
      tbd1000: 0,
    },
    overrides: { rskip97: -1, rskipUMM: 1, rskip144: 1, rskip351: 1, rskip535: 1 },
  },
}

/** Every consensus rule name the reference configures (reference.conf), in the order listed above. */
export const CONSENSUS_RULES: readonly string[] = [
  ...NETWORK_UPGRADES.flatMap((u) => RULES_BY_UPGRADE[u]),
  ...Object.keys(RULE_DEFAULT_HEIGHTS),
]

function config(network: number): NetworkActivations {
  const c = NETWORKS[network as ActivationNetwork]
  if (c === undefined) throw new Error(`no activation heights recorded for network ${network}: use 30, 31 or 33`)
  return c
}

/**
 * Activation heights to use instead of a network's recorded ones, as the reference's configuration overrides
 * them (`blockchain.config.hardforkActivationHeights` for an upgrade, `blockchain.config.consensusRules` for a
 * rule): upgrade or rule name → block number, -1 = never. A rule override wins over the network's own pin of that
 * rule; an upgrade override moves every rule the network does not pin.
 */
export type ActivationOverrides = Readonly<Record<string, number>>

/** The consensus rules in force on one network (with overrides), by block number. */
export interface Activations {
  readonly network: ActivationNetwork
  /** Whether `rule` (`'rskip144'`…) is active at block `block`; an unknown name is never active. */
  isActive(rule: string, block: bigint): boolean
  /** The optional header fields and hash form of a block at `block` (see {@link headerRulesFor}). */
  headerRulesAt(block: bigint): HeaderDecodeRules
}

/**
 * The rules of `network` with `overrides` applied (docs/reference-rules.md#rule-network-activations).
 * @throws Error for a network other than 30, 31 or 33, an unknown upgrade or rule name, or a height that is not an
 *   integer ≥ -1
 */
export function activationsFor(network: number, overrides: ActivationOverrides = {}): Activations {
  const c = config(network)
  const upgrades: Record<string, number> = { ...c.upgrades }
  const pinned: Record<string, number> = { ...c.overrides }
  for (const [name, h] of Object.entries(overrides)) {
    if (!Number.isSafeInteger(h) || h < -1) throw new Error(`activation height of ${name} must be an integer ≥ -1`)
    if ((NETWORK_UPGRADES as readonly string[]).includes(name)) upgrades[name] = h
    else if (CONSENSUS_RULES.includes(name)) pinned[name] = h
    else throw new Error(`unknown network upgrade or consensus rule ${name}`)
  }
  const heights = new Map<string, bigint | undefined>()
  for (const rule of CONSENSUS_RULES) {
    let h = pinned[rule]
    if (h === undefined) {
      const upgrade = NETWORK_UPGRADES.find((u) => RULES_BY_UPGRADE[u].includes(rule))
      h = upgrade !== undefined ? upgrades[upgrade]! : RULE_DEFAULT_HEIGHTS[rule]!
    }
    heights.set(rule, h < 0 ? undefined : BigInt(h))
  }
  const isActive = (rule: string, block: bigint): boolean => {
    const h = heights.get(rule)
    return h !== undefined && h <= block
  }
  return {
    network: network as ActivationNetwork,
    isActive,
    headerRulesAt(block) {
      const version: HeaderVersion = !isActive('rskip351', block) ? 0 : isActive('rskip535', block) ? 2 : 1
      return {
        umm: isActive('rskipUMM', block),
        version,
        edges: version > 0 && isActive('rskip144', block),
        rskip92: isActive('rskip92', block),
      }
    },
  }
}

/** Whether activation height `h` (-1 = never) is reached at block `n` (ActivationConfig.isActive). */
function reached(h: number, n: bigint): boolean {
  return h >= 0 && BigInt(h) <= n
}

/**
 * Path of the reference configuration file a network's heights come from (relative to `rskj-core/src/main/`).
 * @throws Error for a network other than 30, 31 or 33
 */
export function activationSource(network: number): string {
  return config(network).source
}

/**
 * Height at which `upgrade` activates on `network`, or undefined when it never does (-1 in the configuration).
 * @throws Error for a network other than 30, 31 or 33
 */
export function upgradeHeight(network: number, upgrade: NetworkUpgrade): bigint | undefined {
  const h = config(network).upgrades[upgrade]
  return h < 0 ? undefined : BigInt(h)
}

/**
 * Height at which consensus rule `rule` (`'rskip144'`, `'rskipUMM'`, `'areBridgeTxsPaid'`…) activates on
 * `network`: the network's own override, else the height of the upgrade reference.conf assigns it; undefined
 * when it never activates.
 * @throws Error for a network other than 30, 31 or 33, or an unknown rule name
 */
export function ruleHeight(network: number, rule: string): bigint | undefined {
  const c = config(network)
  let h = c.overrides[rule]
  if (h === undefined) {
    const upgrade = NETWORK_UPGRADES.find((u) => RULES_BY_UPGRADE[u].includes(rule))
    h = upgrade !== undefined ? c.upgrades[upgrade] : RULE_DEFAULT_HEIGHTS[rule]
  }
  if (h === undefined) throw new Error(`unknown consensus rule ${rule}`)
  return h < 0 ? undefined : BigInt(h)
}

/**
 * Whether consensus rule `rule` is active at block `block` of `network` (ActivationConfig.isActive).
 * @throws Error for a network other than 30, 31 or 33, or an unknown rule name
 */
export function isRuleActive(network: number, rule: string, block: bigint | number): boolean {
  const h = ruleHeight(network, rule)
  return h !== undefined && h <= BigInt(block)
}

/**
 * The network upgrades active at block `block` of `network`, in activation order.
 * @throws Error for a network other than 30, 31 or 33
 */
export function activeUpgrades(network: number, block: bigint | number): NetworkUpgrade[] {
  const c = config(network)
  const n = BigInt(block)
  return NETWORK_UPGRADES.filter((u) => reached(c.upgrades[u], n))
}

/**
 * The consensus rules active at block `block` of `network`.
 * @throws Error for a network other than 30, 31 or 33
 */
export function activeRules(network: number, block: bigint | number): Set<string> {
  return new Set(CONSENSUS_RULES.filter((r) => isRuleActive(network, r, block)))
}

/**
 * Header format version at a block (ActivationConfig.getHeaderVersion): 0 before RSKIP351, 1 with it, 2 with
 * RSKIP351 and RSKIP535 (docs/reference-rules.md#rule-header-versions).
 */
export function headerVersionAt(network: number, block: bigint | number): HeaderVersion {
  if (!isRuleActive(network, 'rskip351', block)) return 0
  return isRuleActive(network, 'rskip535', block) ? 2 : 1
}

/**
 * Which optional header fields blocks of `network` carry, by height, for decoding the uncompressed header
 * (src/rsk/header-decode.ts `decodeHeaderFields`): ummRoot with RSKIPUMM, the version byte with RSKIP351, edges with
 * RSKIP351 and RSKIP144, the RSKIP92 hash form.
 * @throws Error for a network other than 30, 31 or 33
 */
export function headerRulesFor(network: number): (number: bigint) => HeaderDecodeRules {
  config(network)
  return (number) => {
    const version = headerVersionAt(network, number)
    return {
      umm: isRuleActive(network, 'rskipUMM', number),
      version,
      edges: version > 0 && isRuleActive(network, 'rskip144', number),
      rskip92: isRuleActive(network, 'rskip92', number),
    }
  }
}
