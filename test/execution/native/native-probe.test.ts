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
  it('in eth_call and eth_estimateGas (local calls) the local-only Bridge getter answers, so that check reverts', async () => {
    // the reference runs both as local calls too (Bridge.isLocalCall): the same revert there
    for (const method of ['eth_call', 'eth_estimateGas']) {
      const params = [{ from: COW.address, to: probe, data: probeIf.encodeFunctionData('selfCheck') }, ...(method === 'eth_call' ? ['latest'] : [])]
      const e = await rpc(url, method, params).catch((err) => err)
      expect(e.code).toBe(-32015)
      expect(e.message).toContain('Bridge local-only getter in a transaction')
    }
  })
})
