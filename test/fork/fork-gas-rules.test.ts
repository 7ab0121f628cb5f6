/**
 * A fork prices calldata and init code with the remote network's rules at each block's height
 * (docs/reference-rules.md#rule-gas-activations): a node-cli presented as network 31 (test) by the reference-like
 * proxy, forked at its genesis, with RSKIP400 moved to block 2 and RSKIP438 to block 5 so that local mining
 * crosses them. Before RSKIP400 a non-zero calldata byte costs 68 gas (16 after); before RSKIP438 init code has no
 * size limit and no per-word gas (2 gas per 32-byte word after, and at most 49 152 bytes).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Node } from '../../src/index.js'
import { COW, rpc } from '../helpers/node.js'
import { closeForkTest, startFork, startForkRemote } from '../helpers/fork.js'
import type { RskjProxy } from '../helpers/rskj-proxy.js'

let remote: Node
let proxy: RskjProxy
let fork: Node
const OVERRIDES = { rskip400: 2, rskip438: 5 }
const TO = '0x00000000000000000000000000000000000000aa'
// 10 non-zero calldata bytes: 10 × 68 before RSKIP400, 10 × 16 from it
const CALLDATA = '0x' + '01'.repeat(10)
// init code of 64 zero bytes (STOP: deploys an empty contract): 2 words, 2 × 2 gas from RSKIP438
const SMALL_INIT = '0x' + '00'.repeat(64)
// one byte over the RSKIP438 limit (49 152 bytes)
const LARGE_INIT = '0x' + '00'.repeat(49_153)

interface Receipt {
  status: string
  blockNumber: string
  gasUsed: string
}

/** Sends `tx` from COW (automined in a block of its own) and answers its receipt. */
async function send(tx: Record<string, string>): Promise<Receipt> {
  const hash = await rpc<string>(fork.url, 'eth_sendTransaction', [{ from: COW.address, ...tx }])
  return rpc<Receipt>(fork.url, 'eth_getTransactionReceipt', [hash])
}

beforeAll(async () => {
  ;({ node: remote, proxy } = await startForkRemote({ chainId: 31 }))
  fork = await startFork(proxy.url, { activations: OVERRIDES })
})

afterAll(async () => {
  await closeForkTest(fork, proxy, remote)
})

describe('a fork of network 31 prices calldata and init code with the rules at each height', () => {
  it('charges 68 gas per non-zero calldata byte before RSKIP400 and 16 from it', async () => {
    const before = await send({ to: TO, data: CALLDATA, gas: '0x186a0' })
    expect(before).toMatchObject({ status: '0x1', blockNumber: '0x1' })
    expect(BigInt(before.gasUsed)).toBe(21_000n + 10n * 68n)
    // a call at block 1 runs with that block's price too
    expect(BigInt(await rpc<string>(fork.url, 'eth_estimateGas', [{ to: TO, data: CALLDATA }, '0x1']))).toBe(
      21_000n + 10n * 68n,
    )
    const after = await send({ to: TO, data: CALLDATA, gas: '0x186a0' })
    expect(after).toMatchObject({ status: '0x1', blockNumber: '0x2' })
    expect(BigInt(after.gasUsed)).toBe(21_000n + 10n * 16n)
    expect(BigInt(before.gasUsed) - BigInt(after.gasUsed)).toBe(10n * (68n - 16n))
  })

  it('has no init code word gas and no init code size limit before RSKIP438', async () => {
    const small = await send({ data: SMALL_INIT, gas: '0x186a0' })
    expect(small).toMatchObject({ status: '0x1', blockNumber: '0x3' })
    expect(BigInt(small.gasUsed)).toBe(53_000n + 64n * 4n)
    const large = await send({ data: LARGE_INIT, gas: '0x493e0' })
    expect(large).toMatchObject({ status: '0x1', blockNumber: '0x4' })
    expect(BigInt(large.gasUsed)).toBe(53_000n + 49_153n * 4n)
  })

  it('charges 2 gas per init code word and refuses init code over 49 152 bytes from RSKIP438', async () => {
    const small = await send({ data: SMALL_INIT, gas: '0x186a0' })
    expect(small).toMatchObject({ status: '0x1', blockNumber: '0x5' })
    expect(BigInt(small.gasUsed)).toBe(53_000n + 64n * 4n + 2n * 2n)
    const err = (await send({ data: LARGE_INIT, gas: '0x493e0' }).then(
      () => undefined,
      (e: unknown) => e,
    )) as Error
    expect(err).toBeInstanceOf(Error)
    expect(err.message).toMatch(/init ?code size/i)
  })

  it('prices with the newest rules again after a reset to a local chain, and the older ones after one to the fork', async () => {
    await rpc(fork.url, 'anvil_reset', [])
    const local = await send({ to: TO, data: CALLDATA, gas: '0x186a0' })
    expect(local).toMatchObject({ status: '0x1', blockNumber: '0x1' })
    expect(BigInt(local.gasUsed)).toBe(21_000n + 10n * 16n)
    await rpc(fork.url, 'anvil_reset', [{ forking: { jsonRpcUrl: proxy.url, blockNumber: 0 } }])
    const forked = await send({ to: TO, data: CALLDATA, gas: '0x186a0' })
    expect(forked).toMatchObject({ status: '0x1', blockNumber: '0x1' })
    expect(BigInt(forked.gasUsed)).toBe(21_000n + 10n * 68n)
    // from a fork where every execution had the older rules (no overrides now), back to a local chain
    await rpc(fork.url, 'anvil_reset', [])
    const again = await send({ to: TO, data: CALLDATA, gas: '0x186a0' })
    expect(BigInt(again.gasUsed)).toBe(21_000n + 10n * 16n)
  })
})
