/**
 * The Bridge (0x…01000006) read side on the regtest federation, over real HTTP. Expected values come from the
 * reference's regtest constants (rskj co/rsk/peg/constants/BridgeRegTestConstants.java,
 * federation/constants/FederationRegTestConstants.java, feeperkb/constants/FeePerKbRegTestConstants.java) and
 * its script rules (bitcoin/P2shErpRedeemScriptBuilder.java, federation/ErpFederation.java: P2SH-P2WSH), built
 * here independently with ethers' hashes; gas = BridgeMethods fixed cost + 2 per call-data byte; local-only
 * getters fail in mined transactions (Bridge.validateLocalCall, RSKIP88).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { concat, encodeBase58, getBytes, hexlify, Interface, ripemd160, sha256 } from 'ethers'
import type { Node } from '../../../src/index.js'
import { NativeProbe } from '../../../fixtures/index.js'
import { COW, rpc, startNode } from '../../helpers/node.js'
import { deploy, minedReceipt, q } from '../../rpc/shapes.js'

const BRIDGE = '0x0000000000000000000000000000000001000006'
const bridge = new Interface([
  'function getFederationAddress() returns (string)',
  'function getFederationSize() returns (int256)',
  'function getFederationThreshold() returns (int256)',
  'function getFederationCreationTime() returns (int256)',
  'function getFederationCreationBlockNumber() returns (int256)',
  'function getFederatorPublicKeyOfType(int256,string) returns (bytes)',
  'function getActivePowpegRedeemScript() returns (bytes)',
  'function getActiveFederationCreationBlockHeight() returns (uint256)',
  'function getRetiringFederationSize() returns (int256)',
  'function getRetiringFederationAddress() returns (string)',
  'function getPendingFederationSize() returns (int256)',
  'function getFeePerKb() returns (int256)',
  'function getMinimumLockTxValue() returns (int256)',
  'function getBtcBlockchainBestChainHeight() returns (int256)',
  'function getBtcBlockchainInitialBlockHeight() returns (int256)',
  'function getBtcBlockchainBlockHashAtDepth(int256) returns (bytes)',
  'function getBtcTxHashProcessedHeight(string) returns (int64)',
  'function isBtcTxHashAlreadyProcessed(string) returns (bool)',
  'function getLockWhitelistSize() returns (int256)',
  'function getLockWhitelistAddress(int256) returns (string)',
  'function getLockWhitelistEntryByAddress(string) returns (int256)',
  'function getQueuedPegoutsCount() returns (uint256)',
  'function getNextPegoutCreationBlockNumber() returns (uint256)',
  'function releaseBtc()',
])
const probeIf = new Interface(NativeProbe.abi)

// BridgeRegTestConstants / FederationRegTestConstants
const FED_KEYS = [
  '0362634ab57dae9cb373a5d536e66a8c4f67468bbcfb063809bab643072d78a124',
  '03c5946b3fbae03a654237da863c9ed534e0878657175b132b8ca630f245df04db',
  '02cd53fc53a07f211641a677d250f6de99caf620e8e77071e811a28b3bcddf0be1',
].sort()
const ERP_KEYS = [
  '03b9fc46657cf72a1afa007ecf431de1cd27ff5cc8829fa625b66ca47b967e6b24',
  '029cecea902067992d52c38b28bf0bb2345bda9b21eca76b16a17c477a64e43301',
  '03284178e5fbcc63c54c3b38e3ef88adf2da6c526313650041b0ef955763634ebd',
  '03ab0e2cd7ed158687fc13b88019990860cdb72b1f5777b58513312550ea1584bc',
].sort()
/** OP_NOTIF OP_2 <3 keys> OP_3 OP_CHECKMULTISIG OP_ELSE <f401 = 500 LE> OP_CSV OP_DROP OP_3 <4 keys> OP_4 OP_CHECKMULTISIG OP_ENDIF */
const REDEEM =
  '0x64' +
  '52' +
  FED_KEYS.map((k) => '21' + k).join('') +
  '53ae' +
  '67' +
  '02f401' +
  'b275' +
  '53' +
  ERP_KEYS.map((k) => '21' + k).join('') +
  '54ae' +
  '68'
