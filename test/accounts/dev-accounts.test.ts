/**
 * The start-up address table (src/accounts/dev-accounts.ts addressOfKey) must equal real derivation: each entry
 * is checked against secp256k1 (native addon) and against ethers' computeAddress, and unknown keys are derived.
 * A transaction the node signs carries its signer as its pinned sender, the one recovery would give.
 */
import { describe, expect, it } from 'vitest'
import { computeAddress, hexlify } from 'ethers'
import { createLegacyTxFromRLP } from '@ethereumjs/tx'
import { addressOfKey, signLegacyTransaction } from '../../src/accounts/dev-accounts.js'
import { createChainCommon } from '../../src/execution/common.js'
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

describe('signLegacyTransaction', () => {
  it('pins the signer as the sender and the encoding; both equal what recovery and re-encoding give', () => {
    const common = createChainCommon(33)
    const key = seedToPrivateKey('cow1')
    const data = {
      nonce: 3n,
      gasPrice: 60_000_000n,
      gasLimit: 21_000n,
      to: ('0x' + '11'.repeat(20)) as `0x${string}`,
      value: 5n,
    }
    for (const sender of [privateKeyToAddress(key), undefined]) {
      const tx = signLegacyTransaction(key, data, common, sender)
      expect(Object.isFrozen(tx)).toBe(true)
      const again = createLegacyTxFromRLP(tx.serialize(), { common })
      expect(toHex(tx.getSenderAddress().bytes)).toBe(toHex(again.getSenderAddress().bytes))
      expect(toHex(tx.getSenderAddress().bytes)).toBe(computeAddress(hexlify(key)).toLowerCase())
      expect(toHex(tx.hash())).toBe(toHex(again.hash()))
      expect(again.verifySignature()).toBe(true)
    }
  })
})
