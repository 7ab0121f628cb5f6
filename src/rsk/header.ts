/**
 * RSK block header / block codec, byte-compatible with the reference node (rskj).
 *
 * Reference sources (rskj master, paths under rskj-core/src/main/java/):
 * - org/ethereum/core/BlockHeader.java         getEncoded(mm, proof, compressed), getHash,
 *                                              getHashForMergedMining, getMiningForkDetectionData
 * - org/ethereum/core/BlockHeaderV0/V1/V2.java  per-version trailing fields
 * - org/ethereum/core/BlockHeaderExtensionV1/V2.java  extension hash (RSKIP351 / RSKIP535)
 * - org/ethereum/core/GenesisHeader.java       genesis difficulty kept as raw bytes
 * - org/ethereum/core/Block.java               block RLP = [fullHeader, txs, uncles]
 * - org/ethereum/util/RLP.java                 number encodings
 * - co/rsk/mine/ForkDetectionDataCalculator.java  RSKIP110 fork detection data
 *
 * Number encodings (RLP.java):
 * - number, gasUsed, timestamp, paidFees, uncleCount: `encodeBigInteger` / `encodeCoin` —
 *   minimal big-endian, zero → 0x80 (empty string).
 * - difficulty: `encodeBlockDifficulty` = RLP string of Java `BigInteger.toByteArray()`
 *   (0x00 prefix when the top bit is set; zero → the single byte 0x00). The genesis keeps the
 *   JSON bytes verbatim (e.g. 0x0000000001).
 * - minimumGasPrice: `encodeSignedCoinNonNullZero` — zero → raw 0x00, else `toByteArray()`;
 *   null (absent) → 0x80.
 * - gasLimit: raw bytes as stored in the header (miners write `BigInteger.toByteArray()`, so
 *   10 000 000 is 00 98 96 80; the genesis strips leading zeros).
 * - A single 0x00 byte is emitted raw (standard RLP for bytes < 0x80).
 */
import { bytesToBigInt, concat, fromHex, heapBytes, tempBytes, type Allocator } from '../util/bytes.js'
import { createHash } from 'node:crypto'
import { RLP } from '@ethereumjs/rlp'
import { keccak256 } from '../crypto/keccak.js'

// ---------------------------------------------------------------------------------------------
// RLP primitives (org/ethereum/util/RLP.java encodeElement / encodeList)
// ---------------------------------------------------------------------------------------------

/** Bytes of an RLP length prefix for a payload of `len` bytes. */
function prefixSize(len: number): number {
  if (len < 56) return 1
  let n = 1
  for (let l = len; l > 255; l = Math.floor(l / 256)) n++
  return 1 + n
}

/** Writes the RLP prefix of a `len`-byte payload (offset 0x80 string / 0xc0 list) at 0; returns its size. */
function writePrefix(out: Uint8Array, len: number, offset: number): number {
  if (len < 56) {
    out[0] = offset + len
    return 1
  }
  const size = prefixSize(len)
  out[0] = offset + 55 + size - 1
  for (let i = size - 1, l = len; i >= 1; i--, l = Math.floor(l / 256)) out[i] = l & 0xff
  return size
}

/**
 * RLP-encode a byte string (RLP.encodeElement): empty/null → 0x80; one byte < 0x80 (including
 * 0x00) → itself; otherwise length prefix ‖ bytes. One allocation (block sealing encodes ~100 items per
 * mined block: headers three times, receipts, logs), from `alloc` (util/bytes {@link tempBytes} for values
 * that are only hashed).
 */
export function rlpBytes(data: Uint8Array | null | undefined, alloc: Allocator = heapBytes): Uint8Array {
  if (!data || data.length === 0) return Uint8Array.of(0x80)
  if (data.length === 1 && data[0]! < 0x80) return Uint8Array.of(data[0]!)
  const out = alloc(prefixSize(data.length) + data.length)
  out.set(data, writePrefix(out, data.length, 0x80))
  return out
}

