/**
 * The CLI's display of long work — a fork's start-up, a `--load-state` file read, a `--db` directory opened, the
 * `--dump-state` file written on exit — fed by the node's progress reports (NodeConfig.onProgress).
 *
 * Work that ends within {@link SHOW_AFTER_MS} shows nothing (the output stays as it was). Longer work shows:
 * - on a terminal, an `ora` spinner line on stdout with the step under way and its figures, replaced at the end by
 *   one `✔ <title>… done (<summary>, <seconds> s)` line (`✖` on failure). ora (bundled, initialised on first
 *   import) is imported from half the delay on, and only when stdout may be a terminal: a start without long work,
 *   or whose work ends quickly, or without a terminal never loads it (start-up unchanged, measured).
 * - elsewhere (a pipe, a file, a CI log, `TERM=dumb`, `CI` set), two plain lines, `<title>…` when it is shown and
 *   `<title>… done (<summary>, <seconds> s)` at the end: no spinner frames, no carriage returns.
 * Nothing at all with `--silent` (the caller then makes no display).
 *
 * The environment variable NODE_CLI_PROGRESS_DELAY_MS replaces {@link SHOW_AFTER_MS} (tests set 0, so that the
 * display does not depend on the speed of the machine).
 */
import { fstatSync } from 'node:fs'
import type { Ora } from 'ora'
import type { NodeConfig, Progress, ProgressListener } from '../config.js'
import { printLine } from './terminal.js'

/** Work shorter than this (ms) shows nothing. */
const SHOW_AFTER_MS = 500

/**
 * Whether stdout may be an interactive terminal, without loading anything: a character device (terminals, but
 * also /dev/null), TERM not dumb and no CI variable (as ora's is-interactive decides).
 */
function mayBeTerminal(): boolean {
  if (process.env.TERM === 'dumb' || 'CI' in process.env) return false
  try {
    return fstatSync(1).isCharacterDevice()
  } catch {
    return false
  }
}

/**
 * Whether stdout is a terminal of a known width (a pseudo-terminal nobody sized has 0 columns, where ora cannot
 * tell how many lines to clear). Asked only when something is shown: `process.stdout` on a terminal loads
 * node:tty and node:net (~5-10 ms), which a start whose work ends quickly does not pay.
 */
function terminalStdout(): boolean {
  return process.stdout.isTTY === true && (process.stdout.columns ?? 0) > 0
}

/** `n` with thousands separated by commas (the same on every locale). */
function count(n: number): string {
  return Math.round(n)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, ',')
}

/** A number of bytes in MiB, one decimal. */
function mib(bytes: number): string {
  return `${(bytes / 2 ** 20).toFixed(1)} MiB`
}

/** An amount in its unit: bytes in MiB, anything else counted. */
function amount(n: number, unit: string | undefined): string {
  return unit === 'bytes' ? mib(n) : `${count(n)}${unit ? ' ' + unit : ''}`
}

/** The other counts of a report, e.g. `45,000 accounts, 450,000 cells`. */
function counts(p: Progress | undefined): string {
  return Object.entries(p?.counts ?? {})
    .map(([name, n]) => `${count(n)} ${name}`)
    .join(', ')
}

/**
 * One report as the spinner shows it, e.g. `reading 45% of 141.6 MiB (45,000 accounts, 450,000 cells)`,
 * `building the state trie: 390,000 of 1,300,000 entries`, `asking the remote for its chain id and head`.
 */
export function describeProgress(p: Progress): string {
  let text = p.phase
  if (p.done !== undefined) {
    if (p.total !== undefined && p.total > 0)
      text +=
        p.unit === 'bytes'
          ? ` ${Math.min(100, Math.floor((p.done / p.total) * 100))}% of ${mib(p.total)}`
          : `: ${count(p.done)} of ${amount(p.total, p.unit)}`
    else text += ` ${amount(p.done, p.unit)}`
  }
  const more = counts(p)
  return more ? `${text} (${more})` : text
}

/** The operation being displayed. */
interface Operation {
  title: string
  started: number
  shown: boolean
  last?: Progress
  /** Shows the operation after the delay; imports ora at half of it (on a possible terminal). */
  timers: NodeJS.Timeout[]
}

/**
 * The display of one long operation at a time ({@link begin} … {@link end} or {@link fail}); reports arriving
 * outside an operation are ignored.
 */
export class ProgressDisplay {
  /** NodeConfig.onProgress. */
  readonly listener: ProgressListener = (p) => this.report(p)
  private readonly maybeTty = mayBeTerminal()
  /** Whether a spinner is shown (decided when an operation is first shown). */
  private tty: boolean | undefined
  private readonly delayMs = Number(process.env.NODE_CLI_PROGRESS_DELAY_MS ?? SHOW_AFTER_MS)
  private op: Operation | undefined
  private spinner: Ora | undefined
  private ora: Promise<typeof import('ora').default> | undefined

