/**
 * secp256k1 add/mul (RSKIP516, 0x…01000016/17), BLAKE2 F (0x09, RSKIP153) and the bn254 failure rule over real HTTP. Vectors: rskj
 * rskj-core/src/test/java/org/ethereum/crypto/signature/Secp256k1ServiceTest.java (V1 = (1, V1Y), 2·V1, 9·V1,
 * the slope case, (2²⁵⁶−1)·V1, infinity cases, a point off the curve) and EIP-152's test vector 5 (12 rounds of
 * "abc"), which rskj's Blake2F follows. Gas: 150 / 3 000 / rounds (rskj PrecompiledContracts.java,
 * Secp256k1Addition.java, Secp256k1Multiplication.java); failures charge the price only (RSKIP197).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Interface } from 'ethers'
import type { Node } from '../../../src/index.js'
import { NativeProbe } from '../../../fixtures/index.js'
import { COW, rpc, startNode } from '../../helpers/node.js'
import { deploy, q } from '../../rpc/shapes.js'

const ADD = '0x0000000000000000000000000000000001000016'
const MUL = '0x0000000000000000000000000000000001000017'
const BLAKE2F = '0x0000000000000000000000000000000000000009'
const probeIf = new Interface(NativeProbe.abi)

const w = (n: bigint | string | number) => BigInt(n).toString(16).padStart(64, '0')
const V1Y = '29896722852569046015560700294576055776214335159245303116488692907525646231534'
const V1 = w(1) + w(V1Y)
const V1BY2 =
  w('90462569716653277674664832038037428010367175520031690655826237506178777087235') +
  w('30122570767565969031174451675354718271714177419582540229636601003470726681395')
const V1BY9 =
  w('46171929588085016379679198610744759757996296651373714437564035753833216770329') +
  w('4076329532618667641907419885981677362511359868272295070859229146922980867493')
const ZERO64 = '0x' + '00'.repeat(64)
const OFF_CURVE = '11'.repeat(32)

// EIP-152 test vector 5
const BLAKE_IN =
  '0000000c48c9bdf267e6096a3ba7ca8485ae67bb2bf894fe72f36e3cf1361d5f3af54fa5d182e6ad7f520e511f6c3e2b8c68059b6bbd41fbabd9831f79217e1319cde05b' +
  '6162630000000000000000000000000000000000000000000000000000000000' +
  '0000000000000000000000000000000000000000000000000000000000000000' +
  '0000000000000000000000000000000000000000000000000000000000000000' +
  '0000000000000000000000000000000000000000000000000000000000000000' +
  '0300000000000000000000000000000001'
const BLAKE_OUT =
  '0xba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d17d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923'

let node: Node
let url: string
let probe: string

const call = (to: string, hex: string) => rpc<string>(url, 'eth_call', [{ to, data: '0x' + hex }, 'latest'])

function intrinsic(data: string): bigint {
  let g = 21000n
  for (const x of Buffer.from(data.slice(2), 'hex')) g += x === 0 ? 4n : 16n
  return g
}

async function mined(to: string, hex: string, gas = 3_000_000n): Promise<{ status: string; gasUsed: bigint }> {
  await rpc(url, 'evm_setAutomine', [false])
  try {
    const hash = await rpc<string>(url, 'eth_sendTransaction', [
      { from: COW.address, to, data: '0x' + hex, gas: q(gas) },
    ])
    await rpc(url, 'evm_mine')
    const r = await rpc(url, 'eth_getTransactionReceipt', [hash])
    return { status: r.status, gasUsed: BigInt(r.gasUsed) }
  } finally {
    await rpc(url, 'evm_setAutomine', [true])
  }
}

/** NativeProbe.rawStaticCall(target, data): (success, output). */
async function fromContract(target: string, hex: string): Promise<[boolean, string]> {
  const out = await rpc<string>(url, 'eth_call', [
    { to: probe, data: probeIf.encodeFunctionData('rawStaticCall', [target, '0x' + hex]) },
    'latest',
  ])
  const [ok, data] = probeIf.decodeFunctionResult('rawStaticCall', out)
  return [ok as boolean, data as string]
}

