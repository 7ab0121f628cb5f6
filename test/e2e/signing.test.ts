/**
 * End-to-end signing and keystores (docs/reference-rules.md#rule-personal):
 * signatures from eth_sign / personal_sign / eth_signTypedData_v4 verified by ethers and viem, eth_signTransaction
 * output decoded by ethers and mined through eth_sendRawTransaction, v3 keystore files under `--db` read by
 * ethers (and ethers-written keystores read by the node) across restarts, `--mnemonic` accounts against ethers'
 * HD derivation, and no private key in any log line.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { spawn } from 'node:child_process'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import {
  encryptKeystoreJsonSync,
  getBytes,
  HDNodeWallet,
  JsonRpcProvider,
  Network,
  Transaction,
  verifyMessage,
  verifyTypedData,
  Wallet,
  type JsonRpcSigner,
  type TypedDataDomain,
  type TypedDataField,
} from 'ethers'
import {
  createWalletClient,
  defineChain,
  http,
  verifyMessage as viemVerifyMessage,
  verifyTypedData as viemVerifyTypedData,
  type Hex,
} from 'viem'
import type { Node } from '../../src/index.js'
import { createNode } from '../../src/index.js'
import { COW, COW1, rpc, rpcError, startNode } from '../helpers/node.js'

const network = () => Network.from({ chainId: 33, name: 'rsk-regtest' })
const cowWallet = new Wallet(COW.privateKey)
const MINER = '0xec4ddeb4380ad69b3e509baad9f158cdf4e4681d'
const MNEMONIC = 'test test test test test test test test test test test junk'

/** EIP-712's own example (nested structs, arrays), with the regtest chain id. */
const domain: TypedDataDomain = {
  name: 'Ether Mail',
  version: '1',
  chainId: 33,
  verifyingContract: '0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC',
}
const types: Record<string, TypedDataField[]> = {
  Person: [
    { name: 'name', type: 'string' },
    { name: 'wallets', type: 'address[]' },
  ],
  Mail: [
    { name: 'from', type: 'Person' },
    { name: 'to', type: 'Person[]' },
    { name: 'contents', type: 'string' },
    { name: 'amount', type: 'uint256' },
    { name: 'tag', type: 'bytes32' },
  ],
}
const mail = {
  from: { name: 'Cow', wallets: ['0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826'] },
  to: [
    {
      name: 'Bob',
      wallets: ['0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB', '0xB0B0b0b0b0b0B000000000000000000000000000'],
    },
    { name: 'Carol', wallets: [] },
  ],
  contents: 'Hello, Bob!',
  amount: 10n ** 20n,
  tag: '0x' + 'ab'.repeat(32),
}
const eip712Domain = [
  { name: 'name', type: 'string' },
  { name: 'version', type: 'string' },
  { name: 'chainId', type: 'uint256' },
  { name: 'verifyingContract', type: 'address' },
]
const payload = () =>
  JSON.stringify({
    types: { EIP712Domain: eip712Domain, ...types },
    primaryType: 'Mail',
    domain,
    message: { ...mail, amount: mail.amount.toString() },
  })

const tmpDirs: string[] = []
function tmpDir(): string {
  const d = mkdtempSync(path.join(os.tmpdir(), 'node-cli-keystore-'))
  tmpDirs.push(d)
  return d
}
afterAll(() => {
  for (const d of tmpDirs) rmSync(d, { recursive: true, force: true })
})

