import { createRequire } from 'node:module'
import { dirname } from 'node:path'
import { describe, it, expect } from 'vitest'
import { bytesToHex, utf8ToBytes } from '@ethereumjs/util'
import { keccak_256 } from '@noble/hashes/sha3'
import {
  EMPTY_LIST_HASH,
  EMPTY_TRIE_HASH,
  KECCAK_IMPLEMENTATION,
  keccak256,
  keccakImplementation,
  publishedPrebuild,
  startWasmKeccak,
} from '../../src/crypto/keccak.js'
import { waitUntil } from '../helpers/wait.js'

describe('keccak256', () => {
  it('hashes the empty string to the well-known value', () => {
    expect(bytesToHex(keccak256(new Uint8Array(0)))).toBe(
      '0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470',
    )
  })

  it('EMPTY_TRIE_HASH = keccak(0x80) = 0x56e81f…b421', () => {
    expect(bytesToHex(EMPTY_TRIE_HASH)).toBe('0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421')
  })

  it('EMPTY_LIST_HASH = keccak(0xc0)', () => {
    expect(bytesToHex(EMPTY_LIST_HASH)).toBe('0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347')
  })

  it('agrees with @noble/hashes on assorted inputs (views and offsets included)', () => {
    const big = new Uint8Array(1000).map((_, i) => (i * 31) & 0xff)
    for (const input of [utf8ToBytes('cow'), big, big.subarray(7, 300), new Uint8Array(136), new Uint8Array(135)]) {
      expect(keccak256(input)).toEqual(keccak_256(input))
    }
  })

  it('returns a plain Uint8Array of 32 bytes', () => {
    const h = keccak256(Uint8Array.of(1))
    expect(h.length).toBe(32)
    expect(Object.getPrototypeOf(h)).toBe(Uint8Array.prototype)
  })

  it('finds the addon node-gyp-build would load, without node-gyp-build', () => {
    const require = createRequire(import.meta.url)
    const bindings = require.resolve('keccak/bindings.js')
    const nodeGypBuild = createRequire(bindings)('node-gyp-build') as { resolve(dir: string): string }
    const dir = dirname(bindings)
    const found = publishedPrebuild(dir)
    // keccak publishes prebuilds for these; elsewhere (or for a source build) node-gyp-build decides
    if (['linux-x64', 'darwin-x64', 'win32-x64'].includes(`${process.platform}-${process.arch}`))
      expect(found).toBeDefined()
    if (found !== undefined) expect(found).toBe(nodeGypBuild.resolve(dir))
  })

  it('reports its implementation', () => {
    expect(['native', 'js']).toContain(KECCAK_IMPLEMENTATION)
  })
})

describe('keccak256 after startWasmKeccak (hash-wasm)', () => {
  it('switches to WebAssembly and agrees with @noble/hashes on every size from 0 to 600 bytes and large views', async () => {
    startWasmKeccak()
    await waitUntil(() => keccakImplementation() === 'wasm', 'the WebAssembly keccak', 2_000, 10)
    expect(keccakImplementation()).toBe('wasm')
    const big = new Uint8Array(70_000).map((_, i) => (i * 131 + 7) & 0xff)
    for (let n = 0; n <= 600; n++)
      expect(bytesToHex(keccak256(big.subarray(3, 3 + n)))).toBe(bytesToHex(keccak_256(big.subarray(3, 3 + n))))
    for (const input of [big, big.subarray(1000, 66_000), Buffer.from(big.subarray(0, 5000))]) {
      expect(bytesToHex(keccak256(input))).toBe(bytesToHex(keccak_256(input)))
    }
    const d = keccak256(utf8ToBytes('cow'))
    expect(d).toBeInstanceOf(Uint8Array)
    expect(Buffer.isBuffer(d)).toBe(false)
    expect(d.length).toBe(32)
    // each digest is its own array
    expect(keccak256(new Uint8Array(0))).not.toBe(keccak256(new Uint8Array(0)))
  })
})
