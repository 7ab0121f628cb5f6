/**
 * State files between node-cli and the real Anvil (the @foundry-rs/anvil npm package in test/clients): a file
 * Anvil dumps loads into node-cli, and a file node-cli dumps loads into Anvil — accounts, code and storage.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { Probe } from '../../fixtures/index.js'
import { createNode } from '../../src/index.js'
import { clientBin, CLIENTS_DIR } from '../helpers/clients.js'
import { COW, rpc, startNode } from '../helpers/node.js'
import { deploy } from '../rpc/shapes.js'
import { waitUntil } from '../helpers/wait.js'

const dir = mkdtempSync(join(tmpdir(), 'node-cli-anvil-state-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** Anvil's first dev account. */
const ANVIL_DEV = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'
const SLOT = '0x' + '00'.repeat(31) + '09'
const WORD = '0x' + '00'.repeat(31) + '2a'
const FRESH = '0x2222222222222222222222222222222222222222'

/** The anvil executable of the @foundry-rs/anvil platform package (falls back to the npm wrapper). */
function anvilBinary(): string {
  const arch = process.arch === 'x64' ? 'amd64' : process.arch
  const native = join(CLIENTS_DIR, 'node_modules', '@foundry-rs', `anvil-${process.platform}-${arch}`, 'bin', 'anvil')
  return existsSync(native) ? native : clientBin('anvil')
}

/** Starts Anvil on a free port with extra arguments; resolves once it answers. */
async function startAnvil(args: string[]): Promise<{ url: string; child: ChildProcess }> {
  // the platform binary itself: the npm wrapper (bin.mjs) does not pass signals on, and killing it orphans anvil
  const child = spawn(anvilBinary(), ['--port', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()))
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()))
  const listening = /Listening on (127\.0\.0\.1:\d+)/
  try {
    await waitUntil(() => {
      if (child.exitCode !== null) throw new Error(`anvil exited: ${out}`)
      return listening.test(out)
    }, 'anvil to listen')
  } catch (err) {
    child.kill('SIGKILL')
    throw new Error(`anvil did not start (${(err as Error).message}): ${out}`)
  }
  return { url: `http://${listening.exec(out)![1]}`, child }
}

describe('Anvil ⇄ node-cli state files', () => {
  it('an Anvil dump (anvil --dump-state) loads into node-cli: balances, nonces, code, storage', async () => {
    const file = join(dir, 'from-anvil.json')
    const anvil = await startAnvil(['--dump-state', file])
    let code: string
    try {
      await rpc(anvil.url, 'anvil_setBalance', [FRESH, '0xde0b6b3a7640000'])
      await rpc(anvil.url, 'anvil_setNonce', [FRESH, '0x7'])
      await rpc(anvil.url, 'anvil_setCode', [FRESH, Probe.deployedBytecode])
      await rpc(anvil.url, 'anvil_setStorageAt', [FRESH, SLOT, WORD])
      await rpc(anvil.url, 'evm_mine')
      code = await rpc(anvil.url, 'eth_getCode', [FRESH, 'latest'])
    } finally {
      anvil.child.kill('SIGINT')
      await once(anvil.child, 'exit')
    }
    const node = await createNode({ port: 0, loadState: file })
    try {
      expect(node.loadedState).toMatchObject({ kind: 'merged' })
      expect(await rpc(node.url, 'eth_getBalance', [FRESH, 'latest'])).toBe('0xde0b6b3a7640000')
      expect(await rpc(node.url, 'eth_getTransactionCount', [FRESH, 'latest'])).toBe('0x7')
      expect(await rpc(node.url, 'eth_getCode', [FRESH, 'latest'])).toBe(code)
      expect(await rpc(node.url, 'eth_getStorageAt', [FRESH, SLOT, 'latest'])).toBe(WORD)
      // Anvil's own dev accounts come along
      expect(BigInt(await rpc(node.url, 'eth_getBalance', [ANVIL_DEV, 'latest']))).toBeGreaterThan(0n)
      // the chain is node-cli's own and goes on from its genesis
      expect(await rpc(node.url, 'eth_blockNumber')).toBe('0x0')
      await rpc(node.url, 'eth_sendTransaction', [{ from: COW.address, to: FRESH, value: '0x1' }])
      expect(await rpc(node.url, 'eth_getBalance', [FRESH, 'latest'])).toBe('0xde0b6b3a7640001')
    } finally {
      await node.close()
    }
  }, 60_000)

  it('a node-cli dump loads into Anvil (anvil --load-state): accounts, code and storage', async () => {
    const node = await startNode()
    const file = join(dir, 'from-node-cli.json')
    let probe: string
    try {
      probe = (await deploy(node.url, Probe.bytecode)).address
      await rpc(node.url, 'anvil_setStorageAt', [probe, SLOT, WORD])
      await rpc(node.url, 'anvil_setBalance', [FRESH, '0x1234'])
      await node.dumpState(file)
    } finally {
      await node.close()
    }
    const anvil = await startAnvil(['--load-state', file])
    try {
      expect(await rpc(anvil.url, 'eth_getBalance', [FRESH, 'latest'])).toBe('0x1234')
      expect(await rpc(anvil.url, 'eth_getCode', [probe, 'latest'])).toBe(Probe.deployedBytecode)
      expect(await rpc(anvil.url, 'eth_getStorageAt', [probe, SLOT, 'latest'])).toBe(WORD)
      expect(BigInt(await rpc(anvil.url, 'eth_getBalance', [COW.address, 'latest']))).toBeGreaterThan(0n)
      // Anvil runs it under its own rules: Probe answers there too
      const value = await rpc(anvil.url, 'eth_call', [{ to: probe, data: '0x3fa4f245' }, 'latest'])
      expect(value).toMatch(/^0x[0-9a-f]{64}$/)
    } finally {
      anvil.child.kill('SIGKILL')
      await once(anvil.child, 'exit')
    }
  }, 60_000)
})
