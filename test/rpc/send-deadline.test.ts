/**
 * Sends have the execution deadline too (docs/reference-rules.md#rule-send-deadline), on both transports: an
 * automined transaction whose execution runs past `rpcTimeout` answers -32011, is dropped from the pool and leaves
 * no state behind, while other requests are served; evm_mine / anvil_mine and the `pending` block leave such a
 * transaction out (and drop it) instead of stalling; long precompiles and the replay of a mined transaction
 * stop too; with `rpcTimeout: 0` nothing is stopped.
 */
import { once } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Transaction, Wallet } from 'ethers'
import type { Node } from '../../src/index.js'
import { deployLoop, settleOrder } from '../helpers/loop.js'
import { COW, COW1, internals, rpc, rpcError, startNode } from '../helpers/node.js'
import { WsClient } from '../helpers/ws.js'

type Transport = 'uws' | 'node'

/** A block gas limit (10^12) that lets one transaction loop for hours (~50 M gas a second). */
const HUGE_BLOCK_GAS = '0xe8d4a51000'
/** 10^11 gas: the endless loop would run for about half an hour with it. */
const HUGE_GAS = '0x174876e800'

/**
 * Resolves when the next transaction enters the node's pool: a send's execution (automine) follows at once, so a
 * request sent after this arrives while it runs (the event the node emits before it mines, src/chain/chain.ts).
 */
function nextPending(node: Node): Promise<unknown> {
  return once(internals(node).chain, 'pendingTransaction')
}

/**
 * A node's answers in the order it gave them (its `onRequest` log, called as each answer is ready): that one request
 * was answered while another ran is read here, on the node's side, and not from when this same thread's clients
 * got around to reading the answers (on a loaded machine, later than the 500 ms deadline now and then).
 */
function answerLog(): { answered: string[]; onRequest: (method: string) => void } {
  const answered: string[] = []
  return { answered, onRequest: (method) => answered.push(method) }
}

/** What must not change when a send is stopped: head, pending state, sender's balance and nonces, the pool. */
async function observable(url: string, from: string) {
  const latest = await rpc<{ hash: string; number: string }>(url, 'eth_getBlockByNumber', ['latest', false])
  const pending = await rpc<{ stateRoot: string }>(url, 'eth_getBlockByNumber', ['pending', false])
  return {
    head: latest.hash,
    number: latest.number,
    pendingStateRoot: pending.stateRoot,
    balance: await rpc<string>(url, 'eth_getBalance', [from, 'latest']),
    nonce: await rpc<string>(url, 'eth_getTransactionCount', [from, 'latest']),
    pendingNonce: await rpc<string>(url, 'eth_getTransactionCount', [from, 'pending']),
    pool: await rpc(url, 'txpool_status'),
  }
}

const PAIRING = '0x0000000000000000000000000000000000000008'
const BLAKE2F = '0x0000000000000000000000000000000000000009'
/** The G1 generator (1, 2) and the G2 generator (x imaginary, x real, y imaginary, y real), as 0x08 reads them. */
const G1_GENERATOR = '00'.repeat(31) + '01' + '00'.repeat(31) + '02'
const G2_X =
  '198e9393920d483a7260bfb731fb5d25f1aa493335a9e71297e485b7aef312c2' +
  '1800deef121f1e76426a00665e5c4479674322d4f75edadd46debd5cd992f6ed'
const G2_GENERATOR =
  G2_X +
  '090689d0585ff075ec9e99ad690c3395bc4b313370b38ef355acdadcd122975b' +
  '12c85ea5db8c6deb4aab71808dcb408fe3d1e7690c43d37b4ce6cc0166fa7daa'
/** −Q: the same x, y negated (p − y for each half). */
const G2_GENERATOR_NEGATED =
  G2_X +
  '275dc4a288d1afb3cbb1ac09187524c7db36395df7be3b99e673b13a075a65ec' +
  '1d9befcd05a5323e6da4d435f3b617cdb3af83285c2df711ef39c01571827f9d'

