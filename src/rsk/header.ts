/**
 * RSK block header model and its encodings (the compressed, uncompressed and full forms, the block hash, the block
 * RLP), byte-compatible with the reference node (rskj). Decoding is in src/rsk/header-decode.ts, hashForMergedMining
 * in src/rsk/merged-mining/merged-mining-hash.ts, the RLP primitives in src/rsk/rlp-encoding.ts.
 *
 * Reference sources (rskj master, paths under rskj-core/src/main/java/):
 * - org/ethereum/core/BlockHeader.java         getEncoded(mm, proof, compressed), getHash
 * - org/ethereum/core/BlockHeaderV0/V1/V2.java  per-version trailing fields
 * - org/ethereum/core/BlockHeaderExtensionV1/V2.java  extension hash (RSKIP351 / RSKIP535)
 * - org/ethereum/core/GenesisHeader.java       genesis difficulty kept as raw bytes
 * - org/ethereum/core/Block.java               block RLP = [fullHeader, txs, uncles]
 * - org/ethereum/util/RLP.java                 number encodings
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
import { bytesEqual, heapBytes, tempBytes } from '../util/bytes.js'
import { keccak256 } from '../crypto/keccak.js'
import { rlpBytes, rlpList, rlpPrefixSize, RlpItemWriter, writeRlpPrefix } from './rlp-encoding.js'

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

/** getFullEncoded()'s options. */
const FULL: EncodeHeaderOptions = { mm: true, proof: true, compressed: false }

/** RLP of an empty list. */
const EMPTY_LIST = Uint8Array.of(0xc0)

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
  const w = new RlpItemWriter().size()
  w.int16LE(edges)
  const out = new Uint8Array(w.pos)
  w.into(out, 0).int16LE(edges)
  return out
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
 * For V0 the "extension data" is the bloom itself. The last results are kept ({@link recentExtensions}).
 */
export function extensionData(h: RskHeader): Uint8Array {
  if (h.version === 0) return h.logsBloom
  for (const e of recentExtensions) {
    if (
      e.version === h.version &&
      e.bloom.equals(h.logsBloom) &&
      edgesEqual(e.edges, h.edges) &&
      bytesOrNullEqual(e.baseEvent, h.baseEvent)
    )
      return e.data
  }
  const data = rlpList([rlpBytes(Uint8Array.of(h.version)), rlpBytes(extensionHash(h))])
  // the oldest entry's bloom copy is written over (no allocation per block)
  const old = recentExtensions[nextExtension]
  const bloom = old?.bloom.length === h.logsBloom.length ? old.bloom : Buffer.alloc(h.logsBloom.length)
  bloom.set(h.logsBloom)
  recentExtensions[nextExtension] = {
    bloom,
    version: h.version,
    edges: h.edges && [...h.edges],
    baseEvent: h.baseEvent && h.baseEvent.slice(),
    data,
  }
  nextExtension = (nextExtension + 1) % RECENT_EXTENSIONS
  return data
}

/**
 * The extension data computed last, by the bloom's bytes and the other fields it hashes (copies: an entry does not
 * depend on the caller's arrays staying unchanged). Computing it hashes the 256-byte bloom and then the extension
 * (~3 µs), and the same value is asked for again and again: a mined block's header is encoded compressed twice
 * (hashForMergedMining, then the hash), and consecutive blocks often have the same bloom — a plain transfer's block
 * blooms only the Remasc payment logs, the same every block; calls of one contract between the same accounts log
 * the same addresses and topics. A value of the header fields alone: nothing invalidates it. Results are shared:
 * read them, never write into them.
 */
const recentExtensions: {
  /** A copy of the bloom (a Buffer: its native comparison takes ~50 ns for 256 bytes, a JS loop ~180-330). */
  bloom: Buffer
  version: HeaderVersion
  edges: readonly number[] | null
  baseEvent: Uint8Array | null
  data: Uint8Array
}[] = []

/** How many extension data results {@link recentExtensions} keeps. */
const RECENT_EXTENSIONS = 2

/** The entry of {@link recentExtensions} written next (the oldest once it is full). */
let nextExtension = 0

