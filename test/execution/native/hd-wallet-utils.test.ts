/**
 * The HDWalletUtils native contract (RSKIP106) over real HTTP: every method against the vectors of rskj's own
 * tests (rskj-core/src/test/java/co/rsk/pcc/bto/ToBase58CheckTest.java, DeriveExtendedPublicKeyTest.java,
 * ExtractPublicKeyFromExtendedPublicKeyTest.java, GetMultisigScriptHashTest.java), their validation failures,
 * the gas each charges (13 000 / 107 000 / 11 300 / 20 000 + 700 per key after 2), and the same answers
 * on-chain through NativeProbe (fixtures/contracts/NativeProbe.sol).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Interface } from 'ethers'
import type { Node } from '../../../src/index.js'
import { NativeProbe } from '../../../fixtures/index.js'
import { rpc, startNode } from '../../helpers/node.js'
import { deploy, minedReceipt } from '../../rpc/shapes.js'

const HD = '0x0000000000000000000000000000000001000009'
const hd = new Interface([
  'function toBase58Check(bytes,int256) returns (string)',
  'function deriveExtendedPublicKey(string,string) returns (string)',
  'function extractPublicKeyFromExtendedPublicKey(string) returns (bytes)',
  'function getMultisigScriptHash(int256,bytes[]) returns (bytes)',
])
const probeIf = new Interface(NativeProbe.abi)

// rskj DeriveExtendedPublicKeyTest
const TPUB =
  'tpubD6NzVbkrYhZ4YHQqwWz3Tm1ESZ9AidobeyLG4mEezB6hN8gFFWrcjczyF77Lw3HEs6Rjd2R11BEJ8Y9ptfxx9DFknkdujp58mFMx9H5dc1r'
// rskj ExtractPublicKeyFromExtendedPublicKeyTest
const XPUB =
  'xpub661MyMwAqRbcFMGNG2YcHvj3x63bAZN9U5cKikaiQ4zu2D1cvpnZYyXNR9nH62sGp4RR39Ui7SVQSq1PY4JbPuEuu5prVJJC3d5Pogft712'
// rskj GetMultisigScriptHashTest (executesWithAllCompressed / executesWithMixed): 8-of-15, hash 51f10332…
const KEYS = [
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
].map((k) => '0x' + k)
const MIXED = [...KEYS]
MIXED[0] =
  '0x04b53899c390573471ba30e5054f78376c5f797fda26dde7a760789f02908cbad2aafaaa2611606699ec4f82777a268b708dab346de4880cd223969f7bbe5422bf'
MIXED[4] =
  '0x0494c817150f78607566e961b3c71df53a22022a80acbb982f83c0c8baac040adcb17171aa9ec8d8587098e0771f686ee61ac35279f9e5aadf9b06b738aa6d3720'
MIXED[6] =
  '0x0440df69f28d69eef60845da7d81ff60a9060d4da35c767f017b0dd4e20448fb44e1abebaea4c3c57c6e9e39e205b4df046f7110a8d3477c0d8e26a28be9692c29'
MIXED[9] =
  '0x0445ef34f5ee218005c9c21227133e8568a4f3f11aeab919c66ff7b816ae1ffeeae024d50312de76a7950f8c6268fbf454335cf252f961a67c47e67dc06fa590ba'

let node: Node
let url: string
let probe: string

const call = async (fn: string, args: unknown[]): Promise<unknown> => {
  const out = await rpc<string>(url, 'eth_call', [{ to: HD, data: hd.encodeFunctionData(fn, args) }, 'latest'])
  return out === '0x' ? undefined : hd.decodeFunctionResult(fn, out)[0]
}
/** eth_call answers 0x when the native method fails (no revert; the reference's eth_call does the same). */
const fails = async (fn: string, args: unknown[]) => expect(await call(fn, args)).toBeUndefined()

function intrinsic(data: string): bigint {
  let g = 21000n
  for (const x of Buffer.from(data.slice(2), 'hex')) g += x === 0 ? 4n : 16n
  return g
}

