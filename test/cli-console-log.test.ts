/**
 * The CLI prints Solidity console.log output under the transaction or call that made it, and
 * `--no-console-log` turns it off (a child process, as a user runs it).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { Interface } from 'ethers'
import { ConsoleProbe } from '../fixtures/index.js'
import { COW, rpc } from './helpers/node.js'
import { waitUntil } from './helpers/wait.js'

const BIN = fileURLToPath(new URL('../bin/node-cli.js', import.meta.url))
const children: ChildProcess[] = []
const probe = new Interface(ConsoleProbe.abi)

function start(args: string[]): { output: () => string; url: Promise<string> } {
  const child = spawn(process.execPath, [BIN, '--port', '0', ...args], { env: { ...process.env, FORCE_COLOR: '0' } })
  children.push(child)
  let out = ''
  const url = new Promise<string>((resolve, reject) => {
    const onData = (d: Buffer) => {
      out += d.toString()
      const m = out.match(/(http:\/\/127\.0\.0\.1:\d+)/)
      if (m) resolve(m[1]!)
    }
    child.stdout!.on('data', onData)
    child.stderr!.on('data', onData)
    child.once('exit', () => reject(new Error(out)))
  })
  return { output: () => out, url }
}

afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL')
})

/** Deploys ConsoleProbe, mines count(), calls all(); returns the count() transaction hash. */
async function exercise(url: string): Promise<string> {
  const deployHash = await rpc<string>(url, 'eth_sendTransaction', [
    { from: COW.address, data: ConsoleProbe.bytecode, gas: '0x3d0900' },
  ])
  const address = (await rpc(url, 'eth_getTransactionReceipt', [deployHash])).contractAddress
  const hash = await rpc<string>(url, 'eth_sendTransaction', [
    { from: COW.address, to: address, data: probe.encodeFunctionData('count'), gas: '0x30000' },
  ])
  await rpc(url, 'eth_call', [{ to: address, data: probe.encodeFunctionData('all') }, 'latest'])
  return hash
}

describe('node-cli console.log output', () => {
  it('prints the lines under the transaction hash and under eth_call', async () => {
    const n = start([])
    const hash = await exercise(await n.url)
    // stdout is written before the answer, but reaches the pipe a moment later: the call's block comes last
    await waitUntil(
      () => /console\.log \(eth_call\):\n( {2}.*\n){4}/.test(n.output()),
      "the eth_call's 4 lines",
      10_000,
    )
    const out = n.output()
    expect(out).toContain(`console.log (transaction ${hash}):\n  count now 1\n`)
    expect(out).toContain('console.log (eth_call):\n  hello\n  42\n  -7\n  true\n')
    expect(out.match(/count now 1/g)).toHaveLength(1)
  })

  it('--no-console-log prints nothing', async () => {
    // --verbose logs each request once it is answered: the eth_call's line comes after anything the call printed
    const n = start(['--no-console-log', '--verbose'])
    await exercise(await n.url)
    await waitUntil(() => / eth_call \d/.test(n.output()), 'the request log line of the eth_call', 10_000)
    expect(n.output()).not.toContain('console.log')
    expect(n.output()).not.toContain('count now')
  })
})
