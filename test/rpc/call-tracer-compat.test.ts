/**
 * debug_traceTransaction with `{tracer: 'callTracer'}` under each compatibility profile: without one the
 * reference's shape (minimal-quantity `output`, a CREATE2 frame typed CREATE with the created address as
 * `output` and no `to`); under `--compat hardhat` and `--compat anvil` geth's (the return data as full DATA,
 * type CREATE2, the created address as `to` and the runtime code as `output`). Checked on a CREATE2 deployment
 * from a contract, a plain deployment and calls returning data with leading zero bytes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Interface } from 'ethers'
import type { Node } from '../../src/index.js'
import { Probe } from '../../fixtures/index.js'
import { COW, rpc, startNode } from '../helpers/node.js'
import { deploy, sendTx } from './shapes.js'

const probe = new Interface(Probe.abi)
const callTrace = (url: string, hash: string) =>
  rpc<any>(url, 'debug_traceTransaction', [hash, { tracer: 'callTracer' }])
/** A 32-byte ABI word of `n`, as 0x-hex. */
const word = (n: bigint | number): string => '0x' + BigInt(n).toString(16).padStart(64, '0')

describe.each([
  ['reference (no profile)', undefined],
  ['--compat hardhat', 'hardhat'],
  ['--compat anvil', 'anvil'],
] as const)('callTracer, %s', (_what, compat) => {
  const geth = compat !== undefined
  let node: Node
  let url: string
  let probeAddress: string
  let deployReceipt: any
  beforeAll(async () => {
    node = await startNode({ compat })
    url = node.url
    ;({ address: probeAddress, receipt: deployReceipt } = await deploy(url, Probe.bytecode))
  })
  afterAll(() => node?.close())

  it(
    geth ? 'a CREATE2 frame: type CREATE2, to the created address, output its code' : 'a CREATE2 frame: type CREATE',
    async () => {
      const predicted = probe
        .decodeFunctionResult(
          'predict',
          await rpc(url, 'eth_call', [{ to: probeAddress, data: probe.encodeFunctionData('predict', [7]) }, 'latest']),
        )[0]
        .toLowerCase()
      const r = await sendTx(url, {
        from: COW.address,
        to: probeAddress,
        data: probe.encodeFunctionData('deploy', [7]),
      })
      expect(r.status).toBe('0x1')
      const t = await callTrace(url, r.transactionHash)
      expect(t.calls).toHaveLength(1)
      const frame = t.calls[0]
      const code = await rpc<string>(url, 'eth_getCode', [predicted, 'latest'])
      expect(code.length).toBeGreaterThan(2)
      if (geth) {
        expect(frame).toMatchObject({ type: 'CREATE2', from: probeAddress, to: predicted, output: code })
      } else {
        expect(frame).toMatchObject({ type: 'CREATE', from: probeAddress, output: predicted })
        expect(frame.to).toBeUndefined()
      }
      // the top frame returns the child's address as an ABI word (12 leading zero bytes)
      const returned = word(BigInt(predicted))
      expect(t.output).toBe(geth ? returned : '0x' + predicted.slice(2).replace(/^0+/, ''))
    },
  )

  it('a deployment transaction', async () => {
    const t = await callTrace(url, deployReceipt.transactionHash)
    expect(t.type).toBe('CREATE')
    if (geth) {
      expect(t.to).toBe(probeAddress)
      expect(t.output).toBe(await rpc(url, 'eth_getCode', [probeAddress, 'latest']))
    } else {
      expect(t.to).toBeUndefined()
      expect(t.output).toBe(probeAddress)
    }
  })

  it(geth ? 'a call returning data: output is all of it' : 'a call returning data: output as a quantity', async () => {
    const zero = await sendTx(url, { from: COW.address, to: probeAddress, data: probe.encodeFunctionData('value') })
    const set = await sendTx(url, {
      from: COW.address,
      to: probeAddress,
      data: probe.encodeFunctionData('setValue', [0x2a]),
    })
    const small = await sendTx(url, { from: COW.address, to: probeAddress, data: probe.encodeFunctionData('value') })
    for (const r of [zero, set, small]) expect(r.status).toBe('0x1')
    const [tZero, tSet, tSmall] = await Promise.all([zero, set, small].map((r) => callTrace(url, r.transactionHash)))
    expect(tSmall.output).toBe(geth ? word(0x2a) : '0x2a')
    expect(tZero.output).toBe(geth ? word(0) : '0x0')
    // setValue returns nothing: geth leaves the empty output out
    if (geth) expect(tSet).not.toHaveProperty('output')
    else expect(tSet.output).toBe('0x0')
  })
})