/** P2SH(P2WSH(redeem)) on Bitcoin regtest (P2SH version 196), Base58Check. */
function expectedAddress(): string {
  const witnessProgram = concat(['0x0020', sha256(REDEEM)])
  const payload = concat(['0xc4', ripemd160(sha256(witnessProgram))])
  const check = getBytes(sha256(sha256(payload))).slice(0, 4)
  return encodeBase58(concat([payload, check]))
}

let node: Node
let url: string
let probe: string

const call = async (fn: string, args: unknown[] = []): Promise<any> => {
  const out = await rpc<string>(url, 'eth_call', [{ to: BRIDGE, data: bridge.encodeFunctionData(fn, args) }, 'latest'])
  return out === '0x' ? undefined : bridge.decodeFunctionResult(fn, out)[0]
}

function intrinsic(data: string): bigint {
  let g = 21000n
  for (const x of Buffer.from(data.slice(2), 'hex')) g += x === 0 ? 4n : 16n
  return g
}

/** A transaction to the Bridge, mined even when it fails (the Bridge's own failures are the point). */
function mined(to: string, data: string, value = 0n): Promise<{ status: string; gasUsed: bigint }> {
  return minedReceipt(url, { to, data, value: q(value), gas: q(1_000_000) })
}

beforeAll(async () => {
  node = await startNode()
  url = node.url
  ;({ address: probe } = await deploy(url, NativeProbe.bytecode))
})
afterAll(() => node?.close())

describe('Bridge: the regtest genesis federation (P2SH-P2WSH ERP)', () => {
  it('address, size, threshold, creation time (seconds, RSKIP419) and block', async () => {
    expect(await call('getFederationAddress')).toBe(expectedAddress())
    expect(expectedAddress()).toMatch(/^2/)
    expect(await call('getFederationSize')).toBe(3n)
    expect(await call('getFederationThreshold')).toBe(2n)
    expect(await call('getFederationCreationTime')).toBe(BigInt(Date.parse('2016-01-01T00:00:00Z') / 1000))
    expect(await call('getFederationCreationBlockNumber')).toBe(1n)
    expect(await call('getActiveFederationCreationBlockHeight')).toBe(0n)
  })
  it('public keys by index and type, sorted; a bad index or type fails', async () => {
    for (const type of ['btc', 'rsk', 'mst']) {
      for (let i = 0; i < 3; i++) expect(await call('getFederatorPublicKeyOfType', [i, type])).toBe('0x' + FED_KEYS[i])
    }
    expect(await call('getFederatorPublicKeyOfType', [3, 'btc'])).toBeUndefined()
    expect(await call('getFederatorPublicKeyOfType', [-1, 'btc'])).toBeUndefined()
    expect(await call('getFederatorPublicKeyOfType', [0, 'xyz'])).toBeUndefined()
  })
  it('active powpeg redeem script', async () => {
    expect(await call('getActivePowpegRedeemScript')).toBe(REDEEM)
  })
  it('no retiring or pending federation', async () => {
    expect(await call('getRetiringFederationSize')).toBe(-1n)
    expect(await call('getRetiringFederationAddress')).toBe('')
    expect(await call('getPendingFederationSize')).toBe(-1n)
  })
})

