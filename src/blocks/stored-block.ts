/**
 * Block records rebuilt from their stored encodings (./block-codec.ts: the block RLP and the derived RLP), compact
 * by construction (docs/architecture.md#storage): the record owns one copy of both encodings and its byte fields
 * are views into it (src/util/rlp-views.ts); a transaction's object and a receipt's logs are built on first use.
 * Measured per cached block with a transfer (heap + external): 6.0 KB this way, against 15.7 KB with a copy per
 * field and 11.4 KB for the record a block is built as; the block store's cache (./decoded-block-cache.ts) holds
 * these.
 */
import type { Common } from '@ethereumjs/common'
import { createLegacyTxFromRLP, type LegacyTx } from '@ethereumjs/tx'
import type { RskHeader } from '../rsk/header.js'
import { decodeBlock, type HeaderDecodeRules } from '../rsk/header-decode.js'
import { keccak256 } from '../crypto/keccak.js'
import { RECEIPT_LOGS_ITEM, receiptFromItems } from '../rsk/receipt-rlp.js'
import { REMASC_SENDER_JSON, remascTransactionRlp } from '../rsk/remasc.js'
import { bytesEqual, bytesToBigInt, toKey } from '../util/bytes.js'
import { itemBounds, listItems, rlpItem, skipItems, viewsOf, wholeItem, type RlpView } from '../util/rlp-views.js'
import { remascTxRecord } from './remasc-tx-record.js'
import { hasPlaceholderSignature, reportSender } from '../accounts/impersonation.js'
import { headerHash } from '../rsk/block-encoding.js'
import { blockRecord, readDerived, readStored } from './block-codec.js'
import { StorageCorruptError } from '../errors/storage-errors.js'
import type { BlockRecord, HeaderFields, LogRecord, ReceiptRecord, TxRecord } from '../types/records.js'

/** The receipt of a transaction whose block's receipts were dropped. */
function prunedReceipt(): ReceiptRecord {
  return { status: 0, cumulativeGasUsed: 0n, gasUsed: 0n, logs: [], logsBloom: new Uint8Array(256), pruned: true }
}

/**
 * Header fields of a decoded header (src/rsk/header-decode.ts): difficulty and gas limit as bigint, absent
 * minimumGasPrice as 0 wei, absent merged-mining fields and edges as empty.
 * @param h the decoded header (its byte fields are kept, not copied)
 * @returns the fields of a {@link BlockRecord}'s header, without `format`
 */
export function headerFields(h: RskHeader): HeaderFields {
  const empty = new Uint8Array(0)
  return {
    parentHash: h.parentHash,
    unclesHash: h.unclesHash,
    coinbase: h.coinbase,
    stateRoot: h.stateRoot,
    transactionsRoot: h.txTrieRoot,
    receiptsRoot: h.receiptTrieRoot,
    logsBloom: h.logsBloom,
    difficulty: typeof h.difficulty === 'bigint' ? h.difficulty : bytesToBigInt(h.difficulty),
    number: h.number,
    gasLimit: bytesToBigInt(h.gasLimit),
    gasUsed: h.gasUsed,
    timestamp: h.timestamp,
    extraData: h.extraData,
    paidFees: h.paidFees,
    minimumGasPrice: h.minimumGasPrice ?? 0n,
    uncleCount: h.uncleCount,
    bitcoinMergedMiningHeader: h.bitcoinMergedMiningHeader ?? empty,
    bitcoinMergedMiningMerkleProof: h.bitcoinMergedMiningMerkleProof ?? empty,
    bitcoinMergedMiningCoinbaseTransaction: h.bitcoinMergedMiningCoinbaseTransaction ?? empty,
    edges: h.edges ?? [],
  }
}

/**
 * A stored transaction: its hash computed once, its signed transaction object built on first use — log queries,
 * receipts and hash lookups never need it, and building one (signature checks, a Common copy) is the costliest
 * part of a decode. A class, not an object literal with a getter: such literals go to dictionary mode (~450
 * bytes of properties each, measured) and carry a closure.
 */
class StoredTx implements TxRecord {
  /** 32-byte hash: keccak256 of the transaction RLP (the native keccak is faster than tx.hash()). */
  readonly hash: Uint8Array
  private built: LegacyTx | undefined