/** Mines a transaction to the contract (automine off: a failure is a receipt, not -32015). */
/** An HDWalletUtils call in a mined transaction (mined even when it fails). */
async function mined(fn: string, args: unknown[]): Promise<{ status: string; gasUsed: bigint; data: string }> {
  const data = hd.encodeFunctionData(fn, args)
  return { ...(await minedReceipt(url, { to: HD, data })), data }
}

beforeAll(async () => {
  node = await startNode()
  url = node.url
  ;({ address: probe } = await deploy(url, NativeProbe.bytecode))
})
afterAll(() => node?.close())

describe('toBase58Check(bytes,int256)', () => {
  it('encodes a hash160 with a version byte (rskj vector: testnet P2PKH)', async () => {
    expect(await call('toBase58Check', ['0x0d3bf5f30dda7584645546079318e97f0e1d044f', 111])).toBe(
      'mgivuh9jErcGdRr81cJ3A7YfgbJV7WNyZV',
    )
  })
  it('fails on a hash that is not 20 bytes and on a version outside 0-255', async () => {
    await fails('toBase58Check', ['0xaabbcc', 111])
    await fails('toBase58Check', ['0x0d3bf5f30dda7584645546079318e97f0e1d044f', -1])
    await fails('toBase58Check', ['0x0d3bf5f30dda7584645546079318e97f0e1d044f', 256])
  })
  it('charges 13 000 gas, also when it fails', async () => {
    const ok = await mined('toBase58Check', ['0x0d3bf5f30dda7584645546079318e97f0e1d044f', 111])
    expect(ok.status).toBe('0x1')
    expect(ok.gasUsed).toBe(intrinsic(ok.data) + 13_000n)
    const bad = await mined('toBase58Check', ['0xaabbcc', 111])
    expect(bad.status).toBe('0x0')
    expect(bad.gasUsed).toBe(intrinsic(bad.data) + 13_000n)
  })
})

describe('deriveExtendedPublicKey(string,string)', () => {
  it('derives the rskj test vectors (2/3/4, 0/0/0/0/0/0, 2147483647)', async () => {
    expect(await call('deriveExtendedPublicKey', [TPUB, '2/3/4'])).toBe(
      'tpubDCGMkPKredy7oh6zw8f4ExWFdTgQCrAHToF1ytny3gbVy9GkUNK2Nqh7NbKbh8dkd5VtjUiLJPkbEkeg29NVHwxYwzHJFt9SazGLZrrU4Y4',
    )
    expect(await call('deriveExtendedPublicKey', [TPUB, '0/0/0/0/0/0'])).toBe(
      'tpubDJ28nwFGUypUD6i8eGCQfMkwNGxzzabA5Mh7AcUdwm6ziFxCSWjy4HyhPXH5uU2ovdMMYLT9W3g3MrGo52TrprMvX8o1dzT2ZGz1pwCPTNv',
    )
    expect(await call('deriveExtendedPublicKey', [TPUB, '2147483647'])).toBe(
      'tpubD8fY35uPCY1rUjMUZwhkGUFi33pwkffMEBaCsTSw1he2AbM6DMbPaRR2guvk5qTWDfE9ubFB5pzuUNnMtsqbCeKAAjfepSvEWyetyF9Q4fG',
    )
  })
  it('fails on an invalid xpub and on each invalid path form of the rskj tests', async () => {
    await fails('deriveExtendedPublicKey', ['this-is-not-an-xpub', 'this-doesnt-matter'])
    for (const path of [
      '',
      'this-is-not-a-path',
      'M/0/1/2',
      '/0/1/2',
      '0/1/2/',
      "4'/5",
      '0/-1',
      '0/1/2/3/4/5/6/7/8/9/10',
      '2147483648',
    ]) {
      await fails('deriveExtendedPublicKey', [TPUB, path])
    }
  })
  it('charges 107 000 gas', async () => {
    const r = await mined('deriveExtendedPublicKey', [TPUB, '2/3/4'])
    expect(r.status).toBe('0x1')
    expect(r.gasUsed).toBe(intrinsic(r.data) + 107_000n)
  })
})

