/**
 * Progress of long work through the library API (NodeConfig.onProgress; src/util/progress.ts): what a
 * `--load-state` read, the dump on close, a `--db` open and format upgrade, and a fork's start-up report, in which
 * order, with consistent figures, and no more often than the throttle allows. The CLI's display of it is tested in
 * test/cli-progress.test.ts.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { Progress } from '../src/config.js'
import { PROGRESS_INTERVAL_MS, throttleProgress } from '../src/util/progress.js'
import { closeForkTest, forkConfig, startForkRemote } from './helpers/fork.js'
import { rpc, startNode } from './helpers/node.js'
import { writeAnvilStateFile } from './helpers/state-file.js'

const dir = mkdtempSync(join(tmpdir(), 'node-cli-progress-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** A listener recording each report with the time it arrived (ms). */
function recorder(): { events: (Progress & { at: number })[]; listener: (p: Progress) => void } {
  const events: (Progress & { at: number })[] = []
  return { events, listener: (p) => events.push({ ...p, at: performance.now() }) }
}

/** The distinct phases of `events`, in order of first appearance. */
function phases(events: Progress[]): string[] {
  return [...new Set(events.map((e) => e.phase))]
}

/**
 * Reports of one phase are throttled: over the span between its first and last report, at most one per interval
 * (the first passes at once). Counted over the whole span rather than between neighbours: a report delayed on its
 * way to the listener (a busy machine) shortens the gap to the next one without breaking the throttle, whose own
 * clock is tested with an injected one above.
 */
function expectThrottled(events: (Progress & { at: number })[]): void {
  for (const phase of phases(events)) {
    const of = events.filter((e) => e.phase === phase)
    const span = of[of.length - 1]!.at - of[0]!.at
    // (2 ms of slack: the throttle reads whole milliseconds, the listener performance.now)
    expect(of.length - 1).toBeLessThanOrEqual(Math.floor(span / (PROGRESS_INTERVAL_MS - 2)) + 1)
  }
}

describe('throttleProgress', () => {
  it('passes the first report of each step, then at most one per interval', () => {
    let t = 0
    const got: string[] = []
    const report = throttleProgress(
      (p) => got.push(`${p.phase}:${p.done}`),
      100,
      () => t,
    )
    report({ phase: 'a', done: 1 })
    t = 50
    report({ phase: 'a', done: 2 })
    t = 100
    report({ phase: 'a', done: 3 })
    t = 120
    report({ phase: 'b', done: 1 })
    t = 130
    report({ phase: 'b', done: 2 })
    expect(got).toEqual(['a:1', 'a:3', 'b:1'])
  })
})

describe('NodeConfig.onProgress', () => {
  const ACCOUNTS = 20_000
  const SLOTS = 10
  const file = join(dir, 'big.json')
  writeAnvilStateFile(file, ACCOUNTS, SLOTS)

  it('--load-state reports reading (bytes of the file, accounts, cells), sorting and building; the dump on close reports writing', async () => {
    const { events, listener } = recorder()
    const dump = join(dir, 'dump.json')
    const node = await startNode({ loadState: file, dumpState: dump, onProgress: listener })
    expect(node.loadedState).toMatchObject({ accounts: ACCOUNTS, cells: ACCOUNTS * SLOTS })
    expect(phases(events)).toEqual(['reading', 'sorting entries', 'building the state trie'])
    expectThrottled(events)
    const size = statSync(file).size
    const reading = events.filter((e) => e.phase === 'reading')
    expect(reading.length).toBeGreaterThanOrEqual(1)
    let previous = { done: 0, accounts: 0, cells: 0 }
    for (const e of reading) {
      expect(e).toMatchObject({ total: size, unit: 'bytes' })
      expect(e.done).toBeGreaterThan(0)
      expect(e.done).toBeLessThanOrEqual(size)
      const now = { done: e.done!, accounts: e.counts!.accounts!, cells: e.counts!.cells! }
      expect(now.done).toBeGreaterThanOrEqual(previous.done)
      expect(now.accounts).toBeGreaterThanOrEqual(previous.accounts)
      expect(now.accounts).toBeLessThanOrEqual(ACCOUNTS)
      expect(now.cells).toBe(now.accounts * SLOTS)
      previous = now
    }
    const building = events.filter((e) => e.phase === 'building the state trie')
    // the file's entries (account, code, storage marker, cells) and the genesis state's, built once each
    const total = building[0]!.total!
    expect(total).toBeGreaterThan(ACCOUNTS * (SLOTS + 3))
    for (const e of building) expect(e.done).toBeLessThanOrEqual(total)

    // node.dumpState (and the --state-interval dumps) report nothing; the dump on close does
    const before = events.length
    await node.dumpState(join(dir, 'quiet.json'))
    expect(events.length).toBe(before)
    await node.close()
    const closing = events.slice(before)
    expect(phases(closing)).toEqual(['writing', 'syncing'])
    expectThrottled(closing)
    const synced = closing[closing.length - 1]!
    expect(synced.done).toBe(statSync(dump).size)
    expect(synced.counts!.accounts).toBeGreaterThanOrEqual(ACCOUNTS)
    expect(synced.counts!.cells).toBe(ACCOUNTS * SLOTS)
  }, 60_000)

  it('--load-state of a node-cli file with blocks also reports importing blocks', async () => {
    const source = await startNode()
    await rpc(source.url, 'anvil_mine', ['0x50'])
    const file = join(dir, 'chain.json')
    await source.dumpState(file)
    await source.close()
    const { events, listener } = recorder()
    const node = await startNode({ loadState: file, onProgress: listener })
    try {
      expect(node.loadedState).toMatchObject({ kind: 'chain', head: 80n })
      expect(phases(events)).toEqual(['reading', 'sorting entries', 'building the state trie', 'importing blocks'])
      const importing = events.filter((e) => e.phase === 'importing blocks')
      expect(importing[0]).toMatchObject({ done: 0, total: 80, unit: 'blocks' })
      for (const e of importing) expect(e.done).toBeLessThan(80)
    } finally {
      await node.close()
    }
  }, 60_000)

  it('--db reports opening the database and reading the stored chain, at the first start and a restart', async () => {
    const db = join(dir, 'db')
    const first = recorder()
    const a = await startNode({ db, onProgress: first.listener })
    expect(phases(first.events)).toEqual(['opening the database', 'reading the stored chain'])
    await rpc(a.url, 'anvil_mine', ['0x20'])
    await a.close()

    const second = recorder()
    const b = await startNode({ db, onProgress: second.listener })
    expect(phases(second.events)).toEqual(['opening the database', 'reading the stored chain'])
    expect(await rpc(b.url, 'eth_blockNumber')).toBe('0x20')
    await b.close()
  }, 60_000)

  it('a fork reports asking the remote, the fork block, the dev accounts and the cache, in that order', async () => {
    const remote = await startForkRemote()
    const { events, listener } = recorder()
    const fork = await startNode({ fork: forkConfig(remote.proxy.url), onProgress: listener })
    try {
      expect(phases(events)).toEqual([
        'asking the remote for its chain id and head',
        'reading fork block #0',
        'fetching the dev accounts from the remote',
        'opening the fork cache',
      ])
      for (const e of events) expect(e.done).toBeUndefined()
    } finally {
      await closeForkTest(fork, remote)
    }
  }, 60_000)
})
