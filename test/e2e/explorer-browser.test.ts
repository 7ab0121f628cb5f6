/**
 * End-to-end: the explorer in a real browser (Debian's Chromium, /usr/bin/chromium, driven by playwright-core from
 * test/clients/browser) against a real node started in-process with the explorer on and `artifacts` pointing at the
 * fixtures' compiled contracts laid out as a Foundry `out/` directory. Asserts what a user sees (visible text):
 * the home page and its live update, the block page (the Remasc system transaction marked), the tx page (decoded
 * call, event, console.log lines, call tree, revert reasons and a custom error by name), the address page (balance,
 * nonce, contract marker and name, its transaction history), the search box, and that the page talks only to the
 * node's origin with read methods (no key-revealing call).
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { encodeAbiParameters, encodeFunctionData, formatEther, type Abi } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ConsoleProbe, Probe, Token, type CompiledContract } from '../../fixtures/index.js'
import type { Node } from '../../src/index.js'
import { BROWSER_DIR } from '../helpers/install-clients.js'
import { COW, COW1, rpc, startNode } from '../helpers/node.js'

const CHROMIUM = '/usr/bin/chromium'
const ROOT = join(import.meta.dirname, '..', '..')
const REMASC = '0x0000000000000000000000000000000001000008'
/** Methods that reveal or use keys: the explorer must never call them. */
const KEY_METHODS = /^(personal_|eth_sign|eth_accounts$|eth_sendTransaction$|eth_sendRawTransaction$)/

let node: Node
let url: string
let artifactsDir: string
let browser: any
let page: any
/** Every URL the page requested (documents, assets, fetches, the WebSocket). */
const requested: string[] = []
/** The JSON-RPC methods the page sent, over HTTP POST and over the WebSocket. */
const methods: string[] = []
/** Uncaught page errors and console errors (a CSP violation is one). */
const pageErrors: string[] = []

/** What the fixtures made: addresses, transaction hashes and the blocks they were mined in. */
const made = {
  consoleProbe: '',
  consoleProbeDeployTx: '',
  probe: '',
  token: '',
  countTx: '',
  countBlock: 0,
  reasonTx: '',
  customTx: '',
  panicTx: '',
  transferTx: '',
  valueTx: '',
}

/** Sends a transaction from COW and returns its hash; a reverting one is mined and answers -32015 (hash from the block). */
async function send(tx: { to?: string; data?: string; value?: string }): Promise<string> {
  try {
    return await rpc<string>(url, 'eth_sendTransaction', [{ from: COW.address, gas: '0x300000', ...tx }])
  } catch (e: any) {
    if (e.code !== -32015) throw e
    return (await rpc(url, 'eth_getBlockByNumber', ['latest', false])).transactions[0]
  }
}

/** Deploys `c` (constructor arguments ABI-encoded in `args`); returns its address and the creation's hash. */
async function deploy(c: CompiledContract, args = ''): Promise<{ address: string; hash: string }> {
  const hash = await send({ data: c.bytecode + args })
  return { address: (await rpc(url, 'eth_getTransactionReceipt', [hash])).contractAddress, hash }
}

function call(c: CompiledContract, to: string, functionName: string, args: unknown[] = []): Promise<string> {
  return send({ to, data: encodeFunctionData({ abi: c.abi as Abi, functionName, args }) })
}

/** Writes `contracts` as Foundry artifacts (`out/<Name>.sol/<Name>.json`) under a new temporary folder. */
function foundryOut(contracts: CompiledContract[]): string {
  const out = join(mkdtempSync(join(tmpdir(), 'explorer-browser-')), 'out')
  for (const c of contracts) {
    mkdirSync(join(out, `${c.contractName}.sol`), { recursive: true })
    const artifact = {
      abi: c.abi,
      bytecode: { object: c.bytecode, linkReferences: {} },
      deployedBytecode: { object: c.deployedBytecode, linkReferences: {}, immutableReferences: {} },
      metadata: { settings: { compilationTarget: { [`contracts/${c.contractName}.sol`]: c.contractName } } },
    }
    writeFileSync(join(out, `${c.contractName}.sol`, `${c.contractName}.json`), JSON.stringify(artifact))
  }
  return out
}

