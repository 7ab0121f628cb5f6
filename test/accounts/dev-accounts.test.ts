/**
 * The start-up address table (src/accounts/dev-accounts.ts addressOfKey) must equal real derivation: each entry
 * is checked against secp256k1 (native addon) and against ethers' computeAddress, and unknown keys are derived.
 */
import { describe, expect, it } from 'vitest'
import { computeAddress, hexlify } from 'ethers'
import { addressOfKey } from '../../src/accounts/dev-accounts.js'
import { keccak256, privateKeyToAddress } from '../../src/crypto/secp256k1.js'
import { seedToPrivateKey } from '../../src/rsk/networks.js'
import { toHex } from '../../src/util/bytes.js'

const SEEDS = ['cow', 'cow1', 'cow2', 'cow3', 'cow4', 'cow5', 'cow6', 'cow7', 'cow8', 'cow9']
const MINER_KEY = keccak256(new TextEncoder().encode('regtest_miner_secret_please_change'))

describe('addressOfKey', () => {
  it.each(SEEDS)('%s: the table entry equals the derived address', (seed) => {
    const key = seedToPrivateKey(seed)
    const address = toHex(addressOfKey(key))
    expect(address).toBe(toHex(privateKeyToAddress(key)))
    expect(address).toBe(computeAddress(hexlify(key)).toLowerCase())
  })

  it('the regtest miner key', () => {
    expect(toHex(addressOfKey(MINER_KEY))).toBe(computeAddress(hexlify(MINER_KEY)).toLowerCase())
    expect(toHex(addressOfKey(MINER_KEY))).toBe('0xec4ddeb4380ad69b3e509baad9f158cdf4e4681d')
  })

  it('any other key is derived', () => {
    const key = seedToPrivateKey('not-a-table-entry')
    expect(toHex(addressOfKey(key))).toBe(computeAddress(hexlify(key)).toLowerCase())
  })
})
