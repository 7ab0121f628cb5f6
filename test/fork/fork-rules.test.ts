/**
 * A fork runs the remote network's consensus rules at its heights (docs/reference-rules.md#rule-network-activations):
 * a node-cli presented as network 31 (test) by the reference-like proxy, forked at its genesis, where testnet has
 * only its first upgrades — with papyrus200 moved to block 3 and arrowhead600 and reed800 to block 4, so that
 * local mining crosses them. Before an upgrade its opcodes are invalid, its precompiles are plain accounts and its
 * header fields are absent; from its height on they are there.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Node } from '../../src/index.js'
import { activationsFor } from '../../src/rsk/activations.js'
import { headerHash } from '../../src/rsk/header.js'
import { decodeHeader } from '../../src/rsk/header-decode.js'
import { fromHex, toHex } from '../../src/util/bytes.js'
import { killStartedClis, runCli } from '../helpers/cli.js'
import { InvalidArgumentError } from '../../src/errors/domain-errors.js'
import { COW, rpc, startNode } from '../helpers/node.js'
import { startRskjProxy, type RskjProxy } from '../helpers/rskj-proxy.js'

let remote: Node
let proxy: RskjProxy
let fork: Node
const OVERRIDES = { papyrus200: 3, arrowhead600: 4, reed800: 4 }
const rules = activationsFor(31, OVERRIDES)
const SECP256K1_ADD = '0x0000000000000000000000000000000001000016'
// init code PUSH0 PUSH0 RETURN: deploys an empty contract when PUSH0 exists, fails (invalid opcode) otherwise
const PUSH0_INIT = '0x5f5ff3'
// init code CHAINID PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN (the chain id as the code); CHAINID is RSKIP152 (papyrus200)
const CHAINID_INIT = '0x4660005260206000f3'

interface Receipt {
  status: string
  blockNumber: string
}

/** Deploys `data` in a block of its own (a failed creation is mined too; the send then answers its error). */
async function deploy(data: string): Promise<Receipt> {
  await rpc(fork.url, 'eth_sendTransaction', [{ from: COW.address, data, gas: '0x30d40' }]).catch(() => undefined)
  const block = await rpc<{ transactions: string[] }>(fork.url, 'eth_getBlockByNumber', ['latest', false])
  return rpc<Receipt>(fork.url, 'eth_getTransactionReceipt', [block.transactions[0]])
}

async function rawHeader(n: number): Promise<Uint8Array> {
  return fromHex(await rpc<string>(fork.url, 'ext_getRawBlockHeaderByNumber', ['0x' + n.toString(16)]))
}

beforeAll(async () => {
  remote = await startNode()
  proxy = await startRskjProxy({ upstream: remote.url, chainId: 31 })
  fork = await startNode({
    fork: { url: proxy.url, blockNumber: 0, cache: false, retries: 0, timeoutMs: 5_000, activations: OVERRIDES },
  })
})

afterAll(async () => {
  killStartedClis()
  await fork?.close()
  await proxy?.close()
  await remote?.close()
})

