/**
 * Domain records → the JSON shapes the reference node emits (docs/reference-rules.md#rule-block-json,
 * docs/reference-rules.md#rule-transaction-json, docs/reference-rules.md#rule-receipt-json,
 * docs/reference-rules.md#rule-log-json; rskj BlockResultDTO, TransactionResultDTO, TransactionReceiptDTO,
 * LogFilterElement), and the merged-mining answers (docs/reference-rules.md#rule-mnr-methods; MinerWork,
 * SubmittedBlockInfo). Quantities are minimal hex, data is unpadded hex, nulls are emitted.
 */
import type { MinerWork, SubmittedBlockInfo } from '../chain/merged-mining/merged-mining-work.js'
import type { BlockRecord, LogBlock, LogRecord, LogTx, TxRecord } from '../types/records.js'
import { quantity, toHex, ZERO_HASH } from '../util/bytes.js'

const ZERO_NONCE = '0x0000000000000000'
const ZERO_HASH_HEX = toHex(ZERO_HASH)

/** Transaction JSON (TransactionResultDTO): no chainId/yParity; v as `0x%02x`; type "0x0". */
export function formatTransaction(
  t: Pick<TxRecord, 'tx' | 'hash' | 'from'> & { index?: number },
  block: BlockRecord | undefined,
): Record<string, unknown> {
  const tx = t.tx
  return {
    hash: toHex(t.hash),
    nonce: quantity(tx.nonce),
    blockHash: block ? toHex(block.hash) : null,
    blockNumber: block ? quantity(block.header.number) : null,
    transactionIndex: block && t.index !== undefined ? quantity(t.index) : null,
    from: toHex(t.from),
    to: tx.to ? toHex(tx.to.bytes) : null,
    gas: quantity(tx.gasLimit),
    gasPrice: quantity(tx.gasPrice),
    value: quantity(tx.value),
    input: toHex(tx.data),
    // the unsigned Remasc transaction shows "0x0" for v, r and s (reference rpc.zeroSignatureIfRemasc)
    v: tx.v === undefined ? '0x0' : '0x' + tx.v.toString(16).padStart(2, '0'),
    r: quantity(tx.r ?? 0n),
    s: quantity(tx.s ?? 0n),
    type: '0x0',
  }
}

/**
 * Log JSON (LogFilterElement) plus `removed: false`. The reference sends no `removed` outside filter polls and
 * subscriptions; geth and Anvil send it on every log, and ethers-based tools (hardhat-ethers `queryFilter`) reject
 * a log without it — the field costs no fidelity (a mined log of a best-chain block is never removed).
 */
export function formatLog(log: LogRecord, t: LogTx, block: LogBlock): Record<string, unknown> {
  return {
    logIndex: quantity(log.logIndex),
    blockNumber: quantity(block.header.number),
    blockHash: toHex(block.hash),
    transactionHash: toHex(t.hash),
    transactionIndex: quantity(t.index),
    address: toHex(log.address),
    data: toHex(log.data),
    topics: log.topics.map(toHex),
    removed: false,
  }
}

/** UTF-8 JSON text in `bytes[start, end)`, with room around it for an envelope (see {@link RawJson.body}). */
export interface JsonBytes {
  bytes: Buffer
  start: number
  end: number
}

/**
 * A result that is already JSON: the dispatcher writes it as is instead of serializing a value. The in-process
 * provider parses it back.
 */
export class RawJson {
  /** Whether {@link body} wrote its envelope into the room of a byte answer already. */
  private enveloped = false

  /**
   * @param text the JSON text, or the JSON texts of the elements of an array, or UTF-8 JSON bytes (as
   *   src/rpc/log-json.ts makes them)
   */
  constructor(private readonly text: string | string[] | JsonBytes) {}

  /** The JSON text. */
  get json(): string {
    const t = this.text
    if (typeof t === 'object' && !Array.isArray(t)) return t.bytes.toString('utf8', t.start, t.end)
    return this.wrap('', '')
  }

  /**
   * `prefix + json + suffix` as one flat string (the dispatcher's response envelope around the result).
   * For an element list, a single join builds the whole text: wrapping the joined array in the envelope
   * made a rope the transport then flattened, a second copy of eth_getLogs' ~580 KB (~0.2 ms).
   */
  wrap(prefix: string, suffix: string): string {
    const t = this.text
    if (typeof t === 'string') return prefix + t + suffix
    if (!Array.isArray(t)) return prefix + this.json + suffix
    const n = t.length
    if (n === 0) return prefix + '[]' + suffix
    const first = t[0]!
    const last = t[n - 1]!
    t[0] = prefix + '[' + first
    t[n - 1] = (n === 1 ? t[0] : last) + ']' + suffix
    const text = t.join(',')
    t[0] = first
    t[n - 1] = last
    return text
  }

  /**
   * `prefix + json + suffix` as the transport sends it: for UTF-8 JSON bytes, bytes — the first time, a view of
   * the answer's own Buffer with the envelope written into the room kept around it when it fits; otherwise (or
   * again) a copy —; for text, {@link wrap}'s string.
   */
  body(prefix: string, suffix: string): string | Uint8Array {
    const t = this.text
    if (typeof t === 'string' || Array.isArray(t)) return this.wrap(prefix, suffix)
    const p = Buffer.byteLength(prefix)
    const s = Buffer.byteLength(suffix)
    if (!this.enveloped && p <= t.start && s <= t.bytes.length - t.end) {
      this.enveloped = true
      t.bytes.write(prefix, t.start - p, 'utf8')
      t.bytes.write(suffix, t.end, 'utf8')
      return t.bytes.subarray(t.start - p, t.end + s)
    }
    const out = Buffer.allocUnsafe(p + t.end - t.start + s)
    out.write(prefix, 0, 'utf8')
    t.bytes.copy(out, p, t.start, t.end)
    out.write(suffix, p + t.end - t.start, 'utf8')
    return out
  }
}