  /**
   * @param txRlp the transaction's RLP (a view the record owns); @param from its 20-byte sender
   * @param index its position in the block; @param receipt its receipt
   * @param common the chain's Common; @param remascNumber for the Remasc transaction, its block's number
   * @param hash its hash when known (the record it was built as has it), else computed from `txRlp`
   */
  constructor(
    private readonly txRlp: Uint8Array,
    readonly from: Uint8Array,
    readonly index: number,
    readonly receipt: ReceiptRecord,
    private readonly common: Common,
    private readonly remascNumber?: bigint,
    hash?: Uint8Array,
  ) {
    this.hash = hash ?? keccak256(txRlp)
  }

  /** The signed transaction object (built on first use, then kept; the Remasc one as {@link remascTxRecord}'s). */
  get tx(): LegacyTx {
    this.built ??= this.build()
    return this.built
  }

  private build(): LegacyTx {
    const { common } = this
    if (this.remascNumber !== undefined) return remascTxRecord(this.remascNumber, this.index, this.receipt, common).tx
    // (a mined transaction was valid at its height: no init code limit of whatever rules the Common holds now)
    const tx = createLegacyTxFromRLP(this.txRlp, { common, freeze: false, allowUnlimitedInitCodeSize: true })
    // an impersonated send (placeholder signature) reports its recorded sender, as when it was mined
    if (hasPlaceholderSignature(tx, this.from)) reportSender(tx, this.from)
    else Object.freeze(tx)
    return tx
  }
}

/**
 * Rebuilds a mined block's record from its encodings. The record owns one copy of both encodings (the backends
 * may reuse their buffers) and its byte fields are views into it (src/util/rlp-views.ts): a decoded block with a
 * transfer is ~6 KB of heap instead of ~16 KB with a copy per field (docs/architecture.md#storage).
 * @param storedRlp the block RLP (reference Block.getEncoded); @param storedDerived its derived RLP
 *   (./block-codec.ts `blockDerived`); both only read (copied)
 * @param common the chain's Common, for the transaction objects built on first use
 * @param verify check that the header hashes to the stored hash (data from outside this process: a database
 *   being opened, a state file); blocks this node stored itself are read without it
 * @param headerRules the optional header fields by block number (a fork's, of the remote network,
 *   docs/reference-rules.md#rule-network-activations); default node-cli's own (regtest's)
 * @returns the block's record: header, hash, hashForMergedMining, size (bytes of the block RLP), total difficulty,
 *   transactions with their receipts
 * @throws StorageCorruptError when they do not decode, or (`verify`) the header does not hash to the stored hash
 */
export function decodeStoredBlock(
  storedRlp: Uint8Array,
  storedDerived: Uint8Array,
  common: Common,
  verify = false,
  headerRules?: (number: bigint) => HeaderDecodeRules,
): BlockRecord {
  return storedRecord(storedRlp, storedDerived, common, verify, headerRules, undefined)
}

/**
 * The compact record of a block just built (the block store's cache keeps this, not the built record, which is
 * about twice its size): the record {@link decodeStoredBlock} makes of `enc`, without what the built record already
 * knows — the transaction hashes (no keccak per transaction), the hash's hex key, which transaction is the Remasc one
 * (no Remasc RLP made to compare with), each receipt's status and gas (only its bloom is found in its RLP, as a
 * view). Its byte fields are views into its own copy of `enc`, as a decoded block's.
 * @param built the block as built; @param enc its encodings (./block-codec.ts `encodeBlock`)
 * @param common the chain's Common; @param headerRules as for {@link decodeStoredBlock}
 * @throws StorageCorruptError when `enc` does not decode or does not hold `built`'s transactions
 */
export function compactRecord(
  built: BlockRecord,
  enc: { rlp: Uint8Array; derived: Uint8Array },
  common: Common,
  headerRules?: (number: bigint) => HeaderDecodeRules,
): BlockRecord {
  return storedRecord(enc.rlp, enc.derived, common, false, headerRules, built)
}