describe('signatures verified by ethers and viem', () => {
  let node: Node
  let provider: JsonRpcProvider
  let signer: JsonRpcSigner
  const chain = defineChain({
    id: 33,
    name: 'rsk-regtest',
    nativeCurrency: { name: 'RBTC', symbol: 'RBTC', decimals: 18 },
    rpcUrls: { default: { http: ['http://127.0.0.1'] } },
  })

  beforeAll(async () => {
    node = await startNode()
    provider = new JsonRpcProvider(node.url, network(), {
      staticNetwork: network(),
      pollingInterval: 50,
      cacheTimeout: -1,
    })
    signer = await provider.getSigner(COW.address)
  })
  afterAll(async () => {
    provider?.destroy()
    await node?.close()
  })

  it('eth_sign: r‖s‖v (v 27/28) over the "\\x19Ethereum Signed Message" prefix; ethers verifyMessage recovers the signer', async () => {
    const data = '0x68656c6c6f20776f726c64'
    const sig = await rpc<string>(node.url, 'eth_sign', [COW.address, data])
    expect(sig).toMatch(/^0x[0-9a-f]{130}$/)
    expect([27, 28]).toContain(parseInt(sig.slice(-2), 16))
    expect(verifyMessage(getBytes(data), sig).toLowerCase()).toBe(COW.address)
    // RFC 6979: the same signature ethers makes locally with the same key.
    expect(sig).toBe(await cowWallet.signMessage(getBytes(data)))
    // ethers' legacy JsonRpcSigner._legacySignMessage uses eth_sign.
    expect(verifyMessage('legacy', await signer._legacySignMessage('legacy')).toLowerCase()).toBe(COW.address)
    // Empty message.
    expect(verifyMessage(new Uint8Array(), await rpc(node.url, 'eth_sign', [COW.address, '0x'])).toLowerCase()).toBe(
      COW.address,
    )
  })

  it('personal_sign (ethers JsonRpcSigner.signMessage, viem signMessage): verifyMessage recovers the signer', async () => {
    const s1 = await signer.signMessage('Hello from node-cli ✓')
    expect(verifyMessage('Hello from node-cli ✓', s1).toLowerCase()).toBe(COW.address)
    expect(s1).toBe(await cowWallet.signMessage('Hello from node-cli ✓'))
    const s2 = await signer.signMessage(Uint8Array.of(0, 1, 2, 255))
    expect(verifyMessage(Uint8Array.of(0, 1, 2, 255), s2).toLowerCase()).toBe(COW.address)
    // A non-hex string is signed as its UTF-8 bytes (as MetaMask).
    expect(await rpc(node.url, 'personal_sign', ['plain text', COW.address])).toBe(
      await cowWallet.signMessage('plain text'),
    )

    const client = createWalletClient({ chain, transport: http(node.url), account: COW1.address as Hex })
    const s3 = await client.signMessage({ message: 'viem says hi' })
    expect(await viemVerifyMessage({ address: COW1.address as Hex, message: 'viem says hi', signature: s3 })).toBe(true)
  })

  it('eth_signTypedData_v4 (ethers JsonRpcSigner.signTypedData): verifyTypedData recovers the signer; same as a local ethers signature', async () => {
    const sig = await signer.signTypedData(domain, types, mail)
    expect(verifyTypedData(domain, types, mail, sig).toLowerCase()).toBe(COW.address)
    expect(sig).toBe(await cowWallet.signTypedData(domain, types, mail))
  })

  it('eth_signTypedData_v4 from viem (JSON-RPC account): viem verifyTypedData accepts it', async () => {
    const client = createWalletClient({ chain, transport: http(node.url), account: COW1.address as Hex })
    const viemDomain = {
      name: 'Ether Mail',
      version: '1',
      chainId: 33,
      verifyingContract: domain.verifyingContract as Hex,
    }
    const sig = await client.signTypedData({ domain: viemDomain, types, primaryType: 'Mail', message: mail })
    expect(
      await viemVerifyTypedData({
        address: COW1.address as Hex,
        domain: viemDomain,
        types,
        primaryType: 'Mail',
        message: mail,
        signature: sig,
      }),
    ).toBe(true)
  })

  it('eth_signTypedData and eth_signTypedData_v3 are aliases; the payload may be an object; unused types are ignored', async () => {
    const v4 = await rpc<string>(node.url, 'eth_signTypedData_v4', [COW.address, payload()])
    expect(await rpc(node.url, 'eth_signTypedData', [COW.address, payload()])).toBe(v4)
    expect(await rpc(node.url, 'eth_signTypedData_v3', [COW.address, JSON.parse(payload())])).toBe(v4)
    const withExtra = JSON.parse(payload())
    withExtra.types.Unused = [{ name: 'x', type: 'uint8' }]
    expect(await rpc(node.url, 'eth_signTypedData_v4', [COW.address, withExtra])).toBe(v4)
  })

  it('EIP712Domain is taken from the request (a domain with a salt and no version)', async () => {
    const d = { name: 'Salted', chainId: 33, salt: '0x' + '01'.repeat(32) }
    const t = { Ping: [{ name: 'n', type: 'uint8' }] }
    const data = {
      types: {
        EIP712Domain: [
          { name: 'name', type: 'string' },
          { name: 'chainId', type: 'uint256' },
          { name: 'salt', type: 'bytes32' },
        ],
        ...t,
      },
      primaryType: 'Ping',
      domain: d,
      message: { n: 7 },
    }
    const sig = await rpc<string>(node.url, 'eth_signTypedData_v4', [COW.address, JSON.stringify(data)])
    expect(verifyTypedData(d, t, { n: 7 }, sig).toLowerCase()).toBe(COW.address)
  })

  it('malformed typed data is -32602', async () => {
    const bad: unknown[] = [
      'not json',
      [{ type: 'string', name: 'm', value: 'v1 array' }],
      { types: { M: [{ name: 'a', type: 'uint256' }] }, primaryType: 'Missing', domain: {}, message: { a: 1 } },
      { types: { M: [{ name: 'a', type: 'uint256' }] }, primaryType: 'M', domain: {}, message: { a: 'not a number' } },
      { types: { M: 'nope' }, primaryType: 'M', domain: {}, message: {} },
    ]
    for (const b of bad) {
      const e = await rpcError(node.url, 'eth_signTypedData_v4', [COW.address, b])
      expect(e.code, JSON.stringify(b)).toBe(-32602)
    }
  })

  it('eth_signTransaction (ethers JsonRpcSigner.signTransaction): a raw EIP-155 legacy tx with the defaults, not submitted; it mines via eth_sendRawTransaction', async () => {
    const nonce = await provider.getTransactionCount(COW.address, 'pending')
    const raw = await signer.signTransaction({ to: COW1.address, value: 1234n })
    expect(raw).toMatch(/^0x[0-9a-f]+$/)
    const tx = Transaction.from(raw)
    expect(tx.from!.toLowerCase()).toBe(COW.address)
    expect(tx.type).toBe(0)
    expect(tx.chainId).toBe(33n)
    expect(tx.nonce).toBe(nonce)
    expect(tx.gasLimit).toBe(90_000n)
    expect(tx.gasPrice).toBe(0n)
    expect(tx.value).toBe(1234n)
    expect(await provider.getTransactionCount(COW.address, 'pending')).toBe(nonce) // not sent
    const hash = await rpc<string>(node.url, 'eth_sendRawTransaction', [raw])
    expect(hash).toBe(tx.hash)
    expect((await provider.getTransactionReceipt(hash))!.status).toBe(1)
  })

  it('eth_signTransaction honours explicit fields and signs for a personal_newAccount account', async () => {
    const address = await rpc<string>(node.url, 'personal_newAccount', ['pw'])
    await rpc(node.url, 'eth_sendTransaction', [{ from: COW.address, to: address, value: '0xde0b6b3a7640000' }])
    const raw = await rpc<string>(node.url, 'eth_signTransaction', [
      { from: address, to: COW.address, gas: '0x5208', gasPrice: '0x0', value: '0x5', data: '0x', nonce: '0x0' },
    ])
    const tx = Transaction.from(raw)
    expect(tx.from!.toLowerCase()).toBe(address)
    expect(tx.gasLimit).toBe(21_000n)
    expect(tx.value).toBe(5n)
    const hash = await rpc<string>(node.url, 'eth_sendRawTransaction', [raw])
    expect((await provider.getTransactionReceipt(hash))!.from.toLowerCase()).toBe(address)
  })
})

