/**
 * End-to-end: the RPC call sequences of @nomicfoundation/hardhat-network-helpers, reproduced over raw JSON-RPC
 * (ethers JsonRpcProvider.send) since the package itself needs the Hardhat runtime:
 * - `loadFixture` / `takeSnapshot`: the first call runs the fixture and takes evm_snapshot; later calls
 *   evm_revert(id) (must answer the boolean true) and take a new evm_snapshot so the restorer can be used
 *   again; restoring an earlier fixture forgets the fixtures snapshotted after it (by their first id).
 * - `time.increase(n)`: evm_setNextBlockTimestamp(latest + n) then `mine()` = hardhat_mine(0x1, 0x1);
 *   `time.increaseTo`, `time.latest`, `time.latestBlock`.
 * - `mine(n, { interval })` = hardhat_mine(n, interval); `mineUpTo(b)` = hardhat_mine(b - latest).
 * - setBalance / setNonce / setCode / setStorageAt / impersonateAccount with the helpers' own quantity forms.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  Contract,
  ContractFactory,
  JsonRpcProvider,
  JsonRpcSigner,
  Network,
  Wallet,
  toBeHex,
  toQuantity,
  zeroPadValue,
} from 'ethers'
import { Token } from '../../fixtures/index.js'
import type { Node } from '../../src/index.js'
import { COW, COW1, startNode } from '../helpers/node.js'

const network = () => Network.from({ chainId: 33, name: 'rsk-regtest' })
const SUPPLY = 1_000_000n

let node: Node
let provider: JsonRpcProvider
const seen: { method: string; code?: number }[] = []

// ---- the helpers' code paths, over provider.send ----

/** hardhat-network-helpers toRpcQuantity: minimal hex. */
const toRpcQuantity = (n: bigint | number) => toQuantity(n)

/** helpers/takeSnapshot.ts */
async function takeSnapshot(): Promise<{ restore(): Promise<void>; snapshotId: string }> {
  let snapshotId: unknown = await provider.send('evm_snapshot', [])
  if (typeof snapshotId !== 'string')
    throw new Error('Assertion error: the value returned by evm_snapshot should be a string')
  return {
    restore: async () => {
      const reverted: unknown = await provider.send('evm_revert', [snapshotId])
      if (typeof reverted !== 'boolean')
        throw new Error('Assertion error: the value returned by evm_revert should be a boolean')
      if (!reverted) throw new Error('InvalidSnapshotError')
      // re-take the snapshot so that `restore` can be called again
      snapshotId = await provider.send('evm_snapshot', [])
    },
    snapshotId,
  }
}

type Fixture<T> = () => Promise<T>
let snapshots: { restorer: Awaited<ReturnType<typeof takeSnapshot>>; fixture: Fixture<unknown>; data: unknown }[] = []
/** How often each fixture body really ran. */
const runs = new Map<string, number>()

/** loadFixture.ts */
async function loadFixture<T>(fixture: Fixture<T>): Promise<T> {
  if (fixture.name === '') throw new Error('FixtureAnonymousFunctionError')
  const snapshot = snapshots.find((s) => s.fixture === fixture)
  if (snapshot !== undefined) {
    await snapshot.restorer.restore()
    snapshots = snapshots.filter((s) => Number(s.restorer.snapshotId) <= Number(snapshot.restorer.snapshotId))
    return snapshot.data as T
  }
  const data = await fixture()
  const restorer = await takeSnapshot()
  snapshots.push({ restorer, fixture, data })
  return data
}

/** time.latest / time.latestBlock */
const latest = async () => BigInt((await provider.send('eth_getBlockByNumber', ['latest', false])).timestamp)
const latestBlock = async () => BigInt(await provider.send('eth_blockNumber', []))
/** mine.ts */
const mine = (blocks: bigint | number = 1, { interval = 1 }: { interval?: number } = {}) =>
  provider.send('hardhat_mine', [toRpcQuantity(blocks), toRpcQuantity(interval)])
/** time.increase */
async function increase(seconds: bigint): Promise<bigint> {
  const target = (await latest()) + seconds
  await provider.send('evm_setNextBlockTimestamp', [toRpcQuantity(target)])
  await mine()
  return latest()
}
/** time.increaseTo */
async function increaseTo(timestamp: bigint): Promise<void> {
  await provider.send('evm_setNextBlockTimestamp', [toRpcQuantity(timestamp)])
  await mine()
}
/** mineUpTo */
async function mineUpTo(blockNumber: bigint): Promise<void> {
  const current = await latestBlock()
  if (blockNumber <= current) throw new Error('The block number must be greater than the latest block number')
  await mine(blockNumber - current)
}

// ---- fixtures ----

interface Deployed {
  token: Contract
  address: string
  owner: string
  alice: string
}

async function deployTokenFixture(): Promise<Deployed> {
  runs.set('token', (runs.get('token') ?? 0) + 1)
  const owner = await provider.getSigner(COW.address)
  const factory = new ContractFactory(Token.abi, Token.bytecode, owner)
  const c = await factory.deploy('Fixture Token', 'FIX', SUPPLY)
  await c.waitForDeployment()
  const address = await c.getAddress()
  const token = new Contract(address, Token.abi, owner)
  const alice = Wallet.createRandom().address
  await (await token.getFunction('transfer')(alice, 100n)).wait()
  return { token, address, owner: COW.address, alice }
}