beforeAll(async () => {
  node = await startNode()
  url = node.url
  ;({ address: probe } = await deploy(url, NativeProbe.bytecode))
})
afterAll(() => node?.close())

describe('secp256k1 add 0x…01000016', () => {
  it('adds the rskj vectors: V1 + V1 = 2·V1, the slope case, infinity + V1, V1 + infinity, P + (−P) = infinity', async () => {
    expect(await call(ADD, V1 + V1)).toBe('0x' + V1BY2)
    const slope =
      w(4) +
      w('40508090799132825824753983223610497876805216745196355809233758402754120847507') +
      w('1624070059937464756887933993293429854168590106605707304006200119738501412969') +
      w('48810817106871756219742442189260392858217846784043974224646271552914041676099')
    expect(await call(ADD, slope)).toBe(
      '0x' +
        w('59470963110652214182270290319243047549711080187995156844066669631124720856270') +
        w('75549874947483386113764723043915448105868538368156141886808196158351727282824'),
    )
    expect(await call(ADD, w(0) + w(0) + V1)).toBe('0x' + V1)
    expect(await call(ADD, V1)).toBe('0x' + V1) // second point missing: read as zeros = infinity
    const p = 0xfffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2fn
    expect(await call(ADD, V1 + w(1) + w(p - BigInt(V1Y)))).toBe(ZERO64)
  })
  it('answers infinity (64 zero bytes) for empty input', async () => {
    expect(await call(ADD, '')).toBe(ZERO64)
  })
  it('fails on a point off the curve (eth_call 0x; from a contract the CALL returns false)', async () => {
    expect(await call(ADD, OFF_CURVE + OFF_CURVE + V1)).toBe('0x')
    expect((await fromContract(ADD, V1 + OFF_CURVE + OFF_CURVE))[0]).toBe(false)
  })
  it('charges 150 gas, also on failure; less gas than that is out of gas', async () => {
    const ok = await mined(ADD, V1 + V1)
    expect(ok.status).toBe('0x1')
    expect(ok.gasUsed).toBe(intrinsic('0x' + V1 + V1) + 150n)
    const bad = await mined(ADD, OFF_CURVE + OFF_CURVE + V1)
    expect(bad.status).toBe('0x0')
    expect(bad.gasUsed).toBe(intrinsic('0x' + OFF_CURVE + OFF_CURVE + V1) + 150n)
    const oog = await mined(ADD, V1 + V1, intrinsic('0x' + V1 + V1) + 100n)
    expect(oog.status).toBe('0x0')
    expect(oog.gasUsed).toBe(intrinsic('0x' + V1 + V1) + 100n)
  })
  it('from a contract: same answers; input past 128 bytes is cut (RSKIP516)', async () => {
    expect(await fromContract(ADD, V1 + V1 + 'ff'.repeat(40))).toEqual([true, '0x' + V1BY2])
  })
})

describe('secp256k1 mul 0x…01000017', () => {
  it('multiplies the rskj vectors: 1·V1, 2·V1, 9·V1, (2²⁵⁶−1)·V1; infinity and a zero scalar give zeros', async () => {
    expect(await call(MUL, V1 + w(1))).toBe('0x' + V1)
    expect(await call(MUL, V1 + w(2))).toBe('0x' + V1BY2)
    expect(await call(MUL, V1 + w(9))).toBe('0x' + V1BY9)
    expect(await call(MUL, V1 + 'ff'.repeat(32))).toBe(
      '0x' +
        w('68306631035792818416930554521980007078198693994042647901813352646899028694565') +
        w('763410389832780290161227297165449309800016629866253823160953352172730927280'),
    )
    expect(await call(MUL, '')).toBe(ZERO64)
    expect(await call(MUL, V1 + w(0))).toBe(ZERO64)
    expect(await call(MUL, V1 + w(0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n))).toBe(ZERO64)
  })
  it('fails on a point off the curve and charges 3 000 gas', async () => {
    expect(await call(MUL, OFF_CURVE + OFF_CURVE + OFF_CURVE)).toBe('0x')
    const ok = await mined(MUL, V1 + w(9))
    expect(ok.gasUsed).toBe(intrinsic('0x' + V1 + w(9)) + 3000n)
    const bad = await mined(MUL, OFF_CURVE + OFF_CURVE + OFF_CURVE)
    expect(bad.status).toBe('0x0')
    expect(bad.gasUsed).toBe(intrinsic('0x' + OFF_CURVE.repeat(3)) + 3000n)
  })
  it('from a contract', async () => {
    expect(await fromContract(MUL, V1 + w(9))).toEqual([true, '0x' + V1BY9])
  })
})

