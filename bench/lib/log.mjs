// Console output of the benchmark: progress lines and durations as the tables print them.

/** console.log, the benchmark's only output channel. */
export const log = (...a) => console.log(...a)

/** A progress line under the current heading (three spaces in). */
export const step = (s) => log(`   ${s}`)

/** Milliseconds as "850 ms" or, from 1 s on, "1.2 s". */
export const fmtMs = (ms) => (ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${ms.toFixed(0)} ms`)

/** Minutes as "2.5 min" or, below a minute, "30 s". */
export const fmtMin = (m) => (m >= 1 ? `${+m.toFixed(2)} min` : `${Math.round(m * 60)} s`)