describe('a fork of network 31 runs testnet rules at its heights', () => {
  it('is network 31 from the fork block', async () => {
    expect(await rpc(fork.url, 'eth_chainId')).toBe('0x1f')
    expect(await rpc(fork.url, 'eth_blockNumber')).toBe('0x0')
  })

  it('has no PUSH0, CHAINID or secp256k1 precompile before their upgrades, then has them', async () => {
    // block 1: papyrus200 and arrowhead600 not yet active
    const push0Early = await deploy(PUSH0_INIT)
    expect(push0Early).toMatchObject({ status: '0x0', blockNumber: '0x1' })
    // block 2
    const chainIdEarly = await deploy(CHAINID_INIT)
    expect(chainIdEarly).toMatchObject({ status: '0x0', blockNumber: '0x2' })
    // block 3: papyrus200 (CHAINID), still no PUSH0
    const chainIdLate = await deploy(CHAINID_INIT)
    expect(chainIdLate).toMatchObject({ status: '0x1', blockNumber: '0x3' })
    const created = (
      await rpc<{ contractAddress: string }>(fork.url, 'eth_getTransactionReceipt', [
        (await rpc<{ transactions: string[] }>(fork.url, 'eth_getBlockByNumber', ['0x3', false])).transactions[0],
      ])
    ).contractAddress
    expect(BigInt(await rpc<string>(fork.url, 'eth_getCode', [created, 'latest']))).toBe(31n)
    // block 4: arrowhead600 (PUSH0) and reed800 (secp256k1 add)
    const push0Late = await deploy(PUSH0_INIT)
    expect(push0Late).toMatchObject({ status: '0x1', blockNumber: '0x4' })
    // the precompile answers at block 4 and later, and is an account without code before
    const input = '0x' + '00'.repeat(128)
    expect(await rpc<string>(fork.url, 'eth_call', [{ to: SECP256K1_ADD, data: input }, 'latest'])).toHaveLength(130)
    expect(await rpc<string>(fork.url, 'eth_call', [{ to: SECP256K1_ADD, data: input }, '0x3'])).toBe('0x')
  })

  it('builds local headers with the network format at their height', async () => {
    for (let n = 1; n <= 4; n++) {
      const raw = await rawHeader(n)
      const block = await rpc<{ hash: string; rskPteEdges: unknown; ummRoot?: string }>(
        fork.url,
        'eth_getBlockByNumber',
        ['0x' + n.toString(16), false],
      )
      // decoded with testnet's rules at that height (with the overrides), the header hashes to the block hash
      const header = decodeHeader(raw, (k) => rules.headerRulesAt(k))
      expect(toHex(headerHash(header))).toBe(block.hash)
      expect(header.version).toBe(0)
      expect(header.edges).toBeNull()
      expect(header.ummRoot === null).toBe(n < 3) // RSKIP-UMM comes with papyrus200
      expect(block.rskPteEdges).toBeNull()
    }
  })

  it('runs a call at a block with the rules of that block', async () => {
    // PUSH0 PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN: 32 zero bytes with PUSH0; a failed creation answers 0x
    const data = '0x5f60005260206000f3'
    expect(await rpc(fork.url, 'eth_call', [{ from: COW.address, data }, '0x3'])).toBe('0x')
    expect(await rpc(fork.url, 'eth_call', [{ from: COW.address, data }, 'latest'])).toBe('0x' + '00'.repeat(32))
  })

  it('takes the overrides on the command line, and refuses unknown names', async () => {
    const base = ['-p', '0', '--fork-url', proxy.url, '--fork-block-number', '0', '--no-fork-cache']
    const cli = runCli([...base, '--fork-activation', 'arrowhead600=1', 'lovell700=-1'])
    const [, url] = await cli.waitFor(/Listening on (http:\/\/\S+) /)
    // PUSH0 from block 1 on with the override; TSTORE (lovell700) never
    expect(await rpc(url!, 'eth_call', [{ data: '0x5f60005260206000f3' }, 'latest'])).toBe('0x')
    await rpc(url!, 'evm_mine')
    expect(await rpc(url!, 'eth_call', [{ data: '0x5f60005260206000f3' }, 'latest'])).toBe('0x' + '00'.repeat(32))
    expect(await rpc(url!, 'eth_call', [{ data: '0x60015f5d60206000f3' }, 'latest'])).toBe('0x')
    const bad = runCli([...base, '--fork-activation', 'lovel700=1'])
    await bad.waitFor(/unknown network upgrade or consensus rule lovel700/)
    const malformed = runCli([...base, '--fork-activation', 'lovell700'])
    await malformed.waitFor(/--fork-activation takes name=height/)
  })

  it('refuses an unknown name in the library options as an invalid argument (-32602)', async () => {
    const { openFork } = await import('../../src/fork/fork-setup.js')
    const err = (await openFork({ url: proxy.url, blockNumber: 0, cache: false, activations: { nope: 1 } }).then(
      () => undefined,
      (e: unknown) => e,
    )) as Error
    expect(err).toBeInstanceOf(InvalidArgumentError)
    expect(err.message).toMatch(/fork activations: unknown network upgrade or consensus rule nope/)
  })
})
