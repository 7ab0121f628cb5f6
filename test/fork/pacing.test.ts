/**
 * Pacing of the fork's remote requests: the semaphore hands out places in FIFO order, and the rate limiter
 * serves weighted takes within its rate (an injected clock: no timing assertions).
 */
import { describe, expect, it } from 'vitest'
import { RateLimiter, Semaphore } from '../../src/fork/pacing.js'

describe('Semaphore', () => {
  it('lets `limit` holders in and the next waiter in order as each leaves', async () => {
    const s = new Semaphore(2)
    const order: string[] = []
    const a = await s.acquire()
    const b = await s.acquire()
    expect(s.inUse).toBe(2)
    const c = s.acquire().then((release) => (order.push('c'), release))
    const d = s.acquire().then((release) => (order.push('d'), release))
    await Promise.resolve()
    expect(order).toEqual([])
    a()
    a() // a second release of the same place is ignored
    const releaseC = await c
    expect(order).toEqual(['c'])
    b()
    const releaseD = await d
    expect(order).toEqual(['c', 'd'])
    releaseC()
    releaseD()
    expect(s.inUse).toBe(0)
  })

  it('refuses a limit below one', () => {
    expect(() => new Semaphore(0)).toThrow(/positive integer/)
    expect(() => new Semaphore(1.5)).toThrow(/positive integer/)
  })
})

describe('RateLimiter', () => {
  it('serves a second of tokens at once, then waits for the clock', async () => {
    let now = 0
    const limiter = new RateLimiter(10, () => now)
    expect(limiter.capacity).toBe(10)
    await limiter.take(10)
    let served = false
    const next = limiter.take(5).then(() => (served = true))
    // a negative check (the clock stands still, so nothing may be served): 20 ms outlasts the microtasks and a
    // short timer that a take served too early would resolve in; the limiter's own wait here is 500 ms
    await new Promise((r) => setTimeout(r, 20))
    expect(served).toBe(false)
    now = 500 // half a second: five tokens back
    await next
    expect(served).toBe(true)
  })

  it('clamps a take larger than its capacity, and refuses a rate that is not positive', async () => {
    let now = 0
    const limiter = new RateLimiter(2, () => now)
    await limiter.take(50)
    const later = limiter.take(1)
    now = 500
    await later
    expect(() => new RateLimiter(0)).toThrow(/positive/)
    expect(() => new RateLimiter(Number.NaN)).toThrow(/positive/)
  })
})