describe.each<Transport>(['uws', 'node'])('%s transport: send deadline', (transport) => {
  let node: Node
  let url: string
  let loop: string
  const dropped: [string, string][] = []
  const log = answerLog()
  beforeAll(async () => {
    node = await startNode({
      transport,
      rpcTimeout: 0.5,
      onDroppedTransaction: (hash, reason) => dropped.push([hash, reason]),
      onRequest: log.onRequest,
    })
    url = node.url
    loop = await deployLoop(url)
    expect(await rpc(url, 'evm_setBlockGasLimit', [HUGE_BLOCK_GAS])).toBe(true)
  })
  afterAll(() => node?.close())

  it('an automined eth_sendTransaction running past the deadline answers -32011, is dropped and changes nothing', async () => {
    const before = await observable(url, COW.address)
    const droppedBefore = dropped.length
    const started = Date.now()
    const err = await rpcError(url, 'eth_sendTransaction', [{ from: COW.address, to: loop, gas: HUGE_GAS }])
    expect(err.code).toBe(-32011)
    expect(err.message).toBe('Execution has got timeout out.')
    expect(Date.now() - started).toBeLessThan(20_000) // generous: the loop itself would run for half an hour
    expect(await observable(url, COW.address)).toEqual(before)
    expect(dropped.slice(droppedBefore).map(([, reason]) => reason)).toEqual(['Execution has got timeout out.'])
    // the node mines the next transaction as usual, on the unchanged state
    const hash = await rpc<string>(url, 'eth_sendTransaction', [{ from: COW.address, to: COW1.address, value: '0x7' }])
    const receipt = await rpc(url, 'eth_getTransactionReceipt', [hash])
    expect(receipt.status).toBe('0x1')
    expect(BigInt(receipt.blockNumber)).toBe(BigInt(before.number) + 1n)
    expect(BigInt(await rpc(url, 'eth_getTransactionCount', [COW.address, 'latest']))).toBe(BigInt(before.nonce) + 1n)
  })

  it('eth_sendRawTransaction likewise: -32011, its hash unknown afterwards, its nonce free again', async () => {
    const wallet = new Wallet(COW.privateKey)
    const nonce = Number(await rpc(url, 'eth_getTransactionCount', [COW.address, 'pending']))
    const gasPrice = BigInt(await rpc(url, 'eth_gasPrice'))
    const raw = await wallet.signTransaction({
      type: 0,
      chainId: 33,
      nonce,
      gasPrice,
      gasLimit: BigInt(HUGE_GAS),
      to: loop,
    })
    const hash = Transaction.from(raw).hash!
    const before = await observable(url, COW.address)
    const err = await rpcError(url, 'eth_sendRawTransaction', [raw])
    expect(err.code).toBe(-32011)
    expect(err.message).toBe('Execution has got timeout out.')
    expect(await observable(url, COW.address)).toEqual(before)
    expect(await rpc(url, 'eth_getTransactionByHash', [hash])).toBeNull()
    expect(await rpc(url, 'eth_getTransactionReceipt', [hash])).toBeNull()
    expect(dropped.at(-1)).toEqual([hash, 'Execution has got timeout out.'])
    // the same nonce is taken by the next transaction
    const next = await wallet.signTransaction({
      type: 0,
      chainId: 33,
      nonce,
      gasPrice,
      gasLimit: 21_000n,
      to: COW1.address,
      value: 1n,
    })
    const nextHash = await rpc<string>(url, 'eth_sendRawTransaction', [next])
    expect((await rpc(url, 'eth_getTransactionReceipt', [nextHash])).status).toBe('0x1')
  })

  it('serves other requests while the send runs (HTTP and WebSocket)', async () => {
    const pending = nextPending(node)
    const send = rpcError(url, 'eth_sendTransaction', [{ from: COW.address, to: loop, gas: HUGE_GAS, data: '0x01' }])
    await pending
    const ws = await WsClient.open(node.wsUrl)
    try {
      const number = rpc<string>(url, 'eth_blockNumber')
      const order = await settleOrder([send, number, ws.call('eth_blockNumber')])
      expect(order[2]).toBe(0) // the send settled last
      expect((await send).code).toBe(-32011)
      expect(await number).toMatch(/^0x[0-9a-f]+$/)
    } finally {
      await ws.close()
    }
  })

  it('a precompile that runs long stops too: 200 bn256 pairings in one call, 2^32 - 1 BLAKE2 rounds', async () => {
    const before = await observable(url, COW.address)
    // 200 × (G1 generator, G2 generator): ~3-5 s of pairing in one precompile call
    const pairs = '0x' + (G1_GENERATOR + G2_GENERATOR).repeat(200)
    // the request served meanwhile goes over an open WebSocket: the pairing yields the thread once every two pairs
    // (~30-50 ms, only a few times within the deadline on a loaded machine), and a new HTTP connection of this same
    // thread's client needs several of those turns
    const ws = await WsClient.open(node.wsUrl)
    try {
      const from = log.answered.length
      const pending = nextPending(node)
      const send = rpcError(url, 'eth_sendTransaction', [
        { from: COW.address, to: PAIRING, data: pairs, gas: '0x5f5e100' },
      ])
      await pending
      await Promise.all([send, ws.call('eth_chainId')])
      expect(log.answered.slice(from)).toEqual(['eth_chainId', 'eth_sendTransaction']) // served while the pairing ran
      expect((await send).code).toBe(-32011)
    } finally {
      await ws.close()
    }
    expect((await rpcError(url, 'eth_call', [{ to: PAIRING, data: pairs }, 'latest'])).code).toBe(-32011)
    // BLAKE2 F with the most rounds an input can ask for (about an hour of work)
    const blake = '0x' + 'ffffffff' + '00'.repeat(208) + '01'
    const err = await rpcError(url, 'eth_sendTransaction', [
      { from: COW.address, to: BLAKE2F, data: blake, gas: '0x174876e800' },
    ])
    expect(err).toMatchObject({ code: -32011, message: 'Execution has got timeout out.' })
    expect(await observable(url, COW.address)).toEqual(before)
    // a short pairing still answers: e(P, Q)·e(P, -Q) = 1 is true. Asked of a node without a deadline (the stopped
    // pairings ran in this process, on the same code): the first final exponentiation of the process is cold, and
    // took over the 500 ms deadline now and then on a loaded machine
    const check = '0x' + G1_GENERATOR + G2_GENERATOR + G1_GENERATOR + G2_GENERATOR_NEGATED
    const unlimited = await startNode({ transport, rpcTimeout: 0 })
    try {
      expect(await rpc(unlimited.url, 'eth_call', [{ to: PAIRING, data: check }, 'latest'])).toBe(
        '0x' + '00'.repeat(31) + '01',
      )
    } finally {
      await unlimited.close()
    }
  })

  it('a send that ends before the deadline is mined as usual (out of gas here)', async () => {
    const err = await rpcError(url, 'eth_sendTransaction', [{ from: COW.address, to: loop, gas: '0x100000' }])
    expect(err.code).toBe(-32015)
    const hash = (err.data as { transactionHash?: string } | undefined)?.transactionHash
    const block = await rpc(url, 'eth_getBlockByNumber', ['latest', true])
    const mined = block.transactions.find((t: { to: string | null }) => t.to === loop)
    expect(mined).toBeDefined()
    if (hash !== undefined) expect(mined.hash).toBe(hash)
    const receipt = await rpc(url, 'eth_getTransactionReceipt', [mined.hash])
    expect(receipt.status).toBe('0x0')
    expect(receipt.gasUsed).toBe('0x100000')
  })

  it('replaying a mined transaction with an opcode tracer stops at the deadline; requests are served meanwhile', async () => {
    // The transaction is mined by a node without a deadline (rpcTimeout 0) into a --db directory, and replayed by a
    // node on that directory with the 500 ms deadline: its 20 M gas of loop took 0.3-0.7 s to mine, and take 5-16 s
    // to replay opcode by opcode (prestateTracer, ~1-3 µs an opcode), ten times the deadline or more on any machine.
    // (Mining and replaying under one deadline needed the mining to fit in it and the replay not to: a window of the
    // machine's speed that failed both ways, 4 runs in 6 on a loaded machine.) The block's first transactions, a
    // transfer and a short loop from the same sender, replay afterwards on the untouched parent state.
    const dir = mkdtempSync(join(tmpdir(), 'send-deadline-'))
    try {
      const miner = await startNode({ transport, rpcTimeout: 0, db: dir })
      let loopAt: string, transfer: string, short: string, heavy: string
      let parent: { balance: string; nonce: string }
      try {
        loopAt = await deployLoop(miner.url)
        expect(await rpc(miner.url, 'evm_setBlockGasLimit', [HUGE_BLOCK_GAS])).toBe(true)
        parent = {
          balance: await rpc(miner.url, 'eth_getBalance', [COW.address, 'latest']),
          nonce: await rpc(miner.url, 'eth_getTransactionCount', [COW.address, 'latest']),
        }
        await rpc(miner.url, 'evm_setAutomine', [false])
        transfer = await rpc(miner.url, 'eth_sendTransaction', [{ from: COW.address, to: COW1.address, value: '0x7' }])
        short = await rpc(miner.url, 'eth_sendTransaction', [{ from: COW.address, to: loopAt, gas: '0x40000' }])
        heavy = await rpc(miner.url, 'eth_sendTransaction', [{ from: COW.address, to: loopAt, gas: '0x1312d00' }])
        expect(await rpc(miner.url, 'evm_mine')).toBeNull()
        const block = await rpc(miner.url, 'eth_getBlockByNumber', ['latest', false])
        expect(block.transactions.slice(0, 3)).toEqual([transfer, short, heavy]) // then the Remasc transaction
        const receipt = await rpc(miner.url, 'eth_getTransactionReceipt', [heavy])
        expect(receipt).toMatchObject({ status: '0x0', gasUsed: '0x1312d00' }) // out of gas, mined
      } finally {
        await miner.close()
      }
      const replayLog = answerLog()
      const replayer = await startNode({ transport, rpcTimeout: 0.5, db: dir, onRequest: replayLog.onRequest })
      const ws = await WsClient.open(replayer.wsUrl)
      try {
        // the parent state read back from the directory first (by a trace of the transfer), so that the replay
        // below starts at once
        expect(await rpc(replayer.url, 'debug_traceTransaction', [transfer, { tracer: 'callTracer' }])).toMatchObject({
          type: 'CALL',
          from: COW.address,
          to: COW1.address,
          value: '0x7',
        })
        const from = replayLog.answered.length
        const trace = rpcError(replayer.url, 'debug_traceTransaction', [heavy, { tracer: 'prestateTracer' }])
        // a head start for the trace (a replay emits no event to wait on); were eth_chainId served before the
        // replay started, the order would be the same: this sleep cannot fail the test, only make it prove less
        await new Promise((r) => setTimeout(r, 5))
        await Promise.all([trace, ws.call('eth_chainId')])
        expect(replayLog.answered.slice(from)).toEqual(['eth_chainId', 'debug_traceTransaction'])
        expect(await trace).toMatchObject({ code: -32011, message: 'Execution has got timeout out.' })
        // the replay left nothing behind: the transfer replays on the parent state, and a call-frame trace of the
        // short loop answers
        const prestate = await rpc(replayer.url, 'debug_traceTransaction', [transfer, { tracer: 'prestateTracer' }])
        expect(BigInt(prestate[COW.address].balance)).toBe(BigInt(parent.balance))
        expect(BigInt(prestate[COW.address].nonce ?? 0)).toBe(BigInt(parent.nonce))
        const frames = await rpc(replayer.url, 'debug_traceTransaction', [short, { tracer: 'callTracer' }])
        expect(frames).toMatchObject({ type: 'CALL', to: loopAt, error: 'out of gas' })
      } finally {
        await ws.close()
        await replayer.close()
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('evm_mine with the transaction pending mines the block without it and drops it', async () => {
    await rpc(url, 'evm_setAutomine', [false])
    try {
      const number = BigInt(await rpc(url, 'eth_blockNumber'))
      const heavy = await rpc<string>(url, 'eth_sendTransaction', [{ from: COW.address, to: loop, gas: HUGE_GAS }])
      const transfer = await rpc<string>(url, 'eth_sendTransaction', [
        { from: COW1.address, to: COW.address, value: '0x3' },
      ])
      expect(await rpc(url, 'txpool_status')).toEqual({ pending: 2, queued: 0 })
      expect(await rpc(url, 'evm_mine')).toBeNull()
      const block = await rpc(url, 'eth_getBlockByNumber', ['latest', false])
      expect(BigInt(block.number)).toBe(number + 1n)
      expect(block.transactions).toContain(transfer)
      expect(block.transactions).not.toContain(heavy)
      expect((await rpc(url, 'eth_getTransactionReceipt', [transfer])).status).toBe('0x1')
      expect(await rpc(url, 'eth_getTransactionByHash', [heavy])).toBeNull()
      expect(await rpc(url, 'txpool_status')).toEqual({ pending: 0, queued: 0 })
      expect(dropped.at(-1)).toEqual([heavy, 'Execution has got timeout out.'])
    } finally {
      await rpc(url, 'evm_setAutomine', [true])
    }
  })

  it('anvil_mine and the pending block leave such a transaction out too', async () => {
    await rpc(url, 'evm_setAutomine', [false])
    try {
      // the pending block is built without it, and it is dropped
      const first = await rpc<string>(url, 'eth_sendTransaction', [{ from: COW.address, to: loop, gas: HUGE_GAS }])
      const pending = await rpc(url, 'eth_getBlockByNumber', ['pending', false])
      expect(pending.transactions).not.toContain(first)
      expect(dropped.at(-1)).toEqual([first, 'Execution has got timeout out.'])
      expect(await rpc(url, 'txpool_status')).toEqual({ pending: 0, queued: 0 })
      // anvil_mine mines its blocks
      const number = BigInt(await rpc(url, 'eth_blockNumber'))
      const second = await rpc<string>(url, 'eth_sendTransaction', [{ from: COW.address, to: loop, gas: HUGE_GAS }])
      expect(await rpc(url, 'anvil_mine', ['0x2'])).toBeNull()
      expect(BigInt(await rpc(url, 'eth_blockNumber'))).toBe(number + 2n)
      expect(await rpc(url, 'eth_getTransactionByHash', [second])).toBeNull()
      expect(dropped.at(-1)).toEqual([second, 'Execution has got timeout out.'])
    } finally {
      await rpc(url, 'evm_setAutomine', [true])
    }
  })
})

describe('rpcTimeout: 0', () => {
  let node: Node
  beforeAll(async () => {
    node = await startNode({ rpcTimeout: 0 })
  })
  afterAll(() => node?.close())

  it('stops no send: a long loop runs until its gas is spent and is mined', async () => {
    const url = node.url
    const loop = await deployLoop(url)
    expect(await rpc(url, 'evm_setBlockGasLimit', [HUGE_BLOCK_GAS])).toBe(true)
    const gas = '0x2faf080' // 50 M gas: about a second of looping, past a deadline of 0.5 s
    const number = BigInt(await rpc(url, 'eth_blockNumber'))
    const pending = nextPending(node)
    const send = rpcError(url, 'eth_sendTransaction', [{ from: COW.address, to: loop, gas }])
    await pending
    const order = await settleOrder([send, rpc(url, 'eth_chainId')])
    expect(order).toEqual([1, 0]) // served while the send ran
    expect((await send).code).toBe(-32015) // out of gas
    const block = await rpc(url, 'eth_getBlockByNumber', ['latest', true])
    expect(BigInt(block.number)).toBe(number + 1n)
    const mined = block.transactions.find((t: { to: string | null }) => t.to === loop)
    expect((await rpc(url, 'eth_getTransactionReceipt', [mined.hash])).gasUsed).toBe(gas)
  })
})