/**
 * RLP list of ALREADY-ENCODED items (RLP.encodeList): list prefix ‖ items concatenated (one allocation, from
 * `alloc`, as {@link rlpBytes}).
 */
export function rlpList(encodedItems: readonly Uint8Array[], alloc: Allocator = heapBytes): Uint8Array {
  let n = 0
  for (const p of encodedItems) n += p.length
  const out = alloc(prefixSize(n) + n)
  let pos = writePrefix(out, n, 0xc0)
  for (const p of encodedItems) {
    out.set(p, pos)
    pos += p.length
  }
  return out
}

// ---------------------------------------------------------------------------------------------
// Number → bytes helpers
// ---------------------------------------------------------------------------------------------

/** Minimal unsigned big-endian bytes; 0 → empty (so RLP gives 0x80). Rejects negatives. */
export function unsignedBytes(value: bigint | number): Uint8Array {
  const v = BigInt(value)
  if (v < 0n) throw new Error('unsignedBytes: negative value')
  if (v === 0n) return new Uint8Array(0)
  if (v <= 0xffffffffffffn) {
    // (most values: nonces, gas, small balances; byte by byte without a hex string)
    let n = Number(v)
    let length = 0
    for (let m = n; m > 0; m = Math.floor(m / 256)) length++
    const out = new Uint8Array(length)
    for (let i = length - 1; i >= 0; i--, n = Math.floor(n / 256)) out[i] = n % 256
    return out
  }
  return fromHex(v.toString(16))
}

/**
 * Java `BigInteger.toByteArray()` of a non-negative value: minimal two's complement, i.e. a 0x00
 * prefix when the top bit is set, and zero → the single byte 0x00.
 */
export function javaBigIntegerBytes(value: bigint | number): Uint8Array {
  const v = BigInt(value)
  if (v < 0n) throw new Error('javaBigIntegerBytes: negative values are not supported')
  if (v === 0n) return Uint8Array.of(0)
  const u = unsignedBytes(v)
  return u[0]! & 0x80 ? concat(Uint8Array.of(0), u) : u
}

/** RLP.encodeBigInteger: minimal big-endian, zero → 0x80. */
export function rlpUnsigned(value: bigint | number): Uint8Array {
  return rlpBytes(unsignedBytes(value))
}

/** RLP.encodeSignedCoinNonNullZero: null → 0x80, zero → raw 0x00, else RLP(toByteArray()). */
export function rlpSignedCoin(value: bigint | null | undefined): Uint8Array {
  if (value === null || value === undefined) return Uint8Array.of(0x80)
  return rlpBytes(javaBigIntegerBytes(value))
}

// ---------------------------------------------------------------------------------------------
// Header model
// ---------------------------------------------------------------------------------------------

/**
 * Header format version (ActivationConfig.getHeaderVersion): 0 before RSKIP351, 1 = RSKIP351, 2 = RSKIP351+RSKIP535.
 */
export type HeaderVersion = 0 | 1 | 2

/**
 * An RSK block header. Hashes/roots are 32 B, coinbase 20 B, logsBloom 256 B.
 *
 * `null` optional fields mean "absent from the encoding" exactly as a Java null does:
 * - `ummRoot` null before RSKIPUMM; an empty array (encodes as 0x80) once active (regtest ≥ 1).
 * - `edges` (RSKIP144 tx execution sublist edges, int16 values) null when not parallel
 *   compliant; `[]` encodes as 0x80.
 * - `baseEvent` (RSKIP535, V2 only) null when absent; V2 always encodes it (empty → 0x80).
 * - merged-mining fields null/empty = no MM fields (the "pending" block); the genesis has 0x00.
 */
