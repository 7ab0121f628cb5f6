/**
 * Keccak-256 (the pre-standard SHA-3 padding used by Ethereum and RSK).
 *
 * Reference: rskj `org/ethereum/crypto/Keccak256Helper.java` / `HashUtil.keccak256`.
 *
 * The native `keccak` addon is used when it loads; if the prebuilt addon is
 * missing or fails to load we fall back to the pure-JS `@noble/hashes`
 * implementation (the `keccak` package's own JS fallback is slower than noble,
 * so we load its native entry point directly and decide ourselves).
 */
import { createRequire } from 'node:module'
import { keccak_256 } from '@noble/hashes/sha3'

type NativeKeccakFactory = (algorithm: 'keccak256') => {
  update(data: Buffer): { digest(): Buffer }
}

const require = createRequire(import.meta.url)

function loadNative(): NativeKeccakFactory | undefined {
  if (process.env['RSK_KECCAK_FORCE_JS'] === '1') return undefined
  try {
    // `keccak/bindings.js` throws when the native addon cannot be loaded,
    // unlike `keccak/index.js`, which silently falls back to its own JS code.
    const factory = require('keccak/bindings.js') as NativeKeccakFactory
    // Self-test once so a broken addon is never used.
    const probe = factory('keccak256').update(Buffer.alloc(0)).digest()
    if (probe.length !== 32 || probe[0] !== 0xc5 || probe[31] !== 0x70) return undefined
    return factory
  } catch {
    return undefined
  }
}

const native = loadNative()

/** Which implementation is in use: `'native'` (keccak addon) or `'js'` (@noble/hashes). */
export const KECCAK_IMPLEMENTATION: 'native' | 'js' = native ? 'native' : 'js'

/**
 * keccak256(data) → 32-byte digest.
 *
 * @param data arbitrary bytes (not modified)
 * @returns a fresh 32-byte Uint8Array (never a Buffer, so `toEqual` comparisons against
 *          plain Uint8Arrays behave)
 */
export const keccak256: (data: Uint8Array) => Uint8Array = native
  ? (data: Uint8Array): Uint8Array => {
      const buf = Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength)
      const out = native('keccak256').update(buf).digest()
      return new Uint8Array(out.buffer, out.byteOffset, out.byteLength)
    }
  : (data: Uint8Array): Uint8Array => keccak_256(data)

/**
 * Hash of the empty Unitrie / empty MPT: keccak256(RLP('')) = keccak256(0x80) =
 * 0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421.
 *
 * Reference: rskj `co/rsk/trie/Trie.java` `makeEmptyHash`, `HashUtil.EMPTY_TRIE_HASH`.
 */
export const EMPTY_TRIE_HASH: Uint8Array = keccak256(Uint8Array.of(0x80))

/**
 * keccak256(RLP([])) = 0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347,
 * the unclesHash of a block without uncles (rskj `GenesisLoaderImpl.EMPTY_LIST_HASH`).
 */
export const EMPTY_LIST_HASH: Uint8Array = keccak256(Uint8Array.of(0xc0))
