/**
 * The logs of a stored block read from its encodings without decoding the block (docs/architecture.md#storage):
 * what eth_getLogs needs of a block that is not in the block store's decoded cache. The header is not decoded,
 * no transaction object is built, a transaction's hash is computed only when asked, and a receipt is decoded only
 * when its bloom may match the query — a scan over many blocks then costs a fraction of decoding them.
 */
import { keccak256 } from '../crypto/keccak.js'
import { decodeReceipt } from '../rsk/receipt-rlp.js'
import { bytesToBigInt } from '../util/bytes.js'
import { listItems, wholeItem } from '../util/rlp-views.js'
import { blockLogsBloom, StorageCorruptError } from './block-codec.js'
import { indexedLogs } from './stored-block.js'
import type { LogBlock, LogRecord, LogTx } from '../types/records.js'

/** The 256-byte bloom of a receipt RLP, read in place (item 2 of the receipt list; a view into `receipt`). */
function receiptBloom(receipt: Uint8Array): Uint8Array {
  const bloom = listItems(receipt, wholeItem(receipt))[2]
  if (bloom === undefined || bloom.list || bloom.end - bloom.data !== 256)
    throw new Error('a receipt has no logs bloom')
  return receipt.subarray(bloom.data, bloom.end)
}

/** The raw RLP of each transaction of a block RLP (views into `rlp`). */
function transactionItems(rlp: Uint8Array): Uint8Array[] {
  const txList = listItems(rlp, wholeItem(rlp))[1]
  if (txList === undefined) throw new Error('a block has no transaction list')
  return listItems(rlp, txList).map((tx) => rlp.subarray(tx.start, tx.end))
}

const ZERO_BLOOM: Uint8Array = new Uint8Array(256)

/** What {@link decodeLogView} reads of one transaction's entry in the extra RLP (views into it). */
interface TxExtraView {
  /** The receipt RLP (empty when dropped by `--transaction-block-keeper`). */
  receipt: Uint8Array
  /** Index of the receipt's first log in the block. */
  firstLogIndex: number
}

/**
 * The block hash and each transaction's receipt and first log index, read in place from an extra RLP
 * (src/chain/block-codec.ts `blockExtra`: [hash, hashForMergedMining, totalDifficulty, [[sender, created contract,
 * receipt, first log index], …]]) without copying its other fields: a full RLP decode copied every field, the
 * Remasc transaction's receipt with its five logs included, and cost most of a scan over blocks outside the cache.
 * @returns the hash (a copy) and, per transaction, views into `extra`
 * @throws Error when the record does not have that shape (every item read is checked to lie inside its list)
 */
function readExtra(extra: Uint8Array): { hash: Uint8Array; txs: TxExtraView[] } {
  const fields = listItems(extra, wholeItem(extra))
  const [hash, , , txList] = fields
  if (fields.length !== 4 || hash!.list || hash!.end - hash!.data !== 32)
    throw new Error('an extra record is malformed')
  const txs = listItems(extra, txList!).map((entry): TxExtraView => {
    const [, , receipt, logIndex] = listItems(extra, entry)
    if (receipt === undefined || receipt.list || logIndex === undefined || logIndex.list)
      throw new Error("a transaction's extra entry is malformed")
    return {
      receipt: extra.subarray(receipt.data, receipt.end),
      firstLogIndex: Number(bytesToBigInt(extra.subarray(logIndex.data, logIndex.end))),
    }
  })
  return { hash: extra.slice(hash!.data, hash!.end), txs }
}

/**
 * A block's logs as a {@link LogBlock}, decoded from its encodings (src/chain/block-codec.ts).
 * @param number the block number; @param rlp its block RLP; @param extra its extra RLP (both owned by the caller
 *   for as long as the view is used)
 * @param receiptMayMatch when given, receipts whose bloom it rules out are not decoded (their logs read as empty);
 *   without it every receipt is decoded
 * @throws StorageCorruptError when the encodings do not have the block shape
 */
export function decodeLogView(
  number: bigint,
  rlp: Uint8Array,
  extra: Uint8Array,
  receiptMayMatch?: (bloom: Uint8Array) => boolean,
): LogBlock {
  let hash: Uint8Array, txExtras: TxExtraView[], items: Uint8Array[]
  try {
    ;({ hash, txs: txExtras } = readExtra(extra))
    items = transactionItems(rlp)
  } catch (err) {
    throw new StorageCorruptError(`block ${number}: the stored block does not read: ${(err as Error).message}`, {
      cause: err,
    })
  }
  if (items.length !== txExtras.length)
    throw new StorageCorruptError(`block ${number}: receipts do not match the transactions`)
  const transactions = txExtras.map(({ receipt: receiptRlp, firstLogIndex }, index): LogTx => {
    let logs: LogRecord[] = []
    let logsBloom = ZERO_BLOOM
    // an empty receipt: dropped by --transaction-block-keeper
    if (receiptRlp.length > 0) {
      try {
        logsBloom = receiptBloom(receiptRlp)
        if (receiptMayMatch === undefined || receiptMayMatch(logsBloom)) {
          logs = indexedLogs(decodeReceipt(receiptRlp).logs, firstLogIndex)
        }
      } catch (err) {
        throw new StorageCorruptError(`block ${number}: a stored receipt does not read: ${(err as Error).message}`, {
          cause: err,
        })
      }
    }
    let txHash: Uint8Array | undefined
    return {
      get hash(): Uint8Array {
        txHash ??= keccak256(items[index]!)
        return txHash
      },
      index,
      receipt: { logs, logsBloom },
    }
  })
  return { hash, header: { number, logsBloom: blockLogsBloom(rlp) }, transactions }
}