export interface RskHeader {
  parentHash: Uint8Array
  unclesHash: Uint8Array
  /** 20 bytes; the all-zero (null) address encodes as 0x80. */
  coinbase: Uint8Array
  stateRoot: Uint8Array
  txTrieRoot: Uint8Array
  receiptTrieRoot: Uint8Array
  /** 256 bytes. For V1/V2 it lives in the extension; the compressed encoding carries its hash. */
  logsBloom: Uint8Array
  /** bigint → encoded as Java toByteArray; Uint8Array → raw bytes (genesis keeps the JSON bytes). */
  difficulty: bigint | Uint8Array
  number: bigint
  /** Raw bytes as the reference stores them (e.g. 00 98 96 80 for 10 000 000 on mined blocks). */
  gasLimit: Uint8Array
  gasUsed: bigint
  /** Unix seconds. */
  timestamp: bigint
  extraData: Uint8Array
  /** Wei. */
  paidFees: bigint
  /** Wei; null only for exotic legacy headers (encodes as 0x80). */
  minimumGasPrice: bigint | null
  uncleCount: number
  ummRoot: Uint8Array | null
  version: HeaderVersion
  edges: number[] | null
  baseEvent: Uint8Array | null
  bitcoinMergedMiningHeader: Uint8Array | null
  bitcoinMergedMiningMerkleProof: Uint8Array | null
  bitcoinMergedMiningCoinbaseTransaction: Uint8Array | null
  /** RSKIP92 (active from 0 on regtest): hashes exclude the MM proof and coinbase. Default true. */
  useRskip92Encoding?: boolean
}

/**
 * Options of {@link encodeHeader} = BlockHeader.getEncoded(withMergedMiningFields, withMerkleProofAndCoinbase,
 * compressed).
 */
export interface EncodeHeaderOptions {
  /** Include the merged-mining fields (only if the header has any). */
  mm: boolean
  /** Also include the MM merkle proof and coinbase transaction (after the btc header). */
  proof: boolean
  /** V1/V2: replace the bloom by extensionData and drop version/edges/baseEvent. */
  compressed: boolean
  /** The encoding is only hashed: allocate it with util/bytes tempBytes. */
  temp?: boolean
}

const NULL_ADDRESS = new Uint8Array(20)

function isAllZero(b: Uint8Array): boolean {
  for (const x of b) if (x !== 0) return false
  return true
}

/** True when any merged-mining field is non-empty (BlockHeader.hasMiningFields). */
export function hasMiningFields(h: RskHeader): boolean {
  return (
    (h.bitcoinMergedMiningCoinbaseTransaction?.length ?? 0) > 0 ||
    (h.bitcoinMergedMiningHeader?.length ?? 0) > 0 ||
    (h.bitcoinMergedMiningMerkleProof?.length ?? 0) > 0
  )
}

/** RLP of the edges field (ByteUtil.shortsToRLP): an RLP string of little-endian int16 values. */
export function encodeEdges(edges: readonly number[]): Uint8Array {
  const b = new Uint8Array(edges.length * 2)
  const dv = new DataView(b.buffer)
  edges.forEach((e, i) => dv.setInt16(i * 2, e, true))
  return rlpBytes(b)
}

/** Decode the payload of an edges RLP string (ByteUtil.rlpToShorts). */
export function decodeEdges(payload: Uint8Array): number[] {
  const out: number[] = []
  const dv = new DataView(payload.buffer, payload.byteOffset, payload.byteLength)
  for (let i = 0; i + 1 < payload.length; i += 2) out.push(dv.getInt16(i, true))
  return out
}

/**
 * The header extension hash for V1/V2 (BlockHeaderExtensionV1/V2.getHash):
 *   V1: keccak256(RLP[ RLP(keccak256(bloom)), edges? ])
 *   V2: keccak256(RLP[ RLP(keccak256(bloom)), RLP(baseEvent or empty), edges? ])
 * where edges is included only when not null.
 */
export function extensionHash(h: Pick<RskHeader, 'version' | 'logsBloom' | 'baseEvent' | 'edges'>): Uint8Array {
  if (h.version === 0) throw new Error('extensionHash: V0 headers have no extension')
  const items = [rlpBytes(keccak256(h.logsBloom))]
  if (h.version === 2) items.push(rlpBytes(h.baseEvent ?? new Uint8Array(0)))
  if (h.edges !== null) items.push(encodeEdges(h.edges))
  return keccak256(rlpList(items))
}

