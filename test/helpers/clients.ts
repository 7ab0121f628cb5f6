/**
 * Running the client tools of test/clients (installed by install-clients.ts) as a user runs them.
 */
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { CLIENTS_DIR } from './install-clients.js'

export { CLIENTS_DIR }

/** What a finished command printed. */
export interface CommandResult {
  code: number | null
  stdout: string
  stderr: string
}

/**
 * Runs a command to completion (never rejects on a non-zero exit: the caller asserts on it).
 * @param cmd executable
 * @param args its arguments
 * @param opts cwd, extra environment, and a kill timeout in ms (default 240 000)
 */
export function runCommand(
  cmd: string,
  args: string[],
  opts: { cwd?: string; env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      cwd: opts.cwd ?? CLIENTS_DIR,
      env: { ...process.env, ...opts.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 240_000)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })
}

/** Path of an executable installed in test/clients/node_modules/.bin. */
export function clientBin(name: string): string {
  return join(CLIENTS_DIR, 'node_modules', '.bin', name)
}