describe('keystore files under --db', () => {
  it('personal_newAccount / importRawKey write v3 files (0600) that ethers decrypts; a restart lists them locked; the passphrase unlocks them', async () => {
    const dir = tmpDir()
    const imported = Wallet.createRandom()
    let created: string
    let createdKey: string
    {
      const node = await createNode({ port: 0, db: dir })
      try {
        created = await rpc<string>(node.url, 'personal_newAccount', ['first pass'])
        createdKey = await rpc<string>(node.url, 'personal_dumpRawKey', [created])
        expect(await rpc(node.url, 'personal_importRawKey', [imported.privateKey, 'second pass'])).toBe(
          imported.address.toLowerCase(),
        )
      } finally {
        await node.close()
      }
    }
    const ksDir = path.join(dir, 'keystore')
    const files = readdirSync(ksDir).sort()
    expect(files).toHaveLength(2)
    for (const f of files) {
      expect(f).toMatch(/^UTC--\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}Z--[0-9a-f]{40}$/)
      if (process.platform !== 'win32') expect(statSync(path.join(ksDir, f)).mode & 0o777).toBe(0o600)
    }
    const fileOf = (a: string) =>
      path.join(
        ksDir,
        files.find((f) => f.endsWith(a.slice(2)))!,
      )
    const json = JSON.parse(readFileSync(fileOf(created), 'utf8'))
    expect(json).toMatchObject({
      version: 3,
      address: created.slice(2),
      crypto: { cipher: 'aes-128-ctr', kdf: 'scrypt' },
    })
    expect(JSON.stringify(json)).not.toContain(createdKey.slice(2))
    const w1 = await Wallet.fromEncryptedJson(readFileSync(fileOf(created), 'utf8'), 'first pass')
    expect(w1.address.toLowerCase()).toBe(created)
    expect(w1.privateKey).toBe(createdKey)
    const w2 = await Wallet.fromEncryptedJson(
      readFileSync(fileOf(imported.address.toLowerCase()), 'utf8'),
      'second pass',
    )
    expect(w2.privateKey).toBe(imported.privateKey)

    // Restart on the same directory.
    const node = await createNode({ port: 0, db: dir })
    try {
      const list = await rpc<string[]>(node.url, 'eth_accounts')
      expect(list.slice(10)).toEqual([MINER, created, imported.address.toLowerCase()])
      expect((await rpcError(node.url, 'eth_sign', [created, '0x00'])).message).toMatch(/is locked/)
      expect(await rpcError(node.url, 'personal_unlockAccount', [created, 'second pass'])).toMatchObject({
        code: -32000,
      })
      expect(await rpc(node.url, 'personal_unlockAccount', [created, 'first pass'])).toBe(true)
      expect(await rpc(node.url, 'personal_dumpRawKey', [created])).toBe(createdKey)
      const sig = await rpc<string>(node.url, 'eth_sign', [created, '0x00'])
      expect(verifyMessage(Uint8Array.of(0), sig).toLowerCase()).toBe(created)
      // personal_sendTransaction with the passphrase works on the locked imported account.
      await rpc(node.url, 'eth_sendTransaction', [
        { from: COW.address, to: imported.address, value: '0xde0b6b3a7640000' },
      ])
      const hash = await rpc<string>(node.url, 'personal_sendTransaction', [
        { from: imported.address, to: COW.address, value: '0x1' },
        'second pass',
      ])
      expect((await rpc(node.url, 'eth_getTransactionReceipt', [hash])).status).toBe('0x1')
    } finally {
      await node.close()
    }
  })

  it('re-importing replaces the file; a keystore written by ethers is listed and unlocks', async () => {
    const dir = tmpDir()
    const ksDir = path.join(dir, 'keystore')
    const external = Wallet.createRandom()
    // ethers writes it (scrypt N lowered to keep the test quick); the node only reads the file.
    const node1 = await createNode({ port: 0, db: dir })
    const key = Wallet.createRandom()
    try {
      await rpc(node1.url, 'personal_importRawKey', [key.privateKey, 'a'])
      await new Promise((r) => setTimeout(r, 5)) // distinct file time stamp
      await rpc(node1.url, 'personal_importRawKey', [key.privateKey, 'b'])
      expect(readdirSync(ksDir)).toHaveLength(1)
    } finally {
      await node1.close()
    }
    const ext = encryptKeystoreJsonSync({ address: external.address, privateKey: external.privateKey }, 'ext', {
      scrypt: { N: 1024 },
    })
    writeFileSync(path.join(ksDir, `UTC--2020-01-01T00-00-00.000Z--${external.address.slice(2).toLowerCase()}`), ext)
    writeFileSync(path.join(ksDir, 'README.txt'), 'not a keystore')
    const node2 = await createNode({ port: 0, db: dir })
    try {
      const list = await rpc<string[]>(node2.url, 'eth_accounts')
      expect(list.slice(11)).toEqual([external.address.toLowerCase(), key.address.toLowerCase()])
      expect(await rpcError(node2.url, 'personal_unlockAccount', [key.address, 'a'])).toMatchObject({ code: -32000 })
      expect(await rpc(node2.url, 'personal_unlockAccount', [key.address, 'b'])).toBe(true)
      expect(await rpc(node2.url, 'personal_unlockAccount', [external.address, 'ext'])).toBe(true)
      expect(await rpc(node2.url, 'personal_dumpRawKey', [external.address])).toBe(external.privateKey)
    } finally {
      await node2.close()
    }
  })

  it("keystoreKdf 'standard' writes scrypt N=262144 files", async () => {
    const dir = tmpDir()
    const node = await createNode({ port: 0, db: dir, keystoreKdf: 'standard' })
    try {
      const address = await rpc<string>(node.url, 'personal_newAccount', ['pw'])
      const [file] = readdirSync(path.join(dir, 'keystore'))
      const json = JSON.parse(readFileSync(path.join(dir, 'keystore', file!), 'utf8'))
      expect(json.crypto.kdfparams).toMatchObject({ n: 262144, r: 8, p: 1, dklen: 32 })
      expect((await Wallet.fromEncryptedJson(JSON.stringify(json), 'pw')).address.toLowerCase()).toBe(address)
    } finally {
      await node.close()
    }
  })

  it('without --db, keystores stay in memory: nothing is written, a new node does not know the account', async () => {
    const a = await startNode()
    const address = await rpc<string>(a.url, 'personal_newAccount', ['pw'])
    await a.close()
    const b = await startNode()
    try {
      expect(await rpc<string[]>(b.url, 'eth_accounts')).not.toContain(address)
    } finally {
      await b.close()
    }
  })
})

