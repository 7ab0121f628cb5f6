/**
 * The precompiles computed a slice at a time so that they stop at the execution deadline and yield
 * (docs/reference-rules.md#rule-send-deadline): the bn254 pairing check (0x08) and BLAKE2 F (0x09) answer exactly
 * what @ethereumjs' own implementations answer — on valid, invalid, degenerate and random inputs — and throw
 * -32011 once the deadline set on their EVM has passed.
 */
import { describe, expect, it } from 'vitest'
import { bn254 } from '@noble/curves/bn254.js'
import { Common, Hardfork, Mainnet } from '@ethereumjs/common'
import { createEVM, getActivePrecompiles, paramsEVM, type PrecompileInput } from '@ethereumjs/evm'
import { pairingCheck } from '../../../src/execution/native/bn254-pairing.js'
import { compress } from '../../../src/execution/native/blake2f.js'
import { executionCheckpoint, setDeadline } from '../../../src/execution/deadline.js'
import { ExecutionTimeoutError } from '../../../src/errors/domain-errors.js'
import { seededRandom } from '../../helpers/seeded.js'
import { waitUntil } from '../../helpers/wait.js'

const common = new Common({ chain: Mainnet, hardfork: Hardfork.Istanbul, params: paramsEVM })
const evm = await createEVM({ common })
const stock = (address: string) => getActivePrecompiles(common).get(address.padStart(40, '0'))!

/** @ethereumjs' answer: the return value, or 'fail'. */
async function stockAnswer(address: string, data: Uint8Array): Promise<string> {
  const r = await stock(address)({ data, gasLimit: 1n << 62n, common, _EVM: evm } as unknown as PrecompileInput)
  return r.exceptionError === undefined ? Buffer.from(r.returnValue).toString('hex') : 'fail'
}

/** Ours: the return value, or 'fail'. */
async function ourPairing(data: Uint8Array): Promise<string> {
  try {
    return Buffer.from(await pairingCheck(data, { _EVM: evm } as unknown as PrecompileInput)).toString('hex')
  } catch (err) {
    if (err instanceof ExecutionTimeoutError) throw err
    return 'fail'
  }
}

const hex = (n: bigint) => n.toString(16).padStart(64, '0')
const g1 = (p: InstanceType<typeof bn254.G1.Point>) =>
  p.is0() ? '00'.repeat(64) : hex(p.toAffine().x) + hex(p.toAffine().y)
const g2 = (q: InstanceType<typeof bn254.G2.Point>) => {
  if (q.is0()) return '00'.repeat(128)
  const { x, y } = q.toAffine()
  return hex(x.c1) + hex(x.c0) + hex(y.c1) + hex(y.c0)
}
const bytes = (h: string) => Uint8Array.from(Buffer.from(h, 'hex'))
const P = bn254.G1.Point.BASE
const Q = bn254.G2.Point.BASE

