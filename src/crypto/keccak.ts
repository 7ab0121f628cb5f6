/**
 * Keccak-256 (the pre-standard SHA-3 padding used by Ethereum and RSK).
 *
 * Reference: rskj `org/ethereum/crypto/Keccak256Helper.java` / `HashUtil.keccak256`.
 *
 * Three implementations, fastest available first: hash-wasm's WebAssembly Keccak once {@link startWasmKeccak}
 * has compiled it (the node starts it after start-up); before that, or without it, the native `keccak` addon;
 * when the prebuilt addon is missing or fails to load, the pure-JS `@noble/hashes` (the `keccak` package's own
 * JS fallback is slower than noble, so its native entry point is loaded directly). Each is self-tested on the
 * empty input before use.
 */
import { existsSync, readdirSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { keccak_256 } from '@noble/hashes/sha3'

/** The `keccak` addon's native sponge (the class its stream-based JS API wraps). */
interface NativeKeccakState {
  initialize(rate: number, capacity: number): void
  absorb(data: Buffer): void
  absorbLastFewBits(bits: number): void
  squeeze(length: number): Buffer
}

const require = createRequire(import.meta.url)

function loadNative(): NativeKeccakState | undefined {
  if (process.env['RSK_KECCAK_FORCE_JS'] === '1') return undefined
  try {
    // The addon itself, located the way `keccak/bindings.js` locates it, but without its stream-based API
    // (`keccak/bindings.js` builds a readable-stream Transform per hash: ~1.7 µs and several objects more
    // than the bare sponge, measured on 100-byte inputs).
    const bindings = require.resolve('keccak/bindings.js')
    const dir = dirname(bindings)
    const prebuild = publishedPrebuild(dir)
    const Addon = (
      prebuild !== undefined
        ? require(prebuild)
        : (createRequire(bindings)('node-gyp-build') as (dir: string) => unknown)(dir)
    ) as new () => NativeKeccakState
    const state = new Addon()
    // Self-test once so a broken addon is never used.
    if (!isEmptyInputDigest(nativeDigest(state, Buffer.alloc(0)))) return undefined
    return state
  } catch {
    return undefined
  }
}

/**
 * The prebuilt addon node-gyp-build (keccak's loader) would pick, found without it, for the layout keccak
 * publishes: `prebuilds/<platform>-<arch>/node.napi[.glibc|.musl].node` and no `build/` directory. Loading
 * node-gyp-build and its directory scans cost ~2-4 ms of start-up (measured). Anything else (a source build,
 * node-gyp-build's environment overrides, Electron, another file in that directory) returns undefined: then
 * node-gyp-build decides, as before.
 * @param dir the keccak package directory
 * @returns the addon's path, or undefined
 */
export function publishedPrebuild(dir: string): string | undefined {
  const env = process.env
  if (
    env['PREBUILDS_ONLY'] ||
    env['npm_config_arch'] ||
    env['npm_config_platform'] ||
    env['LIBC'] ||
    env['KECCAK_PREBUILD']
  )
    return undefined
  if (env['ELECTRON_RUN_AS_NODE'] || process.versions['electron'] || process.versions['nw']) return undefined
  if (existsSync(join(dir, 'build'))) return undefined
  const prebuilds = join(dir, 'prebuilds', `${process.platform}-${process.arch}`)
  let files: string[]
  try {
    files = readdirSync(prebuilds)
  } catch {
    return undefined
  }
  if (!files.every((f) => /^node\.napi(\.glibc|\.musl)?\.node$/.test(f))) return undefined
  // node-gyp-build: the libc tag is musl on Alpine, glibc elsewhere; a tagged build wins over an untagged one
  const libc = process.platform === 'linux' ? (existsSync('/etc/alpine-release') ? 'musl' : 'glibc') : undefined
  const file =
    libc !== undefined && files.includes(`node.napi.${libc}.node`) ? `node.napi.${libc}.node` : 'node.napi.node'
  return files.includes(file) ? join(prebuilds, file) : undefined
}

/** The self-test of an implementation: `digest` is keccak256 of the empty input (0xc5d2…a470, 32 bytes). */
function isEmptyInputDigest(digest: Uint8Array): boolean {
  return digest.length === 32 && digest[0] === 0xc5 && digest[31] === 0x70
}

/** Keccak-256 with the native sponge: rate 1088 bits, capacity 512, pad 0x01 (pre-standard SHA-3). */
function nativeDigest(state: NativeKeccakState, data: Buffer): Buffer {
  state.initialize(1088, 512)
  state.absorb(data)
  state.absorbLastFewBits(0x01)
  return state.squeeze(32)
}

const native = loadNative()

/** Inputs up to this size are hashed from a copy in {@link scratch} (Unitrie nodes, headers, transactions). */
const SCRATCH_SIZE = 4096
const scratch = Buffer.allocUnsafeSlow(SCRATCH_SIZE)

/** Which implementation is in use: `'native'` (keccak addon) or `'js'` (@noble/hashes). */
export const KECCAK_IMPLEMENTATION: 'native' | 'js' = native ? 'native' : 'js'

/** hash-wasm's incremental hasher (the part of its IHasher interface used here). */
interface WasmHasher {
  init(): WasmHasher
  update(data: Uint8Array): WasmHasher
  digest(outputType: 'binary'): Uint8Array
}

/** hash-wasm's Keccak-256 once {@link startWasmKeccak} has set it up. */
let wasm: WasmHasher | undefined
let wasmStarting = false

/**
 * Switches {@link keccak256} to hash-wasm's WebAssembly Keccak-256 once it is compiled (asynchronously; until
 * then the native addon, or noble, hashes). Why: the addon costs four N-API calls and a separately allocated
 * result Buffer per hash; the WebAssembly hasher ~0.7 µs for 32-120 byte inputs against ~2.0 µs (600 B: 2.3 vs
 * 4.6 µs; Node 20, the 2-core bench machine, measured), and the node hashes ~50 times per automined
 * transaction (trie nodes, receipts, headers, merged mining). Self-tested before use; any failure keeps the
 * current implementation. Idempotent. Call it after start-up: compiling costs a few ms of the main thread.
 * RSK_KECCAK_FORCE_JS=1 keeps noble.
 */
export function startWasmKeccak(): void {
  void wasmKeccakReady()
}

let wasmReady: Promise<void> | undefined

/**
 * {@link startWasmKeccak}, resolved once the WebAssembly Keccak hashes (or could not be set up: the current
 * implementation goes on). For bulk hashing before the node serves (loading a state file: ~3× faster).
 * Never rejects.
 */
export function wasmKeccakReady(): Promise<void> {
  if (wasmReady) return wasmReady
  if (wasmStarting || process.env['RSK_KECCAK_FORCE_JS'] === '1') return (wasmReady = Promise.resolve())
  wasmStarting = true
  try {
    const { createKeccak } = require('hash-wasm/dist/keccak.umd.min.js') as {
      createKeccak(bits: 256): Promise<WasmHasher>
    }
    wasmReady = createKeccak(256).then(
      (h) => {
        if (isEmptyInputDigest(h.init().update(new Uint8Array(0)).digest('binary'))) wasm = h
      },
      () => undefined,
    )
  } catch {
    // no hash-wasm: the addon (or noble) goes on hashing
    wasmReady = Promise.resolve()
  }
  return wasmReady
}

/** Which implementation hashes now: `'wasm'` (hash-wasm, after {@link startWasmKeccak}), `'native'` or `'js'`. */
export function keccakImplementation(): 'wasm' | 'native' | 'js' {
  return wasm ? 'wasm' : KECCAK_IMPLEMENTATION
}

const slowKeccak256: (data: Uint8Array) => Uint8Array = native
  ? (data: Uint8Array): Uint8Array => {
      // Inputs are copied into a scratch Buffer rather than wrapped (`data.buffer` would move a small typed
      // array's bytes off the V8 heap for good), and the digest is copied into a 32-byte on-heap array: the
      // addon's result owns a separately allocated backing store, and hashes are what the chain keeps most of
      // (node, block and transaction hashes; ~170 B less each; docs/architecture.md#performance-rules).
      let buf: Buffer
      if (Buffer.isBuffer(data)) buf = data
      else if (data.length <= SCRATCH_SIZE) {
        scratch.set(data)
        buf = scratch.subarray(0, data.length)
      } else buf = Buffer.from(data.buffer, data.byteOffset, data.byteLength)
      const out = new Uint8Array(32)
      out.set(nativeDigest(native, buf))
      return out
    }
  : (data: Uint8Array): Uint8Array => keccak_256(data)

/**
 * keccak256(data) → 32-byte digest.
 *
 * @param data arbitrary bytes (not modified)
 * @returns a fresh 32-byte Uint8Array (never a Buffer, so `toEqual` comparisons against
 *          plain Uint8Arrays behave)
 */
export const keccak256 = (data: Uint8Array): Uint8Array =>
  wasm !== undefined ? wasm.init().update(data).digest('binary') : slowKeccak256(data)

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
