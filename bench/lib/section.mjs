// @ts-check
/**
 * The opening every node-cli-only bench section (--memory, --restart, --sustain) shares: record the peer's
 * version, skip when it is unavailable, and record checks that print when they fail.
 */
import { log } from './log.mjs'

/**
 * Fills `out.version`; when the peer cannot run, marks `out` skipped (status, error), logs why and answers false.
 * @param {{ version: string | null, status: string, error: string | null }} out the section's result object
 * @param {{ version: () => string | null, unavailable: () => string | null }} peer
 * @param {string} label how the log names the section, e.g. `--memory`
 * @returns {boolean} whether the section can run
 */
export function peerAvailable(out, peer, label) {
  try {
    out.version = peer.version()
  } catch {}
  const why = peer.unavailable()
  if (!why) return true
  out.status = 'skipped'
  out.error = why
  log(`\n== ${label}: skipped — ${why}`)
  return false
}

/**
 * A recorder of checks: each goes to `out.checks` as {what, ok, detail}; a failed one is also logged.
 * @param {{ checks: { what: string, ok: boolean, detail: string | null }[] }} out
 * @param {string} tag how the log names the section, e.g. `restart`
 * @returns {(what: string, ok: unknown, detail?: string) => void}
 */
export function checkRecorder(out, tag) {
  return (what, ok, detail) => {
    out.checks.push({ what, ok: !!ok, detail: detail ?? null })
    if (!ok) log(`   CHECK FAILED [${tag}] ${what}${detail ? `: ${detail}` : ''}`)
  }
}