/**
 * extensionData for V1/V2 (BlockHeaderV1/V2.createExtensionData): RLP[ version byte, RLP(extHash) ].
 * For V0 the "extension data" is the bloom itself.
 */
export function extensionData(h: RskHeader): Uint8Array {
  if (h.version === 0) return h.logsBloom
  const cached = extensionDataCache.get(h.logsBloom)
  if (
    cached &&
    cached.version === h.version &&
    edgesEqual(cached.edges, h.edges) &&
    bytesOrNullEqual(cached.baseEvent, h.baseEvent)
  ) {
    return cached.data
  }
  const data = rlpList([rlpBytes(Uint8Array.of(h.version)), rlpBytes(extensionHash(h))])
  extensionDataCache.set(h.logsBloom, {
    version: h.version,
    edges: h.edges && [...h.edges],
    baseEvent: h.baseEvent,
    data,
  })
  return data
}

/**
 * extensionData by bloom object: a mined block's header is encoded three times (hashForMergedMining, hash,
 * block RLP) from the same fields, and each compressed encoding would hash the 256-byte bloom again.
 */
const extensionDataCache = new WeakMap<
  Uint8Array,
  { version: HeaderVersion; edges: readonly number[] | null; baseEvent: Uint8Array | null; data: Uint8Array }
>()

function edgesEqual(a: readonly number[] | null, b: readonly number[] | null): boolean {
  if (a === null || b === null) return a === b
  return a.length === b.length && a.every((x, i) => x === b[i])
}