async function withSecondHolderFixture(): Promise<Deployed & { bob: string }> {
  runs.set('second', (runs.get('second') ?? 0) + 1)
  const base = await loadFixture(deployTokenFixture)
  const bob = Wallet.createRandom().address
  await (await base.token.getFunction('transfer')(bob, 50n)).wait()
  return { ...base, bob }
}

/** Everything a test could have changed. */
async function state(d: Deployed, extra: string[] = []) {
  const bal = (a: string) => d.token.getFunction('balanceOf')(a) as Promise<bigint>
  return {
    block: await latestBlock(),
    head: (await provider.send('eth_getBlockByNumber', ['latest', false])).hash as string,
    tokenOwner: await bal(d.owner),
    tokenAlice: await bal(d.alice),
    tokenExtra: await Promise.all(extra.map(bal)),
    rbtcAlice: await provider.getBalance(d.alice),
    ownerNonce: await provider.getTransactionCount(d.owner),
    code: await provider.getCode(d.address),
  }
}

beforeAll(async () => {
  node = await startNode({ onRequest: (method, _ms, error) => seen.push({ method, code: error?.code }) })
  provider = new JsonRpcProvider(node.url, network(), {
    staticNetwork: network(),
    pollingInterval: 20,
    cacheTimeout: -1,
    batchMaxCount: 1,
  })
})
afterAll(async () => {
  provider?.destroy()
  await node?.close()
  expect(seen.filter((s) => s.code !== undefined)).toEqual([])
})

describe('loadFixture (evm_snapshot / evm_revert / evm_snapshot)', () => {
  let fixtureState: Awaited<ReturnType<typeof state>>

  it('first call: runs the fixture, then snapshots', async () => {
    const d = await loadFixture(deployTokenFixture)
    expect(runs.get('token')).toBe(1)
    fixtureState = await state(d)
    expect(fixtureState.tokenAlice).toBe(100n)
    expect(fixtureState.tokenOwner).toBe(SUPPLY - 100n)
    expect(snapshots).toHaveLength(1)
    expect(snapshots[0]!.restorer.snapshotId).toBe('0x1')
  })

  it('a test mutates: token transfers, RBTC, nonces, blocks, time', async () => {
    const d = await loadFixture(deployTokenFixture)
    expect(runs.get('token')).toBe(1)
    expect(await state(d)).toEqual(fixtureState)
    const owner = await provider.getSigner(d.owner)
    await (await d.token.getFunction('transfer')(d.alice, 5000n)).wait()
    await (await owner.sendTransaction({ to: d.alice, value: 10n ** 18n })).wait()
    await mine(10)
    await increase(86_400n)
    const now = await state(d)
    expect(now.tokenAlice).toBe(5100n)
    expect(now.rbtcAlice).toBe(10n ** 18n)
    expect(now.block).toBe(fixtureState.block + 13n)
  })

  it('the next test starts from the fixture again (revert, then a new snapshot id)', async () => {
    const before = snapshots[0]!.restorer.snapshotId
    const d = await loadFixture(deployTokenFixture)
    expect(runs.get('token')).toBe(1)
    expect(await state(d)).toEqual(fixtureState)
    expect(snapshots[0]!.restorer.snapshotId).toBe(before) // the helpers keep the first id in the object
    // mutate differently
    await (await d.token.getFunction('transfer')(d.alice, 1n)).wait()
    await provider.send('hardhat_setBalance', [d.alice, toRpcQuantity(7n)])
    expect((await state(d)).tokenAlice).toBe(101n)
  })

  it('and again: state equals the fixture every time', async () => {
    for (let round = 0; round < 3; round++) {
      const d = await loadFixture(deployTokenFixture)
      expect(await state(d)).toEqual(fixtureState)
      await (await d.token.getFunction('transfer')(d.alice, BigInt(round + 1))).wait()
      await mine(2)
    }
    expect(runs.get('token')).toBe(1)
  })

  it('a fixture built on another (nested loadFixture); restoring the outer one forgets the inner one', async () => {
    const d2 = await loadFixture(withSecondHolderFixture)
    expect(runs.get('second')).toBe(1)
    const secondState = await state(d2, [d2.bob])
    expect(secondState.tokenExtra).toEqual([50n])
    expect(secondState.tokenOwner).toBe(SUPPLY - 150n)
    expect(snapshots).toHaveLength(2)

    await (await d2.token.getFunction('transfer')(d2.bob, 1n)).wait()
    const again = await loadFixture(withSecondHolderFixture)
    expect(runs.get('second')).toBe(1)
    expect(await state(again, [again.bob])).toEqual(secondState)

    // back to the first fixture: the second's snapshot goes (evm_revert dropped it; the helper forgets it)
    const d1 = await loadFixture(deployTokenFixture)
    expect(await state(d1)).toEqual(fixtureState)
    expect(snapshots).toHaveLength(1)
    const third = await loadFixture(withSecondHolderFixture)
    expect(runs.get('second')).toBe(2) // ran again
    expect(await state(third, [third.bob])).toMatchObject({ tokenOwner: SUPPLY - 150n, tokenExtra: [50n] })
    expect(await state(await loadFixture(deployTokenFixture))).toEqual(fixtureState)
    expect(runs.get('token')).toBe(1)
  })

  it('the raw sequence: evm_revert(id) → true, evm_snapshot → a new id, mutate, evm_revert(new id) → fixture again', async () => {
    const d = await loadFixture(deployTokenFixture)
    let id: string = await provider.send('evm_snapshot', [])
    for (let round = 0; round < 3; round++) {
      await (await d.token.getFunction('transfer')(d.alice, 1000n)).wait()
      await provider.send('hardhat_mine', ['0x3'])
      expect(await provider.send('evm_revert', [id])).toBe(true)
      expect(await state(d)).toEqual(fixtureState)
      const next: string = await provider.send('evm_snapshot', [])
      expect(next).toMatch(/^0x[0-9a-f]+$/)
      expect(BigInt(next)).toBe(BigInt(id) + 1n) // the reverted-to id stays; the new one follows it
      id = next
    }
  })

  it('takeSnapshot used directly: restore() can be called repeatedly', async () => {
    const d = await loadFixture(deployTokenFixture)
    const snap = await takeSnapshot()
    for (let i = 0; i < 3; i++) {
      await (await d.token.getFunction('transfer')(d.alice, 10n)).wait()
      await snap.restore()
      expect(await state(d)).toEqual(fixtureState)
    }
  })
})

