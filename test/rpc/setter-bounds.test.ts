/**
 * Range checks of the dev setters and a method lookup that knows only the method table, on both transports: out-of-range values answer -32602 naming the argument and change nothing;
 * the largest allowed value is accepted and keeps the chain usable; prototype names answer -32601.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Node } from '../../src/index.js'
import { COW, COW1, rpc, rpcError, startNode } from '../helpers/node.js'
import { WsClient } from '../helpers/ws.js'

type Transport = 'uws' | 'node'

const hex = (n: bigint): string => '0x' + n.toString(16)
const FRESH = '0x00000000000000000000000000000000000000f1'

describe.each<Transport>(['uws', 'node'])('%s transport: setter bounds', (transport) => {
  let node: Node
  let url: string
  beforeAll(async () => {
    node = await startNode({ transport })
    url = node.url
  })
  afterAll(async () => {
    await node?.close()
  })

  /** Expects -32602 with a message naming the argument; returns the message. */
  async function refused(method: string, params: unknown[], argument: RegExp): Promise<string> {
    const err = await rpcError(url, method, params)
    expect(err.code, `${method} ${JSON.stringify(params)}`).toBe(-32602)
    expect(err.message).toMatch(argument)
    expect(err.status).toBe(400)
    return err.message
  }

  it('nonce: 2^64 - 1 and above refused on every alias; 2^64 - 2 accepted and the account can still send', async () => {
    for (const method of ['anvil_setNonce', 'hardhat_setNonce', 'evm_setAccountNonce']) {
      await refused(method, [FRESH, hex((1n << 64n) - 1n)], /invalid argument 1: nonce must be below 2\^64 - 1/)
      await refused(method, [FRESH, hex(1n << 64n)], /invalid argument 1: nonce/)
    }
    expect(await rpc(url, 'eth_getTransactionCount', [FRESH, 'latest'])).toBe('0x0')
    expect(await rpc(url, 'anvil_setNonce', [COW1.address, hex((1n << 64n) - 2n)])).toBe(true)
    expect(await rpc(url, 'eth_getTransactionCount', [COW1.address, 'latest'])).toBe(hex((1n << 64n) - 2n))
    const hash = await rpc(url, 'eth_sendTransaction', [{ from: COW1.address, to: COW.address, value: '0x1' }])
    expect((await rpc(url, 'eth_getTransactionReceipt', [hash])).status).toBe('0x1')
  })

  it('balance: 2^256 and above refused on every alias; 2^256 - 1 accepted', async () => {
    for (const method of ['anvil_setBalance', 'hardhat_setBalance', 'evm_setAccountBalance']) {
      await refused(method, [FRESH, hex(1n << 256n)], /invalid argument 1: balance must be below 2\^256/)
      await refused(method, [FRESH, hex((1n << 257n) - 1n)], /invalid argument 1: balance/)
    }
    expect(await rpc(url, 'eth_getBalance', [FRESH, 'latest'])).toBe('0x0')
    expect(await rpc(url, 'anvil_setBalance', [FRESH, hex((1n << 256n) - 1n)])).toBe(true)
    expect(await rpc(url, 'eth_getBalance', [FRESH, 'latest'])).toBe(hex((1n << 256n) - 1n))
  })

  it('block gas limit: 0, below 21000 and above 2^63 - 1 refused on every alias; the bounds accepted', async () => {
    const original = (await rpc(url, 'eth_getBlockByNumber', ['latest', false])).gasLimit
    for (const method of ['evm_setBlockGasLimit', 'anvil_setBlockGasLimit', 'hardhat_setBlockGasLimit']) {
      for (const bad of [0n, 20_999n, 1n << 63n, 1n << 136n]) {
        await refused(method, [hex(bad)], /invalid argument 0: gasLimit must be from 21000 to 2\^63 - 1/)
      }
    }
    expect(await rpc(url, 'evm_setBlockGasLimit', [hex(21_000n)])).toBe(true)
    expect(await rpc(url, 'evm_setBlockGasLimit', [hex((1n << 63n) - 1n)])).toBe(true)
    expect(await rpc(url, 'evm_setBlockGasLimit', [original])).toBe(true)
    await rpc(url, 'evm_mine')
    expect((await rpc(url, 'eth_getBlockByNumber', ['latest', false])).gasLimit).toBe(original)
  })

  it('timestamps must stay below 2^64: evm_increaseTime, evm_setNextBlockTimestamp, evm_mine, anvil_mine interval', async () => {
    const before = await rpc(url, 'eth_blockNumber')
    await refused(
      'evm_increaseTime',
      [hex(1n << 128n)],
      /invalid argument 0: seconds \(added to the clock\) must be below 2\^64/,
    )
    await refused('evm_increaseTime', [hex(1n << 64n)], /invalid argument 0/)
    await refused('evm_setNextBlockTimestamp', [hex(1n << 64n)], /invalid argument 0: timestamp must be below 2\^64/)
    await refused('evm_mine', [hex(1n << 64n)], /invalid argument 0: timestamp must be below 2\^64/)
    await refused('evm_mine', [{ timestamp: hex(1n << 70n) }], /invalid argument 0: timestamp/)
    await refused('anvil_mine', ['0x3', hex(1n << 63n)], /invalid argument 1: interval/)
    expect(await rpc(url, 'eth_blockNumber')).toBe(before)
    // the offset was not changed by the refused calls
    expect(await rpc(url, 'evm_increaseTime', [0])).toBe('0x0')
    // the largest timestamp is usable
    const max = (1n << 64n) - 1n
    expect(await rpc(url, 'evm_setNextBlockTimestamp', [hex(max)])).toBeNull()
    await rpc(url, 'evm_mine')
    expect((await rpc(url, 'eth_getBlockByNumber', ['latest', false])).timestamp).toBe(hex(max))
  })

  it('storage: slot and value longer than 32 bytes refused', async () => {
    const word33 = '0x01' + '00'.repeat(32)
    for (const method of ['anvil_setStorageAt', 'hardhat_setStorageAt', 'evm_setAccountStorageAt']) {
      await refused(method, [FRESH, word33, '0x1'], /invalid argument 1/)
      await refused(method, [FRESH, '0x0', word33], /invalid argument 2/)
    }
    expect(await rpc(url, 'anvil_setStorageAt', [FRESH, hex((1n << 256n) - 1n), hex((1n << 256n) - 1n)])).toBe(true)
    expect(await rpc(url, 'eth_getStorageAt', [FRESH, hex((1n << 256n) - 1n), 'latest'])).toBe('0x' + 'ff'.repeat(32))
  })
})

