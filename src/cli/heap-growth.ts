/**
 * The CLI process's bound on V8's heap growth, applied shortly after start-up.
 */

/** Delay before {@link boundHeapGrowth} (ms). */
export const HEAP_FLAG_DELAY_MS = 200

/**
 * Caps V8's old-generation growth at 1.5× the live heap after each full GC (`--heap-growing-percent=50`) for this
 * process. V8's own factor rises towards 4× under a high allocation rate, and the EVM allocates ~0.5-0.8 MB per
 * transaction or estimate: over a 10-minute mixed load (bench --sustain) RSS grew ~64 KB per mined transaction
 * while the live heap grew ~15 KB. Measured in-process (800 transfers, 40 000 reads): peak RSS 314 → 218 MB at
 * 100% (50%: 199 MB), old space after a full GC 187 → 99 MB (50%: 70 MB). 50% cost reads latency while the
 * bundled EVM promoted ~20 KB of garbage per call (a full GC every ~1.5 s); since the bundle's evm.js patch
 * (docs/architecture.md#bundle-patches) full GCs are rare, and under the 4-minute sustained load (in memory, back
 * to back with 100%) 50% gave median RSS 181 vs 205 MiB for one full GC every ~6.4 s (7.6 ms each: ~0.1% of the
 * time; 100%: every ~12 s), with the same read and transfer latency within the noise.
 * NODE_CLI_HEAP_GROWING_PERCENT overrides it (0 = V8's dynamic factor). Not applied to library users
 * (`createNode`): the flag is process-wide.
 */
export function boundHeapGrowth(): void {
  const raw = process.env['NODE_CLI_HEAP_GROWING_PERCENT']
  const percent = raw === undefined || raw === '' ? 50 : Number(raw)
  if (!Number.isInteger(percent) || percent < 0) return
  void import('node:v8').then((v8) => v8.setFlagsFromString(`--heap-growing-percent=${percent}`))
}
