// The benchmark's statistics, in one place (tested by test/bench/stats.test.ts): the median, the nearest-rank
// quantile, the least-squares slope, and the change read off a least-squares line through a series.

/**
 * The median of `xs`: the middle value, or the mean of the two middle values for an even count; NaN when `xs` is
 * empty (callers check for that). Does not change `xs`.
 * @param {number[]} xs
 * @returns {number}
 */
export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}

/**
 * The q-quantile of `xs` by nearest rank: the ⌈q·n⌉-th smallest value (the smallest for q = 0), or null when `xs`
 * is empty. Sorts `xs` in place.
 * @param {number[]} xs
 * @param {number} q 0..1
 * @returns {number | null}
 */
export function quantile(xs, q) {
  if (xs.length === 0) return null
  xs.sort((a, b) => a - b)
  return xs[Math.min(xs.length - 1, Math.max(0, Math.ceil(q * xs.length) - 1))]
}

/**
 * The least-squares slope of `ys` over `xs` (same length): null with fewer than 2 points or no spread in `xs`.
 * @param {number[]} xs
 * @param {number[]} ys
 * @returns {number | null}
 */
export function slope(xs, ys) {
  const n = xs.length
  if (n < 2) return null
  const mx = xs.reduce((a, b) => a + b, 0) / n
  const my = ys.reduce((a, b) => a + b, 0) / n
  let sxy = 0
  let sxx = 0
  for (let i = 0; i < n; i++) {
    sxy += (xs[i] - mx) * (ys[i] - my)
    sxx += (xs[i] - mx) ** 2
  }
  return sxx === 0 ? null : sxy / sxx
}

/**
 * A least-squares line through `ys` (one value per window, in order, at x = 0, 1, …): { pct — its value at the last
 * window against its value at the first, in %; spreadPct — the residual standard deviation in % of the mean }, each
 * rounded to 0.1; null when a value is missing, with fewer than 2 values, or when the line starts at or below 0.
 * @param {(number | null)[]} ys
 * @returns {{ pct: number, spreadPct: number } | null}
 */
export function fittedChange(ys) {
  if (ys.some((y) => y == null)) return null
  const xs = ys.map((_, i) => i)
  const k = slope(xs, ys)
  if (k == null) return null
  const n = ys.length
  const mean = ys.reduce((a, b) => a + b, 0) / n
  const first = mean - (k * (n - 1)) / 2
  const last = first + k * (n - 1)
  if (first <= 0) return null
  const residual = Math.sqrt(ys.reduce((a, y, i) => a + (y - (first + k * i)) ** 2, 0) / n)
  return { pct: +(((last - first) / first) * 100).toFixed(1), spreadPct: +((residual / mean) * 100).toFixed(1) }
}