describe('bn254 pairing check in slices', () => {
  it('answers as @ethereumjs: true, false, empty, infinity, invalid points', async () => {
    const p = bn254.fields.Fp.ORDER
    const cases: Record<string, string> = {
      empty: '',
      'e(P,Q)·e(-P,Q) = 1': g1(P) + g2(Q) + g1(P.negate()) + g2(Q),
      'e(3P,5Q)·e(-15P,Q) = 1': g1(P.multiply(3n)) + g2(Q.multiply(5n)) + g1(P.multiply(15n).negate()) + g2(Q),
      'e(P,Q) ≠ 1': g1(P) + g2(Q),
      'e(2P,Q)·e(-P,Q) ≠ 1': g1(P.multiply(2n)) + g2(Q) + g1(P.negate()) + g2(Q),
      'infinity pairs only': '00'.repeat(192 * 3),
      'infinity G1 beside a true pair': '00'.repeat(64) + g2(Q) + g1(P) + g2(Q) + g1(P.negate()) + g2(Q),
      'infinity G2 beside a false pair': g1(P) + '00'.repeat(128) + g1(P) + g2(Q),
      'G1 off the curve': hex(1n) + hex(3n) + g2(Q),
      'G1 x ≥ p': hex(p + 1n) + hex(2n) + g2(Q),
      'G2 off the twist': g1(P) + hex(1n) + hex(2n) + hex(3n) + hex(4n),
      'G2 coordinate ≥ p': g1(P) + hex(p) + g2(Q).slice(64),
      'invalid point after many valid pairs': (g1(P) + g2(Q)).repeat(5) + hex(1n) + hex(3n) + g2(Q),
    }
    for (const [name, input] of Object.entries(cases)) {
      const data = bytes(input)
      expect(await ourPairing(data), name).toBe(await stockAnswer('08', data))
    }
    expect(await ourPairing(bytes(g1(P) + g2(Q) + g1(P.negate()) + g2(Q)))).toBe(hex(1n))
  })

  it('a G2 point on the twist but outside the prime-order subgroup is refused as @ethereumjs refuses it', async () => {
    // (x, y) on the twist y² = x³ + b' whose order is not r: found by trying x = 1, 2, … (the cofactor is large)
    const { Fp2 } = bn254.fields
    const b = bn254.G2.Point.CURVE().b
    let point: string | undefined
    for (let i = 1n; point === undefined; i++) {
      const x = Fp2.fromBigTuple([i, 0n])
      const rhs = Fp2.add(Fp2.mul(Fp2.sqr(x), x), b)
      let y
      try {
        y = Fp2.sqrt(rhs)
      } catch {
        continue
      }
      const candidate = bn254.G2.Point.fromAffine({ x, y })
      // on the twist (the curve equation holds) but not of order r
      expect(Fp2.eql(Fp2.sqr(y), rhs)).toBe(true)
      expect(candidate.isTorsionFree()).toBe(false)
      point = hex(0n) + hex(i) + hex(y.c1) + hex(y.c0)
    }
    const data = bytes(g1(P) + point)
    expect(await stockAnswer('08', data)).toBe('fail')
    expect(await ourPairing(data)).toBe('fail')
  })

  it('stops with -32011 once its deadline has passed', async () => {
    const data = bytes((g1(P) + g2(Q)).repeat(4))
    const timed = await createEVM({ common })
    setDeadline(timed, 1)
    const armed = Date.now()
    await waitUntil(() => Date.now() > armed + 1, 'the deadline to pass', 1_000, 1)
    await expect(pairingCheck(data, { _EVM: timed } as unknown as PrecompileInput)).rejects.toBeInstanceOf(
      ExecutionTimeoutError,
    )
  })
})

describe('BLAKE2 F in slices', () => {
  /** An EIP-152 input: rounds, then h, m, t from a seed, and the flag. */
  function input(rounds: number, seed: number, flag: number): Uint8Array {
    const data = new Uint8Array(213)
    new DataView(data.buffer).setUint32(0, rounds)
    const next = seededRandom(seed)
    for (let i = 4; i < 212; i++) data[i] = next(256)
    data[212] = flag
    return data
  }

  it('answers as @ethereumjs for 0, 1, 12, 13 and 20 000 rounds, both flags, random states', async () => {
    for (const rounds of [0, 1, 12, 13, 20_000]) {
      for (const flag of [0, 1]) {
        for (const seed of [1, 7, 0xdeadbeef]) {
          const data = input(rounds, seed, flag)
          const ours = Buffer.from(await compress(data, () => undefined)).toString('hex')
          expect(ours, `${rounds} rounds, flag ${flag}, seed ${seed}`).toBe(await stockAnswer('09', data))
        }
      }
    }
  })

  it('stops with -32011 once its deadline has passed', async () => {
    const timed = await createEVM({ common })
    setDeadline(timed, 1)
    const armed = Date.now()
    await waitUntil(() => Date.now() > armed + 1, 'the deadline to pass', 1_000, 1)
    await expect(compress(input(100_000, 3, 1), () => executionCheckpoint(timed))).rejects.toBeInstanceOf(
      ExecutionTimeoutError,
    )
  })
})
