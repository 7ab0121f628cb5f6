/**
 * A real Hardhat 2 project (test/clients/hardhat-project: hardhat-ethers, chai matchers, network helpers,
 * OpenZeppelin 5, `networks.localhost` with no `gas` setting) run with `hardhat test --network localhost` and
 * `hardhat run` against a node this file starts: as the node starts by default, and with `--compat hardhat`
 * (and `anvil`). `--compat hardhat` presents itself as Hardhat 3's node and answers `hardhat_metadata`; the Hardhat 2
 * project written for Hardhat 2 still passes (docs/compat-profiles.md#hardhat-metadata-and-the-gas-limit).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Node } from '../../src/index.js'
import { clientBin, CLIENTS_DIR, runCommand } from '../helpers/clients.js'
import { startNode } from '../helpers/node.js'

const PROJECT = join(CLIENTS_DIR, 'hardhat-project')
const TIMEOUT = 240_000

interface MochaTest {
  fullTitle: string
  err: { message?: string }
}
interface MochaReport {
  stats: { passes: number; failures: number }
  passes: MochaTest[]
  failures: MochaTest[]
}

const tmp = mkdtempSync(join(tmpdir(), 'node-cli-hardhat-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

/** `hardhat <args> --network localhost` against `node`. */
function hardhat(node: Node, args: string[], env: Record<string, string> = {}) {
  return runCommand(clientBin('hardhat'), [...args, '--network', 'localhost'], {
    cwd: PROJECT,
    env: { NODE_CLI_URL: node.url, HARDHAT_DISABLE_TELEMETRY_PROMPT: 'true', ...env },
  })
}

/** Runs the project's mocha suite; returns its JSON report. */
async function hardhatTest(node: Node, name: string): Promise<MochaReport & { output: string }> {
  const file = join(tmp, `${name}.json`)
  const r = await hardhat(node, ['test'], { MOCHA_JSON: file })
  const report = JSON.parse(readFileSync(file, 'utf8')) as MochaReport
  return { ...report, output: r.stdout + r.stderr }
}

const titles = (tests: MochaTest[]) => tests.map((t) => t.fullTitle).sort()

describe('Hardhat project, node as it starts by default', () => {
  let node: Node
  beforeAll(async () => {
    node = await startNode()
    // compile once up front (solc-js through the project's compile-subtask override)
    const r = await runCommand(clientBin('hardhat'), ['compile'], {
      cwd: PROJECT,
      env: { HARDHAT_DISABLE_TELEMETRY_PROMPT: 'true' },
    })
    expect(r.code, r.stdout + r.stderr).toBe(0)
  }, TIMEOUT)
  afterAll(() => node?.close())

  it(
    '`hardhat run scripts/deploy.js` deploys (hardhat-ethers estimates gas: hardhat_metadata is not answered)',
    async () => {
      const r = await hardhat(node, ['run', 'scripts/deploy.js'])
      expect(r.code, r.stdout + r.stderr).toBe(0)
      const [, vault, token] = /DEPLOYED vault=(0x[0-9a-fA-F]{40}) token=(0x[0-9a-fA-F]{40})/.exec(r.stdout) ?? []
      expect(await node.provider.request({ method: 'eth_getCode', params: [vault, 'latest'] })).not.toBe('0x')
      expect(await node.provider.request({ method: 'eth_getCode', params: [token, 'latest'] })).not.toBe('0x')
    },
    TIMEOUT,
  )

  it(
    '`hardhat test`: deploys, queryFilter, emit, revertedWith(CustomError) pass; helpers and balance matchers need --compat',
    async () => {
      const report = await hardhatTest(node, 'reference')
      expect(titles(report.passes), report.output).toEqual(
        [
          'reference deploys with hardhat-ethers (gas estimated, not fixed)',
          'reference emits events, found again with queryFilter and provider.getLogs',
          'reference revertedWith and revertedWithCustomError',
          'reference ERC-20 transfers with the Transfer event',
        ].sort(),
      )
      // what a user sees without the switch: the tools' own clear refusals
      const byTitle = Object.fromEntries(report.failures.map((t) => [t.fullTitle, t.err.message ?? '']))
      expect(Object.keys(byTitle).sort()).toEqual(
        [
          'compat loadFixture, time.increase and withdraw',
          'compat mine, time.latest and takeSnapshot',
          'compat setBalance and impersonateAccount',
          'compat changeEtherBalance(s)',
          'compat changeTokenBalance(s)',
        ].sort(),
      )
      expect(byTitle['compat mine, time.latest and takeSnapshot']).toMatch(/can only be used with Hardhat Network/)
      expect(byTitle['compat changeEtherBalance(s)']).toMatch(/Multiple transactions found in block/)
    },
    TIMEOUT,
  )
})

for (const compat of ['hardhat', 'anvil'] as const) {
  describe(`Hardhat project, --compat ${compat}`, () => {
    let node: Node
    beforeAll(async () => {
      node = await startNode({ compat })
    })
    afterAll(() => node?.close())

    it(
      '`hardhat test`: every test passes unchanged (network helpers, every chai matcher)',
      async () => {
        const report = await hardhatTest(node, compat)
        expect(
          report.failures.map((t) => `${t.fullTitle}: ${t.err.message}`),
          report.output,
        ).toEqual([])
        expect(report.stats.passes).toBe(9)
        // under --compat hardhat hardhat_metadata answers, so hardhat-ethers sends its fixed 2^24 gas, which the
        // profile's 60 M block gas limit holds; under anvil it keeps estimating
        const block = await node.provider.request({ method: 'eth_getBlockByNumber', params: ['latest', true] })
        const gas = (block as { transactions: { gas: string }[] }).transactions.map((t) => t.gas)
        if (compat === 'hardhat') expect(gas).toEqual(['0x1000000'])
        else expect(gas.every((g) => BigInt(g) < 0x1000000n)).toBe(true)
      },
      TIMEOUT,
    )
  })
}
