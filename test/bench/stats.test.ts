/**
 * The benchmark's statistics (bench/lib/stats.mjs) against hand-computed answers: the median, the nearest-rank
 * quantile behind the p50/p99 latencies, the least-squares slope behind the RSS growth figures, and the fitted
 * change behind the `fittedTrend` lines of --sustain; with the edge cases (empty, one sample, ties, a flat series,
 * an exactly linear one).
 */
import { describe, expect, it } from 'vitest'
import { fittedChange, median, quantile, slope } from '../../bench/lib/stats.mjs'

describe('median', () => {
  it('is the middle value, or the mean of the two middle ones, of the sorted values', () => {
    expect(median([3, 1, 2])).toBe(2)
    expect(median([4, 1, 3, 2])).toBe(2.5)
    expect(median([10, -4])).toBe(3)
  })

  it('edge cases: one sample, ties, empty (NaN), and the input is left as it was', () => {
    expect(median([7])).toBe(7)
    expect(median([2, 9, 2, 2])).toBe(2)
    expect(median([])).toBeNaN()
    const xs = [3, 1, 2]
    median(xs)
    expect(xs).toEqual([3, 1, 2])
  })
})

describe('quantile (nearest rank)', () => {
  const hundred = () => Array.from({ length: 100 }, (_, i) => 100 - i) // 100, 99, …, 1

  it('is the ⌈q·n⌉-th smallest value', () => {
    expect(quantile(hundred(), 0.5)).toBe(50)
    expect(quantile(hundred(), 0.99)).toBe(99)
    expect(quantile(hundred(), 0.995)).toBe(100) // ⌈99.5⌉ = 100
    expect(quantile([3, 1, 2], 0.5)).toBe(2) // ⌈1.5⌉ = 2nd
    expect(quantile([4, 1, 3, 2], 0.5)).toBe(2) // ⌈2⌉ = 2nd: no mean of the middle two
    expect(quantile([40, 10, 30, 20], 0.75)).toBe(30)
  })

  it('q = 0 gives the smallest value and q = 1 the largest', () => {
    expect(quantile([5, 3, 9], 0)).toBe(3)
    expect(quantile([5, 3, 9], 1)).toBe(9)
  })

  it('edge cases: empty (null), one sample, ties; it sorts its input in place', () => {
    expect(quantile([], 0.5)).toBeNull()
    expect(quantile([], 0.99)).toBeNull()
    expect(quantile([7], 0)).toBe(7)
    expect(quantile([7], 0.5)).toBe(7)
    expect(quantile([7], 0.99)).toBe(7)
    expect(quantile([5, 5, 1, 5], 0.5)).toBe(5)
    expect(quantile([5, 5, 1, 5], 0.25)).toBe(1)
    const xs = [3, 1, 2]
    quantile(xs, 0.5)
    expect(xs).toEqual([1, 2, 3])
  })
})

describe('slope (least squares)', () => {
  it('of an exactly linear series is its gradient', () => {
    expect(slope([0, 1, 2, 3], [1, 3, 5, 7])).toBe(2)
    expect(slope([10, 20, 40], [5, 4, 2])).toBeCloseTo(-0.1, 12)
  })

  it('of a scattered series: Σ(x−x̄)(y−ȳ) / Σ(x−x̄)²', () => {
    // x̄ = ȳ = 2.5; Σ(x−x̄)(y−ȳ) = 0.75 + 0.75 + 0.75 + 0.75 = 3; Σ(x−x̄)² = 2.25 + 0.25 + 0.25 + 2.25 = 5
    expect(slope([1, 2, 3, 4], [2, 1, 4, 3])).toBeCloseTo(0.6, 12)
    // the points need not be in order, nor evenly spaced
    expect(slope([4, 1, 3, 2], [3, 2, 4, 1])).toBeCloseTo(0.6, 12)
  })

  it('of a flat series is 0', () => {
    expect(slope([0, 1, 2, 3], [4, 4, 4, 4])).toBe(0)
  })

  it('is null for fewer than two points or no spread in x', () => {
    expect(slope([], [])).toBeNull()
    expect(slope([1], [5])).toBeNull()
    expect(slope([2, 2, 2], [1, 2, 3])).toBeNull()
  })
})

describe('fittedChange (a least-squares line through one value per window)', () => {
  it('an exactly linear series: the change from the first to the last value, no spread', () => {
    expect(fittedChange([10, 20, 30])).toEqual({ pct: 200, spreadPct: 0 })
    expect(fittedChange([30, 20, 10])).toEqual({ pct: -66.7, spreadPct: 0 })
  })

  it('a flat series: no change, no spread', () => {
    expect(fittedChange([5, 5, 5, 5])).toEqual({ pct: 0, spreadPct: 0 })
  })

  it('a scattered series: the line’s ends and the residuals’ standard deviation', () => {
    // [1, 3, 2] at x = 0, 1, 2: slope 0.5, mean 2, so the line runs from 1.5 to 2.5 (+66.7 %); the residuals
    // −0.5, 1, −0.5 have a mean square of 0.5, a standard deviation of √0.5 ≈ 0.7071: 35.4 % of the mean
    expect(fittedChange([1, 3, 2])).toEqual({ pct: 66.7, spreadPct: 35.4 })
    // ties: [4, 4, 8, 8]: slope 1.6, mean 6, line 3.6 → 8.4 (+133.3 %); residuals 0.4, −1.2, 1.2, −0.4: √0.8 ≈ 0.894
    expect(fittedChange([4, 4, 8, 8])).toEqual({ pct: 133.3, spreadPct: 14.9 })
  })

  it('is null for a missing value, fewer than two values, or a line that starts at or below 0', () => {
    expect(fittedChange([1, null, 3])).toBeNull()
    expect(fittedChange([])).toBeNull()
    expect(fittedChange([5])).toBeNull()
    expect(fittedChange([0, 1, 2])).toBeNull() // starts at 0
    expect(fittedChange([-1, 1, 3])).toBeNull()
  })
})
