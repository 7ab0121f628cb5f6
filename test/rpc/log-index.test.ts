/**
 * Sparse log queries through the log index (src/blocks/log-index.ts): eth_getLogs naming contracts and/or event
 * signatures answers exactly what the bloom scan answers — checked against the full scan of the same range (a query
 * without address or topics, which the index cannot narrow) filtered here — on a chain of two emitting contracts,
 * empty stretches and reverts; with `--db` across a restart (blocks before it are scanned, after it indexed); on a
 * chain loaded from a state file.
 */
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import type { Node } from '../../src/index.js'
import { createNode } from '../../src/index.js'
import { dbNodes, FIXED_CLOCK } from '../helpers/db-nodes.js'
import { internals, rpc, startNode } from '../helpers/node.js'
import type { LogIndex } from '../../src/blocks/log-index.js'
import { seededRandom } from '../helpers/seeded.js'
import { q, sendTx } from './shapes.js'

/** Runtime: LOG2 with topic0 = calldata[0:32], topic1 = calldata[32:64], no data. */
const RUNTIME = '60203560003560006000a200'
const INIT = '0x600c600c60003960' + '0c' + '6000f3' + RUNTIME
const nodes = dbNodes('node-cli-logidx-', { clock: FIXED_CLOCK })
const word = (n: number): string => n.toString(16).padStart(64, '0')
const SIGS = [1, 2, 3].map((n) => '0x' + word(0xe0 + n))

interface RpcLog {
  address: string
  topics: string[]
  blockNumber: string
  logIndex: string
}

/** Deploys two emitters. */
async function emitters(url: string): Promise<string[]> {
  const out: string[] = []
  for (let i = 0; i < 2; i++) out.push((await sendTx(url, { data: INIT, gas: '0x100000' })).contractAddress)
  return out
}

/** Mines `blocks` blocks: some with one emitter's log (a random signature and argument), the rest empty. */
async function mine(url: string, contracts: string[], blocks: number, seed: number): Promise<void> {
  const r = seededRandom(seed)
  for (let b = 0; b < blocks; b++) {
    if (r(4) === 0) {
      const sig = SIGS[r(SIGS.length)]!.slice(2)
      await sendTx(url, { to: contracts[r(2)], data: '0x' + sig + word(r(3)), gas: '0x10000' })
    } else {
      await rpc(url, 'anvil_mine', [q(1 + r(20))])
    }
  }
}

/** The filters checked: contracts, signatures, both, a later topic only, and no match. */
function filters(contracts: string[]): Record<string, unknown>[] {
  const [a, b] = contracts as [string, string]
  return [
    { address: a },
    { address: [a, b] },
    { topics: [SIGS[0]] },
    { topics: [[SIGS[0], SIGS[2]]] },
    { address: b, topics: [SIGS[1]] },
    { address: a, topics: [SIGS[1], '0x' + word(2)] },
    { topics: [null, '0x' + word(1)] },
    { address: '0x00000000000000000000000000000000000a11ce' },
    { topics: [[]] },
  ]
}

/** Whether an RPC log matches a filter of {@link filters} (the spec's matching, restated). */
function matches(log: RpcLog, f: Record<string, unknown>): boolean {
  const addresses = f.address === undefined ? [] : ([] as string[]).concat(f.address as string)
  if (addresses.length > 0 && !addresses.map((x) => x.toLowerCase()).includes(log.address)) return false
  const topics = (f.topics ?? []) as (string | string[] | null)[]
  if (topics.length > log.topics.length) return false
  // an empty alternatives list is a wildcard, as null (src/rpc/params.ts)
  return topics.every(
    (t, i) => t === null || (Array.isArray(t) && t.length === 0) || ([] as string[]).concat(t).includes(log.topics[i]!),
  )
}

/** The node's log index. */
function logIndex(node: Node): LogIndex {
  return (internals(node).chain as unknown as { parts: { logs: LogIndex } }).parts.logs
}

/** Every filter over several ranges answers what the full scan, filtered, answers. */
async function expectSameAsScan(node: Node, contracts: string[]): Promise<number> {
  const head = Number(await rpc(node.url, 'eth_blockNumber'))
  let checked = 0
  for (const [from, to] of [
    [0, head],
    [1, Math.floor(head / 2)],
    [Math.floor(head / 3), head],
    [head - 5, head],
  ] as const) {
    const range = { fromBlock: q(Math.max(from, 0)), toBlock: q(to) }
    const all: RpcLog[] = await rpc(node.url, 'eth_getLogs', [range])
    for (const f of filters(contracts)) {
      const got: RpcLog[] = await rpc(node.url, 'eth_getLogs', [{ ...range, ...f }])
      expect(got, JSON.stringify({ range, f })).toEqual(all.filter((l) => matches(l, f)))
      checked += got.length
      if (f.topics === undefined) {
        // an address-only query: the index lists exactly the blocks with that contract's logs (where it covers)
        const index = logIndex(node)
        const start = Math.max(from, index.indexedFrom)
        const addresses = ([] as string[]).concat(f.address as string).map((a) => Buffer.from(a.slice(2), 'hex'))
        const blocks = index.candidates({ addresses, topic0: null }, start, to)
        const want = [...new Set(got.map((l) => Number(l.blockNumber)).filter((n) => n >= start))]
        expect(blocks).toEqual(want)
      }
    }
  }
  return checked
}

describe('sparse eth_getLogs', () => {
  it('answers as the scan does, also after reverts', async () => {
    const node = await startNode()
    try {
      const contracts = await emitters(node.url)
      await mine(node.url, contracts, 120, 1)
      expect(await expectSameAsScan(node, contracts)).toBeGreaterThan(20)
      const snap = await rpc(node.url, 'evm_snapshot')
      await mine(node.url, contracts, 40, 2)
      await rpc(node.url, 'evm_revert', [snap])
      await mine(node.url, contracts, 40, 3)
      await expectSameAsScan(node, contracts)
      await rpc(node.url, 'anvil_reset')
      const again = await emitters(node.url)
      await mine(node.url, again, 30, 4)
      await expectSameAsScan(node, again)
    } finally {
      await node.close()
    }
  })

  it('with --db: blocks stored before a restart are scanned, those after it indexed', async () => {
    const db = nodes.tempDir()
    const first = await nodes.open({ db })
    const contracts = await emitters(first.url)
    await mine(first.url, contracts, 60, 5)
    await nodes.close(first)
    const second = await nodes.open({ db })
    const restartHead = Number(await rpc(second.url, 'eth_blockNumber'))
    expect(logIndex(second).indexedFrom).toBe(restartHead + 1)
    await mine(second.url, contracts, 60, 6)
    expect(await expectSameAsScan(second, contracts)).toBeGreaterThan(10)
    await nodes.close(second)
  })

  it('on a chain loaded from a state file, and the blocks mined after it', async () => {
    const source = await startNode({ clock: FIXED_CLOCK })
    const file = path.join(nodes.tempDir(), 'chain.json')
    try {
      const contracts = await emitters(source.url)
      await mine(source.url, contracts, 50, 7)
      await source.dumpState(file)
      const loaded = await createNode({ port: 0, loadState: file })
      try {
        await mine(loaded.url, contracts, 50, 8)
        await expectSameAsScan(loaded, contracts)
      } finally {
        await loaded.close()
      }
    } finally {
      await source.close()
    }
  })
})
