/**
 * Test helper: wait for a condition instead of sleeping for a guessed time.
 */

/**
 * Resolves once `check` holds, polled every `everyMs` (the check runs at once first), or fails naming `what` after
 * `ms` — a generous deadline, never a timing assertion.
 * @param check a synchronous or asynchronous condition
 * @param what what is awaited, for the error message
 * @param ms the deadline in ms (default 30 000)
 * @param everyMs the polling interval in ms (default 20)
 * @throws Error `timed out waiting for <what>` once the deadline has passed
 */
export async function waitUntil(
  check: () => boolean | Promise<boolean>,
  what: string,
  ms = 30_000,
  everyMs = 20,
): Promise<void> {
  const end = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, everyMs))
  }
}

/**
 * Resolves with the first value other than undefined that `check` returns, polled every 5 ms (the check runs at
 * once first), or fails naming `what` after `ms`.
 * @param check a synchronous probe: undefined while the awaited thing has not happened
 * @param what what is awaited, for the error message
 * @param ms the deadline in ms (default 3 000)
 * @throws Error `timed out waiting for <what>` once the deadline has passed
 */
export async function until<T>(check: () => T | undefined, what: string, ms = 3000): Promise<T> {
  const end = Date.now() + ms
  for (;;) {
    const v = check()
    if (v !== undefined) return v
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 5))
  }
}