function storedRecord(
  storedRlp: Uint8Array,
  storedDerived: Uint8Array,
  common: Common,
  verify: boolean,
  headerRules: ((number: bigint) => HeaderDecodeRules) | undefined,
  built: BlockRecord | undefined,
): BlockRecord {
  const owned = new Uint8Array(storedRlp.length + storedDerived.length)
  owned.set(storedRlp)
  owned.set(storedDerived, storedRlp.length)
  const rlp = owned.subarray(0, storedRlp.length)
  const derived = owned.subarray(storedRlp.length)
  const [decodedBlock, derivedRecord] = readStored(
    'a stored block',
    () => [decodeBlock(rlp, headerRules), readDerived(derived)] as const,
  )
  const { header: rsk, txsRlp } = decodedBlock
  const header = headerFields(rsk)
  // a fork's blocks carry the format of their height, as the block builder gave it them (their raw header and
  // hash depend on it, docs/reference-rules.md#rule-network-activations)
  if (headerRules !== undefined) header.format = headerRules(header.number)
  const { hash, hashForMergedMining, totalDifficulty, txs: txEntries } = derivedRecord
  if (verify && !bytesEqual(headerHash(header), hash)) {
    throw new StorageCorruptError(`block ${header.number}: the stored header does not hash to 0x${toKey(hash)}`)
  }
  if (txEntries.length !== txsRlp.length || (built !== undefined && built.transactions.length !== txsRlp.length))
    throw new StorageCorruptError(`block ${header.number}: receipts do not match the transactions`)
  const transactions: TxRecord[] = txsRlp.map((txRlp, index) => {
    const { from, contractAddress, receipt: receiptRlp, firstLogIndex } = txEntries[index]!
    const known = built?.transactions[index]
    const receipt =
      receiptRlp.length === 0
        ? prunedReceipt()
        : new StoredReceipt(receiptRlp, firstLogIndex, contractAddress, known?.receipt)
    // the Remasc transaction (last in every mined block) is the reference's unsigned one; a built block's is the
    // record of src/blocks/remasc-tx-record.ts, whose sender is REMASC_SENDER_JSON itself
    if (
      index === txsRlp.length - 1 &&
      (known?.from === REMASC_SENDER_JSON || bytesEqual(txRlp, remascTransactionRlp(header.number)))
    )
      return new StoredTx(txRlp, REMASC_SENDER_JSON, index, receipt, common, header.number, known?.hash)
    return new StoredTx(txRlp, from, index, receipt, common, undefined, known?.hash)
  })
  return blockRecord({
    header,
    hash,
    hashKey: built !== undefined && bytesEqual(built.hash, hash) ? built.hashKey : undefined,
    hashForMergedMining,
    rlp,
    totalDifficulty: bytesToBigInt(totalDifficulty),
    transactions,
  })
}

/**
 * A stored receipt: status, gas and bloom decoded (views into `receiptRlp`, which the caller owns), its logs
 * decoded on first use and kept — most receipts of a cached block are never asked for their logs (a log query
 * reads them only when the receipt's bloom matches), and the Remasc transaction's carries five.
 */
class StoredReceipt implements ReceiptRecord {
  readonly status: 0 | 1
  readonly cumulativeGasUsed: bigint
  readonly gasUsed: bigint
  readonly logsBloom: Uint8Array
  readonly contractAddress?: Uint8Array
  private decodedLogs: LogRecord[] | undefined

  /**
   * @param receiptRlp the receipt RLP; @param firstLogIndex the block-wide index of its first log
   * @param contractAddress the created contract (20 bytes), empty for none
   * @param known the receipt as built, when this is its encoding: status and gas are taken from it and only the
   *   bloom is read from the RLP (a view)
   * @throws StorageCorruptError when the receipt does not decode
   */
  constructor(
    private readonly receiptRlp: Uint8Array,
    private readonly firstLogIndex: number,
    contractAddress: Uint8Array,
    known?: ReceiptRecord,
  ) {
    if (known !== undefined) {
      this.status = known.status
      this.cumulativeGasUsed = known.cumulativeGasUsed
      this.gasUsed = known.gasUsed
      this.logsBloom = receiptBloomView(receiptRlp)
    } else {
      const decoded = decodeStoredReceipt(receiptRlp)
      this.status = decoded.status ? 1 : 0
      this.cumulativeGasUsed = decoded.cumulativeGasUsed
      this.gasUsed = decoded.gasUsed
      this.logsBloom = decoded.logsBloom
    }
    if (contractAddress.length > 0) this.contractAddress = contractAddress
    // (the logs are read, and checked, when first asked for)
  }

  /** The receipt's logs with their block-wide indexes (decoded on first use, then kept). */
  get logs(): LogRecord[] {
    this.decodedLogs ??= receiptLogs(this.receiptRlp, this.firstLogIndex)
    return this.decodedLogs
  }
}

