/**
 * The Bridge's stored federations and the active one (docs/reference-rules.md#rule-bridge-federation): decoding
 * rskj's cells in each format, the scripts and addresses they give, the genesis federations of networks 30 and 31
 * (checked against the mainnet genesis federation's address in the reference's own tests,
 * co/rsk/peg/federation/StandardMultisigFederationTest.java, and against the Remasc genesis federators), a real
 * testnet P2SH-P2WSH federation's address (P2shP2wshErpFederationTest), the
 * activation-age choice between the new and the old federation, and the addresses Remasc pays (RSKIP415).
 */
import {
  computeAddress,
  encodeBase58,
  encodeRlp,
  keccak256,
  ripemd160,
  sha256,
  SigningKey,
  toBeHex,
  toUtf8Bytes,
} from 'ethers'
import { describe, expect, it } from 'vitest'
import { ForkRemoteError } from '../../../src/errors/domain-errors.js'
import { BRIDGE_CONSTANTS, genesisFederation } from '../../../src/execution/native/bridge-constants.js'
import { federation, singleKeyMember } from '../../../src/execution/native/bridge-federation.js'
import {
  decodeFederation,
  FEDERATION_KEYS,
  federations,
  remascFederators,
  type FederationContext,
} from '../../../src/execution/native/federation-storage.js'
import { GENESIS_FEDERATORS } from '../../../src/rsk/remasc.js'
import { toHex } from '../../../src/util/bytes.js'

const bytes = (h: string) => Uint8Array.from(Buffer.from(h.replace(/^0x/, ''), 'hex'))
const hex = (b: Uint8Array) => '0x' + Buffer.from(b).toString('hex')
const pub = (n: number): string => SigningKey.computePublicKey(toBeHex(n, 32), true)
const num = (n: number) => (n === 0 ? '0x' : toBeHex(n))

/** Base58Check of version ‖ hash160(script). */
function p2sh(version: number, script: Uint8Array): string {
  const payload = Buffer.concat([Buffer.of(version), Buffer.from(ripemd160(sha256(script)).slice(2), 'hex')])
  const check = Buffer.from(sha256(sha256(payload)).slice(2), 'hex').subarray(0, 4)
  return encodeBase58(Buffer.concat([payload, check]))
}

/** A reader over a map of named cells. */
function reader(cells: Record<string, string>) {
  return async (key: Uint8Array) => {
    for (const [name, value] of Object.entries(cells)) {
      if (hex(key) === hex(FEDERATION_KEYS[name as keyof typeof FEDERATION_KEYS])) return bytes(value)
    }
    return new Uint8Array(0)
  }
}

const ctx = (blockNumber: bigint, active: string[] = []): FederationContext => ({
  network: 31,
  blockNumber,
  isActive: (rule) => active.includes(rule),
})

describe('genesis federations', () => {
  it("mainnet's is the standard 8-of-15 multisig at 39AHNvUmzaYgewA8yCtBtNsfRz7QD7ZJYi", () => {
    const fed = genesisFederation(30)
    expect(fed.btcKeys).toHaveLength(15)
    expect(fed.threshold).toBe(8)
    expect(fed.address).toBe('39AHNvUmzaYgewA8yCtBtNsfRz7QD7ZJYi')
  })

  it('gives the federators Remasc pays on networks 30 and 31 (one key for all purposes)', () => {
    for (const network of [30, 31] as const) {
      const fed = genesisFederation(network)
      expect(fed.members.map((m) => computeAddress(hex(m.rsk)).toLowerCase())).toEqual(
        GENESIS_FEDERATORS[network].map((a) => toHex(a)),
      )
    }
  })
})