describe('Bridge: peg-in side', () => {
  it('fee per kb 100 000 sat (genesisFeePerKb), minimum lock value 500 000 sat', async () => {
    expect(await call('getFeePerKb')).toBe(100_000n)
    expect(await call('getMinimumLockTxValue')).toBe(500_000n)
  })
  it('the BTC light chain is the regtest genesis at height 0; eth_bridgeState agrees', async () => {
    expect(await call('getBtcBlockchainBestChainHeight')).toBe(0n)
    expect(await call('getBtcBlockchainInitialBlockHeight')).toBe(0n)
    expect(await call('getBtcBlockchainBlockHashAtDepth', [0])).toBe(
      '0x0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206',
    )
    expect(await call('getBtcBlockchainBlockHashAtDepth', [1])).toBeUndefined()
    expect(await call('getBtcBlockchainBlockHashAtDepth', [-1])).toBeUndefined()
    const state = await rpc(url, 'eth_bridgeState')
    expect(BigInt(state.btcBlockchainBestChainHeight)).toBe(await call('getBtcBlockchainBestChainHeight'))
    expect(state.rskTxsWaitingForSignatures).toEqual([])
  })
  it('processed BTC tx hashes: none (-1 / false); a malformed hash fails', async () => {
    const h = 'ab'.repeat(32)
    expect(await call('getBtcTxHashProcessedHeight', [h])).toBe(-1n)
    expect(await call('isBtcTxHashAlreadyProcessed', [h])).toBe(false)
    expect(await call('getBtcTxHashProcessedHeight', ['not-a-hash'])).toBeUndefined()
  })
  it('lock whitelist: empty', async () => {
    expect(await call('getLockWhitelistSize')).toBe(0n)
    expect(await call('getLockWhitelistAddress', [0])).toBe('')
    expect(await call('getLockWhitelistEntryByAddress', ['mgivuh9jErcGdRr81cJ3A7YfgbJV7WNyZV'])).toBe(-1n)
  })
})

describe('Bridge: peg-out side', () => {
  it('no queued peg-outs, next peg-out creation block 0', async () => {
    expect(await call('getQueuedPegoutsCount')).toBe(0n)
    expect(await call('getNextPegoutCreationBlockNumber')).toBe(0n)
  })
})

describe('Bridge: calling convention', () => {
  it('gas: fixed cost + 2 per data byte (eth_estimateGas, and a mined transaction for a non-local getter)', async () => {
    const data = bridge.encodeFunctionData('getBtcBlockchainBestChainHeight')
    expect(BigInt(await rpc(url, 'eth_estimateGas', [{ to: BRIDGE, data }]))).toBe(intrinsic(data) + 19_000n + 8n)
    const r = await mined(BRIDGE, data)
    expect(r.status).toBe('0x1')
    expect(r.gasUsed).toBe(intrinsic(data) + 19_000n + 8n)
  })
  it('a local-only getter fails in a mined transaction, charging its cost', async () => {
    const data = bridge.encodeFunctionData('getFederationAddress')
    const r = await mined(BRIDGE, data)
    expect(r.status).toBe('0x0')
    expect(r.gasUsed).toBe(intrinsic(data) + 11_000n + 8n)
  })
  it("unknown data fails charging releaseBtc's 23 000; a plain value transfer (releaseBtc) is accepted", async () => {
    const r = await mined(BRIDGE, '0x12345678')
    expect(r.status).toBe('0x0')
    expect(r.gasUsed).toBe(intrinsic('0x12345678') + 23_000n)
    const before = BigInt(await rpc(url, 'eth_getBalance', [BRIDGE, 'latest']))
    const t = await mined(BRIDGE, '0x', 10n ** 18n)
    expect(t.status).toBe('0x1')
    expect(t.gasUsed).toBe(21_000n + 23_000n)
    expect(BigInt(await rpc(url, 'eth_getBalance', [BRIDGE, 'latest']))).toBe(before + 10n ** 18n)
  })
  it('from a contract in eth_call (CALL and STATICCALL accepted)', async () => {
    const out = await rpc(url, 'eth_call', [
      {
        to: probe,
        data: probeIf.encodeFunctionData('rawStaticCall', [BRIDGE, bridge.encodeFunctionData('getFederationAddress')]),
      },
      'latest',
    ])
    const [ok, ret] = probeIf.decodeFunctionResult('rawStaticCall', out)
    expect(ok).toBe(true)
    expect(bridge.decodeFunctionResult('getFederationAddress', ret)[0]).toBe(expectedAddress())
    const out2 = await rpc(url, 'eth_call', [
      {
        to: probe,
        data: probeIf.encodeFunctionData('rawCall', [BRIDGE, bridge.encodeFunctionData('getFeePerKb'), 100_000]),
      },
      'latest',
    ])
    const [ok2, ret2] = probeIf.decodeFunctionResult('rawCall', out2)
    expect(ok2).toBe(true)
    expect(BigInt(hexlify(ret2))).toBe(100_000n)
  })
})

