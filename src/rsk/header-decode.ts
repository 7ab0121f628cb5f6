/**
 * Decoding RSK block headers and blocks from their uncompressed RLP (the reference's BlockFactory.decodeHeader /
 * decodeBlock), with the per-height rules that say which optional header fields exist.
 *
 * Reference sources (rskj master, paths under rskj-core/src/main/java/):
 * - org/ethereum/core/BlockFactory.java        decodeHeader / decodeBlock
 * - org/ethereum/core/GenesisHeader.java       genesis difficulty kept as raw bytes
 * - org/ethereum/core/Block.java               block RLP = [fullHeader, txs, uncles]
 */
import { RLP } from '@ethereumjs/rlp'
import { bytesToBigInt } from '../util/bytes.js'
import { decodeEdges, type HeaderVersion, type RskHeader } from './header.js'
import { listItems, viewsOf, wholeItem, type RlpItemBounds } from '../util/rlp-views.js'

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
 * Decode a block RLP (Block.getEncoded / BlockFactory.decodeBlock) in place: every byte field of the result, and
 * each transaction's RLP, is a view into `encoded` (src/util/rlp-views.ts), so the caller must own `encoded` for as
 * long as it keeps the result.
 * @returns the header, each transaction's own RLP bytes, and the uncle headers
 * @throws Error when `encoded` does not have the block shape
 */
export function decodeBlock(
  encoded: Uint8Array,
  rulesFor: (number: bigint) => HeaderDecodeRules = regtestHeaderRules,
): { header: RskHeader; txsRlp: Uint8Array[]; uncles: RskHeader[] } {
  const blk = wholeItem(encoded)
  if (!blk.list) throw new Error('block decode: not one list')
  const parts = listItems(encoded, blk)
  if (parts.length !== 3) throw new Error('A block must have 3 exactly items')
  const [h, txs, uncles] = parts as [RlpItemBounds, RlpItemBounds, RlpItemBounds]
  if (!h.list || !txs.list || !uncles.list) throw new Error('block decode: bad shape')
  return {
    header: decodeHeaderFields(viewsOf(encoded, h) as RlpNested[], rulesFor),
    txsRlp: listItems(encoded, txs).map((t) => encoded.subarray(t.start, t.end)),
    uncles: listItems(encoded, uncles).map((u) => {
      if (!u.list) throw new Error('block decode: bad uncle')
      return decodeHeaderFields(viewsOf(encoded, u) as RlpNested[], rulesFor)
    }),
  }
}
