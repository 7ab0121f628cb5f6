// Types of ./stats.mjs for the TypeScript tests that import it (test/bench/stats.test.ts); the docs are there.
export declare const median: (xs: number[]) => number
export declare function quantile(xs: number[], q: number): number | null
export declare function slope(xs: number[], ys: number[]): number | null
export declare function fittedChange(ys: (number | null)[]): { pct: number; spreadPct: number } | null