  /**
   * Starts displaying an operation (shown once it has run {@link SHOW_AFTER_MS}).
   * @param title what it is, e.g. `Loading state file ./state.json`
   */
  begin(title: string): void {
    this.finish()
    const op: Operation = { title, started: Date.now(), shown: false, timers: [] }
    this.op = op
    if (this.delayMs <= 0) return this.show(op)
    op.timers.push(setTimeout(() => this.show(op), this.delayMs).unref())
    // ora is imported ahead of the spinner, while the event loop may still be free (a synchronous stretch of the
    // work would hold the import back), but not for work that ends quickly (a start with --db: ~15-30 ms less)
    if (this.maybeTty) op.timers.push(setTimeout(() => this.loadOra(), this.delayMs / 2).unref())
  }

  /** Starts importing ora (once); its default export. */
  private loadOra(): Promise<typeof import('ora').default> {
    return (this.ora ??= import('ora').then((m) => m.default))
  }

  /**
   * Ends the operation: `<title>… done (<summary>, <seconds> s)` when it was shown, nothing otherwise.
   * @param summary e.g. `100,000 accounts, 1,000,000 storage cells` (default: the last report's counts, and its
   *   amount when in bytes)
   */
  end(summary?: string): void {
    const op = this.finish()
    if (!op?.shown) return
    const last = op.last
    const bytes = last?.unit === 'bytes' && last.done !== undefined ? mib(last.done) : ''
    const what = [
      summary ?? [counts(last), bytes].filter(Boolean).join(', '),
      `${((Date.now() - op.started) / 1000).toFixed(1)} s`,
    ]
    const line = `${op.title}… done (${what.filter(Boolean).join(', ')})`
    if (this.spinner) this.spinner.succeed(line)
    else printLine(line)
    this.spinner = undefined
  }

  /**
   * Ends the operation as failed (the caller prints the error): `<title>… <why>` when it was shown.
   * @param why default `failed`
   */
  fail(why = 'failed'): void {
    const op = this.finish()
    if (!op?.shown) return
    const line = `${op.title}… ${why}`
    if (this.spinner) this.spinner.fail(line)
    else printLine(line)
    this.spinner = undefined
  }

  /** Stops the operation under way (if any) and returns it. */
  private finish(): Operation | undefined {
    const op = this.op
    this.op = undefined
    if (op) for (const t of op.timers) clearTimeout(t)
    return op
  }

  private report(p: Progress): void {
    const op = this.op
    if (op === undefined) return
    op.last = p
    if (!op.shown && Date.now() - op.started >= this.delayMs) this.show(op)
    else if (this.spinner) {
      this.spinner.text = this.text(op)
      // (the work reports from synchronous stretches too, where ora's own timer cannot run)
      this.spinner.render()
    }
  }

  private text(op: Operation): string {
    return op.last ? `${op.title}: ${describeProgress(op.last)}` : `${op.title}…`
  }

  private show(op: Operation): void {
    if (op.shown || this.op !== op) return
    op.shown = true
    this.tty ??= this.maybeTty && terminalStdout()
    if (!this.tty) {
      printLine(`${op.title}…`)
      return
    }
    void this.loadOra().then(
      (ora) => {
        if (this.op !== op) return
        // stdin and signals are left alone: ora's stdin discarding puts the terminal in raw mode, where Ctrl+C is
        // a key it handles in JavaScript; hiding the cursor installs exit handlers on SIGINT (signal-exit, to show
        // it again). Either way a Ctrl+C during a synchronous stretch of the work (building a state trie) would
        // wait for it to end instead of stopping the process at once.
        this.spinner = ora({
          text: this.text(op),
          stream: process.stdout,
          isEnabled: true,
          discardStdin: false,
          hideCursor: false,
        })
        this.spinner.start()
      },
      () => undefined, // no spinner (the operation's end line still comes)
    )
  }
}

/**
 * What the node does at start that may take long, as a display title: forking (the remote's origin only: its
 * path may hold an API key), loading a state file, or opening a `--db` directory; undefined for none.
 */
export function startTitle(config: NodeConfig): string | undefined {
  if (config.fork) {
    let remote = config.fork.url
    try {
      remote = new URL(remote).origin
    } catch {
      // (openFork refuses it, naming it)
    }
    return `Forking ${remote}`
  }
  if (config.loadState !== undefined) return `Loading state file ${config.loadState}`
  if (config.db !== undefined) return `Opening --db ${config.db}`
  return undefined
}