describe('time and mine helpers', () => {
  it('time.increase(n): evm_setNextBlockTimestamp(latest + n) + hardhat_mine(0x1, 0x1)', async () => {
    const t0 = await latest()
    const b0 = await latestBlock()
    expect(await increase(3600n)).toBe(t0 + 3600n)
    expect(await latestBlock()).toBe(b0 + 1n)
    expect(await increase(1n)).toBe(t0 + 3601n)
    // time.increaseTo
    await increaseTo(t0 + 100_000n)
    expect(await latest()).toBe(t0 + 100_000n)
    // time.increaseTo a past time: the node refuses (-32602)
    await expect(increaseTo(t0)).rejects.toThrow(/lower than or equal to previous block's timestamp/)
    seen.splice(
      seen.findIndex((s) => s.code === -32602),
      1,
    )
  })

  it('mine(n) and mine(n, { interval }); mineUpTo(b)', async () => {
    const b0 = await latestBlock()
    const t0 = await latest()
    await mine(5)
    expect(await latestBlock()).toBe(b0 + 5n)
    // the default interval of 1 s: consecutive timestamps after the first block
    const stamp = async (n: bigint) =>
      BigInt((await provider.send('eth_getBlockByNumber', [toRpcQuantity(n), false])).timestamp)
    expect(await stamp(b0 + 1n)).toBeGreaterThan(t0)
    for (let n = b0 + 2n; n <= b0 + 5n; n++) expect((await stamp(n)) - (await stamp(n - 1n))).toBe(1n)
    await mine(3, { interval: 15 })
    expect((await stamp(b0 + 8n)) - (await stamp(b0 + 7n))).toBe(15n)
    await mineUpTo(b0 + 100n)
    expect(await latestBlock()).toBe(b0 + 100n)
  })

  it("the helpers' state setters with their quantity forms", async () => {
    const a = Wallet.createRandom().address
    await provider.send('hardhat_setBalance', [a, toRpcQuantity(10n ** 18n)])
    expect(await provider.getBalance(a)).toBe(10n ** 18n)
    await provider.send('hardhat_setNonce', [a, toRpcQuantity(5)])
    expect(await provider.getTransactionCount(a)).toBe(5)
    await provider.send('hardhat_setCode', [a, Token.deployedBytecode])
    expect(await provider.getCode(a)).toBe(Token.deployedBytecode)
    // setStorageAt: index as a quantity, value as a 32-byte padded word (toPaddedRpcQuantity)
    await provider.send('hardhat_setStorageAt', [a, toRpcQuantity(3), zeroPadValue(toBeHex(42), 32)])
    expect(BigInt(await provider.getStorage(a, 3))).toBe(42n)
    // impersonateAccount + a transaction from it
    const who = Wallet.createRandom().address
    await provider.send('hardhat_setBalance', [who, toRpcQuantity(10n ** 18n)])
    await provider.send('hardhat_impersonateAccount', [who])
    // hardhat-ethers' getImpersonatedSigner: a JSON-RPC signer for an address eth_accounts does not list
    const signer = new JsonRpcSigner(provider, who)
    const receipt = await (await signer.sendTransaction({ to: COW1.address, value: 1n })).wait()
    expect(receipt!.status).toBe(1)
    expect(receipt!.from.toLowerCase()).toBe(who.toLowerCase())
    await provider.send('hardhat_stopImpersonatingAccount', [who])
  })
})
