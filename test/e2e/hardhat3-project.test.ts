/**
 * A real Hardhat 3 project (test/clients/hardhat3: Hardhat 3.18 on Node 22; viem toolbox with node:test, ethers
 * toolbox with mocha, Ignition, network helpers 3; solc 0.8.30 from npm through `solidity.path`) pointed at a node
 * this file starts, through `networks.nodecli = { type: "http", chainType: "l1", url }`: as the node starts by
 * default, with `--compat hardhat` and with `--compat anvil`. Each check of the project's suites is reported by name
 * (test/clients/hardhat3/test/report.ts); this file asserts exactly which checks each profile passes, and what a user
 * reads when one fails.
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Node } from '../../src/index.js'
import type { NodeConfig } from '../../src/config.js'
import { runCommand, type CommandResult } from '../helpers/clients.js'
import { HARDHAT3_DIR, NODE22_BIN_DIR } from '../helpers/install-clients.js'
import { startNode } from '../helpers/node.js'

const PROJECT = HARDHAT3_DIR
const HARDHAT = join(PROJECT, 'node_modules', '.bin', 'hardhat')
const TIMEOUT = 240_000
/** The Node 22 binary (test/clients/node22) exists on Linux x64 only; Hardhat 3 refuses Node 20. */
const HAS_NODE22 = existsSync(join(NODE22_BIN_DIR, 'node'))

/** One check's outcome, as the project's report.ts writes it. */
interface CheckResult {
  name: string
  ok: boolean
  error?: string
  detail?: string
}

const HELPERS = [
  'helpers: time.increase unlocks a time-locked withdraw',
  'helpers: mine',
  'helpers: setBalance',
  'helpers: impersonateAccount',
  'helpers: loadFixture and takeSnapshot',
]
const VIEM = [
  'viem: deploy, read and write',
  'viem: events (emitWithArgs, getContractEvents)',
  'viem: revertWith (reason string)',
  'viem: revertWithCustomErrorWithArgs',
  'viem: revert (panic, no data)',
  'viem: balancesHaveChanged',
  'viem: ignition.deploy in a test',
]
const VIEM_32602 = "viem: an EIP-1559 send signed by Hardhat shows node-cli's -32602 message"
const ETHERS = [
  'ethers: deploy, read and write',
  'ethers: events (emit.withArgs, queryFilter)',
  'ethers: revertedWith (reason string)',
  'ethers: revertedWithCustomError.withArgs',
  'ethers: revertedWithPanic and revertedWithoutReason',
  'ethers: changeEtherBalances',
  'ethers: ignition.deploy in a test',
]
const ETHERS_HELPERS = ['ethers: loadFixture']
const ETHERS_32602 = "ethers: an EIP-1559 send signed by Hardhat shows node-cli's -32602 message"

/** What node-cli answers (-32602) to a locally signed EIP-1559 transaction (src/rpc/methods/eth.ts). */
const TYPED_TX_REFUSAL = /typed transaction \(type 0x02, EIP-1559\) not supported: this chain has no fee market/
/** What Hardhat 3's HTTP provider makes of a non-2xx answer (it never reads the JSON-RPC error in the body). */
const STATUS_400 =
  /Received an unexpected status code from http:\/\/127\.0\.0\.1:\d+[\s\S]*Response status code 400: Bad Request/
/** hardhat-network-helpers 3's refusal of a client version not starting with hardhat, zksync or anvil. */
const HHE60015 = new RegExp(
  'HHE60015: This helper can only be used with the Hardhat Network\\. ' +
    'You are connected to "nodecli", whose identifier is "node-cli/',
)

interface Profile {
  name: string
  config: NodeConfig
  /** The checks expected to pass; every other check must fail. */
  passes: string[]
  /** For each expected failure, what its error must say. */
  failures: Record<string, RegExp>
  /** For checks that pass, what the error they caught must say. */
  details: Record<string, RegExp>
}

