// A revert that closes the outermost checkpoint (what every eth_call and eth_estimateGas ends with) no longer
// writes the reverted records back into the committed trie (src/state/journaled-view.ts unlistReverted): these
// tests check that this stays exact — the same trie, root and values as before the level, and later writes to
// those records still reach the trie. (The work saved is measured, not asserted: the old re-write also ended with
// an equal trie.)
import { describe, it, expect } from 'vitest'
import { readFileSync } from 'node:fs'
import { Account, Address, bytesToHex, createAddressFromString, hexToBytes } from '@ethereumjs/util'
import { parseGenesisAlloc } from '../../src/rsk/genesis-state.js'
import { UnitrieStateManager } from '../../src/state/unitrie-state-manager.js'

const devJson = JSON.parse(readFileSync(new URL('../../src/rsk/genesis/rsk-dev.json', import.meta.url), 'utf8')) as {
  alloc: Record<string, { balance: string }>
}
const alloc = parseGenesisAlloc(devJson)
const FUNDED = createAddressFromString('0x7986b3df570230288501eea3d890bd66948c9b79')
const NEW = new Address(hexToBytes('0xaa000000000000000000000000000000000000ab'))
const slot = (n: number): Uint8Array => {
  const b = new Uint8Array(32)
  b[31] = n
  return b
}

/** Writes of every kind inside one level: account fields, a new account, code, cells, a wipe. */
async function writeAll(sm: UnitrieStateManager): Promise<void> {
  const a = (await sm.getAccount(FUNDED))!
  await sm.putAccount(FUNDED, new Account(a.nonce + 1n, a.balance - 1n))
  await sm.putAccount(NEW, new Account(1n, 0n))
  await sm.putCode(NEW, hexToBytes('0x6001'))
  await sm.putStorage(NEW, slot(1), hexToBytes('0x01'))
  await sm.clearStorage(NEW)
  await sm.putStorage(NEW, slot(2), hexToBytes('0x02'))
}

describe('a revert to depth 0', () => {
  it('leaves the committed trie itself in place, with every value as before', async () => {
    const sm = UnitrieStateManager.fromGenesis(alloc, 33)
    const before = sm.getTrie()
    const root = bytesToHex(await sm.getStateRoot())
    const funded = (await sm.getAccount(FUNDED))!
    await sm.checkpoint()
    await writeAll(sm)
    await sm.checkpoint() // a nested level reverted with it, as after an execution stopped midway
    await sm.putStorage(NEW, slot(3), hexToBytes('0x03'))
    await sm.revert()
    await sm.revert()
    expect(sm.checkpointDepth).toBe(0)
    expect(sm.getTrie()).toBe(before)
    expect(bytesToHex(await sm.getStateRoot())).toBe(root)
    const after = (await sm.getAccount(FUNDED))!
    expect([after.nonce, after.balance]).toEqual([funded.nonce, funded.balance])
    expect(await sm.getAccount(NEW)).toBeUndefined()
    expect(await sm.getCode(NEW)).toEqual(new Uint8Array(0))
    expect(await sm.getStorage(NEW, slot(2))).toEqual(new Uint8Array(0))
  })

  it('keeps later writes to the reverted records: the same root as without the reverted level', async () => {
    const reverted = UnitrieStateManager.fromGenesis(alloc, 33)
    await reverted.checkpoint()
    await writeAll(reverted)
    await reverted.revert()
    const plain = UnitrieStateManager.fromGenesis(alloc, 33)
    for (const sm of [reverted, plain]) {
      await sm.checkpoint()
      await sm.putAccount(NEW, new Account(7n, 9n))
      await sm.putStorage(NEW, slot(2), hexToBytes('0x05'))
      const a = (await sm.getAccount(FUNDED))!
      await sm.putAccount(FUNDED, new Account(a.nonce, a.balance + 3n))
      await sm.commit()
    }
    expect(bytesToHex(await reverted.getStateRoot())).toBe(bytesToHex(await plain.getStateRoot()))
    expect(await reverted.getStorage(NEW, slot(2))).toEqual(hexToBytes('0x05'))
  })
})