describe.each<Transport>(['uws', 'node'])('%s transport: method names of the JS object prototype', (transport) => {
  let node: Node
  beforeAll(async () => {
    node = await startNode({ transport })
  })
  afterAll(async () => {
    await node?.close()
  })

  const names = [
    'constructor',
    '__proto__',
    'toString',
    'hasOwnProperty',
    'valueOf',
    'isPrototypeOf',
    '__defineGetter__',
    'toLocaleString',
  ]

  it('answer -32601 "method not found" over HTTP without leaking internals', async () => {
    for (const name of names) {
      const err = await rpcError(node.url, name, [])
      expect(err.code, name).toBe(-32601)
      expect(err.message, name).toBe('method not found')
    }
    expect(await rpc(node.url, 'eth_chainId')).toBe('0x21')
  })

  it('answer -32601 "method not found" over WebSocket', async () => {
    const ws = await WsClient.open(node.wsUrl)
    try {
      for (const name of names) {
        const msg = await ws.request(name, [])
        expect(msg.error, name).toEqual({ code: -32601, message: 'method not found' })
      }
    } finally {
      await ws.close()
    }
  })

  it('the listed unavailable methods keep their reasons', async () => {
    expect((await rpcError(node.url, 'eth_compileSolidity', [])).message).toBe(
      'the method eth_compileSolidity is not available: the node has no compilers, for security reasons',
    )
  })
})