const PROFILES: Profile[] = [
  {
    // the reference's behaviour: the toolboxes work; helpers refuse the client version; -32602 is HTTP 400
    name: 'default',
    config: {},
    passes: [...VIEM, ...ETHERS],
    failures: {
      ...Object.fromEntries([...HELPERS, ...ETHERS_HELPERS].map((name) => [name, HHE60015])),
      [VIEM_32602]: STATUS_400,
      [ETHERS_32602]: STATUS_400,
    },
    details: {},
  },
  ...(['hardhat', 'anvil'] as const).map((compat): Profile => ({
    name: compat,
    config: { compat },
    passes: [...HELPERS, ...VIEM, VIEM_32602, ...ETHERS, ...ETHERS_HELPERS, ETHERS_32602],
    failures: {},
    // HTTP 200: the JSON-RPC error reaches the user (viem words -32602 "Invalid parameters were provided to …")
    details: {
      [VIEM_32602]: new RegExp(`Invalid parameters were provided to the RPC method[\\s\\S]*${TYPED_TX_REFUSAL.source}`),
      [ETHERS_32602]: TYPED_TX_REFUSAL,
    },
  })),
]

const tmp = mkdtempSync(join(tmpdir(), 'node-cli-hardhat3-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

/** The environment Hardhat 3 runs in: Node 22 first on PATH, the node's URL, no telemetry prompt. */
function hardhatEnv(node: Node | undefined, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: `${NODE22_BIN_DIR}${delimiter}${process.env.PATH ?? ''}`,
    HARDHAT_DISABLE_TELEMETRY_PROMPT: 'true',
    ...(node ? { NODE_CLI_URL: node.url } : {}),
    ...extra,
  }
}

/** Runs one of the project's suites against `node`; returns the checks' outcomes and the runner's output. */
async function runSuite(
  node: Node,
  args: string[],
  report: string,
): Promise<{ checks: CheckResult[]; output: string; code: number | null }> {
  const file = join(tmp, report)
  rmSync(file, { force: true })
  clearIgnitionJournal()
  const r = await runCommand(HARDHAT, [...args, '--network', 'nodecli', '--no-compile'], {
    cwd: PROJECT,
    env: hardhatEnv(node, { HH3_REPORT: file }),
  })
  const lines = existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n') : []
  return {
    checks: lines.filter(Boolean).map((l) => JSON.parse(l) as CheckResult),
    output: r.stdout + r.stderr,
    code: r.code,
  }
}

/**
 * `hardhat ignition deploy ignition/modules/Vault.ts --network nodecli [extra]`, answering every confirmation
 * prompt ("Confirm deploy to network nodecli (33)?", and the reset one) with "y" as a user does.
 */
function ignitionDeploy(node: Node, extra: string[] = []): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      HARDHAT,
      ['ignition', 'deploy', 'ignition/modules/Vault.ts', '--network', 'nodecli', ...extra],
      {
        cwd: PROJECT,
        env: { ...process.env, ...hardhatEnv(node) },
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    )
    let stdout = ''
    let stderr = ''
    let answered = 0
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString()
      const prompts = stdout.split('(y/N)').length - 1
      for (; answered < prompts; answered++) child.stdin.write('y')
      // the prompts are over once the deployment starts (or is cancelled); Hardhat exits only when stdin ends
      if (/Hardhat Ignition starting|cancelled/.test(stdout) && child.stdin.writable) child.stdin.end()
    })
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })
}

/** The addresses `ignition deploy` printed (its "Deployed Addresses" list). */
function deployedAddresses(stdout: string): { vault?: string; token?: string } {
  return {
    vault: /VaultModule#Vault - (0x[0-9a-fA-F]{40})/.exec(stdout)?.[1],
    token: /VaultModule#Token - (0x[0-9a-fA-F]{40})/.exec(stdout)?.[1],
  }
}

const code = (node: Node, address: string | undefined) =>
  node.provider.request({ method: 'eth_getCode', params: [address, 'latest'] })

/**
 * Ignition keeps a journal per chain id (ignition/deployments/chain-33) for `type: "http"` networks, in tests too:
 * every fresh node starts without it, as a user's restarted in-memory node needs (docs/tools.md, Hardhat 3).
 */
const clearIgnitionJournal = () => rmSync(join(PROJECT, 'ignition', 'deployments'), { recursive: true, force: true })