describe('Bridge: write methods for an unauthorized caller (a developer account)', () => {
  const writes = new Interface([
    'function receiveHeaders(bytes[])',
    'function updateCollections()',
    'function addSignature(bytes,bytes[],bytes)',
    'function registerBtcTransaction(bytes,int256,bytes)',
    'function voteFeePerKbChange(int256) returns (int256)',
    'function createFederation() returns (int256)',
    'function commitFederation(bytes) returns (int256)',
    'function rollbackFederation() returns (int256)',
    'function addOneOffLockWhitelistAddress(string,int256) returns (int256)',
    'function addUnlimitedLockWhitelistAddress(string) returns (int256)',
    'function removeLockWhitelistAddress(string) returns (int256)',
    'function setLockWhitelistDisableBlockDelay(int256) returns (int256)',
  ])
  const send = (fn: string, args: unknown[]) => mined(BRIDGE, writes.encodeFunctionData(fn, args))
  const ask = async (fn: string, args: unknown[]) => {
    const out = await rpc<string>(url, 'eth_call', [
      { from: COW.address, to: BRIDGE, data: writes.encodeFunctionData(fn, args) },
      'latest',
    ])
    return out === '0x' ? undefined : writes.decodeFunctionResult(fn, out)[0]
  }

  it('federator-only methods fail, charging their cost (receiveHeaders 25 000 + 3 500 per extra header)', async () => {
    const header = '0x' + '00'.repeat(80)
    const rh = writes.encodeFunctionData('receiveHeaders', [[header, header]])
    const r = await send('receiveHeaders', [[header, header]])
    expect(r.status).toBe('0x0')
    expect(r.gasUsed).toBe(intrinsic(rh) + 25_000n + 3_500n + 2n * BigInt((rh.length - 2) / 2))
    const u = await send('updateCollections', [])
    expect(u.status).toBe('0x0')
    expect(u.gasUsed).toBe(21_000n + 4n * 16n + 48_000n + 8n)
    expect((await send('addSignature', ['0x' + FED_KEYS[0], ['0x01'], '0x' + '11'.repeat(32)])).status).toBe('0x0')
  })
  it('registerBtcTransaction succeeds with no effect on a Bridge without BTC headers', async () => {
    const args = ['0x0100', 1, '0x00']
    const r = await send('registerBtcTransaction', args)
    expect(r.status).toBe('0x1')
    const data = writes.encodeFunctionData('registerBtcTransaction', args)
    expect(r.gasUsed).toBe(intrinsic(data) + 22_000n + 2n * BigInt((data.length - 2) / 2))
  })
  it('votes and whitelist changes answer -10 (UNAUTHORIZED_CALLER); an invalid whitelist address -2', async () => {
    expect(await ask('voteFeePerKbChange', [200_000])).toBe(-10n)
    expect(await ask('createFederation', [])).toBe(-10n)
    expect(await ask('commitFederation', ['0x' + '22'.repeat(32)])).toBe(-10n)
    expect(await ask('rollbackFederation', [])).toBe(-10n)
    expect(await ask('addOneOffLockWhitelistAddress', ['mgivuh9jErcGdRr81cJ3A7YfgbJV7WNyZV', 100])).toBe(-10n)
    expect(await ask('addOneOffLockWhitelistAddress', ['not-an-address', 100])).toBe(-2n)
    expect(await ask('addUnlimitedLockWhitelistAddress', ['mgivuh9jErcGdRr81cJ3A7YfgbJV7WNyZV'])).toBe(-10n)
    expect(await ask('removeLockWhitelistAddress', ['mgivuh9jErcGdRr81cJ3A7YfgbJV7WNyZV'])).toBe(-10n)
    expect(await ask('setLockWhitelistDisableBlockDelay', [10])).toBe(-10n)
    const r = await send('voteFeePerKbChange', [200_000])
    expect(r.status).toBe('0x1')
  })
  it('write methods refuse STATICCALL (RSKIP417)', async () => {
    const out = await rpc(url, 'eth_call', [
      {
        to: probe,
        data: probeIf.encodeFunctionData('rawStaticCall', [
          BRIDGE,
          writes.encodeFunctionData('voteFeePerKbChange', [1]),
        ]),
      },
      'latest',
    ])
    expect(probeIf.decodeFunctionResult('rawStaticCall', out)[0]).toBe(false)
  })
})

