/**
 * Running the CLI as a user runs it: `node bin/node-cli.js …` in a child process (after the build in `prepare`).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'

/** The launcher. */
export const BIN = fileURLToPath(new URL('../../bin/node-cli.js', import.meta.url))

/** A started CLI process. */
export interface CliProcess {
  child: ChildProcess
  /** stdout and stderr so far. */
  output: () => string
  /** Resolves with the first match of `re` in the output; rejects when the process exits first. */
  waitFor: (re: RegExp) => Promise<RegExpMatchArray>
}

const started: ChildProcess[] = []

/**
 * Starts the CLI with `args` (colours off).
 * @param env extra environment
 * @param bin the launcher to run
 * @param node the node binary to run it with (default: the one running the tests)
 * @param nodeArgs Node's own options, before the launcher (e.g. V8 flags NODE_OPTIONS refuses)
 */
export function runCli(
  args: string[],
  env: Record<string, string> = {},
  bin = BIN,
  node = process.execPath,
  nodeArgs: string[] = [],
): CliProcess {
  const child = spawn(node, [...nodeArgs, bin, ...args], { env: { ...process.env, FORCE_COLOR: '0', ...env } })
  started.push(child)
  let out = ''
  const waiters: { re: RegExp; resolve: (m: RegExpMatchArray) => void }[] = []
  const onData = (d: Buffer) => {
    out += d.toString()
    for (const w of [...waiters]) {
      const m = out.match(w.re)
      if (m) {
        waiters.splice(waiters.indexOf(w), 1)
        w.resolve(m)
      }
    }
  }
  child.stdout!.on('data', onData)
  child.stderr!.on('data', onData)
  return {
    child,
    output: () => out,
    waitFor: (re) =>
      new Promise((resolve, reject) => {
        const m = out.match(re)
        if (m) return resolve(m)
        waiters.push({ re, resolve })
        // 'close' comes after the process exited and its output was all read: no later line can match
        child.once('close', () => reject(new Error(`exited before ${re}: ${out}`)))
      }),
  }
}

/** The polling wait, for the CLI tests that import it from here (./wait.ts). */
export { waitUntil } from './wait.js'

/** Kills every CLI process still running (afterEach). */
export function killStartedClis(): void {
  for (const c of started.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL')
}