function bytesOrNullEqual(a: Uint8Array | null, b: Uint8Array | null): boolean {
  if (a === null || b === null) return a === b
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

/**
 * RLP of a header field list (BlockHeader.getEncoded(mm, proof, compressed)). Field order:
 * parentHash, unclesHash, coinbase, stateRoot, txTrieRoot, receiptTrieRoot, bloom|extensionData,
 * difficulty, number, gasLimit, gasUsed, timestamp, extraData, paidFees, minimumGasPrice,
 * uncleCount, [ummRoot], then per version (uncompressed: V0 edges?/baseEvent?; V1 0x01, edges?;
 * V2 0x02, edges?, baseEvent; compressed V1/V2: nothing; V0 same as uncompressed), then
 * [btcHeader, [merkleProof, coinbaseTx]] when `mm` and the header has MM fields.
 */
export function encodeHeader(h: RskHeader, opts: EncodeHeaderOptions): Uint8Array {
  const f: Uint8Array[] = [
    rlpBytes(h.parentHash),
    rlpBytes(h.unclesHash),
    rlpBytes(isAllZero(h.coinbase) && h.coinbase.length === NULL_ADDRESS.length ? null : h.coinbase),
    rlpBytes(h.stateRoot),
    rlpBytes(h.txTrieRoot),
    rlpBytes(h.receiptTrieRoot),
    rlpBytes(opts.compressed ? extensionData(h) : h.logsBloom),
    rlpBytes(typeof h.difficulty === 'bigint' ? javaBigIntegerBytes(h.difficulty) : h.difficulty),
    rlpUnsigned(h.number),
    rlpBytes(h.gasLimit),
    rlpUnsigned(h.gasUsed),
    rlpUnsigned(h.timestamp),
    rlpBytes(h.extraData),
    rlpUnsigned(h.paidFees),
    rlpSignedCoin(h.minimumGasPrice),
    rlpUnsigned(h.uncleCount),
  ]
  if (h.ummRoot !== null) f.push(rlpBytes(h.ummRoot))
  if (h.version === 0) {
    if (h.edges !== null) f.push(encodeEdges(h.edges))
    if (h.baseEvent !== null) f.push(rlpBytes(h.baseEvent))
  } else if (!opts.compressed) {
    f.push(rlpBytes(Uint8Array.of(h.version)))
    if (h.edges !== null) f.push(encodeEdges(h.edges))
    if (h.version === 2) f.push(rlpBytes(h.baseEvent ?? new Uint8Array(0)))
  }
  const alloc = opts.temp ? tempBytes : heapBytes
  if (opts.mm && hasMiningFields(h)) {
    f.push(rlpBytes(h.bitcoinMergedMiningHeader, alloc))
    if (opts.proof) {
      f.push(rlpBytes(h.bitcoinMergedMiningMerkleProof, alloc))
      f.push(rlpBytes(h.bitcoinMergedMiningCoinbaseTransaction, alloc))
    }
  }
  return rlpList(f, alloc)
}

function rskip92(h: RskHeader): boolean {
  return h.useRskip92Encoding ?? true
}

/**
 * The block hash preimage (BlockHeader.getEncodedForHash = getEncoded(true, !RSKIP92, compressed=true)).
 * @param temp the preimage is only hashed: allocate it with util/bytes tempBytes (never keep it then)
 */
export function encodedForHash(h: RskHeader, temp = false): Uint8Array {
  return encodeHeader(h, { mm: true, proof: !rskip92(h), compressed: true, temp })
}

/** Block hash = keccak256(getEncodedForHash()) (32 B). */
export function headerHash(h: RskHeader): Uint8Array {
  return keccak256(encodedForHash(h, true))
}

/**
 * The uncompressed `getEncoded()` = getEncoded(true, !RSKIP92) — what
 * rsk_getRawBlockHeaderByHash/ByNumber return. For V1/V2 keccak(raw) ≠ block hash.
 */
export function rawHeader(h: RskHeader): Uint8Array {
  return encodeHeader(h, { mm: true, proof: !rskip92(h), compressed: false })
}

/** getFullEncoded(): uncompressed with all three MM fields (used inside the block RLP and for uncles). */
export function fullEncodedHeader(h: RskHeader): Uint8Array {
  return encodeHeader(h, { mm: true, proof: true, compressed: false })
}

/** keccak256(RLP list of the uncles' full encodings) (BlockHeader.getUnclesEncoded); [] → 0x1dcc4de8…. */
export function unclesHash(uncles: readonly RskHeader[]): Uint8Array {
  return keccak256(rlpList(uncles.map(fullEncodedHeader)))
}

/**
 * Block RLP (Block.getEncoded) = RLP[ fullEncodedHeader, RLP[tx RLPs…], RLP[uncle full headers…] ].
 * Its length is the JSON `size`.
 *
 * @param txsRlp the transactions' own RLP encodings (each already a full RLP item)
 */
export function encodeBlock(
  header: RskHeader,
  txsRlp: readonly Uint8Array[],
  uncles: readonly RskHeader[],
): Uint8Array {
  return rlpList([fullEncodedHeader(header), rlpList(txsRlp), rlpList(uncles.map(fullEncodedHeader))])
}

// ---------------------------------------------------------------------------------------------
// Merged mining
// ---------------------------------------------------------------------------------------------

/** "RSKBLOCK:" — the tag the BTC coinbase carries before the hash for merged mining (RskMiningConstants.RSK_TAG). */
export const RSK_TAG: Uint8Array = Uint8Array.from(Buffer.from('RSKBLOCK:', 'ascii'))

/**
 * Blocks from this height on carry RSKIP110 fork detection data
 * (MiningConfig.REQUIRED_NUMBER_OF_BLOCKS_FOR_FORK_DETECTION_CALCULATION).
 */
export const FORK_DETECTION_MIN_HEIGHT = 449n

/**
 * Base hash for merged mining (BlockHeader.getBaseHashForMergedMining):
 * keccak256(getEncoded(mm=false, proof=false, compressed=true)); for a UMM block (ummRoot of 20 B)
 * keccak256(base[0..20] ‖ ummRoot).
 */
export function baseHashForMergedMining(h: RskHeader): Uint8Array {
  const base = keccak256(encodeHeader(h, { mm: false, proof: false, compressed: true, temp: true }))
  if (h.ummRoot && h.ummRoot.length > 0) {
    if (h.ummRoot.length !== 20) throw new Error(`UMM Root length must be either 0 or 20. Found: ${h.ummRoot.length}`)
    const lr = new Uint8Array(40)
    lr.set(base.subarray(0, 20), 0)
    lr.set(h.ummRoot, 20)
    return keccak256(lr)
  }
  return base
}

function lastIndexOf(hay: Uint8Array, needle: Uint8Array): number {
  outer: for (let i = hay.length - needle.length; i >= 0; i--) {
    for (let j = 0; j < needle.length; j++) if (hay[i + j] !== needle[j]) continue outer
    return i
  }
  return -1
}

/**
 * The 12 bytes of RSKIP110 fork detection data committed in the BTC coinbase right after
 * "RSKBLOCK:" ‖ base[0..20] (BlockHeader.getMiningForkDetectionData), or undefined when the
 * header has no coinbase transaction. Throws when the tag is missing or the data is short.
 */
export function miningForkDetectionDataFromCoinbase(h: RskHeader): Uint8Array | undefined {
  const cb = h.bitcoinMergedMiningCoinbaseTransaction
  if (!cb || !hasMiningFields(h)) return undefined
  const base = baseHashForMergedMining(h)
  const needle = new Uint8Array(RSK_TAG.length + 20)
  needle.set(RSK_TAG, 0)
  needle.set(base.subarray(0, 20), RSK_TAG.length)
  const pos = lastIndexOf(cb, needle)
  if (pos < 0) throw new Error('Mining fork detection data could not be found')
  const from = pos + needle.length
  if (cb.length < from + 12) throw new Error('Invalid fork detection data length')
  return cb.slice(from, from + 12)
}

/**
 * hashForMergedMining (BlockHeader.getHashForMergedMining), 32 B.
 *
 * Base value per {@link baseHashForMergedMining}. When RSKIP110 applies (on regtest: number ≥ 449,
 * as BlockFactory decides for stored blocks) the last 12 bytes are replaced by the fork detection
 * data: taken from the BTC coinbase when the header has MM fields, otherwise `forkDetectionData`
 * (the value ForkDetectionDataCalculator produced for a block being mined).
 *
 * @param opts.includeForkDetectionData override the "number ≥ 449" rule (e.g. for networks where
 *        RSKIP110 is not active yet)
 * @param opts.forkDetectionData 12 bytes, used only for headers without MM fields
 */
export function hashForMergedMining(
  h: RskHeader,
  opts: { includeForkDetectionData?: boolean; forkDetectionData?: Uint8Array } = {},
): Uint8Array {
  const out = baseHashForMergedMining(h).slice()
  const include = opts.includeForkDetectionData ?? h.number >= FORK_DETECTION_MIN_HEIGHT
  if (!include) return out
  const fdd = hasMiningFields(h) ? miningForkDetectionDataFromCoinbase(h) : opts.forkDetectionData
  if (!fdd || fdd.length === 0) return out
  if (fdd.length !== 12) throw new Error('fork detection data must be 12 bytes')
  out.set(fdd, 20)
  return out
}

/** BTC block hash in bitcoinj `getHash().getBytes()` order (double SHA-256, byte-reversed). */
export function btcBlockHash(btcHeader: Uint8Array): Uint8Array {
  const d1 = createHash('sha256').update(btcHeader).digest()
  const d2 = createHash('sha256').update(d1).digest()
  return Uint8Array.from(d2).reverse()
}

/** Minimal header view needed by {@link calculateForkDetectionData}. */
export interface ForkDetectionInput {
  number: bigint
  uncleCount: number
  bitcoinMergedMiningHeader: Uint8Array | null
}

/**
 * RSKIP110 fork detection data for the block to be mined on top of `mainchain[0]`
 * (ForkDetectionDataCalculator.calculateWithBlockHeaders).
 *
 * @param mainchain the best block and its ancestors, NEWEST FIRST; at least 449 entries
 *        (fewer → empty array, as the reference)
 * @returns 12 bytes: 7 B commit-to-parents vector (last byte of the BTC block hash of the headers
 *          at offsets (best mod 64) + 64·i), 1 B uncle count over the 32 newest (capped 255),
 *          4 B big-endian height of the block being mined; or an empty array
 */
export function calculateForkDetectionData(mainchain: readonly ForkDetectionInput[]): Uint8Array {
  if (mainchain.length < 7 * 64 + 1) return new Uint8Array(0)
  const out = new Uint8Array(12)
  const best = mainchain[0]!.number
  const start = (best / 64n) * 64n
  for (let i = 0; i < 7; i++) {
    const idx = Number(best - start) + i * 64
    const btc = mainchain[idx]!.bitcoinMergedMiningHeader
    if (!btc) throw new Error('fork detection: missing bitcoin header')
    const hash = btcBlockHash(btc)
    out[i] = hash[hash.length - 1]!
  }
  let uncles = 0
  for (let i = 0; i < 32; i++) uncles += mainchain[i]!.uncleCount
  out[7] = Math.min(uncles, 255)
  new DataView(out.buffer).setInt32(8, Number(BigInt.asIntN(32, best + 1n)), false)
  return out
}

// ---------------------------------------------------------------------------------------------
// Decoding (BlockFactory.decodeHeader / decodeBlock, uncompressed form)
// ---------------------------------------------------------------------------------------------

/** Which optional header fields a block height has (derived from the network's activations). */
export interface HeaderDecodeRules {
  /** RSKIPUMM active: an ummRoot field follows uncleCount. */
  umm: boolean
  /** Header version (RSKIP351 → 1, + RSKIP535 → 2). */
  version: HeaderVersion
  /** RSKIP351 && RSKIP144 active: an edges field may follow the version byte. */
  edges: boolean
  /** RSKIP92 active (hash excludes MM proof and coinbase). */
  rskip92: boolean
}

/**
 * Regtest (chain 33, rskj 9.0.x / master) rules: block 0 is a V0 genesis without ummRoot; blocks
 * ≥ 1 are V2 with ummRoot, edges and baseEvent (regtest.conf pins rskipUMM, rskip144, rskip351
 * and rskip535 at 1). RSKIP92 is active from 0.
 */
export function regtestHeaderRules(number: bigint): HeaderDecodeRules {
  return number === 0n
    ? { umm: false, version: 0, edges: false, rskip92: true }
    : { umm: true, version: 2, edges: true, rskip92: true }
}

type RlpNested = Uint8Array | RlpNested[]

function item(x: RlpNested | undefined, what: string): Uint8Array {
  if (!(x instanceof Uint8Array)) throw new Error(`header decode: ${what} is not a byte string`)
  return x
}

/**
 * Decode an UNCOMPRESSED header field list (the `getEncoded()` / `getFullEncoded()` forms, as
 * found inside a block RLP or returned by rsk_getRawBlockHeaderByHash) into an {@link RskHeader}.
 * The number decides which optional fields exist, via `rulesFor` (default: regtest).
 * The genesis (number 0) keeps its difficulty bytes verbatim, like GenesisHeader.
 */
export function decodeHeaderFields(
  fields: RlpNested[],
  rulesFor: (number: bigint) => HeaderDecodeRules = regtestHeaderRules,
): RskHeader {
  if (fields.length < 16) throw new Error(`header decode: too few fields (${fields.length})`)
  const f = (i: number, what: string): Uint8Array => item(fields[i], what)
  const number = bytesToBigInt(f(8, 'number'))
  const rules = rulesFor(number)
  const difficultyBytes = f(7, 'difficulty')
  const mgpBytes = f(14, 'minimumGasPrice')
  const coinbase = f(2, 'coinbase')
  let r = 16
  let ummRoot: Uint8Array | null = null
  if (rules.umm) ummRoot = f(r++, 'ummRoot')
  let version: HeaderVersion = 0
  let edges: number[] | null = null
  let baseEvent: Uint8Array | null = null
  if (rules.version > 0) {
    const v = f(r++, 'version')
    if (v.length !== 1 || v[0] !== rules.version) throw new Error(`header decode: expected version ${rules.version}`)
    version = rules.version
    if (rules.edges && fields.length > r) edges = decodeEdges(f(r++, 'edges'))
    if (version === 2) {
      const remaining = fields.length - r
      baseEvent = remaining === 0 || remaining === 3 ? new Uint8Array(0) : f(r++, 'baseEvent')
    }
  }
  let btcHeader: Uint8Array | null = null
  let proof: Uint8Array | null = null
  let cbTx: Uint8Array | null = null
  if (fields.length > r) btcHeader = f(r++, 'bitcoinMergedMiningHeader')
  if (fields.length > r) proof = f(r++, 'bitcoinMergedMiningMerkleProof')
  if (fields.length > r) cbTx = f(r++, 'bitcoinMergedMiningCoinbaseTransaction')
  if (fields.length > r) throw new Error('header decode: too many fields')
  const signed = (b: Uint8Array): bigint => {
    if (b.length > 0 && b[0]! & 0x80) throw new Error('header decode: negative value')
    return bytesToBigInt(b)
  }
  return {
    parentHash: f(0, 'parentHash'),
    unclesHash: f(1, 'unclesHash'),
    coinbase: coinbase.length === 0 ? new Uint8Array(20) : coinbase,
    stateRoot: f(3, 'stateRoot'),
    txTrieRoot: f(4, 'txTrieRoot'),
    receiptTrieRoot: f(5, 'receiptTrieRoot'),
    logsBloom: f(6, 'logsBloom'),
    difficulty: number === 0n ? difficultyBytes : signed(difficultyBytes),
    number,
    gasLimit: f(9, 'gasLimit'),
    gasUsed: bytesToBigInt(f(10, 'gasUsed')),
    timestamp: bytesToBigInt(f(11, 'timestamp')),
    extraData: f(12, 'extraData'),
    paidFees: bytesToBigInt(f(13, 'paidFees')),
    minimumGasPrice: mgpBytes.length === 0 ? null : signed(mgpBytes),
    uncleCount: Number(bytesToBigInt(f(15, 'uncleCount'))),
    ummRoot,
    version,
    edges,
    baseEvent,
    bitcoinMergedMiningHeader: btcHeader,
    bitcoinMergedMiningMerkleProof: proof,
    bitcoinMergedMiningCoinbaseTransaction: cbTx,
    useRskip92Encoding: rules.rskip92,
  }
}

/** Decode an uncompressed header RLP (see {@link decodeHeaderFields}). */
export function decodeHeader(
  encoded: Uint8Array,
  rulesFor: (number: bigint) => HeaderDecodeRules = regtestHeaderRules,
): RskHeader {
  const fields = RLP.decode(encoded) as RlpNested
  if (!Array.isArray(fields)) throw new Error('header decode: not a list')
  return decodeHeaderFields(fields, rulesFor)
}

/**
 * Decode a block RLP (Block.getEncoded / BlockFactory.decodeBlock).
 * @returns the header, each transaction's own RLP bytes, and the uncle headers
 */
export function decodeBlock(
  encoded: Uint8Array,
  rulesFor: (number: bigint) => HeaderDecodeRules = regtestHeaderRules,
): { header: RskHeader; txsRlp: Uint8Array[]; uncles: RskHeader[] } {
  const blk = RLP.decode(encoded) as RlpNested
  if (!Array.isArray(blk) || blk.length !== 3) throw new Error('A block must have 3 exactly items')
  const [h, txs, uncles] = blk as [RlpNested, RlpNested, RlpNested]
  if (!Array.isArray(h) || !Array.isArray(txs) || !Array.isArray(uncles)) throw new Error('block decode: bad shape')
  return {
    header: decodeHeaderFields(h, rulesFor),
    txsRlp: txs.map((t) => RLP.encode(t as Uint8Array)),
    uncles: uncles.map((u) => {
      if (!Array.isArray(u)) throw new Error('block decode: bad uncle')
      return decodeHeaderFields(u, rulesFor)
    }),
  }
}