describe('Bridge: locking cap', () => {
  const lc = new Interface([
    'function getLockingCap() returns (int256)',
    'function increaseLockingCap(int256) returns (bool)',
  ])
  it('getLockingCap is the regtest initial value, 1 000 BTC in satoshis', async () => {
    const out = await rpc<string>(url, 'eth_call', [
      { to: BRIDGE, data: lc.encodeFunctionData('getLockingCap') },
      'latest',
    ])
    expect(lc.decodeFunctionResult('getLockingCap', out)[0]).toBe(100_000_000_000n)
  })
  it('increaseLockingCap: false for an unauthorized caller; a value ≤ 0 fails', async () => {
    const ok = await rpc<string>(url, 'eth_call', [
      { from: COW.address, to: BRIDGE, data: lc.encodeFunctionData('increaseLockingCap', [1]) },
      'latest',
    ])
    expect(lc.decodeFunctionResult('increaseLockingCap', ok)[0]).toBe(false)
    expect(
      await rpc(url, 'eth_call', [
        { from: COW.address, to: BRIDGE, data: lc.encodeFunctionData('increaseLockingCap', [0]) },
        'latest',
      ]),
    ).toBe('0x')
  })
})

describe('Bridge: answers from its storage (the reference layout, as in a forked Bridge)', () => {
  /** DataWord.fromString(name): the UTF-8 name right-aligned in 32 bytes. */
  const key = (name: string) => '0x' + Buffer.from(name).toString('hex').padStart(64, '0')
  const set = (k: string, v: string) => rpc(url, 'anvil_setStorageAt', [BRIDGE, k, v])
  it('feePerKb cell (RLP 200 000) and a processed BTC tx height (keccak("btcTxHashAP-<hash>") → RLP 123)', async () => {
    const snap = await rpc(url, 'evm_snapshot')
    try {
      await set(key('feePerKb'), '0x' + '83030d40'.padStart(64, '0'))
      expect(await call('getFeePerKb')).toBe(200_000n)
      const h = 'cd'.repeat(32)
      const { keccak256, toUtf8Bytes } = await import('ethers')
      await set(keccak256(toUtf8Bytes(`btcTxHashAP-${h}`)), '0x' + '7b'.padStart(64, '0'))
      expect(await call('getBtcTxHashProcessedHeight', [h])).toBe(123n)
      expect(await call('isBtcTxHashAlreadyProcessed', [h])).toBe(true)
    } finally {
      await rpc(url, 'evm_revert', [snap])
    }
  })
  it('a stored elected federation is not decoded: the federation getters fail instead of answering wrongly', async () => {
    const snap = await rpc(url, 'evm_snapshot')
    try {
      await set(key('newFederation'), '0x' + 'c0'.padStart(64, '0'))
      expect(await call('getFederationAddress')).toBeUndefined()
      expect(await call('getFederationSize')).toBeUndefined()
      expect(await call('getFeePerKb')).toBe(100_000n)
    } finally {
      await rpc(url, 'evm_revert', [snap])
    }
    expect(await call('getFederationSize')).toBe(3n)
  })
})

