/**
 * On-chain checks: NativeProbe.selfCheck() (fixtures/contracts/NativeProbe.sol) compares, inside a mined
 * transaction, each native contract's answer with the reference's value (rskj vectors and regtest constants, see
 * the contract) and reverts naming the first mismatch; in local calls (eth_call, eth_estimateGas) the Bridge's
 * local-only getter answers, which the last check tells apart (-32015 with its reason).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Interface } from 'ethers'
import type { Node } from '../../../src/index.js'
import { NativeProbe } from '../../../fixtures/index.js'
import { COW, rpc, startNode } from '../../helpers/node.js'
import { deploy, sendTx } from '../../rpc/shapes.js'

const probeIf = new Interface(NativeProbe.abi)
let node: Node
let url: string
let probe: string

beforeAll(async () => {
  node = await startNode()
  url = node.url
  ;({ address: probe } = await deploy(url, NativeProbe.bytecode))
})
afterAll(() => node?.close())

describe('NativeProbe.selfCheck on chain', () => {
  it('passes all nine checks in a mined transaction', async () => {
    const r = await sendTx(url, { to: probe, data: probeIf.encodeFunctionData('selfCheck') })
    expect(r.status).toBe('0x1')
    const log = probeIf.parseLog(r.logs[0])
    expect(log?.name).toBe('Checked')
    expect(log?.args[0]).toBe(9n)
  })
  it('the native calls appear in traces: callTracer frames and parity traces, with gas and failures', async () => {
    const r = await sendTx(url, { to: probe, data: probeIf.encodeFunctionData('selfCheck') })
    const tree = await rpc(url, 'debug_traceTransaction', [r.transactionHash, { tracer: 'callTracer' }])
    const frames = (tree.calls as { type: string; to: string; gasUsed: string; error?: string }[]).map((c) => [
      c.type,
      c.to.slice(-8),
      c.error ?? null,
    ])
    expect(frames).toEqual([
      ['STATICCALL', '01000011', null], // Environment.getCallStackDepth
      ['STATICCALL', '01000010', null], // BlockHeader.getBlockHash(0)
      ['STATICCALL', '01000010', null], // BlockHeader.getMinGasPrice(0)
      ['STATICCALL', '01000010', expect.stringMatching(/Invalid block depth '-1'/)],
      ['STATICCALL', '01000009', null], // HDWalletUtils.toBase58Check
      ['STATICCALL', '01000016', null], // secp256k1 add
      ['STATICCALL', '01000017', null], // secp256k1 mul
      ['CALL', '01000006', null], // Bridge.getBtcBlockchainBestChainHeight
      ['CALL', '01000006', null], // Bridge.getActivePowpegRedeemScript
      ['CALL', '01000006', expect.stringMatching(/non-local call/)], // a local-only getter in a transaction
    ])
    // the frames' gas is what the native methods charge: BlockHeader and HDWalletUtils are not free
    expect(BigInt(tree.calls[1].gasUsed)).toBeGreaterThan(0n)
    expect(BigInt(tree.calls[4].gasUsed)).toBeGreaterThan(0n)
    const parity = await rpc(url, 'trace_transaction', [r.transactionHash])
    expect(parity).toHaveLength(11)
    expect(parity[4].error).toBeDefined()
    expect(parity[4].result).toBeNull()
  })

  it('in eth_call and eth_estimateGas (local calls) the local-only Bridge getter answers, so that check reverts', async () => {
    // the reference runs both as local calls too (Bridge.isLocalCall): the same revert there
    for (const method of ['eth_call', 'eth_estimateGas']) {
      const params = [
        { from: COW.address, to: probe, data: probeIf.encodeFunctionData('selfCheck') },
        ...(method === 'eth_call' ? ['latest'] : []),
      ]
      const e = await rpc(url, method, params).catch((err) => err)
      expect(e.code).toBe(-32015)
      expect(e.message).toContain('Bridge local-only getter in a transaction')
    }
  })
})
