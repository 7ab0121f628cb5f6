/**
 * Pacing of requests to a fork's remote node: a bound on requests in flight and a requests-per-second cap where
 * a batch of n calls costs n (hosted services count calls, not HTTP requests). Own code rather than p-limit or
 * p-throttle: neither weighs a batch by its size, and both together are longer than this file.
 */

/** At most `limit` holders at a time; the others wait in FIFO order. */
export class Semaphore {
  private active = 0
  private readonly waiting: Array<() => void> = []

  /** @param limit holders allowed at once (≥ 1) */
  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new Error(`concurrency must be a positive integer, got ${limit}`)
  }

  /** Waits for a free place; call the returned function exactly once to give it back. */
  async acquire(): Promise<() => void> {
    if (this.active >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve))
    else this.active++
    let released = false
    return () => {
      if (released) return
      released = true
      const next = this.waiting.shift()
      if (next !== undefined) next()
      else this.active--
    }
  }

  /** Holders now (for statistics and tests). */
  get inUse(): number {
    return this.active
  }
}

/**
 * A token bucket of `perSecond` tokens, refilled continuously, holding at most one second's worth. `take(n)`
 * waits until n tokens are there; takers are served in FIFO order. A take larger than the bucket is clamped to
 * its size (callers keep batches no larger than the rate).
 */
export class RateLimiter {
  private tokens: number
  private last: number
  private chain: Promise<void> = Promise.resolve()

  /**
   * @param perSecond tokens per second (> 0)
   * @param now clock in ms (injectable for tests)
   */
  constructor(
    readonly perSecond: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    if (!(perSecond > 0) || !Number.isFinite(perSecond))
      throw new Error(`requests per second must be positive, got ${perSecond}`)
    this.tokens = perSecond
    this.last = now()
  }

  /** The largest take that is not clamped: the bucket's size (at least 1). */
  get capacity(): number {
    return Math.max(1, Math.floor(this.perSecond))
  }

  /** Resolves once `n` tokens (clamped to {@link capacity}) have been taken. */
  take(n: number): Promise<void> {
    const want = Math.min(Math.max(n, 0), this.capacity)
    const turn = this.chain.then(() => this.wait(want))
    this.chain = turn
    return turn
  }

  private async wait(n: number): Promise<void> {
    for (;;) {
      const t = this.now()
      this.tokens = Math.min(this.capacity, this.tokens + ((t - this.last) * this.perSecond) / 1000)
      this.last = t
      if (this.tokens >= n) {
        this.tokens -= n
        return
      }
      const ms = Math.ceil(((n - this.tokens) * 1000) / this.perSecond)
      await new Promise((resolve) => setTimeout(resolve, ms))
    }
  }
}
