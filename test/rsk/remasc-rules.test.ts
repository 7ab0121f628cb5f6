/**
 * Remasc's payments by the rules of the executing block (docs/reference-rules.md#rule-remasc-activations), on an
 * in-memory repository: RSKIP85 (minimum payable amounts; before it everything is paid and the federation balance
 * cell is left alone) and RSKIP218 (RSK Labs' address; the older one differs on network 30 only).
 */
import { describe, expect, it } from 'vitest'
import {
  GENESIS_FEDERATORS,
  NEWEST_REMASC_RULES,
  processMinersFees,
  REMASC_ADDRESS,
  REMASC_CONFIGS,
  REMASC_KEYS,
  remascRulesAt,
  type RemascRepository,
  type RemascRules,
} from '../../src/rsk/remasc.js'
import { activationsFor } from '../../src/rsk/activations.js'
import { toHex } from '../../src/util/bytes.js'

const OLD_RSK_LABS = '0x14d3065c8eb89895f4df12450ec6b130049f8034'
const NEW_RSK_LABS = '0xdcb12179ba4697350f66224c959bdd9c282818df'
const MINER = new Uint8Array(20).fill(0xaa)

/** A Remasc repository in memory: storage cells and balances by hex key. */
function memoryRepo(): RemascRepository & { storage: Map<string, Uint8Array>; balances: Map<string, bigint> } {
  const storage = new Map<string, Uint8Array>()
  const balances = new Map<string, bigint>()
  return {
    storage,
    balances,
    getStorageBytes: async (key) => storage.get(toHex(key)) ?? new Uint8Array(0),
    putStorageBytes: async (key, value) => {
      if (value.length === 0) storage.delete(toHex(key))
      else storage.set(toHex(key), value)
    },
    addBalance: async (address, delta) => {
      balances.set(toHex(address), (balances.get(toHex(address)) ?? 0n) + delta)
    },
  }
}

/**
 * Runs the Remasc of network 30's first paying block (maturity 4 000 + synthetic span 10) over a reward balance
 * of `reward` wei, at minimumGasPrice `minGasPrice`, with `rules`.
 */
async function payOnce(reward: bigint, minGasPrice: bigint, rules?: RemascRules) {
  const repo = memoryRepo()
  await repo.addBalance(REMASC_ADDRESS, reward)
  const logs = await processMinersFees(repo, {
    blockNumber: 4010n,
    minimumGasPrice: minGasPrice,
    config: REMASC_CONFIGS[30],
    federators: GENESIS_FEDERATORS[30],
    rules,
    processing: async () => ({ hash: new Uint8Array(32).fill(1), coinbase: MINER, paidFees: reward }),
  })
  const payees = logs.map((l) => toHex(l.topics[1]!.subarray(12)))
  return { repo, payees }
}

describe('Remasc rules by height', () => {
  it('pays RSK Labs at the RSKIP218 address with the rule, at the older one before it (network 30)', async () => {
    const after = await payOnce(21_000_000n, 0n, NEWEST_REMASC_RULES)
    expect(after.payees[0]).toBe(NEW_RSK_LABS)
    const before = await payOnce(21_000_000n, 0n, { rskip85: true, rskip218: false })
    expect(before.payees[0]).toBe(OLD_RSK_LABS)
    // the same amount either way
    expect(before.repo.balances.get(OLD_RSK_LABS)).toBe(after.repo.balances.get(NEW_RSK_LABS))
    // the other networks have one address for both
    for (const n of [31, 32, 33] as const)
      expect(REMASC_CONFIGS[n].rskLabsAddressBeforeRskip218).toEqual(REMASC_CONFIGS[n].rskLabsAddress)
  })

  it('keeps the federation share below each member minimum with RSKIP85, and pays it before', async () => {
    // share 2 100 000 ≥ 200 000 × 1 wei; each of the 15 federators' cut (16 800 / 15) < 50 000 × 1 wei
    const after = await payOnce(21_000_000n, 1n, NEWEST_REMASC_RULES)
    expect(after.payees).toEqual([NEW_RSK_LABS, toHex(MINER)])
    expect(after.repo.storage.get(toHex(REMASC_KEYS.federationBalance))).toEqual(Uint8Array.of(0x41, 0xa0)) // 16 800
    const before = await payOnce(21_000_000n, 1n, { rskip85: false, rskip218: true })
    expect(before.payees).toHaveLength(1 + 15 + 1)
    expect(before.payees.slice(1, 16)).toEqual(GENESIS_FEDERATORS[30].map((a) => toHex(a)))
    expect(before.repo.balances.get(toHex(GENESIS_FEDERATORS[30][0]!))).toBe(16_800n / 15n)
    // the cell is neither used up nor written before RSKIP85
    expect(before.repo.storage.has(toHex(REMASC_KEYS.federationBalance))).toBe(false)
  })

  it('pays nothing while the share is below minimumGasPrice × 200 000 with RSKIP85; everything before', async () => {
    // share 100 000 < 200 000
    const after = await payOnce(1_000_000n, 1n, NEWEST_REMASC_RULES)
    expect(after.payees).toEqual([])
    expect(after.repo.storage.get(toHex(REMASC_KEYS.rewardBalance))).toEqual(Uint8Array.of(0x0f, 0x42, 0x40))
    const before = await payOnce(1_000_000n, 1n, { rskip85: false, rskip218: true })
    expect(before.payees).toHaveLength(17)
    expect(before.repo.balances.get(toHex(MINER))).toBeGreaterThan(0n)
  })

  it('reads the rules of a block from the network activations', () => {
    const main = activationsFor(30)
    const rulesAt = (n: bigint) => remascRulesAt((rule) => main.isActive(rule, n))
    expect(rulesAt(728_999n)).toEqual({ rskip85: false, rskip218: false })
    expect(rulesAt(729_000n)).toEqual({ rskip85: true, rskip218: false })
    expect(rulesAt(3_614_800n)).toEqual({ rskip85: true, rskip218: true })
  })
})