describe('BLAKE2 F 0x09 (not in @ethereumjs petersburg; on the reference from block 0)', () => {
  it('compresses EIP-152 vector 5 and charges one gas per round', async () => {
    expect(await call(BLAKE2F, BLAKE_IN)).toBe(BLAKE_OUT)
    const r = await mined(BLAKE2F, BLAKE_IN)
    expect(r.status).toBe('0x1')
    expect(r.gasUsed).toBe(intrinsic('0x' + BLAKE_IN) + 12n)
  })
  it('fails at no cost on input that is not 213 bytes (a transaction), or with a bad final flag', async () => {
    const short = BLAKE_IN.slice(0, -2)
    expect(await call(BLAKE2F, short)).toBe('0x')
    const r = await mined(BLAKE2F, short)
    expect(r.status).toBe('0x0')
    expect(r.gasUsed).toBe(intrinsic('0x' + short))
    expect(await call(BLAKE2F, BLAKE_IN.slice(0, -2) + '02')).toBe('0x')
  })
  it('from a contract: longer input is cut to 213 bytes (RSKIP516)', async () => {
    expect(await fromContract(BLAKE2F, BLAKE_IN + 'abcd')).toEqual([true, BLAKE_OUT])
    expect((await fromContract(BLAKE2F, BLAKE_IN.slice(0, -2)))[0]).toBe(false)
  })
})

describe('bn254 0x06-0x08: reference prices, failures charge the price only (RSKIP197)', () => {
  const BN_ADD = '0x0000000000000000000000000000000000000006'
  const BN_MUL = '0x0000000000000000000000000000000000000007'
  const BN_PAIR = '0x0000000000000000000000000000000000000008'
  const G1 = w(1) + w(2)
  // 2·G1 on alt_bn128 (EIP-196 generator doubling)
  const G1x2 =
    '030644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd315ed738c0e0a7c92e7845f96b2ae9c0a68a6a449e3538fc7ff3ebf7a5a18a2c4'
  it('adds and multiplies G1', async () => {
    expect(await call(BN_ADD, G1 + G1)).toBe('0x' + G1x2)
    expect(await call(BN_MUL, G1 + w(2))).toBe('0x' + G1x2)
  })
  it('an invalid point fails charging 150 / 6 000, not all the gas', async () => {
    const bad = w(1) + w(3) + G1
    const r = await mined(BN_ADD, bad)
    expect(r.status).toBe('0x0')
    expect(r.gasUsed).toBe(intrinsic('0x' + bad) + 150n)
    const m = await mined(BN_MUL, w(1) + w(3) + w(2))
    expect(m.status).toBe('0x0')
    expect(m.gasUsed).toBe(intrinsic('0x' + w(1) + w(3) + w(2)) + 6000n)
  })
  it('pairing: empty input is true for 45 000; input that is not whole pairs fails charging 45 000 + 34 000·⌊len/192⌋', async () => {
    expect(await call(BN_PAIR, '')).toBe('0x' + w(1))
    const ok = await mined(BN_PAIR, '')
    expect(ok.gasUsed).toBe(21000n + 45_000n)
    const bad = '01'.repeat(200)
    const r = await mined(BN_PAIR, bad)
    expect(r.status).toBe('0x0')
    expect(r.gasUsed).toBe(intrinsic('0x' + bad) + 45_000n + 34_000n)
  })
})