/**
 * A stored receipt RLP decoded in place (views into it), its logs list left unread (the result's `logs` is empty,
 * {@link receiptLogs} reads them): the receipt's other fields are what a cached block needs at once, and the Remasc
 * transaction's five logs would otherwise be decoded, and dropped, for every block cached.
 * @throws StorageCorruptError when it does not decode
 */
function decodeStoredReceipt(receiptRlp: Uint8Array): ReturnType<typeof receiptFromItems> {
  return readStored('a stored receipt', () => {
    const items = listItems(receiptRlp, wholeItem(receiptRlp)).map((item, i): RlpView =>
      i === RECEIPT_LOGS_ITEM && item.list ? [] : viewsOf(receiptRlp, item),
    )
    return receiptFromItems(items)
  })
}

/**
 * The logs of a receipt RLP (TransactionReceipt.getEncoded: item 3, a list of [address, [topics…], data]) read in
 * place: address, topics and data are views into `receiptRlp`, numbered across the block from `firstLogIndex`
 * (the block-wide index of the receipt's first log, as the derived RLP stores it; reference LogFilterElement's
 * logIndex). Only the logs item is walked, straight into the log records: the first eth_getLogs over many cached
 * blocks reads a receipt's logs for each of them, in mostly unoptimised code, where a decode of the whole receipt
 * (its items into arrays, its gas amounts into bigints, then the logs copied into records) did more than that.
 * The other items are not checked here (the record was checked when made, a log view reads its bloom).
 * @throws StorageCorruptError when the logs item does not have that shape
 */
export function receiptLogs(receiptRlp: Uint8Array, firstLogIndex: number): LogRecord[] {
  return readStored('a stored receipt', () => {
    const whole = wholeItem(receiptRlp)
    if (!whole.list) throw new Error('RLP: expected a list')
    let at = whole.data
    for (let i = 0; i < RECEIPT_LOGS_ITEM; i++) at = itemBounds(receiptRlp, at, whole.end).end
    const list = itemBounds(receiptRlp, at, whole.end)
    if (!list.list) throw new Error('bad receipt RLP logs')
    const out: LogRecord[] = []
    for (at = list.data; at < list.end;) {
      const log = itemBounds(receiptRlp, at, list.end)
      at = log.end
      const address = log.list ? itemBounds(receiptRlp, log.data, log.end) : undefined
      const topicList =
        address !== undefined && !address.list ? itemBounds(receiptRlp, address.end, log.end) : undefined
      const data = topicList?.list === true ? itemBounds(receiptRlp, topicList.end, log.end) : undefined
      if (data === undefined || data.list || data.end !== log.end) throw new Error('bad receipt RLP logs')
      const topics: Uint8Array[] = []
      for (let t = topicList!.data; t < topicList!.end;) {
        const topic = itemBounds(receiptRlp, t, topicList!.end)
        if (topic.list) throw new Error('bad receipt RLP logs')
        topics.push(receiptRlp.subarray(topic.data, topic.end))
        t = topic.end
      }
      out.push({
        address: receiptRlp.subarray(address!.data, address!.end),
        topics,
        data: receiptRlp.subarray(data.data, data.end),
        logIndex: firstLogIndex + out.length,
      })
    }
    return out
  })
}

/**
 * The 256-byte logs bloom of a receipt RLP, read in place (a view into it; item 2 of TransactionReceipt.getEncoded).
 * @throws StorageCorruptError when the RLP has no such item
 */
function receiptBloomView(receiptRlp: Uint8Array): Uint8Array {
  return readStored('a stored receipt', () => {
    const whole = wholeItem(receiptRlp)
    const at = skipItems(receiptRlp, whole.data, RECEIPT_BLOOM_ITEM)
    const bloom = rlpItem(receiptRlp, at)
    if (!whole.list || receiptRlp[at]! >= 0xc0 || bloom.end - bloom.data !== 256 || bloom.end > whole.end)
      throw new StorageCorruptError('a stored receipt has no logs bloom')
    return receiptRlp.subarray(bloom.data, bloom.end)
  })
}

/** Position of the bloom among a receipt RLP's items (TransactionReceipt.getEncoded). */
const RECEIPT_BLOOM_ITEM = 2