function edgesEqual(a: readonly number[] | null, b: readonly number[] | null): boolean {
  if (a === null || b === null) return a === b
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

function bytesOrNullEqual(a: Uint8Array | null, b: Uint8Array | null): boolean {
  if (a === null || b === null) return a === b
  return bytesEqual(a, b)
}

/**
 * RLP of a header field list (BlockHeader.getEncoded(mm, proof, compressed)). Field order:
 * parentHash, unclesHash, coinbase, stateRoot, txTrieRoot, receiptTrieRoot, bloom|extensionData,
 * difficulty, number, gasLimit, gasUsed, timestamp, extraData, paidFees, minimumGasPrice,
 * uncleCount, [ummRoot], then per version (uncompressed: V0 edges?/baseEvent?; V1 0x01, edges?;
 * V2 0x02, edges?, baseEvent; compressed V1/V2: nothing; V0 same as uncompressed), then
 * [btcHeader, [merkleProof, coinbaseTx]] when `mm` and the header has MM fields.
 * Written in one pass into one buffer (rlp-encoding.ts RlpItemWriter), from `opts.temp`'s allocator.
 */
export function encodeHeader(h: RskHeader, opts: EncodeHeaderOptions): Uint8Array {
  const bloom = opts.compressed ? extensionData(h) : h.logsBloom
  const w = new RlpItemWriter()
  headerItems(w.size(), h, opts, bloom)
  const payload = w.pos
  const out = (opts.temp ? tempBytes : heapBytes)(rlpPrefixSize(payload) + payload)
  headerItems(w.into(out, writeRlpPrefix(out, 0, payload, 0xc0)), h, opts, bloom)
  return out
}

/** The version byte of V1/V2 uncompressed headers, as an RLP item (a byte below 0x80 is itself). */
const VERSION_ITEMS = [new Uint8Array(0), Uint8Array.of(1), Uint8Array.of(2)] as const

/**
 * The header's items in {@link encodeHeader}'s order, to a sizing or writing pass of `w`.
 * @param bloom the logs bloom, or for a compressed V1/V2 encoding the extension data
 */
function headerItems(w: RlpItemWriter, h: RskHeader, opts: EncodeHeaderOptions, bloom: Uint8Array): void {
  w.bytes(h.parentHash)
  w.bytes(h.unclesHash)
  w.bytes(isAllZero(h.coinbase) && h.coinbase.length === NULL_ADDRESS.length ? null : h.coinbase)
  w.bytes(h.stateRoot)
  w.bytes(h.txTrieRoot)
  w.bytes(h.receiptTrieRoot)
  w.bytes(bloom)
  if (typeof h.difficulty === 'bigint') w.javaBigInteger(h.difficulty)
  else w.bytes(h.difficulty)
  w.unsigned(h.number)
  w.bytes(h.gasLimit)
  w.unsigned(h.gasUsed)
  w.unsigned(h.timestamp)
  w.bytes(h.extraData)
  w.unsigned(h.paidFees)
  w.signedCoin(h.minimumGasPrice)
  w.unsigned(h.uncleCount)
  if (h.ummRoot !== null) w.bytes(h.ummRoot)
  if (h.version === 0) {
    if (h.edges !== null) w.int16LE(h.edges)
    if (h.baseEvent !== null) w.bytes(h.baseEvent)
  } else if (!opts.compressed) {
    w.bytes(VERSION_ITEMS[h.version])
    if (h.edges !== null) w.int16LE(h.edges)
    if (h.version === 2) w.bytes(h.baseEvent)
  }
  if (opts.mm && hasMiningFields(h)) {
    w.bytes(h.bitcoinMergedMiningHeader)
    if (opts.proof) {
      w.bytes(h.bitcoinMergedMiningMerkleProof)
      w.bytes(h.bitcoinMergedMiningCoinbaseTransaction)
    }
  }
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
  return encodeHeader(h, FULL)
}

/** keccak256(RLP list of the uncles' full encodings) (BlockHeader.getUnclesEncoded); [] → 0x1dcc4de8…. */
export function unclesHash(uncles: readonly RskHeader[]): Uint8Array {
  return keccak256(rlpList(uncles.map(fullEncodedHeader)))
}

/**
 * Block RLP (Block.getEncoded) = RLP[ fullEncodedHeader, RLP[tx RLPs…], RLP[uncle full headers…] ].
 * Its length is the JSON `size`. Written in one pass into one buffer: the header's items, the transactions and the
 * list prefixes straight into the block's bytes (no copy of a header encoding, no array per field).
 *
 * @param txsRlp the transactions' own RLP encodings (each already a full RLP item)
 */
export function encodeBlock(
  header: RskHeader,
  txsRlp: readonly Uint8Array[],
  uncles: readonly RskHeader[],
): Uint8Array {
  const w = new RlpItemWriter()
  headerItems(w.size(), header, FULL, header.logsBloom)
  const headerPayload = w.pos
  let txsPayload = 0
  for (const tx of txsRlp) txsPayload += tx.length
  const unclesRlp = uncles.length === 0 ? EMPTY_LIST : rlpList(uncles.map(fullEncodedHeader))
  const payload =
    rlpPrefixSize(headerPayload) + headerPayload + rlpPrefixSize(txsPayload) + txsPayload + unclesRlp.length
  const out = new Uint8Array(rlpPrefixSize(payload) + payload)
  let pos = writeRlpPrefix(out, 0, payload, 0xc0)
  headerItems(w.into(out, writeRlpPrefix(out, pos, headerPayload, 0xc0)), header, FULL, header.logsBloom)
  pos = writeRlpPrefix(out, w.pos, txsPayload, 0xc0)
  for (const tx of txsRlp) {
    out.set(tx, pos)
    pos += tx.length
  }
  out.set(unclesRlp, pos)
  return out
}