describe('Bridge: BTC header reads (RSKIP220)', () => {
  const hdr = new Interface([
    'function getBtcBlockchainBlockHeaderByHeight(uint256) returns (bytes)',
    'function getBtcBlockchainBlockHeaderByHash(bytes32) returns (bytes)',
    'function getBtcBlockchainParentBlockHeaderByHash(bytes32) returns (bytes)',
  ])
  // Bitcoin regtest genesis header (bitcoinj RegTestParams): its double SHA-256, reversed, is the genesis hash
  const GENESIS_HEADER =
    '0x01000000' +
    '00'.repeat(32) +
    '3ba3edfd7a7b12b27ac72c3e67768f617fc81bc3888a51323a9fb8aa4b1e5e4a' +
    'dae5494d' +
    'ffff7f20' +
    '02000000'
  const GENESIS_HASH = '0x0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206'
  const ask = async (fn: string, args: unknown[]) =>
    hdr.decodeFunctionResult(
      fn,
      await rpc<string>(url, 'eth_call', [{ to: BRIDGE, data: hdr.encodeFunctionData(fn, args) }, 'latest']),
    )[0]
  it('the genesis header by height 0 and by hash; empty bytes otherwise', async () => {
    expect(
      '0x' +
        Buffer.from(getBytes(sha256(sha256(GENESIS_HEADER))))
          .reverse()
          .toString('hex'),
    ).toBe(GENESIS_HASH)
    expect(await ask('getBtcBlockchainBlockHeaderByHeight', [0])).toBe(GENESIS_HEADER)
    expect(await ask('getBtcBlockchainBlockHeaderByHeight', [1])).toBe('0x')
    expect(await ask('getBtcBlockchainBlockHeaderByHash', [GENESIS_HASH])).toBe(GENESIS_HEADER)
    expect(await ask('getBtcBlockchainBlockHeaderByHash', ['0x' + '11'.repeat(32)])).toBe('0x')
    expect(await ask('getBtcBlockchainParentBlockHeaderByHash', [GENESIS_HASH])).toBe('0x')
  })
  it('costs 5 000 / 4 600 / 4 900 + 2 per data byte and answers a mined transaction', async () => {
    const data = hdr.encodeFunctionData('getBtcBlockchainBlockHeaderByHeight', [0])
    const r = await mined(BRIDGE, data)
    expect(r.status).toBe('0x1')
    expect(r.gasUsed).toBe(intrinsic(data) + 5_000n + 72n)
    const h = hdr.encodeFunctionData('getBtcBlockchainBlockHeaderByHash', [GENESIS_HASH])
    expect(BigInt(await rpc(url, 'eth_estimateGas', [{ to: BRIDGE, data: h }]))).toBe(intrinsic(h) + 4_600n + 72n)
  })
})

describe('Bridge: peg-out fee estimate', () => {
  const est = new Interface(['function getEstimatedFeesForNextPegOutEvent() returns (uint256)'])
  it('feePerKb × vsize of a 2-input, 2-output P2SH-P2WSH peg-out / 1000 (BridgeUtils.calculateSegwitTxSize fallback)', async () => {
    // base = 4 + 1 + 1 + 2 × (8 + 1 + 23) + 4 + 2 × 36 = 146; total = 146 + 2 sigs × 2 inputs × 72 + 2 × |redeem|
    const redeemLength = (REDEEM.length - 2) / 2
    expect(redeemLength).toBe(252)
    const base = 146
    const total = base + 2 * 2 * 72 + 2 * redeemLength
    const vsize = Math.floor((total + 3 * base) / 4)
    expect(vsize).toBe(344)
    const out = await rpc<string>(url, 'eth_call', [
      { to: BRIDGE, data: est.encodeFunctionData('getEstimatedFeesForNextPegOutEvent') },
      'latest',
    ])
    expect(est.decodeFunctionResult('getEstimatedFeesForNextPegOutEvent', out)[0]).toBe(
      (100_000n * BigInt(vsize)) / 1000n,
    )
  })
})
