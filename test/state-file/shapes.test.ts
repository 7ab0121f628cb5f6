/**
 * State files of the wrong shape are refused with a message naming the member and what it holds instead — the
 * Anvil format (`accounts`, an account's fields, `best_block_number`) and node-cli's own (`node_cli` and its
 * members) — through loadState, createNode({ loadState }), anvil_loadState (-32602) and the CLI's `--load-state`
 * (non-zero exit). Members of the wrong kind used to be skipped: `{"accounts": 5}` started a node with an empty
 * state.
 */
import { once } from 'node:events'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { createNode } from '../../src/index.js'
import { loadState, stateBytes } from '../../src/state-file/load.js'
import { killStartedClis, runCli } from '../helpers/cli.js'
import { rpcError, startNode } from '../helpers/node.js'

const dir = mkdtempSync(join(tmpdir(), 'node-cli-state-shape-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
afterEach(killStartedClis)

const A = '0x00000000000000000000000000000000000000a1'
const HASH = '0x' + '11'.repeat(32)
/** A `node_cli` member of the right shape (the checks of its members run before the chain's). */
const META = {
  version: 1,
  network: 33,
  chainId: 33,
  genesisHash: HASH,
  stateRoot: HASH,
  head: '0x0',
  minimumGasPrice: '0x0',
}

/** Loads `doc` (a value, serialized with JSON.stringify) and expects the load to be refused with `message`. */
async function refused(doc: unknown, message: RegExp): Promise<void> {
  const text = JSON.stringify(doc)
  await expect(loadState(stateBytes(Buffer.from(text)), 'the state'), text).rejects.toThrow(message)
}

/** An Anvil-format document whose account A is `account`. */
const withAccount = (account: unknown) => ({ block: {}, accounts: { [A]: account } })
/** A node-cli document whose `node_cli` member is META with `changes`. */
const withMeta = (changes: Record<string, unknown>) => ({ accounts: {}, node_cli: { ...META, ...changes } })

describe('state files of the wrong shape', () => {
  it.each<[string, unknown, RegExp]>([
    // Anvil format: the accounts member
    [
      'accounts a number',
      { accounts: 5 },
      /the state: "accounts" must be an object \(address → account\), got a number/,
    ],
    ['accounts an array', { accounts: [{ nonce: 1 }] }, /"accounts" must be an object .*, got an array/],
    ['accounts an empty array', { accounts: [] }, /"accounts" must be an object .*, got an array/],
    ['accounts a string', { accounts: '0x' }, /"accounts" must be an object .*, got a string/],
    ['accounts null', { accounts: null }, /"accounts" must be an object .*, got null/],
    ['accounts true', { accounts: true }, /"accounts" must be an object .*, got a boolean/],
    // an account
    ['an account a number', { accounts: { [A]: 5 } }, new RegExp(`account ${A}: expected an object, got a number`)],
    ['an account an array', withAccount([]), new RegExp(`account ${A}: expected an object, got an array`)],
    ['an account a string', withAccount('0x1'), new RegExp(`account ${A}: expected an object, got a string`)],
    ['an account null', withAccount(null), new RegExp(`account ${A}: expected an object, got null`)],
    // an account's fields
    ['balance an object', withAccount({ balance: {} }), /balance: expected a non-negative integer, got an object/],
    ['balance an array', withAccount({ balance: ['0x1'] }), /balance: expected a non-negative integer, got an array/],
    ['balance a boolean', withAccount({ balance: true }), /balance: expected a non-negative integer, got true/],
    ['balance null', withAccount({ balance: null }), /balance: expected a non-negative integer, got null/],
    ['balance "0x"', withAccount({ balance: '0x' }), /balance: expected a non-negative integer, got "0x"/],
    ['balance negative', withAccount({ balance: -1 }), /balance: expected a non-negative integer, got "-1"/],
    ['nonce a fraction', withAccount({ nonce: 1.5 }), /nonce: expected a non-negative integer, got "1.5"/],
    ['nonce an object', withAccount({ nonce: {} }), /nonce: expected a non-negative integer, got an object/],
    ['nonce text', withAccount({ nonce: 'one' }), /nonce: expected a non-negative integer, got "one"/],
    ['code a number', withAccount({ code: 96 }), /code: expected 0x-hex bytes, got "96"/],
    ['code an object', withAccount({ code: {} }), /code: expected 0x-hex bytes, got an object/],
    ['code an array', withAccount({ code: ['0x60'] }), /code: expected 0x-hex bytes, got an array/],
    ['code a boolean', withAccount({ code: false }), /code: expected 0x-hex bytes, got false/],
    ['storage an array', withAccount({ storage: [] }), /storage: expected an object, got an array/],
    ['storage a number', withAccount({ storage: 5 }), /storage: expected an object, got "5"/],
    ['storage a string', withAccount({ storage: '0x' }), /storage: expected an object, got "0x"/],
    ['a storage word a number', withAccount({ storage: { '0x1': 5 } }), /storage 0x1: expected a 32-byte hex word/],
    ['a storage word an object', withAccount({ storage: { '0x1': {} } }), /storage 0x1: .* got an object/],
    ['a storage word null', withAccount({ storage: { '0x1': null } }), /storage 0x1: .* got null/],
    // best_block_number
    [
      'best_block_number an object',
      { accounts: {}, best_block_number: {} },
      /best_block_number must be a number or string, got an object/,
    ],
    [
      'best_block_number an array',
      { accounts: {}, best_block_number: [1] },
      /best_block_number must be a number or string, got an array/,
    ],
    [
      'best_block_number a boolean',
      { accounts: {}, best_block_number: true },
      /best_block_number must be a number or string, got a boolean/,
    ],
    // node-cli format: the node_cli member and its parts
    ['node_cli a number', { accounts: {}, node_cli: 1 }, /"node_cli" must be an object, got a number/],
    ['node_cli an array', { accounts: {}, node_cli: [META] }, /"node_cli" must be an object, got an array/],
    ['node_cli null', { accounts: {}, node_cli: null }, /"node_cli" must be an object, got null/],
    ['storageBytes an array', withMeta({ storageBytes: [] }), /node_cli\.storageBytes must be an object .*array/],
    ['storageBytes a number', withMeta({ storageBytes: 3 }), /node_cli\.storageBytes must be an object .*number/],
    [
      "an address's storageBytes an array",
      withMeta({ storageBytes: { [A]: ['0x01'] } }),
      new RegExp(`storageBytes of ${A}: expected an object, got an array`),
    ],
    ['rawEntries an object', withMeta({ rawEntries: {} }), /node_cli\.rawEntries must be an array .*got an object/],
    ['rawEntries a string', withMeta({ rawEntries: '0x' }), /node_cli\.rawEntries must be an array .*got a string/],
    ['a raw entry an object', withMeta({ rawEntries: [{}] }), /rawEntries\[0\] is not a \[key, value\] pair/],
    ['blocks an object', withMeta({ blocks: {} }), /node_cli\.blocks must be an array .*got an object/],
    ['blocks a number', withMeta({ blocks: 2 }), /node_cli\.blocks must be an array .*got a number/],
    ['a block a string', withMeta({ blocks: ['0xc0'] }), /node_cli\.blocks\[0\] is not a \[block, extra\] pair/],
    // node_cli's scalar members
    ['version an object', withMeta({ version: {} }), /node_cli\.version: expected a number or string, got an object/],
    ['version text', withMeta({ version: 'one' }), /node_cli\.version: expected a non-negative integer, got "one"/],
    ['network an array', withMeta({ network: [33] }), /node_cli\.network: expected a number or string, got an array/],
    ['network text', withMeta({ network: 'x' }), /node_cli\.network: expected a non-negative integer, got "x"/],
    ['chainId a boolean', withMeta({ chainId: true }), /node_cli\.chainId: expected a number or string, got a boolean/],
    ['chainId a fraction', withMeta({ chainId: 3.5 }), /node_cli\.chainId: expected a non-negative integer/],
    ['genesisHash a number', withMeta({ genesisHash: 5 }), /node_cli\.genesisHash: expected a 32-byte 0x-hex hash/],
    ['stateRoot short', withMeta({ stateRoot: '0x12' }), /node_cli\.stateRoot: expected a 32-byte 0x-hex hash/],
    ['head an object', withMeta({ head: {} }), /node_cli\.head: expected a number or string, got an object/],
    ['head text', withMeta({ head: 'latest' }), /node_cli\.head: expected a non-negative integer, got "latest"/],
    ['minimumGasPrice null', withMeta({ minimumGasPrice: null }), /node_cli\.minimumGasPrice: .* got null/],
  ])('%s', async (_what, doc, message) => {
    await refused(doc, message)
  })

  it('well-shaped documents still load (an empty state; node_cli members absent)', async () => {
    const empty = await loadState(stateBytes(Buffer.from('{"accounts":{}}')), 'the state')
    expect(empty.accounts).toBe(0)
    const meta = await loadState(stateBytes(Buffer.from(JSON.stringify(withMeta({})))), 'the state')
    expect(meta.meta).toEqual({ ...META })
    const hexMeta = await loadState(
      stateBytes(Buffer.from(JSON.stringify(withMeta({ version: '0x1', network: '33', chainId: '0x21' })))),
      'the state',
    )
    expect(hexMeta.meta).toMatchObject({ version: 1, network: 33, chainId: 33 })
  })

  it('createNode({ loadState }) rejects {"accounts": 5}', async () => {
    const file = join(dir, 'accounts-5.json')
    writeFileSync(file, '{"accounts": 5}')
    await expect(createNode({ port: 0, loadState: file })).rejects.toThrow(
      /state file .*accounts-5\.json: "accounts" must be an object \(address → account\), got a number/,
    )
  })

  it('anvil_loadState answers -32602 with the message for {"accounts": 5}', async () => {
    const node = await startNode()
    try {
      const hex = '0x' + Buffer.from('{"accounts": 5}').toString('hex')
      const err = await rpcError(node.url, 'anvil_loadState', [hex])
      expect(err.code).toBe(-32602)
      expect(err.message).toMatch(/the state: "accounts" must be an object \(address → account\), got a number/)
    } finally {
      await node.close()
    }
  })

  it('the CLI exits non-zero with the message for {"accounts": 5}', async () => {
    const file = join(dir, 'accounts-5-cli.json')
    writeFileSync(file, '{"accounts": 5}')
    const p = runCli(['--port', '0', '--load-state', file])
    const [code] = (await once(p.child, 'exit')) as [number]
    expect(p.output()).toMatch(/error: state file .*accounts-5-cli\.json: "accounts" must be an object/)
    expect(p.output()).not.toMatch(/Listening on/)
    expect(code).not.toBe(0)
  }, 30_000)
})