/** The page's visible text. */
const text = (): Promise<string> => page.locator('body').innerText()

/** Waits (5 s at most) until the page's visible text matches `re`. */
async function shows(re: RegExp): Promise<void> {
  await expect.poll(text, { timeout: 5000, interval: 100 }).toMatch(re)
}

/** Escapes `s` for a RegExp. */
const lit = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

beforeAll(async () => {
  // the node serves dist/explorer/ (npm test builds it first; a lone run of this file builds the explorer only)
  if (!existsSync(join(ROOT, 'dist', 'explorer', 'index.html'))) {
    execFileSync(process.execPath, ['scripts/bundle-explorer.mjs'], { cwd: ROOT, stdio: 'inherit' })
  }
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install chromium (.ci/run does)`)
  artifactsDir = foundryOut([ConsoleProbe, Probe])
  node = await startNode({ explorer: true, artifacts: [artifactsDir] })
  url = node.url

  const consoleProbe = await deploy(ConsoleProbe)
  made.consoleProbe = consoleProbe.address
  made.consoleProbeDeployTx = consoleProbe.hash
  made.probe = (await deploy(Probe)).address
  // Token(name, symbol, supply) without an artifact: its Transfer decodes with the bundled ERC-20 ABI
  const ctorInputs = Token.abi.find((i) => i.type === 'constructor').inputs
  const ctor = encodeAbiParameters(ctorInputs, ['Test', 'TST', 10n ** 21n]).slice(2)
  made.token = (await deploy(Token, ctor)).address
  made.countTx = await call(ConsoleProbe, made.consoleProbe, 'count')
  made.countBlock = Number((await rpc(url, 'eth_getTransactionReceipt', [made.countTx])).blockNumber)
  made.reasonTx = await call(Probe, made.probe, 'failWithReason')
  made.customTx = await call(Probe, made.probe, 'failCustom', [7n])
  made.panicTx = await call(Probe, made.probe, 'panic')
  made.transferTx = await call(Token, made.token, 'transfer', [COW1.address, 5n])
  made.valueTx = await send({ to: COW1.address, value: '0xde0b6b3a7640000' })

  const { chromium } = createRequire(join(BROWSER_DIR, 'package.json'))('playwright-core')
  // --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] })
  page = await browser.newPage()
  page.on('request', (r: any) => {
    requested.push(r.url())
    const body = r.method() === 'POST' ? r.postData() : null
    if (body) for (const m of [JSON.parse(body)].flat()) methods.push(m.method)
  })
  page.on('pageerror', (e: Error) => pageErrors.push(e.message))
  page.on('console', (m: any) => m.type() === 'error' && pageErrors.push(m.text()))
  page.on('websocket', (ws: any) => {
    requested.push(ws.url())
    ws.on('framesent', (f: any) => methods.push(JSON.parse(String(f.payload)).method))
  })
}, 60_000)

afterAll(async () => {
  await browser?.close()
  await node?.close()
  if (artifactsDir) rmSync(join(artifactsDir, '..'), { recursive: true, force: true })
})

describe('the explorer in Chromium', () => {
  it('home: chain id 33, the latest block, and a new block shows within seconds', async () => {
    const head = Number(await rpc(url, 'eth_blockNumber'))
    await page.goto(url + '/')
    await shows(/Chain ID\s+33\b/)
    await shows(new RegExp(`Latest block\\s+${head}\\b`))
    await shows(/Recent blocks/)
    await shows(/Remasc \(system transaction\)/)
    await rpc(url, 'evm_mine')
    await shows(new RegExp(`Latest block\\s+${head + 1}\\b`))
  })

  it('home: a burst of 200 blocks is coalesced (a few renders, not one per block)', async () => {
    const before = methods.filter((m) => m === 'eth_getBlockByNumber').length
    const head = Number(await rpc(url, 'eth_blockNumber'))
    const started = Date.now()
    await rpc(url, 'evm_mine', [{ blocks: '0xc8' }])
    await shows(new RegExp(`Latest block\\s+${head + 200}\\b`))
    const seconds = (Date.now() - started) / 1000
    // one render per block would load each of the 200 blocks; coalesced to ~4 renders a second, each render loads
    // at most the 10 blocks listed
    const loads = methods.filter((m) => m === 'eth_getBlockByNumber').length - before
    expect(loads).toBeLessThan(200)
    expect(loads).toBeLessThanOrEqual(10 * (Math.ceil(seconds * 4) + 2))
  })

  it('block page: the header fields and the Remasc system transaction', async () => {
    const block = await rpc(url, 'eth_getBlockByNumber', ['0x' + made.countBlock.toString(16), false])
    await page.goto(`${url}/block/${made.countBlock}`)
    await shows(new RegExp(`Block number\\s+${made.countBlock}\\b`))
    const t = await text()
    expect(t).toContain(block.hash)
    expect(t).toContain(block.parentHash)
    expect(t).toMatch(new RegExp(`Miner\\s+${block.miner}`))
    expect(t).toMatch(/Gas used\s+[\d,]+ of [\d,]+/)
    expect(t).toMatch(/Minimum gas price\s+\d[\d,]* wei/)
    expect(t).toMatch(/Paid fees\s+[\d.]+ RBTC/)
    expect(t).toContain(made.countTx)
    expect(t).toContain('Remasc (system transaction)')
    expect(t).toContain(REMASC)
    // by hash too
    await page.goto(`${url}/block/${block.hash}`)
    await shows(new RegExp(`Block number\\s+${made.countBlock}\\b`))
  })

  it('tx page: a contract call with its decoded function, event, console.log line and call tree', async () => {
    await page.goto(`${url}/tx/${made.countTx}`)
    await shows(/Status\s+Success/)
    const t = await text()
    expect(t).toMatch(/Function\s+count\(\)/)
    expect(t).toMatch(new RegExp(`To\\s+ConsoleProbe ${made.consoleProbe}`))
    expect(t).toMatch(/Event\s+Counted\(value: 1\)/)
    expect(t).toMatch(/Value\s+0 RBTC/)
    expect(t).toMatch(/Console output\s+count now 1/)
    expect(t).toMatch(/Call tree\s+CALL /)
    expect(t).toContain('STATICCALL') // the console.log call
  })

  it('tx page: reverted with an Error(string) reason, a custom error by name from the artifacts, a Panic', async () => {
    await page.goto(`${url}/tx/${made.reasonTx}`)
    await shows(/Status\s+Reverted/)
    await shows(/Revert reason\s+Error\(string\): Probe: failed/)
    await page.goto(`${url}/tx/${made.customTx}`)
    await shows(/Status\s+Reverted/)
    await shows(/Revert reason\s+ProbeError\(code: 7, why: custom failure\)/)
    await page.goto(`${url}/tx/${made.panicTx}`)
    await shows(/Revert reason\s+Panic\(code: 0x12 \(division or modulo by zero\)\)/)
  })

  it('tx page: an ERC-20 Transfer decodes without an artifact; a value transfer in RBTC; a creation', async () => {
    await page.goto(`${url}/tx/${made.transferTx}`)
    await shows(new RegExp(`Event\\s+Transfer\\(from: ${COW.address}, to: ${COW1.address}, value: 5\\)`, 'i'))
    await page.goto(`${url}/tx/${made.valueTx}`)
    await shows(/Value\s+1 RBTC/)
    await page.goto(`${url}/tx/${made.consoleProbeDeployTx}`)
    await shows(new RegExp(`Created contract\\s+ConsoleProbe ${made.consoleProbe}`))
  })

  it('address page: balance, nonce, contract marker and name, and the transaction history', async () => {
    const balance = formatEther(BigInt(await rpc(url, 'eth_getBalance', [COW1.address, 'latest'])))
    await page.goto(`${url}/address/${COW1.address}`)
    await shows(new RegExp(`Balance\\s+${lit(balance)} RBTC`))
    await shows(/Nonce\s+0\b/)
    await shows(/Type\s+Account/)
    await shows(new RegExp(lit(made.valueTx.slice(0, 8)) + '…' + made.valueTx.slice(-6)))

    const nonce = Number(await rpc(url, 'eth_getTransactionCount', [COW.address, 'latest']))
    await page.goto(`${url}/address/${COW.address}`)
    await shows(new RegExp(`Nonce\\s+${nonce}\\b`))
    await shows(/Transactions\s+Transaction\s+Block/)
    // the history lists the sender's transactions newest first, from ots_searchTransactionsBefore
    const t = await text()
    for (const tx of [made.valueTx, made.customTx, made.countTx])
      expect(t).toContain(`${tx.slice(0, 8)}…${tx.slice(-6)}`)
    expect(t.indexOf(made.valueTx.slice(-6))).toBeLessThan(t.indexOf(made.countTx.slice(-6)))

    const code = ((await rpc<string>(url, 'eth_getCode', [made.consoleProbe, 'latest'])).length - 2) / 2
    await page.goto(`${url}/address/${made.consoleProbe}`)
    await shows(new RegExp(`Type\\s+Contract \\(${code.toLocaleString('en-US')} bytes of code\\)`))
    await shows(/Contract name\s+ConsoleProbe \(contracts\/ConsoleProbe\.sol\)/)
  })

  it('search box: a block number, a transaction hash and an address open their pages', async () => {
    await page.goto(url + '/')
    const box = page.getByRole('searchbox', { name: 'Search' })
    await box.fill(String(made.countBlock))
    await box.press('Enter')
    await shows(new RegExp(`Block ${made.countBlock}\\b`))
    expect(new URL(page.url()).pathname).toBe(`/block/${made.countBlock}`)
    await box.fill(made.reasonTx)
    await box.press('Enter')
    await shows(/Revert reason\s+Error\(string\): Probe: failed/)
    expect(new URL(page.url()).pathname).toBe(`/tx/${made.reasonTx}`)
    await box.fill(made.probe)
    await box.press('Enter')
    await shows(/Contract name\s+Probe\b/)
    expect(new URL(page.url()).pathname).toBe(`/address/${made.probe}`)
    // a link click navigates inside the page (no reload): back to the block of the reverted call
    await page.goto(`${url}/tx/${made.countTx}`)
    await shows(/Status\s+Success/)
    await page.getByRole('link', { name: String(made.countBlock), exact: true }).click()
    await shows(new RegExp(`Block number\\s+${made.countBlock}\\b`))
  })

  it('talks only to its own origin, with read methods only', async () => {
    const origin = new URL(url)
    expect(requested.length).toBeGreaterThan(0)
    for (const u of requested) {
      if (u.startsWith('data:')) continue
      const parsed = new URL(u)
      expect(`${parsed.hostname}:${parsed.port}`).toBe(`${origin.hostname}:${origin.port}`)
      expect(['http:', 'ws:']).toContain(parsed.protocol)
    }
    expect(methods).toContain('eth_subscribe')
    expect(methods).toContain('eth_getBlockByNumber')
    expect(methods).toContain('ots_traceTransaction')
    expect(methods).toContain('ots_searchTransactionsBefore')
    expect(methods.filter((m) => KEY_METHODS.test(m))).toEqual([])
    expect(pageErrors).toEqual([])
  })
})
