import { describe, expect, it } from 'vitest'
import {
  activationSource,
  activationsFor,
  activeRules,
  activeUpgrades,
  CONSENSUS_RULES,
  headerRulesFor,
  headerVersionAt,
  isRuleActive,
  ruleHeight,
  upgradeHeight,
} from '../../src/rsk/activations.js'
import { CONSENSUS_PRECOMPILE_ADDRESSES, rulesActiveAtGenesis } from '../../src/rsk/genesis-state.js'
import { regtestHeaderRules } from '../../src/rsk/header-decode.js'

describe('network activations (docs/reference-rules.md#rule-network-activations)', () => {
  it('lists every consensus rule of the reference once (98 rules)', () => {
    expect(CONSENSUS_RULES).toHaveLength(98)
    expect(new Set(CONSENSUS_RULES).size).toBe(98)
    expect(CONSENSUS_RULES).toContain('rskipUMM')
    expect(CONSENSUS_RULES).toContain('areBridgeTxsPaid')
    expect(CONSENSUS_RULES).toContain('rskip535')
  })

  it('names its sources', () => {
    expect(activationSource(30)).toBe('resources/config/main.conf')
    expect(activationSource(31)).toBe('resources/config/testnet.conf')
    expect(activationSource(33)).toBe('resources/config/regtest.conf')
    expect(() => activationSource(32)).toThrow(/30, 31 or 33/)
    expect(() => activationSource(1)).toThrow(/network 1/)
  })

  it('activates an upgrade exactly at its height on mainnet', () => {
    expect(upgradeHeight(30, 'iris300')).toBe(3_614_800n)
    expect(activeUpgrades(30, 3_614_799n)).not.toContain('iris300')
    expect(activeUpgrades(30, 3_614_800n)).toContain('iris300')
    expect(isRuleActive(30, 'rskip144', 10n ** 9n)).toBe(false) // reed810 = -1 on mainnet
    expect(upgradeHeight(30, 'reed810')).toBeUndefined()
    expect(activeUpgrades(30, 0)).toEqual([])
    expect(activeUpgrades(30, 3397)).toEqual(['bahamas'])
  })

  it('applies the per-network overrides of consensusRules', () => {
    // main.conf: rskip536 at the vetiver900 height although reed810 never activates there
    expect(ruleHeight(30, 'rskip536')).toBe(8_804_200n)
    expect(ruleHeight(30, 'rskip351')).toBeUndefined()
    // testnet.conf: rskip97 off, rskip132 and rskip284/290 earlier than their upgrades, rskip535 with vetiver
    expect(ruleHeight(31, 'rskip97')).toBeUndefined()
    expect(ruleHeight(31, 'rskip132')).toBe(43_550n)
    expect(ruleHeight(31, 'rskip284')).toBe(2_581_800n)
    expect(ruleHeight(31, 'rskip293')).toBe(3_103_000n) // hop400, no override
    expect(ruleHeight(31, 'rskip535')).toBe(7_604_200n)
    expect(() => ruleHeight(31, 'rskip999')).toThrow(/unknown consensus rule/)
  })

  it('gives header versions: mainnet V0, testnet V1 from reed810 and V2 from vetiver900, regtest V2 from block 1', () => {
    expect(headerVersionAt(30, 9_000_000n)).toBe(0)
    expect(headerVersionAt(31, 7_139_599n)).toBe(0)
    expect(headerVersionAt(31, 7_139_600n)).toBe(1)
    expect(headerVersionAt(31, 7_604_200n)).toBe(2)
    expect(headerVersionAt(33, 0n)).toBe(0)
    expect(headerVersionAt(33, 1n)).toBe(2)
  })

  it('gives the same header decoding rules on regtest as the hand-written regtest rules', () => {
    const rules = headerRulesFor(33)
    for (const n of [0n, 1n, 2n, 1000n]) expect(rules(n)).toEqual(regtestHeaderRules(n))
    const main = headerRulesFor(30)
    expect(main(100n)).toEqual({ umm: false, version: 0, edges: false, rskip92: false })
    expect(main(8_000_000n)).toEqual({ umm: true, version: 0, edges: false, rskip92: true })
    expect(headerRulesFor(31)(7_700_000n)).toEqual({ umm: true, version: 2, edges: true, rskip92: true })
  })

  it('agrees with the genesis precompile rules of each network', () => {
    for (const network of [30, 31, 33] as const) {
      const atZero = activeRules(network, 0)
      const expected = rulesActiveAtGenesis(network)
      for (const [, rule] of CONSENSUS_PRECOMPILE_ADDRESSES) expect(atZero.has(rule)).toBe(expected.has(rule))
      expect(atZero.has('rskip126')).toBe(expected.has('rskip126'))
    }
  })

  it('has every rule of regtest active from block 1 except the ones regtest.conf turns off', () => {
    const off = CONSENSUS_RULES.filter((r) => !activeRules(33, 1).has(r))
    expect(off.sort()).toEqual(['areBridgeTxsPaid', 'rskip434', 'rskip97'])
  })
})

describe('activationsFor: a network with overrides (docs/reference-rules.md#rule-network-activations)', () => {
  it('answers as the recorded table without overrides', () => {
    const main = activationsFor(30)
    for (const n of [0n, 3_397n, 729_000n, 6_223_700n, 8_052_200n, 8_804_200n, 9_000_000n]) {
      for (const rule of ['rskip92', 'rskip144', 'rskip351', 'rskip398', 'rskip516', 'rskip536']) {
        expect(main.isActive(rule, n)).toBe(isRuleActive(30, rule, n))
      }
      expect(main.headerRulesAt(n)).toEqual(headerRulesFor(30)(n))
    }
    // mainnet near its head: version-0 headers with ummRoot, no edges (reed810 never comes on main)
    expect(main.headerRulesAt(9_000_000n)).toEqual({ umm: true, version: 0, edges: false, rskip92: true })
    // testnet near its head: version 2 with edges
    expect(activationsFor(31).headerRulesAt(7_700_000n)).toEqual({ umm: true, version: 2, edges: true, rskip92: true })
  })

  it('moves an upgrade, but not the rules the network pins', () => {
    const t = activationsFor(31, { lovell700: 5, reed810: 7 })
    expect(t.isActive('rskip446', 4n)).toBe(false)
    expect(t.isActive('rskip446', 5n)).toBe(true)
    expect(t.headerRulesAt(7n)).toEqual({ umm: false, version: 1, edges: true, rskip92: true })
    expect(t.isActive('rskip535', 7n)).toBe(false) // testnet pins RSKIP535 at 7 604 200
    expect(activationsFor(31, { rskip535: 7, reed810: 7 }).headerRulesAt(7n).version).toBe(2)
    expect(activationsFor(30, { reed810: -1, rskip351: 2 }).headerRulesAt(2n).version).toBe(1)
  })

  it('refuses unknown names and bad heights', () => {
    expect(() => activationsFor(31, { lovel700: 1 })).toThrow(/unknown network upgrade or consensus rule lovel700/)
    expect(() => activationsFor(31, { rskip144: -2 })).toThrow(/integer ≥ -1/)
    expect(() => activationsFor(31, { rskip144: 1.5 })).toThrow(/integer ≥ -1/)
    expect(() => activationsFor(32)).toThrow(/30, 31 or 33/)
  })
})