/** Receipt JSON (TransactionReceiptDTO). */
export function formatReceipt(t: TxRecord, block: BlockRecord): Record<string, unknown> {
  const r = t.receipt
  return {
    transactionHash: toHex(t.hash),
    transactionIndex: quantity(t.index),
    blockHash: toHex(block.hash),
    blockNumber: quantity(block.header.number),
    cumulativeGasUsed: quantity(r.cumulativeGasUsed),
    gasUsed: quantity(r.gasUsed),
    contractAddress: r.contractAddress ? toHex(r.contractAddress) : null,
    logs: r.logs.map((l) => formatLog(l, t, block)),
    from: toHex(t.from),
    to: t.tx.to ? toHex(t.tx.to.bytes) : null,
    status: r.status === 1 ? '0x1' : '0x0',
    logsBloom: toHex(r.logsBloom),
    type: '0x0',
    effectiveGasPrice: quantity(t.tx.gasPrice),
  }
}

/**
 * Block JSON (BlockResultDTO field order).
 * @param full whether `transactions` holds full objects (true) or hashes
 * @param pending the `pending` block: number, hash, logsBloom and miner are null (reference BlockResultDTO)
 * @param transactions the transactions to list (default all; a compatibility profile may leave out the Remasc
 *   transaction, see src/rpc/compat.ts)
 */
export function formatBlock(
  block: BlockRecord,
  full: boolean,
  pending = false,
  transactions: readonly TxRecord[] = block.transactions,
): Record<string, unknown> {
  const h = block.header
  return {
    number: pending ? null : quantity(h.number),
    hash: pending ? null : toHex(block.hash),
    parentHash: toHex(h.parentHash),
    mixHash: ZERO_HASH_HEX,
    nonce: ZERO_NONCE,
    sha3Uncles: toHex(h.unclesHash),
    logsBloom: pending ? null : toHex(h.logsBloom),
    transactionsRoot: toHex(h.transactionsRoot),
    stateRoot: toHex(h.stateRoot),
    receiptsRoot: toHex(h.receiptsRoot),
    miner: pending ? null : toHex(h.coinbase),
    difficulty: quantity(h.difficulty),
    totalDifficulty: quantity(block.totalDifficulty),
    extraData: toHex(h.extraData),
    size: quantity(block.size),
    gasLimit: quantity(h.gasLimit),
    gasUsed: quantity(h.gasUsed),
    timestamp: quantity(h.timestamp),
    transactions: full
      ? transactions.map((t) =>
          pending
            ? formatTransaction({ tx: t.tx, hash: t.hash, from: t.from }, undefined)
            : formatTransaction(t, block),
        )
      : transactions.map((t) => toHex(t.hash)),
    uncles: block.uncles.map((u) => toHex(u.hash)),
    minimumGasPrice: quantity(h.minimumGasPrice),
    bitcoinMergedMiningHeader: toHex(h.bitcoinMergedMiningHeader),
    bitcoinMergedMiningCoinbaseTransaction: toHex(h.bitcoinMergedMiningCoinbaseTransaction),
    bitcoinMergedMiningMerkleProof: toHex(h.bitcoinMergedMiningMerkleProof),
    hashForMergedMining: toHex(block.hashForMergedMining),
    paidFees: quantity(h.paidFees),
    cumulativeDifficulty: quantity(block.cumulativeDifficulty),
    // RSKIP144 sublist edges (a number array from block 1 on; null for the genesis, which has none)
    // (a fork's block without the edges field: null; docs/reference-rules.md#rule-network-activations)
    rskPteEdges: h.number === 0n || h.format?.edges === false ? null : (h.edges ?? []),
    baseEvent: null,
  }
}

/** mnr_getWork's JSON (the reference's MinerWork). */
export interface MinerWorkJson {
  blockHashForMergedMining: string
  target: string
  feesPaidToMiner: string
  notify: boolean
  parentBlockHash: string
}

/**
 * mnr_getWork's answer (docs/reference-rules.md#rule-mnr-methods): the hashes and the 32-byte target as unpadded
 * hex, the fees as a decimal string (the reference's MinerWork does so).
 */
export function formatMinerWork(w: MinerWork): MinerWorkJson {
  return {
    blockHashForMergedMining: toHex(w.hashForMergedMining),
    target: toHex(w.target),
    feesPaidToMiner: w.feesPaidToMiner.toString(10),
    notify: w.notify,
    parentBlockHash: toHex(w.parentHash),
  }
}

/** mnr_submitBitcoinBlock*'s JSON (the reference's SubmittedBlockInfo). */
export interface SubmittedBlockInfoJson {
  blockImportedResult: string
  blockHash: string
  blockIncludedHeight: string
}

/**
 * mnr_submitBitcoinBlock*'s answer (docs/reference-rules.md#rule-mnr-methods): the ImportResult name as the hex
 * of its ASCII bytes, the block hash, the block number as a quantity.
 */
export function formatSubmittedBlockInfo(info: SubmittedBlockInfo): SubmittedBlockInfoJson {
  return {
    blockImportedResult: toHex(new TextEncoder().encode(info.importResult)),
    blockHash: toHex(info.blockHash),
    blockIncludedHeight: quantity(info.blockNumber),
  }
}
