/**
 * The chain's queue (src/util/serial-queue.ts): FIFO, one task at a time, and a turn of the event loop between two
 * tasks once the thread's 20 ms slice is spent (docs/architecture.md#fairness). Ordering only, no timing assertion.
 */
import { describe, expect, it } from 'vitest'
import { SerialQueue } from '../../src/util/serial-queue.js'
import { SLICE_MS } from '../../src/util/time-slices.js'

/** Keeps the thread busy for `ms` (what a short execution does). */
function busy(ms: number): void {
  const end = Date.now() + ms
  while (Date.now() < end) {
    // spin
  }
}

describe('SerialQueue', () => {
  it('runs tasks one at a time in order, and goes on after a failing one', async () => {
    const q = new SerialQueue()
    const order: number[] = []
    let running = 0
    const task = (i: number) => async () => {
      expect(++running).toBe(1)
      await Promise.resolve()
      order.push(i)
      running--
      if (i === 2) throw new Error('task 2')
      return i
    }
    const results = [0, 1, 2, 3].map((i) => q.run(task(i)))
    expect(q.size).toBe(4)
    await expect(results[2]).rejects.toThrow('task 2')
    expect(await Promise.all([results[0], results[1], results[3]])).toEqual([0, 1, 3])
    expect(order).toEqual([0, 1, 2, 3])
    expect(q.size).toBe(0)
  })

  it('lets the event loop run between short tasks once their run reaches a slice', async () => {
    const q = new SerialQueue()
    const COUNT = 40
    const TASK_MS = Math.ceil(SLICE_MS / 4)
    let done = 0
    // how many tasks had finished each time the event loop got a turn meanwhile
    const turns: number[] = []
    let running = true
    const tick = (): void => {
      if (!running) return
      turns.push(done)
      setImmediate(tick)
    }
    setImmediate(tick)
    const all = Array.from({ length: COUNT }, () =>
      q.run(() => {
        busy(TASK_MS)
        done++
      }),
    )
    await Promise.all(all)
    running = false
    const during = turns.filter((n) => n > 0 && n < COUNT)
    // the loop ran while the tasks were still queued (all 40 back to back would take 10 slices)...
    expect(during.length).toBeGreaterThanOrEqual(3)
    // ...at most a slice's worth of tasks (4 here, a few more on a loaded machine) apart
    const gaps = during.map((n, i) => n - (i === 0 ? 0 : during[i - 1]!))
    expect(Math.max(...gaps)).toBeLessThanOrEqual(COUNT / 2)
  })
})
