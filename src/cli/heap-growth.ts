/**
 * The CLI process's bound on V8's heap growth, applied shortly after start-up.
 */

/** Delay before {@link boundHeapGrowth} (ms). */
export const HEAP_FLAG_DELAY_MS = 200

/**
 * Caps V8's old-generation growth at 2× the live heap after each full GC (`--heap-growing-percent=100`) for this
 * process. V8's own factor rises towards 4× under a high allocation rate, and the EVM allocates ~0.5-0.8 MB per
 * transaction or estimate: over a 10-minute mixed load (bench --sustain) RSS grew ~64 KB per mined transaction
 * while the live heap grew ~15 KB. Measured in-process (800 transfers, 40 000 reads): peak RSS 314 → 218 MB (50%:
 * 199 MB), old space after a full GC 187 → 99 MB (50%: 70 MB); cost ~3% of automined tx/s (50%: ~5%).
 * NODE_CLI_HEAP_GROWING_PERCENT overrides it (0 = V8's dynamic factor). Not applied to library users
 * (`createNode`): the flag is process-wide.
 */
export function boundHeapGrowth(): void {
  const raw = process.env['NODE_CLI_HEAP_GROWING_PERCENT']
  const percent = raw === undefined || raw === '' ? 100 : Number(raw)
  if (!Number.isInteger(percent) || percent < 0) return
  void import('node:v8').then((v8) => v8.setFlagsFromString(`--heap-growing-percent=${percent}`))
}
