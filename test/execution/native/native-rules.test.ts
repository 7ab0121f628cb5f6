/**
 * The native contracts' rule gates (docs/reference-rules.md#rule-bridge-activations), driven with a host whose
 * active rules are chosen per case: a method whose rule is off names no method (the Bridge charges releaseBtc's
 * 23 000 gas and fails), the Bridge's contract-wide checks follow RSKIP88 and RSKIP417, and the Bridge methods
 * node-cli implements carry the rules the reference's BridgeMethods gives them.
 */
import { EventEmitter } from 'node:events'
import type { PrecompileInput } from '@ethereumjs/evm'
import { describe, expect, it } from 'vitest'
import { selector } from '../../../src/execution/native/abi.js'
import { blockHeaderMethods } from '../../../src/execution/native/block-header.js'
import { BRIDGE_NO_METHOD_GAS, bridgeMethods, bridgeReleaseBtc } from '../../../src/execution/native/bridge.js'
import { trackMessages } from '../../../src/execution/native/message-tracker.js'
import {
  nativeContract,
  since,
  type NativeHost,
  type NativeMethod,
} from '../../../src/execution/native/native-contract.js'

/** A host with the rules of `active` and a local call or not. */
function host(active: string[], local = false): NativeHost {
  const rules = new Set(active)
  return {
    network: 33,
    executionBlockNumber: () => 10n,
    canonicalBlock: async () => undefined,
    isLocalCall: () => local,
    isRuleActive: (rule) => rules.has(rule),
  }
}

/** A precompile input of `data` whose current message is `message` (a CALL when absent). */
function input(data: Uint8Array, message?: Record<string, unknown>): PrecompileInput {
  const evm = { events: new EventEmitter() }
  trackMessages(evm as never)
  if (message) evm.events.emit('beforeMessage', { depth: 1, ...message })
  return { data, gasLimit: 1_000_000n, _EVM: evm } as unknown as PrecompileInput
}

const sel = (signature: string) => selector(signature)
const bridgeOptions = {
  noMethodGas: BRIDGE_NO_METHOD_GAS,
  defaultMethod: bridgeReleaseBtc,
  rules: { localCalls: 'rskip88', callTypes: 'rskip417', noMethodFails: 'rskip88' },
}

describe('a method enabled by a rule', () => {
  const method: NativeMethod<void> = since('rskip999', {
    signature: 'probe()',
    gas: () => 5_000n,
    execute: () => Uint8Array.of(1),
  })

  it('exists only while the rule is active at the executing block', async () => {
    const on = await nativeContract([method], host(['rskip999']))(input(sel('probe()')))
    expect(on).toMatchObject({ executionGasUsed: 5_000n, returnValue: Uint8Array.of(1) })
    expect(on.exceptionError).toBeUndefined()
    const off = await nativeContract([method], host([]))(input(sel('probe()')))
    expect(off.exceptionError).toBeDefined()
    expect(off.executionGasUsed).toBe(0n) // a plain native contract charges nothing for no method
  })
})