describe('extractPublicKeyFromExtendedPublicKey(string)', () => {
  it('answers the compressed public key (rskj vector)', async () => {
    expect(await call('extractPublicKeyFromExtendedPublicKey', [XPUB])).toBe(
      '0x02be517550b9e3be7fe42c80932d51e88e698663b4926e598b269d050e87e34d8c',
    )
  })
  it('fails on a non-xpub and on a bad checksum (last character changed, rskj failsUponInvalidPublicKey)', async () => {
    await fails('extractPublicKeyFromExtendedPublicKey', ['this-is-not-an-xpub'])
    await fails('extractPublicKeyFromExtendedPublicKey', [TPUB.slice(0, -1) + 's'])
  })
  it('charges 11 300 gas', async () => {
    const r = await mined('extractPublicKeyFromExtendedPublicKey', [XPUB])
    expect(r.gasUsed).toBe(intrinsic(r.data) + 11_300n)
  })
})

describe('getMultisigScriptHash(int256,bytes[])', () => {
  it('hashes the 8-of-15 redeem script of the rskj vector, with compressed or mixed keys', async () => {
    expect(await call('getMultisigScriptHash', [8, KEYS])).toBe('0x51f103320b435b5fe417b3f3e0f18972ccc710a0')
    expect(await call('getMultisigScriptHash', [8, MIXED])).toBe('0x51f103320b435b5fe417b3f3e0f18972ccc710a0')
  })
  it('fails on m ≤ 0, < 2 keys, fewer keys than m, > 15 keys, bad key length or a key off the curve', async () => {
    await fails('getMultisigScriptHash', [0, KEYS])
    await fails('getMultisigScriptHash', [1, [KEYS[0]]])
    await fails('getMultisigScriptHash', [3, KEYS.slice(0, 2)])
    await fails('getMultisigScriptHash', [2, [...KEYS, KEYS[0]]])
    await fails('getMultisigScriptHash', [1, [KEYS[0], '0xaabbcc']])
    await fails('getMultisigScriptHash', [1, [KEYS[0], '0x02' + 'ff'.repeat(32)]])
  })
  it('charges 20 000 for two keys and 700 per further key', async () => {
    const two = await mined('getMultisigScriptHash', [1, KEYS.slice(0, 2)])
    expect(two.gasUsed).toBe(intrinsic(two.data) + 20_000n)
    const all = await mined('getMultisigScriptHash', [8, KEYS])
    expect(all.gasUsed).toBe(intrinsic(all.data) + 20_000n + 13n * 700n)
  })
})

describe('HDWalletUtils from a contract', () => {
  it('NativeProbe gets the same answers on-chain', async () => {
    const [ok, out] = probeIf.decodeFunctionResult(
      'rawStaticCall',
      await rpc(url, 'eth_call', [
        {
          to: probe,
          data: probeIf.encodeFunctionData('rawStaticCall', [
            HD,
            hd.encodeFunctionData('getMultisigScriptHash', [8, KEYS]),
          ]),
        },
        'latest',
      ]),
    )
    expect(ok).toBe(true)
    expect(hd.decodeFunctionResult('getMultisigScriptHash', out)[0]).toBe('0x51f103320b435b5fe417b3f3e0f18972ccc710a0')
    const [bad] = probeIf.decodeFunctionResult(
      'rawStaticCall',
      await rpc(url, 'eth_call', [
        {
          to: probe,
          data: probeIf.encodeFunctionData('rawStaticCall', [
            HD,
            hd.encodeFunctionData('toBase58Check', ['0xaabbcc', 1]),
          ]),
        },
        'latest',
      ]),
    )
    expect(bad).toBe(false)
  })
})
