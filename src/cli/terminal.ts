/**
 * The CLI's terminal output: chalk (loaded only when output is coloured), one-line writes to stdout, and the
 * console.log block printed under each request.
 */
import { writeSync } from 'node:fs'
import type { ChalkInstance } from 'chalk'
import type { ConsoleLogEvent } from '../chain/chain.js'

/**
 * chalk, once {@link loadChalk} ran. Loaded only where output is coloured (banner, request log, error lines), not
 * for `--silent`: chalk's colour detection requires node:tty, node:os and so node:net at import (~5 ms of start-up).
 */
export let chalk: ChalkInstance

/** Loads {@link chalk} (idempotent). */
export async function loadChalk(): Promise<void> {
  chalk ??= (await import('chalk')).default
}

/**
 * Writes `text` and a newline to stdout with write(2) on fd 1, as console.log would. Creating `process.stdout`
 * loads node:net (pipe), node:tty (terminal) or node:stream (file): ~3-6 ms of start-up for one line. A text
 * below PIPE_BUF (4 KB) is written whole or not at all; whatever write(2) refuses (EAGAIN on a non-blocking
 * pipe, EPIPE…) goes to console.log as before.
 */
export function printLine(text: string): void {
  const bytes = Buffer.from(text + '\n', 'utf8')
  let written = 0
  try {
    while (written < bytes.length) written += writeSync(1, bytes, written)
  } catch {
    console.log(bytes.toString('utf8', written, bytes.length - 1))
  }
}

/**
 * The CLI's console.log output: a heading naming the transaction (or eth_call / eth_estimateGas), then the
 * lines indented, as Hardhat prints them under each request.
 */
export function consoleBlock(e: ConsoleLogEvent): string {
  const head =
    e.source === 'transaction'
      ? `console.log (transaction 0x${Buffer.from(e.hash!).toString('hex')}):`
      : `console.log (${e.source === 'call' ? 'eth_call' : 'eth_estimateGas'}):`
  return [chalk.dim(head), ...e.lines.map((l) => '  ' + l)].join('\n')
}