describe('the Bridge by the rules of the block', () => {
  it('answers a method before its rule as data naming no method: fails, 23 000 gas', async () => {
    const data = sel('getLockingCap()')
    const before = await nativeContract(bridgeMethods, host(['rskip88'], true), bridgeOptions)(input(data))
    expect(before.exceptionError).toBeDefined()
    expect(before.executionGasUsed).toBe(23_000n)
    // before RSKIP88 such data succeeds with no output (Bridge.execute returned null)
    const older = await nativeContract(bridgeMethods, host([], true), bridgeOptions)(input(data))
    expect(older.exceptionError).toBeUndefined()
    expect(older).toMatchObject({ executionGasUsed: 23_000n, returnValue: new Uint8Array(0) })
  })

  it('enforces local-only getters from RSKIP88 and call types from RSKIP417', async () => {
    const data = sel('getMinimumLockTxValue()')
    const run = (rules: string[], message?: Record<string, unknown>) =>
      nativeContract(bridgeMethods, host(rules), bridgeOptions)(input(data, message))
    // a mined transaction (not a local call)
    expect((await run(['rskip88', 'rskip219'])).exceptionError).toBeDefined()
    expect((await run(['rskip219'])).exceptionError).toBeUndefined()
    const delegate = { delegatecall: true }
    const local = (rules: string[]) =>
      nativeContract(bridgeMethods, host(rules, true), bridgeOptions)(input(data, delegate))
    expect((await local(['rskip88', 'rskip417'])).exceptionError).toBeDefined()
    expect((await local(['rskip88'])).exceptionError).toBeUndefined()
  })

  it('answers the legacy minimum peg-in value before RSKIP219 and local-only best chain height before RSKIP220', async () => {
    const value = async (rules: string[]) =>
      (await nativeContract(bridgeMethods, host(rules, true), bridgeOptions)(input(sel('getMinimumLockTxValue()'))))
        .returnValue
    expect(BigInt('0x' + Buffer.from(await value(['rskip88'])).toString('hex'))).toBe(1_000_000n)
    expect(BigInt('0x' + Buffer.from(await value(['rskip88', 'rskip219'])).toString('hex'))).toBe(500_000n)
    const best = bridgeMethods.find((m) => m.signature === 'getBtcBlockchainBestChainHeight()')!
    expect(typeof best.localCallsOnly).toBe('function')
    expect((best.localCallsOnly as (h: NativeHost) => boolean)(host([]))).toBe(true)
    expect((best.localCallsOnly as (h: NativeHost) => boolean)(host(['rskip220']))).toBe(false)
  })

  it('prices receiveHeaders by RSKIP124 and RSKIP132', () => {
    const m = bridgeMethods.find((x) => x.signature === 'receiveHeaders(bytes[])')!
    const headers = [new Uint8Array(80), new Uint8Array(80), new Uint8Array(80)]
    const data = new Uint8Array(10)
    expect(m.gas!(headers, data, host([]))).toBe(22_000n + 20n)
    expect(m.gas!(headers, data, host(['rskip124']))).toBe(66_000n + 2n * 1_650n + 20n)
    expect(m.gas!(headers, data, host(['rskip124', 'rskip132']))).toBe(25_000n + 2n * 3_500n + 20n)
  })

  it('gates the methods node-cli implements with the rules of the reference', () => {
    const rules = Object.fromEntries(bridgeMethods.map((m) => [m.signature.split('(')[0], m.activation ?? null]))
    expect(rules).toMatchObject({
      getActivePowpegRedeemScript: 'rskip293',
      getActiveFederationCreationBlockHeight: 'rskip186',
      getFederatorPublicKeyOfType: 'rskip123',
      addFederatorPublicKeyMultikey: 'rskip123',
      getBtcBlockchainBlockHeaderByHeight: 'rskip220',
      getBtcBlockchainBlockHeaderByHash: 'rskip220',
      getBtcBlockchainParentBlockHeaderByHash: 'rskip220',
      getBtcBlockchainInitialBlockHeight: 'rskip89',
      getBtcBlockchainBlockHashAtDepth: 'rskip89',
      getLockWhitelistEntryByAddress: 'rskip87',
      addOneOffLockWhitelistAddress: 'rskip87',
      addUnlimitedLockWhitelistAddress: 'rskip87',
      getLockingCap: 'rskip134',
      increaseLockingCap: 'rskip134',
      getQueuedPegoutsCount: 'rskip271',
      getEstimatedFeesForNextPegOutEvent: 'rskip271',
      getNextPegoutCreationBlockNumber: 'rskip271',
      // always there
      getFederationAddress: null,
      getFeePerKb: null,
      getMinimumLockTxValue: null,
      receiveHeaders: null,
      registerBtcTransaction: null,
      updateCollections: null,
    })
    expect(bridgeMethods.filter((m) => m.activation !== undefined)).toHaveLength(17)
    // BlockHeader: the two RSKIP536 getters
    const header = blockHeaderMethods.filter((m) => m.activation !== undefined).map((m) => m.signature)
    expect(header).toEqual(['getDifficultyWithUncles(int256)', 'getCumulativeWork(int256)'])
    expect(blockHeaderMethods.every((m) => m.activation === undefined || m.activation === 'rskip536')).toBe(true)
  })
})