describe('--mnemonic accounts', () => {
  it("derive like ethers HDNodeWallet (m/44'/60'/0'/0/i), listed after the cow accounts and before the miner, funded, usable", async () => {
    const node = await createNode({ port: 0, mnemonic: MNEMONIC, mnemonicAccounts: 3 })
    try {
      const expected = [0, 1, 2].map((i) => HDNodeWallet.fromPhrase(MNEMONIC, undefined, `m/44'/60'/0'/0/${i}`))
      expect(expected[0]!.address).toBe('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266')
      expect(node.accounts).toHaveLength(13)
      expect(node.accounts.slice(10)).toEqual(
        expected.map((w) => ({
          address: w.address.toLowerCase(),
          privateKey: w.privateKey,
          balance: 10_000n * 10n ** 18n,
          origin: 'mnemonic',
        })),
      )
      const list = await rpc<string[]>(node.url, 'eth_accounts')
      expect(list.slice(0, 14)).toEqual([...node.accounts.map((a) => a.address), MINER])
      for (const w of expected)
        expect(BigInt(await rpc(node.url, 'eth_getBalance', [w.address, 'latest']))).toBe(10_000n * 10n ** 18n)
      const hash = await rpc<string>(node.url, 'eth_sendTransaction', [
        { from: expected[2]!.address, to: COW.address, value: '0x1' },
      ])
      expect((await rpc(node.url, 'eth_getTransactionReceipt', [hash])).status).toBe('0x1')
      expect(await rpc(node.url, 'personal_lockAccount', [expected[0]!.address])).toBe(false)
    } finally {
      await node.close()
    }
  })

  it('honours hdPath, balance and the seeded-account count', async () => {
    const node = await createNode({
      port: 0,
      mnemonic: `  ${MNEMONIC.replace(/ /g, '  ')} `,
      mnemonicAccounts: 2,
      hdPath: "m/44'/137'/0'/0",
      balance: 5n * 10n ** 17n,
      accounts: 2,
    })
    try {
      const expected = [0, 1].map((i) =>
        HDNodeWallet.fromPhrase(MNEMONIC, undefined, `m/44'/137'/0'/0/${i}`).address.toLowerCase(),
      )
      expect(node.accounts.map((a) => a.address)).toEqual([COW.address, COW1.address, ...expected])
      expect(await rpc<string[]>(node.url, 'eth_accounts')).toEqual([COW.address, COW1.address, ...expected, MINER])
      expect(BigInt(await rpc(node.url, 'eth_getBalance', [expected[1], 'latest']))).toBe(5n * 10n ** 17n)
    } finally {
      await node.close()
    }
  })

  it('an invalid mnemonic or derivation path stops createNode', async () => {
    await expect(createNode({ port: 0, mnemonic: MNEMONIC.replace('junk', 'test') })).rejects.toThrow(
      /invalid mnemonic/,
    )
    await expect(createNode({ port: 0, mnemonic: 'not words at all' })).rejects.toThrow(/invalid mnemonic/)
    await expect(createNode({ port: 0, mnemonic: MNEMONIC, hdPath: "m/44'/x" })).rejects.toThrow(
      /invalid derivation path/,
    )
  })
})