describe.skipIf(!HAS_NODE22)('Hardhat 3 project', () => {
  beforeAll(async () => {
    // compile once (solc-js 0.8.30 from npm through `solidity.path`); the suites run with --no-compile
    const r = await runCommand(HARDHAT, ['compile'], { cwd: PROJECT, env: hardhatEnv(undefined) })
    expect(r.code, r.stdout + r.stderr).toBe(0)
  }, TIMEOUT)

  for (const profile of PROFILES) {
    describe(`node ${profile.name === 'default' ? 'as it starts by default' : `--compat ${profile.name}`}`, () => {
      let node: Node
      beforeAll(async () => {
        clearIgnitionJournal()
        node = await startNode(profile.config)
      })
      afterAll(() => node?.close())

      /** Asserts that exactly `profile.passes` of these checks pass, and that the others fail as expected. */
      function assertChecks(checks: CheckResult[], output: string): void {
        const names = checks.map((c) => c.name)
        const passed = checks.filter((c) => c.ok).map((c) => c.name)
        expect(passed.sort(), output).toEqual(profile.passes.filter((n) => names.includes(n)).sort())
        for (const c of checks.filter((x) => !x.ok)) {
          expect(c.error, c.name).toMatch(profile.failures[c.name] ?? /an expected failure pattern/)
        }
        for (const c of checks.filter((x) => x.ok && profile.details[x.name])) {
          expect(c.detail, c.name).toMatch(profile.details[c.name]!)
        }
      }

      it(
        'viem toolbox (`hardhat test nodejs`): deploy, events, revertWith, custom errors, balances, ignition, helpers',
        async () => {
          const { checks, output } = await runSuite(node, ['test', 'nodejs'], `${profile.name}-viem.jsonl`)
          expect(checks.map((c) => c.name).sort(), output).toEqual([...HELPERS, ...VIEM, VIEM_32602].sort())
          assertChecks(checks, output)
        },
        TIMEOUT,
      )

      it(
        'ethers toolbox (`hardhat test mocha`): deploy, events, every revert matcher, balances, ignition, loadFixture',
        async () => {
          const { checks, output } = await runSuite(
            node,
            ['--config', 'hardhat.ethers.config.ts', 'test', 'mocha'],
            `${profile.name}-ethers.jsonl`,
          )
          expect(checks.map((c) => c.name).sort(), output).toEqual([...ETHERS, ...ETHERS_HELPERS, ETHERS_32602].sort())
          assertChecks(checks, output)
        },
        TIMEOUT,
      )

      it(
        '`hardhat ignition deploy` from the CLI (confirmation prompt answered) deploys contracts with code',
        async () => {
          clearIgnitionJournal()
          const r = await ignitionDeploy(node)
          expect(r.code, r.stdout + r.stderr).toBe(0)
          expect(r.stdout).toContain('Confirm deploy to network nodecli (33)?')
          expect(r.stdout).toContain('successfully deployed')
          const { vault, token } = deployedAddresses(r.stdout)
          expect(await code(node, vault)).not.toBe('0x')
          expect(await code(node, token)).not.toBe('0x')
        },
        TIMEOUT,
      )
    })
  }

  describe('Ignition after restarting an in-memory node (--compat hardhat)', () => {
    it(
      'trusts its chain-33 journal ("Nothing new to deploy", addresses without code) until `--reset`',
      async () => {
        clearIgnitionJournal()
        const first = await startNode({ compat: 'hardhat' })
        const deployed = await ignitionDeploy(first)
        await first.close()
        expect(deployed.code, deployed.stdout + deployed.stderr).toBe(0)
        const { vault } = deployedAddresses(deployed.stdout)

        const restarted = await startNode({ compat: 'hardhat' })
        try {
          const again = await ignitionDeploy(restarted)
          expect(again.code, again.stdout + again.stderr).toBe(0)
          expect(again.stdout).toContain('Nothing new to deploy')
          expect(deployedAddresses(again.stdout).vault).toBe(vault)
          expect(await code(restarted, vault)).toBe('0x')

          const reset = await ignitionDeploy(restarted, ['--reset'])
          expect(reset.code, reset.stdout + reset.stderr).toBe(0)
          expect(reset.stdout).toContain('Confirm reset of deployment "chain-33" on chain 33?')
          expect(reset.stdout).toContain('successfully deployed')
          expect(await code(restarted, deployedAddresses(reset.stdout).vault)).not.toBe('0x')
        } finally {
          await restarted.close()
        }
      },
      TIMEOUT,
    )
  })
})