describe('stored federations', () => {
  const regtest = genesisFederation(33)
  const members = regtest.members.map((m) => encodeRlp([hex(m.btc), hex(m.rsk), hex(m.mst)]))
  const cell = bytes(encodeRlp([num(1_451_606_400_000), num(1), members]))

  it('decodes format 4000 (P2SH-P2WSH ERP) to the same scripts and address as the regtest genesis federation', () => {
    const fed = decodeFederation(cell, 4000, 33)
    expect(hex(fed.redeemScript)).toBe(hex(regtest.redeemScript))
    expect(fed.address).toBe(regtest.address)
    expect(fed.creationTimeMs).toBe(1_451_606_400_000n)
    expect(fed.creationBlockNumber).toBe(1n)
  })

  it('decodes format 3000 (P2SH ERP) to the same redeem script, P2SH of it', () => {
    const fed = decodeFederation(cell, 3000, 33)
    expect(hex(fed.redeemScript)).toBe(hex(regtest.redeemScript))
    expect(fed.address).toBe(p2sh(196, fed.redeemScript))
  })

  it('decodes the legacy BTC-keys-only format as a standard multisig with network 30 addresses', () => {
    const keys = [0x51, 0x52, 0x53, 0x54].map(pub)
    const fed = decodeFederation(bytes(encodeRlp([num(5_000), num(7), keys])), undefined, 30)
    expect(fed.formatVersion).toBe(1000)
    expect(fed.threshold).toBe(3)
    expect(fed.members.map((m) => hex(m.rsk))).toEqual([...keys].sort())
    expect(fed.address.startsWith('3')).toBe(true)
    expect(fed.address).toBe(p2sh(5, fed.redeemScript))
  })

  it("builds a 20-member P2SH-P2WSH ERP federation's address as the reference's test of a real testnet one", () => {
    // rskj P2shP2wshErpFederationTest (testnet transaction 3ba64656…): members and ERP keys from the seeds
    // "fed1".."fed20" / "erp1".."erp20" (private key = keccak256 of the seed), ERP delay 30
    const seeded = (prefix: string) =>
      Array.from({ length: 20 }, (_, i) =>
        bytes(SigningKey.computePublicKey(keccak256(toUtf8Bytes(`${prefix}${i + 1}`)), true)),
      )
    const fed = federation(seeded('fed').map(singleKeyMember), 0n, 0n, 4000, {
      p2shVersion: 196,
      erpKeys: seeded('erp'),
      erpDelay: 30,
    })
    expect(fed.threshold).toBe(11)
    expect(fed.address).toBe('2NFQe1xgfZutFkG25oVEiqUzH5rTaj7VpoU')
  })

  it('builds no address for format 2000, and refuses malformed cells', () => {
    const fed = decodeFederation(cell, 2000, 31)
    expect(fed.members).toHaveLength(3)
    expect(() => fed.address).toThrow(/not supported by node-cli/)
    expect(() => decodeFederation(bytes(encodeRlp([num(1), num(1)])), 1000, 31)).toThrow(/malformed/)
    expect(() => decodeFederation(bytes(encodeRlp([num(1), num(1), ['0x1234']])), undefined, 31)).toThrow(/malformed/)
  })
})

describe('the active federation', () => {
  const oldKeys = [0x11, 0x12, 0x13].map(pub)
  const newMembers = [0, 1, 2].map((i) => encodeRlp([pub(0x21 + i), pub(0x31 + i), pub(0x41 + i)]))
  const cells = {
    oldFederation: encodeRlp([num(1), num(1), oldKeys]),
    newFederation: encodeRlp([num(2), num(100), newMembers]),
    newFederationFormatVersion: encodeRlp(num(1000)),
  }

  it('is the genesis one without a new federation, the new one without an old one', async () => {
    expect((await federations(reader({}), ctx(5n))).active).toBe(genesisFederation(31))
    const { newFederation, newFederationFormatVersion } = cells
    const only = await federations(reader({ newFederation, newFederationFormatVersion }), ctx(5n))
    expect(only.active.creationBlockNumber).toBe(100n)
    expect(only.retiring).toBeUndefined()
  })

  it("waits for testnet's activation age (60 before RSKIP383, 120 until RSKIP419, 2 400 after)", async () => {
    const read = reader(cells)
    expect((await federations(read, ctx(159n))).active.creationBlockNumber).toBe(1n)
    const at160 = await federations(read, ctx(160n))
    expect(at160.active.creationBlockNumber).toBe(100n)
    expect(at160.retiring?.creationBlockNumber).toBe(1n)
    expect((await federations(read, ctx(219n, ['rskip383']))).active.creationBlockNumber).toBe(1n)
    expect((await federations(read, ctx(220n, ['rskip383']))).active.creationBlockNumber).toBe(100n)
    expect((await federations(read, ctx(2_499n, ['rskip383', 'rskip419']))).retiring).toBeUndefined()
    expect(BRIDGE_CONSTANTS[31].activationAge((r) => r === 'rskip383' || r === 'rskip419')).toBe(2_400n)
  })

  it('is paid by Remasc at the BTC key addresses before RSKIP415 and the RSK key addresses from it', async () => {
    const read = reader(cells)
    const genesis = GENESIS_FEDERATORS[31]
    const before = await remascFederators(read, ctx(200n), genesis)
    const after = await remascFederators(read, ctx(200n, ['rskip415']), genesis)
    const sorted = [0, 1, 2]
      .map((i) => ({ btc: pub(0x21 + i), rsk: pub(0x31 + i) }))
      .sort((a, b) => (a.btc < b.btc ? -1 : 1))
    expect(before.map((a) => toHex(a))).toEqual(sorted.map((m) => computeAddress(m.btc).toLowerCase()))
    expect(after.map((a) => toHex(a))).toEqual(sorted.map((m) => computeAddress(m.rsk).toLowerCase()))
    expect(await remascFederators(reader({}), ctx(200n, ['rskip415']), genesis)).toBe(genesis)
  })

  it("pays the genesis federators when a fork's remote cannot show the cells, and fails on other remote errors", async () => {
    const unreadable = new ForkRemoteError('cannot show')
    unreadable.unreadableCell = true
    const genesis = GENESIS_FEDERATORS[31]
    expect(await remascFederators(() => Promise.reject(unreadable), ctx(1n), genesis)).toBe(genesis)
    const down = new ForkRemoteError('unavailable')
    await expect(remascFederators(() => Promise.reject(down), ctx(1n), genesis)).rejects.toBe(down)
  })
})