describe('no private key in the logs', () => {
  it('request log, internal-error log and console stay free of keys through every personal/signing method', async () => {
    const lines: string[] = []
    const spies = (['log', 'error', 'warn', 'info', 'debug'] as const).map((m) =>
      vi.spyOn(console, m).mockImplementation((...args: unknown[]) => void lines.push(args.map(String).join(' '))),
    )
    const node = await createNode({
      port: 0,
      mnemonic: MNEMONIC,
      mnemonicAccounts: 1,
      onRequest: (method, ms, err) => lines.push(`${method} ${ms} ${err ? `${err.code} ${err.message}` : ''}`),
      onInternalError: (method, err) => lines.push(`${method} ${String(err)} ${(err as Error)?.stack ?? ''}`),
    })
    const keys: string[] = [COW.privateKey, node.accounts[10]!.privateKey]
    try {
      const imported = Wallet.createRandom()
      keys.push(imported.privateKey)
      const call = (method: string, params: unknown[]) => rpc(node.url, method, params).catch(() => undefined)
      await call('personal_importRawKey', [imported.privateKey.slice(2, 40), 'pw']) // too short
      await call('personal_importRawKey', [imported.privateKey.slice(0, 65) + 'g', 'pw']) // not hex
      await call('personal_importRawKey', [imported.privateKey, 'pw'])
      const created = await rpc<string>(node.url, 'personal_newAccount', ['pw'])
      keys.push(await rpc<string>(node.url, 'personal_dumpRawKey', [created]))
      await call('personal_dumpRawKey', [COW.address])
      await call('personal_lockAccount', [created])
      await call('personal_dumpRawKey', [created])
      await call('personal_unlockAccount', [created, 'wrong'])
      await call('personal_sendTransaction', [{ from: created, to: COW.address }, 'wrong'])
      await call('eth_sign', [created, '0x00'])
      await call('eth_signTransaction', [{ from: COW.address, to: COW1.address }])
      await call('eth_signTypedData_v4', [COW.address, payload()])
      await call('personal_sign', ['0x00', node.accounts[10]!.address])
      await call('personal_newAccountWithSeed', ['seed'])
    } finally {
      await node.close()
      for (const s of spies) s.mockRestore()
    }
    expect(lines.length).toBeGreaterThan(10)
    const text = lines.join('\n').toLowerCase()
    for (const k of keys) expect(text).not.toContain(k.slice(2).toLowerCase())
  })

  it('the CLI (--verbose) prints only the banner keys; an imported key never appears', async () => {
    const root = fileURLToPath(new URL('../..', import.meta.url))
    const imported = Wallet.createRandom()
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        "import { main } from './src/cli/main.ts'; await main(['node', 'node-cli', ...process.argv.slice(1)])",
        '--',
        '--port',
        '0',
        '--verbose',
      ],
      { cwd: root, env: { ...process.env, FORCE_COLOR: '0' } },
    )
    let out = ''
    child.stdout.on('data', (d) => (out += d))
    child.stderr.on('data', (d) => (out += d))
    try {
      const url = await new Promise<string>((resolve, reject) => {
        const t = setInterval(() => {
          const m = /Listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)
          if (m) {
            clearInterval(t)
            resolve(m[1]!)
          }
        }, 20)
        child.once('exit', () => reject(new Error(`exited: ${out}`)))
      })
      await rpc(url, 'personal_importRawKey', [imported.privateKey.slice(0, 40), 'pw']).catch(() => undefined)
      const address = await rpc<string>(url, 'personal_importRawKey', [imported.privateKey, 'pw'])
      expect(await rpc(url, 'personal_dumpRawKey', [address])).toBe(imported.privateKey)
      // the request log is written asynchronously: wait for its lines instead of a fixed delay
      for (const deadline = Date.now() + 10_000; !/personal_dumpRawKey/.test(out) && Date.now() < deadline;) {
        await new Promise((r) => setTimeout(r, 20))
      }
      expect(out).toMatch(/personal_importRawKey .*-32602/)
      expect(out).toMatch(/personal_dumpRawKey/)
      expect(out).toContain(COW.privateKey) // the banner shows the dev keys (allowed)
      expect(out.toLowerCase()).not.toContain(imported.privateKey.slice(2, 40).toLowerCase())
    } finally {
      child.kill('SIGKILL')
    }
  })
})
